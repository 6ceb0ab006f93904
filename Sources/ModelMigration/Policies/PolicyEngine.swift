import DataModel
import Foundation
import Mapping
public import MigrationPolicies
public import SQLiteStore

/// Runs the policy step of a hop with the policies of a catalog, in Core Data's
/// stages across every custom entity mapping of the hop (see
/// `EntityMigrationPolicy`): instances, relationships, validation, end. Source
/// objects stream in primary-key order, inside the apply transaction.
public struct PolicyEngine: PolicyRunning {
    /// The policies available.
    public var catalog: PolicyCatalog

    /// An engine for a catalog.
    public init(catalog: PolicyCatalog) { self.catalog = catalog }

    /// The functions of a policy of the catalog.
    public func functions(of name: String) -> [PolicyFunction]? { catalog.policy(named: name)?.functions }

    /// One entity mapping's policy while the stages run.
    private struct Run {
        let invocation: PolicyInvocation
        let mapping: EntityMapping
        let manager: MigrationManager
        let usesRelationshipPhase: Bool
        var policy: any EntityMigrationPolicy
    }

    public func run(
        _ invocations: [PolicyInvocation], hop: MigrationHop, store: Store,
        progress: (MigrationEvent) -> Void
    ) throws -> PolicyStageReport {
        let connection = store.connection
        let reader = SourceReader(connection: connection, version: hop.source, layout: hop.sourceLayout)
        var runs: [Run] = []
        for invocation in invocations {
            guard let type = catalog.policy(named: invocation.policy) else {
                throw MigrationError(
                    kind: .stepFailed,
                    message: """
                        policy '\(invocation.policy)' is not compiled into this migrate \
                        (available: \(catalog.names.joined(separator: ", "))); nothing was changed
                        """)
            }
            guard let mapping = hop.mapping.entityMappings.first(where: { $0.name == invocation.mappingName }) else {
                continue
            }
            let manager = try MigrationManager(
                mapping: mapping, hopMappings: hop.mapping.entityMappings, destination: hop.destination,
                destinationLayout: hop.destinationLayout, connection: connection, buildTables: invocation.buildTables,
                reader: reader)
            runs.append(
                Run(
                    invocation: invocation, mapping: mapping, manager: manager,
                    usesRelationshipPhase: type.usesRelationshipPhase, policy: type.init()))
        }
        // Associations of earlier hops of the same apply are not this hop's.
        try connection.execute("DELETE FROM mm_associations")

        var stages = Stages(runs: runs, reader: reader, hop: hop, connection: connection)
        // Stage 1: every mapping creates its destination objects.
        for index in runs.indices {
            let total = try sourceCount(runs[index], hop: hop, connection: connection)
            try stages.createInstances(index, total: total, progress: progress)
        }
        // Stage 2: every mapping sets relationships.
        for index in runs.indices { try stages.createRelationships(index) }
        // Stage 3: every mapping validates, then ends.
        for index in runs.indices {
            try stages.phase(index, "performCustomValidation") { try $0.performCustomValidation($1) }
        }
        for index in runs.indices {
            try stages.phase(index, "end") { try $0.end($1) }
        }
        runs = stages.runs
        for run in runs {
            try requireValues(run, hop: hop, connection: connection)
        }
        var report = PolicyStageReport()
        for run in runs {
            report.emptied += try emptiedProperties(run, hop: hop, connection: connection)
        }
        // The associations last for the rest of the hop: its later steps point
        // references into what the policies made through them (SegmentPlanner).
        return report
    }

    /// The stages' state: every mapping's policy and manager, and the reader of the
    /// source objects, with how a failure is worded.
    private struct Stages {
        var runs: [Run]
        let reader: SourceReader
        let hop: MigrationHop
        let connection: Connection

        /// A policy's error worded with its policy, entity, source key and stage.
        func fail(_ run: Run, _ error: any Error, phase: String) -> MigrationError {
            if let error = error as? MigrationError { return error }
            let key = run.manager.currentSourceKey.map { " (source primary key \($0))" } ?? ""
            let message = (error as? PolicyError)?.message ?? "\(error)"
            return MigrationError(
                kind: .stepFailed,
                message: """
                    policy \(run.invocation.policy) failed on \(run.invocation.sourceEntity)\(key) in \(phase): \
                    \(message); nothing was changed
                    """)
        }
        /// A policy that read a property its source entity lacks would write what it
        /// made of `nil` into every row: stop at the first such read.
        func checkReads(_ run: Run, phase: String) throws {
            let unknown = reader.takeUnknownReads()
            guard !unknown.isEmpty else { return }
            let entity = hop.source.entity(named: run.invocation.sourceEntity)
            let known = (entity?.attributes.map(\.name) ?? []) + (entity?.relationships.map(\.name) ?? [])
            throw fail(
                run,
                PolicyError(
                    """
                    read \(unknown.joined(separator: ", ")), which version \(hop.source.version) does not have \
                    (\(run.invocation.sourceEntity) has: \(known.joined(separator: ", "))); is the mapping file meant \
                    for another hop?
                    """), phase: phase)
        }
        /// Calls one stage of one mapping's policy.
        mutating func phase(
            _ index: Int, _ name: String, _ body: (inout any EntityMigrationPolicy, MigrationManager) throws -> Void
        ) throws {
            do { try body(&runs[index].policy, runs[index].manager) } catch {
                throw fail(runs[index], error, phase: name)
            }
            // Called per row: look before copying the run.
            if reader.hasUnknownReads { try checkReads(runs[index], phase: name) }
        }

        /// Stage 1 of one mapping: `begin`, `createDestinationInstances` per source
        /// object in key order, `endInstanceCreation`.
        mutating func createInstances(_ index: Int, total: Int64, progress: (MigrationEvent) -> Void) throws {
            let run = runs[index]
            run.manager.progress = (0, total)
            try phase(index, "begin") { try $0.begin($1) }
            var done: Int64 = 0
            try reader.forEach(run.invocation.sourceEntity) { source in
                run.manager.currentSourceKey = source.primaryKey
                try phase(index, "createDestinationInstances") {
                    try $0.createDestinationInstances(for: source, in: $1)
                }
                done += 1
                run.manager.progress = (done, total)
                if done % 4096 == 0 || done == total { progress(.rows(done: done, total: total)) }
            }
            run.manager.currentSourceKey = nil
            try phase(index, "endInstanceCreation") { try $0.endInstanceCreation($1) }
        }

        /// Stage 2 of one mapping: `createRelationships` for each object of the
        /// mapping (its own, with their sources' keys, then the others it associated)
        /// read back in key order, nothing held in memory; `endRelationshipCreation`.
        mutating func createRelationships(_ index: Int) throws {
            let run = runs[index]
            if run.usesRelationshipPhase, let destinationEntity = run.mapping.destination,
                let entity = hop.destination.entity(named: destinationEntity),
                let number = hop.destinationLayout.entityNumbers[destinationEntity]
            {
                let table = try run.manager.physicalTable(for: entity)
                let own = try connection.prepare(
                    "SELECT Z_PK FROM \(SQLText.q(table)) WHERE Z_ENT = \(number) ORDER BY Z_PK")
                while try own.step() {
                    let key = own.int64(at: 0)
                    run.manager.currentSourceKey = key
                    guard let destination = try run.manager.destinationObject(entity: destinationEntity, key: key)
                    else { continue }
                    try phase(index, "createRelationships") { try $0.createRelationships(for: destination, in: $1) }
                }
                // Objects of other entities the mapping created (those of its own
                // entity were all visited above, whatever their keys).
                let others = try connection.prepare(
                    """
                    SELECT DISTINCT entity, destination FROM mm_associations WHERE mapping = ? AND entity <> ? ORDER \
                    BY entity, destination
                    """
                )
                try others.bind([.text(run.mapping.name), .text(destinationEntity)])
                while try others.step() {
                    let name = others.string(at: 0), key = others.int64(at: 1)
                    run.manager.currentSourceKey = nil
                    guard let destination = try run.manager.destinationObject(entity: name, key: key) else { continue }
                    try phase(index, "createRelationships") { try $0.createRelationships(for: destination, in: $1) }
                }
            }
            run.manager.currentSourceKey = nil
            try phase(index, "endRelationshipCreation") { try $0.endRelationshipCreation($1) }
        }
    }

    /// Core Data validates the objects a migration made when it saves them: a
    /// required attribute still nil after every stage (a source value of nil carried
    /// into an attribute that became required, or one the policy never set) fails
    /// the hop naming the first such object, before the generic checks count them.
    private func requireValues(_ run: Run, hop: MigrationHop, connection: Connection) throws {
        guard let name = run.mapping.destination, let entity = hop.destination.entity(named: name),
            let table = hop.destinationLayout.table(forEntity: entity.root),
            let number = hop.destinationLayout.entityNumbers[name]
        else { return }
        let physical = run.invocation.buildTables[table.name] ?? table.name
        let required: [(name: String, column: String)] = entity.attributes.compactMap { attribute in
            guard !attribute.declaration.isOptional, !attribute.declaration.isTransient,
                let column = table.column(for: .attribute(entity: attribute.declaredIn, property: attribute.name))
            else { return nil }
            return (attribute.name, SQLText.q(column.name))
        }
        guard !required.isEmpty else { return }
        // One pass over the table for every required column.
        let statement = try connection.prepare(
            """
            SELECT Z_PK, \(required.map { "\($0.column) IS NULL" }.joined(separator: ", ")) FROM \
            \(SQLText.q(physical)) WHERE Z_ENT = \(number) AND \
            (\(required.map { "\($0.column) IS NULL" }.joined(separator: " OR "))) ORDER BY Z_PK LIMIT 1
            """)
        guard try statement.step(),
            let index = required.indices.first(where: { statement.int64(at: Int32($0 + 1)) != 0 })
        else { return }
        let attribute = "\(name).\(required[index].name)"
        throw MigrationError(
            kind: .stepFailed,
            message: """
                policy \(run.invocation.policy): \(name) \(statement.int64(at: 0)) has no value for required \
                \(attribute) (its source object had none, or the policy set none: set it in the policy, or give the \
                attribute a default); nothing was changed
                """)
    }

    /// Source objects of exactly the mapping's source entity.
    private func sourceCount(_ run: Run, hop: MigrationHop, connection: Connection) throws -> Int64 {
        guard let entity = hop.source.entity(named: run.invocation.sourceEntity),
            let table = hop.sourceLayout.table(forEntity: entity.root),
            let number = hop.sourceLayout.entityNumbers[run.invocation.sourceEntity]
        else { return 0 }
        return try connection.scalarInt64("SELECT count(*) FROM \(SQLText.q(table.name)) WHERE Z_ENT = \(number)") ?? 0
    }

    /// Properties the mapping file leaves to the policy (`name: policy`) that the
    /// policy left nil on objects whose source had a value under the same name:
    /// counted per property after the relationship stage, for a destructive
    /// warning (and a failure under `--verify`).
    private func emptiedProperties(_ run: Run, hop: MigrationHop, connection: Connection) throws -> [EmptiedProperty] {
        guard let sourceName = run.mapping.source, let destinationName = run.mapping.destination,
            let sourceEntity = hop.source.entity(named: sourceName),
            let entity = hop.destination.entity(named: destinationName),
            let sourceTable = hop.sourceLayout.table(forEntity: sourceEntity.root),
            let table = hop.destinationLayout.table(forEntity: entity.root),
            let sourceNumber = hop.sourceLayout.entityNumbers[sourceName],
            let number = hop.destinationLayout.entityNumbers[destinationName]
        else { return [] }
        let physical = run.invocation.buildTables[table.name] ?? table.name
        var found: [EmptiedProperty] = []
        for property in run.mapping.properties where property.source == .policy {
            let destinationRole: StorageLayout.Role
            let sourceRole: StorageLayout.Role
            if let attribute = entity.attribute(named: property.name),
                let old = sourceEntity.attribute(named: property.name)
            {
                guard !attribute.declaration.isTransient, !old.declaration.isTransient else { continue }
                destinationRole = .attribute(entity: attribute.declaredIn, property: property.name)
                sourceRole = .attribute(entity: old.declaredIn, property: property.name)
            } else if let relationship = entity.relationship(named: property.name), !relationship.declaration.isToMany,
                let old = sourceEntity.relationship(named: property.name), !old.declaration.isToMany
            {
                destinationRole = .toOne(entity: relationship.declaredIn, relationship: property.name)
                sourceRole = .toOne(entity: old.declaredIn, relationship: property.name)
            } else {
                continue
            }
            guard let column = table.column(for: destinationRole),
                let sourceColumn = sourceTable.column(for: sourceRole)
            else { continue }
            // Each destination object of the mapping against the source it was made
            // from: its own source (same key) or the ones associated with it.
            let rows =
                try connection.scalarInt64(
                    """
                    SELECT count(*) FROM \(SQLText.q(physical)) AS d WHERE d.Z_ENT = \(number) AND \
                    d.\(SQLText.q(column.name)) IS NULL
                    AND EXISTS (SELECT 1 FROM \(SQLText.q(sourceTable.name)) AS s \
                    WHERE s.Z_ENT = \(sourceNumber) AND s.\(SQLText.q(sourceColumn.name)) IS NOT NULL
                        AND (s.Z_PK = d.Z_PK OR s.Z_PK IN (SELECT source FROM mm_associations WHERE mapping = ? AND \
                    destination = d.Z_PK AND entity = ?)))
                    """, .text(run.mapping.name), .text(destinationName)) ?? 0
            if rows > 0 {
                found.append(
                    EmptiedProperty(
                        entity: destinationName, property: property.name, policy: run.invocation.policy, rows: rows))
            }
        }
        return found
    }
}

/// What the policy step of a hop reports back.
public struct PolicyStageReport: Sendable, Hashable {
    /// Properties left to a policy that it left nil where the source had a value.
    public var emptied: [EmptiedProperty] = []

    /// An empty report.
    public init() {}
}

/// A property left to a policy (`name: policy` in a mapping file) that the policy
/// left nil on objects whose source object had a value.
public struct EmptiedProperty: Sendable, Hashable, CustomStringConvertible {
    /// The destination entity.
    public var entity: String
    /// The property.
    public var property: String
    /// The policy.
    public var policy: String
    /// Objects left nil whose source had a value.
    public var rows: Int64

    public var description: String {
        """
        \(entity).\(property) is left to policy \(policy), which left it nil on \(rows) object\(rows == 1 ? "" : "s") \
        whose source had a value: that data is lost
        """
    }
}
