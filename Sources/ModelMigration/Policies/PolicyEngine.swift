import DataModel
import Foundation
import Mapping
import SQLiteStore

/// Runs policy steps with the policies of a catalog: streams the source objects in
/// primary-key order through the policy's phases, inside the apply transaction.
public struct PolicyEngine: PolicyRunning {
    /// The policies available.
    public var catalog: PolicyCatalog

    /// An engine for a catalog.
    public init(catalog: PolicyCatalog) { self.catalog = catalog }

    public func run(_ invocation: PolicyInvocation, hop: MigrationHop, store: Store, progress: (MigrationEvent) -> Void) throws {
        guard let type = catalog.policy(named: invocation.policy) else {
            throw MigrationError(kind: .stepFailed, message: "policy '\(invocation.policy)' is not compiled into this migrate (available: \(catalog.names.joined(separator: ", "))); nothing was changed")
        }
        guard let mapping = hop.mapping.entityMappings.first(where: { $0.name == invocation.mappingName }) else { return }
        let manager = try MigrationManager(mapping: mapping, hop: hop, connection: store.connection, buildTables: invocation.buildTables)
        var policy = type.init()
        let total = try store.connection.scalarInt64(
            "SELECT count(*) FROM \(SchemaSQL.quote(hop.sourceLayout.table(forEntity: hop.source.entity(named: invocation.sourceEntity)!.root)!.name)) WHERE Z_ENT = \(hop.sourceLayout.entityNumbers[invocation.sourceEntity] ?? -1)") ?? 0
        manager.progress = (0, total)
        func fail(_ error: any Error, phase: String) -> MigrationError {
            let key = manager.currentSourceKey.map { " (source primary key \($0))" } ?? ""
            let message = (error as? PolicyError)?.message ?? "\(error)"
            return MigrationError(kind: .stepFailed, message: "policy \(invocation.policy) failed on \(invocation.sourceEntity)\(key) in \(phase): \(message); nothing was changed")
        }
        /// A policy that read a property its source entity lacks would write what it
        /// made of `nil` into every row: stop at the first such read.
        func checkReads(phase: String) throws {
            let unknown = manager.reader.takeUnknownReads()
            guard !unknown.isEmpty else { return }
            let entity = hop.source.entity(named: invocation.sourceEntity)
            let known = (entity?.attributes.map(\.name) ?? []) + (entity?.relationships.map(\.name) ?? [])
            throw fail(PolicyError("read \(unknown.joined(separator: ", ")), which version \(hop.source.version) does not have (\(invocation.sourceEntity) has: \(known.joined(separator: ", "))); is the mapping file meant for another hop?"), phase: phase)
        }
        do { try policy.begin(manager) } catch { throw fail(error, phase: "begin") }
        try checkReads(phase: "begin")
        var done: Int64 = 0
        try manager.reader.forEach(invocation.sourceEntity) { source in
            manager.currentSourceKey = source.primaryKey
            do { try policy.createDestinationInstances(for: source, in: manager) } catch { throw fail(error, phase: "createDestinationInstances") }
            try checkReads(phase: "createDestinationInstances")
            done += 1
            manager.progress = (done, total)
            if done % 4096 == 0 || done == total { progress(.rows(done: done, total: total)) }
        }
        manager.currentSourceKey = nil
        do { try policy.endInstanceCreation(manager) } catch { throw fail(error, phase: "endInstanceCreation") }
        // Relationship phase: once per destination object created — the mapping's
        // own objects (their keys are their sources' keys), then the others from the
        // association table — read back in key order; nothing is held in memory.
        if type.usesRelationshipPhase, let destinationEntity = mapping.destination,
           let entity = hop.destination.entity(named: destinationEntity),
           let number = hop.destinationLayout.entityNumbers[destinationEntity] {
            let table = try manager.physicalTable(for: entity)
            let own = try store.connection.prepare("SELECT Z_PK FROM \(SchemaSQL.quote(table)) WHERE Z_ENT = \(number) ORDER BY Z_PK")
            while try own.step() {
                let key = own.int64(at: 0)
                manager.currentSourceKey = key
                guard let destination = try manager.destinationObject(entity: destinationEntity, key: key) else { continue }
                do { try policy.createRelationships(for: destination, in: manager) } catch { throw fail(error, phase: "createRelationships") }
                try checkReads(phase: "createRelationships")
            }
            let others = try store.connection.prepare("SELECT DISTINCT entity, destination FROM mm_associations WHERE mapping = ? ORDER BY entity, destination")
            try others.bind([.text(mapping.name)])
            while try others.step() {
                let name = others.string(at: 0), key = others.int64(at: 1)
                manager.currentSourceKey = nil
                guard let destination = try manager.destinationObject(entity: name, key: key) else { continue }
                do { try policy.createRelationships(for: destination, in: manager) } catch { throw fail(error, phase: "createRelationships") }
                try checkReads(phase: "createRelationships")
            }
        }
        manager.currentSourceKey = nil
        do { try policy.endRelationshipCreation(manager) } catch { throw fail(error, phase: "endRelationshipCreation") }
        do { try policy.end(manager) } catch { throw fail(error, phase: "end") }
        try checkReads(phase: "end")
        let cleanup = try store.connection.prepare("DELETE FROM mm_associations WHERE mapping = ?")
        try cleanup.bind([.text(mapping.name)])
        try cleanup.execute()
    }
}
