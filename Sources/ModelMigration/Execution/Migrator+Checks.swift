import DataModel
import Foundation
import Mapping
import SQLiteStore

extension Migrator {
    /// The references of `version` that point at no object, counted per relationship
    /// direction. A many-to-many's join table is named after one side in one
    /// version and may be named after the other in the next, so each count is also
    /// filed under the inverse's direction.
    static func danglingCounts(_ version: CompiledVersion, layout: StorageLayout, on connection: Connection) throws
        -> [ReferenceKey: Int64]
    {
        var counts: [ReferenceKey: Int64] = [:]
        for check in CheckBuilder.relationshipChecks(version, layout: layout) {
            guard let key = check.reference else { continue }
            let found = try connection.scalarInt64(check.sql) ?? 0
            counts[key] = max(counts[key] ?? 0, found)
            if let relationship = version.entity(named: key.entity)?.relationship(named: key.relationship),
                let inverse = relationship.declaration.inverse, let owner = relationship.inverseEntity,
                let declaredIn = version.entity(named: owner)?.relationship(named: inverse)?.declaredIn
            {
                let alias = ReferenceKey(entity: declaredIn, relationship: inverse, towardOwner: !key.towardOwner)
                counts[alias] = max(counts[alias] ?? 0, found)
            }
        }
        return counts
    }

    /// The same relationship direction before `hops`, when each hop copies the
    /// relationship (renamed or not); `nil` when a hop creates or rewrites it.
    static func sourceReference(_ key: ReferenceKey, through hops: [MigrationHop]) -> ReferenceKey? {
        var current = key
        for hop in hops.reversed() {
            guard let mapping = hop.mapping.mapping(forDestination: current.entity), let sourceEntity = mapping.source,
                let property = mapping.property(current.relationship)
            else { return nil }
            let from: String
            switch property.source {
            case .copy(let name), .convert(let name, .reorder), .convert(let name, .reshape): from = name
            default: return nil
            }
            guard let declaredIn = hop.source.entity(named: sourceEntity)?.relationship(named: from)?.declaredIn else {
                return nil
            }
            current = ReferenceKey(entity: declaredIn, relationship: from, towardOwner: current.towardOwner)
        }
        return current
    }

    /// `apply` on a store already at its target: nothing to migrate, but a plan
    /// made with `--verify` still verifies: its steps (every page, what a migration
    /// would rely on, every relationship) run in one read transaction. References
    /// that dangle are reported, not failed: no migration made them.
    func verifyCurrent(_ plan: MigrationPlan, options: Options) throws -> MigrationResult {
        var result = MigrationResult(
            from: plan.sourceVersion, to: plan.targetVersion, rowsTouched: 0, duration: 0,
            checksPassed: 0, dryRun: options.dryRun, backup: nil)
        guard !plan.verification.isEmpty else { return result }
        let started = Date()
        let store = try Store.open(path: plan.storePath, access: .readOnly, busyTimeout: options.timeout)
        defer { try? store.close() }
        try store.connection.transaction(.deferred) {
            for step in plan.verification { try verifyCurrent(step, of: plan, store: store, result: &result) }
        }
        result.duration = Date().timeIntervalSince(started)
        return result
    }

    /// Runs one `--verify` step on a store at its target.
    private func verifyCurrent(
        _ step: VerificationStep, of plan: MigrationPlan, store: Store, result: inout MigrationResult
    ) throws {
        let connection = store.connection
        switch step {
        case .integrity:
            let integrity = try connection.scalarString("PRAGMA integrity_check") ?? "?"
            guard integrity == "ok" else {
                throw MigrationError(
                    kind: .verifyFailed,
                    message: "--verify: \(plan.storePath): PRAGMA integrity_check says: \(integrity)")
            }
            result.checksPassed += 1
        case .store(let verification):
            let audit = StoreAudit(version: plan.target, layout: verification.layout)
            let problems =
                audit.keyTableProblems(try store.entityKeyRows())
                + (try StoreAudit.violations(of: verification.preconditions, on: connection))
            if !problems.isEmpty {
                throw MigrationError(
                    kind: .verifyFailed,
                    message: "--verify: "
                        + StoreAudit.refusal(path: plan.storePath, version: plan.target, problems: problems)
                        .replacingOccurrences(
                            of: """
                                , and migrating it would lose or misfile rows; nothing was changed. Repair the store \
                                (or restore a backup) first
                                """, with: ". Repair it (or restore a backup)"))
            }
            result.checksPassed += verification.preconditions.count
        case .currentRelationships(let checks):
            for check in checks {
                let violations = try connection.scalarInt64(check.sql) ?? 0
                if violations > 0, let reference = check.reference {
                    result.carriedDanglingReferences.append(
                        """
                        \(reference): \(violations) row\(violations == 1 ? " points" : "s point") to objects the store \
                        does not have
                        """
                    )
                } else if violations > 0 {
                    throw MigrationError(
                        kind: .verifyFailed,
                        message: """
                            --verify: \(plan.storePath): \(check.summary): \(violations) \
                            row\(violations == 1 ? " violates" : "s violate") it
                            """)
                } else {
                    result.checksPassed += 1
                }
            }
        case .policyValues, .relationships:
            throw MigrationError(
                kind: .verifyFailed,
                message: """
                    --verify: \(plan.storePath): step '\(step.summary)' belongs to a migration, and the store is at \
                    its target; plan again
                    """)
        }
    }
}

extension Migrator {
    /// After `apply` found the store changed since its plan (`storeChanged`): whether
    /// the store is now what the plan was to make of it — the same store (UUID) at
    /// the target version, with the target's entity hashes and layout — because
    /// another process (a second replica of a deploy) migrated it meanwhile.
    package static func reachedTarget(_ plan: MigrationPlan, timeout: Double) -> Bool {
        guard let store = try? Store.open(path: plan.storePath, access: .readOnly, busyTimeout: timeout) else {
            return false
        }
        defer { try? store.close() }
        guard let metadata = try? store.readMetadata() else { return false }
        return metadata.storeUUID == plan.storeUUID
            && VersionHasher.digest(metadata.versionHashes) == VersionHasher.digest(plan.target.versionHashes)
            && metadata.layoutHash == plan.target.layoutHash
    }
}
