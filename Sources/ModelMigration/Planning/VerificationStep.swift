package import DataModel

/// One of `--verify`'s steps (``MigrationPlan/verification``): a check that reads the
/// store and writes nothing, planned with the rest so that `plan --verify` shows exactly
/// what `apply --verify` runs. Its own type, apart from ``MigrationStep`` (which changes
/// the store): a hop cannot hold a check, nor `--verify` a change.
public enum VerificationStep: Sendable, Hashable, Encodable {
    /// `PRAGMA integrity_check` answers `ok` (every page of the store).
    case integrity
    /// After a plan with policies: no property left to a policy was left nil where the
    /// source had a value.
    case policyValues
    /// On a store already at its target: its entity numbers and the rows a migration
    /// would rely on.
    case store(StoreVerification)
    /// After a migration: every relationship of the target version, references that
    /// dangled before the migration carried as they were.
    case relationships([VerifiedCheck])
    /// On a store already at its target: every relationship; dangling references are
    /// reported (no migration made them), other violations fail.
    case currentRelationships([MigrationCheck])

    /// The name of a step's kind, as `plan --json` shows it (`"verifyIntegrity"`).
    public enum Kind: String, Sendable, Hashable, Codable {
        case verifyIntegrity, verifyPolicyValues, verifyStore, verifyRelationships
    }

    /// What `--verify` checks on a store already at its target, beyond its pages
    /// and relationships.
    public struct StoreVerification: Sendable, Hashable, Encodable {
        /// What a migration would rely on (rows of known entities, references to
        /// the right entities).
        public package(set) var preconditions: [MigrationCheck]
        /// The store's layout, against which `Z_PRIMARYKEY` is checked.
        package var layout: StorageLayout
    }

    /// A relationship check of `--verify` after a migration.
    public struct VerifiedCheck: Sendable, Hashable, Encodable {
        /// The check on the migrated store.
        public package(set) var check: MigrationCheck
        /// The same relationship direction in the store before the migration,
        /// when every hop copies it: as many references as dangled there may
        /// still dangle (carried as they were).
        public package(set) var before: ReferenceKey?
    }

    /// The name of its kind.
    public var kind: Kind {
        switch self {
        case .integrity: .verifyIntegrity
        case .policyValues: .verifyPolicyValues
        case .store: .verifyStore
        case .relationships, .currentRelationships: .verifyRelationships
        }
    }

    /// What it checks, for people.
    public var summary: String {
        func checks(_ count: Int) -> String { "\(count) check\(count == 1 ? "" : "s")" }
        return switch self {
        case .integrity: "PRAGMA integrity_check says ok (every page of the store)"
        case .policyValues: "no property left to a policy is nil where its source had a value"
        case .store(let store): "the store's entity numbers, and \(checks(store.preconditions.count)) of its rows"
        case .relationships(let verified): "every relationship of the target version (\(checks(verified.count)))"
        case .currentRelationships(let current): "every relationship (\(checks(current.count)))"
        }
    }

}
