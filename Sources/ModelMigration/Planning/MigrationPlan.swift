public import DataModel
public import Mapping
public import SQLiteStore

/// What a step costs, in the store's row counts (Docs/Migrations.md).
public enum StepCost: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Independent of the row count (schema change only).
    case constant
    /// Rewrites the rows of a table.
    case rewrite(rows: Int64)
    /// Updates or deletes some rows in place.
    case update(rows: Int64)
    /// Builds an index over rows.
    case indexBuild(rows: Int64)
    /// A user policy called once per row.
    case policy(rows: Int64)

    public var description: String {
        switch self {
        case .constant: "O(1)"
        case .rewrite(let n): "rewrite of \(n) row\(n == 1 ? "" : "s")"
        case .update(let n): "update of ≤ \(n) row\(n == 1 ? "" : "s")"
        case .indexBuild(let n): "index build over \(n) row\(n == 1 ? "" : "s")"
        case .policy(let n): "policy over \(n) row\(n == 1 ? "" : "s")"
        }
    }

    /// Rows the step reads or writes (0 for constant steps).
    public var rows: Int64 {
        switch self {
        case .constant: 0
        case .rewrite(let n), .update(let n), .indexBuild(let n), .policy(let n): n
        }
    }

    /// Rows the step writes: copies, updates and policies; an index build reads
    /// rows and writes none.
    public var rowsWritten: Int64 {
        switch self {
        case .rewrite(let n), .update(let n), .policy(let n): n
        case .constant, .indexBuild: 0
        }
    }

    /// Whether the step moves rows (copies, updates, deletes or hands them to a
    /// policy), so that it relies on the store's entity numbers fitting its rows.
    public var movesRows: Bool {
        switch self {
        case .rewrite, .update, .policy: true
        case .constant, .indexBuild: false
        }
    }
}

/// A mapping file's `FUNCTION($entityPolicy, 'selector:', …)` value: the policy's
/// Swift function the copy calls per source row, under an SQL function name of
/// its own.
public struct PolicyFunctionCall: Sendable, Hashable, Encodable {
    /// The policy's name.
    public package(set) var policy: String
    /// The selector (`firstNameFrom:`).
    public package(set) var selector: String
    /// The destination entity and attribute the result is stored in.
    public package(set) var entity: String
    /// The destination attribute.
    public package(set) var attribute: String
    /// The types of the arguments' values (nil: no attribute type, as for arithmetic).
    public package(set) var argumentTypes: [AttributeType?]

    /// Creates a call.
    public init(policy: String, selector: String, entity: String, attribute: String, argumentTypes: [AttributeType?]) {
        self.policy = policy
        self.selector = selector
        self.entity = entity
        self.attribute = attribute
        self.argumentTypes = argumentTypes
    }

    /// The SQL function's name in the step's SQL, quoted where it is called:
    /// `SplitFullName.firstNameFrom: → Person.firstName` (the destination is part of
    /// the name: the result is held to that attribute's rules).
    public var sqlName: String {
        Self.sqlName(policy: policy, selector: selector, destination: "\(entity).\(attribute)")
    }

    /// The SQL function name of a policy's selector whose result goes to `destination`.
    public static func sqlName(policy: String, selector: String, destination: String) -> String {
        "\(policy).\(selector) → \(destination)"
    }

    /// The SQL function's arguments: the row's key, then the selector's.
    public var sqlArity: Int { argumentTypes.count + 1 }
}

/// A policy step: the policy, the entity mapping it runs, and where the rows are
/// while the hop runs (rebuilt tables still have their build names).
public struct PolicyInvocation: Sendable, Hashable, Encodable {
    /// The policy's name.
    public package(set) var policy: String
    /// The entity mapping's name.
    public package(set) var mappingName: String
    /// The source entity.
    public package(set) var sourceEntity: String
    /// The destination entity.
    public package(set) var destinationEntity: String
    /// Destination table name → the table's name during the hop.
    public package(set) var buildTables: [String: String]
}

/// A check of the store's rows: run before commit on what the plan touched (the
/// plan fails when `sql` counts more violating rows than the store already had),
/// or before any step as a precondition (any violating row refuses the migration).
public struct MigrationCheck: Sendable, Hashable, Encodable {
    /// What is checked, for people.
    public package(set) var summary: String
    /// `SELECT count(*) …` of the violating rows.
    public package(set) var sql: SQLFragment
    /// `SELECT <text> …` naming a few violating rows, for the error message.
    public package(set) var rowsSQL: SQLFragment? = nil
    /// A cheaper query that finds nothing exactly when `sql` counts nothing (a
    /// reference check over the distinct keys, read from their index, instead of
    /// every row): run first, and `sql` only when it finds something.
    public package(set) var probeSQL: SQLFragment? = nil
    /// For a requirement the data decides: what to do about violating objects.
    public package(set) var remedy: String? = nil
    /// The relationship whose references this check follows: references that
    /// already dangled in the store before the migration are carried as they are,
    /// so the check then allows as many violations as the store had.
    public package(set) var reference: ReferenceKey? = nil

    /// For a reference check: how to remove the violating references, as Core
    /// Data's nullify would (a join row deleted, a key set to nil).
    public package(set) var repair: Repair? = nil

    /// For a precondition: the table whose rebuild, a step of the first hop that
    /// reads every row of it, finds this check's violations in its own scan (a row
    /// of no entity of the table is copied by none of the rebuild's copies, and
    /// leaves the new table short of the old one's count). `apply` then runs no
    /// scan of its own for it before the steps; when any step fails, it rolls the
    /// steps back and runs every precondition on the store as it was, refusing it
    /// exactly as before any step. Nil: checked before any step.
    public package(set) var checkedByRebuildOf: String? = nil

    /// A statement removing a check's violations.
    public struct Repair: Sendable, Hashable, Encodable {
        /// The table it changes.
        public package(set) var table: String
        /// `DELETE …` (join rows) or `UPDATE … SET key = NULL …`.
        public package(set) var sql: SQLFragment
        /// True when it deletes rows (a join table's), false when it clears keys.
        public package(set) var deletesRows: Bool
    }

    /// Creates a check.
    public init(
        summary: String, sql: String, rowsSQL: String? = nil, reference: ReferenceKey? = nil, remedy: String? = nil,
        repair: Repair? = nil
    ) {
        self.init(
            summary: summary, statement: SQLFragment(sql), rows: rowsSQL.map { SQLFragment($0) }, reference: reference,
            remedy: remedy, repair: repair)
    }

    /// Creates a check of statements that may carry bound values.
    package init(
        summary: String, statement: SQLFragment, rows: SQLFragment? = nil, reference: ReferenceKey? = nil,
        remedy: String? = nil, repair: Repair? = nil
    ) {
        self.summary = summary
        self.sql = statement
        self.rowsSQL = rows
        self.reference = reference
        self.remedy = remedy
        self.repair = repair
    }
}

/// One direction of a relationship's stored references, the same in every version
/// it is copied through: `entity.relationship` pointing at its destinations, or
/// (`towardOwner`) the stored keys of the objects that hold it (the owner side of a
/// join table, the key column of a to-many without an inverse).
public struct ReferenceKey: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The entity declaring the relationship.
    public package(set) var entity: String
    /// The relationship.
    public package(set) var relationship: String
    /// True for the keys of the declaring entity's rows.
    public package(set) var towardOwner: Bool

    /// Creates a key.
    public init(entity: String, relationship: String, towardOwner: Bool) {
        self.entity = entity
        self.relationship = relationship
        self.towardOwner = towardOwner
    }

    public var description: String { "\(entity).\(relationship)\(towardOwner ? " (owner keys)" : "")" }
}

/// Something an operator should read before applying: data that will be lost.
public struct MigrationWarning: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The message.
    public package(set) var message: String
    /// True when data is lost (a dropped attribute or entity holding data).
    public package(set) var isDestructive: Bool
    /// What loses data, as `--accept` names it: `Entity.property`, or `Entity` for
    /// objects of an entity (nil for a warning that names nothing to accept).
    public package(set) var subject: String? = nil
    /// How many values, objects or pairs are lost (nil when not counted).
    public package(set) var count: Int64? = nil
    /// The versions of the hop (or fused run of hops) it comes from.
    public package(set) var fromVersion: Int? = nil
    /// The destination version of that hop.
    public package(set) var toVersion: Int? = nil
    /// True when a reviewed acceptance (`--accept`, `accepted-losses.yaml`) lets it
    /// through `--fail-on-destructive`.
    public package(set) var isAccepted: Bool? = nil

    /// Creates a warning.
    package init(message: String, isDestructive: Bool, subject: String? = nil, count: Int64? = nil) {
        self.message = message
        self.isDestructive = isDestructive
        self.subject = subject
        self.count = count
    }

    public var description: String {
        (isDestructive ? (isAccepted == true ? "destructive (accepted): " : "destructive: ") : "") + message
    }
}

/// One segment of the chain: adjacent inferred hops fused into one mapping, or one
/// hop with its mapping file.
public struct MigrationHop: Sendable, Hashable, Encodable {
    /// The source version.
    public package(set) var from: Int
    /// The destination version.
    public package(set) var to: Int
    /// What the path piece it belongs to executes (a mapping file, an inferred
    /// chain, the direct inferred mapping).
    public package(set) var kind: MigrationPath.Kind = .inferredChain
    /// The mapping it executes.
    public package(set) var mapping: MappingModel
    /// SHA-256 of the mapping (and of its file, when there is one), recorded in history.
    public package(set) var digest: String
    /// Steps in execution order.
    public package(set) var steps: [MigrationStep]
    /// Checks run after the steps, before commit.
    public package(set) var checks: [MigrationCheck]
    /// What the stored data must satisfy for the hop to migrate, checked on its
    /// source before its steps (by the planner, when the store holds the hop's
    /// source, and by `apply`): any violating object refuses it.
    public package(set) var requirements: [MigrationCheck] = []
    /// The source version of the hop (policies read its rows).
    public package(set) var source: CompiledVersion
    /// The destination version of the hop.
    public package(set) var destination: CompiledVersion
    /// The store's layout before the hop.
    package var sourceLayout: StorageLayout
    /// The store's layout after the hop.
    package var destinationLayout: StorageLayout
}

/// Everything `migrate apply` will do, decided before anything is done: `migrate
/// plan` prints this value, and `apply` executes exactly it.
public struct MigrationPlan: Sendable, Hashable, Encodable {
    /// The store's path.
    public package(set) var storePath: String
    /// The model.
    public package(set) var model: String
    /// The store's version, recognised from its hashes.
    public package(set) var sourceVersion: Int
    /// The target version.
    public package(set) var targetVersion: Int
    /// The store's metadata hashes when planned (apply refuses a store that changed since).
    public package(set) var sourceHashesDigest: String
    /// The store's UUID.
    public package(set) var storeUUID: String
    /// Segments in order; empty when there is nothing to do.
    public package(set) var hops: [MigrationHop]
    /// The path chosen from the store's version to the target, with why.
    public var path = MigrationPath(preference: .automatic, pieces: [], notTaken: [], differences: [])
    /// Warnings for the operator.
    public package(set) var warnings: [MigrationWarning]
    /// The compiled target version (stamped into the store and its model cache).
    public package(set) var target: CompiledVersion
    /// The store's entity numbers after the migration.
    public package(set) var entityNumbers: [String: Int]
    /// The model's current (highest) version.
    public package(set) var currentVersion: Int = 0
    /// What the plan relies on in the store, checked in the apply transaction
    /// before any step: a violating row refuses the migration, store unchanged.
    public package(set) var preconditions: [MigrationCheck] = []
    /// References that already dangle in the store (counted when planning), carried
    /// as they are by the migration.
    public package(set) var danglingReferences: [DanglingReferences] = []
    /// References that dangle in the store and that the plan's first steps remove
    /// (`removesDanglingReferences`): join rows deleted, keys set to nil.
    public package(set) var removedDanglingReferences: [DanglingReferences] = []
    /// `--verify`'s steps, run after every hop before commit (or, on a store
    /// already at its target, on their own in a read transaction): planned with
    /// the rest, so that `plan --verify` shows exactly what `apply --verify` runs.
    public package(set) var verification: [VerificationStep] = []
    /// The settings the plan was made with.
    public var options = PlanningOptions()

    /// True when the store is already at the target.
    public var isEmpty: Bool { hops.isEmpty }

    /// Every step of every hop.
    public var allSteps: [MigrationStep] { hops.flatMap(\.steps) }

    /// The warnings that say data is lost (`apply --fail-on-destructive` refuses them).
    public var destructiveWarnings: [MigrationWarning] { warnings.filter(\.isDestructive) }

    /// The policies the plan's mapping files name that are not among `known`, each
    /// with the mapping file naming it, in hop order: a plan made without checking
    /// policies (read-only commands) can be shown, not applied. Both forms count: a
    /// policy running the stages (`policy:`) and one whose functions a set-based
    /// copy calls (`FUNCTION($entityPolicy, …)`).
    public func missingPolicies(known: Set<String>) -> [(policy: String, mappingFile: String?)] {
        var missing: [(policy: String, mappingFile: String?)] = []
        for hop in hops {
            for mapping in hop.mapping.entityMappings where mapping.policy != nil {
                guard let policy = mapping.policy, !known.contains(policy),
                    !missing.contains(where: { $0.policy == policy })
                else { continue }
                missing.append((policy, hop.mapping.mappingFile))
            }
        }
        return missing
    }
}

/// References of one relationship that point at objects the store does not have,
/// found before the migration (real Core Data stores carry some).
public struct DanglingReferences: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The relationship direction.
    public package(set) var reference: ReferenceKey
    /// What the references should point to, for people.
    public package(set) var summary: String
    /// How many rows hold such a reference.
    public package(set) var rows: Int64

    public var description: String {
        """
        \(reference): \(rows) row\(rows == 1 ? "" : "s") already point\(rows == 1 ? "s" : "") to objects the store \
        does not have (carried as they are)
        """
    }
}
