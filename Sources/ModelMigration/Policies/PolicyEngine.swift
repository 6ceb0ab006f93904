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
        do { try policy.begin(manager) } catch { throw fail(error, phase: "begin") }
        var done: Int64 = 0
        try manager.reader.forEach(invocation.sourceEntity) { source in
            manager.currentSourceKey = source.primaryKey
            do { try policy.createDestinationInstances(for: source, in: manager) } catch { throw fail(error, phase: "createDestinationInstances") }
            done += 1
            manager.progress = (done, total)
            if done % 4096 == 0 || done == total { progress(.rows(done: done, total: total)) }
        }
        manager.currentSourceKey = nil
        do { try policy.endInstanceCreation(manager) } catch { throw fail(error, phase: "endInstanceCreation") }
        // Relationship phase: once per destination object created, read back from the
        // association table in key order (nothing is held in memory).
        let associations = try store.connection.prepare("SELECT DISTINCT entity, destination, source FROM mm_associations WHERE mapping = ? ORDER BY entity, destination")
        try associations.bind([.text(mapping.name)])
        var seen: (String, Int64)?
        while try associations.step() {
            let entity = associations.string(at: 0), key = associations.int64(at: 1)
            if let last = seen, last == (entity, key) { continue }
            seen = (entity, key)
            manager.currentSourceKey = associations.int64(at: 2)
            guard let destination = try manager.destinationObject(entity: entity, key: key) else { continue }
            do { try policy.createRelationships(for: destination, in: manager) } catch { throw fail(error, phase: "createRelationships") }
        }
        manager.currentSourceKey = nil
        do { try policy.endRelationshipCreation(manager) } catch { throw fail(error, phase: "endRelationshipCreation") }
        do { try policy.end(manager) } catch { throw fail(error, phase: "end") }
        let cleanup = try store.connection.prepare("DELETE FROM mm_associations WHERE mapping = ?")
        try cleanup.bind([.text(mapping.name)])
        try cleanup.execute()
    }
}
