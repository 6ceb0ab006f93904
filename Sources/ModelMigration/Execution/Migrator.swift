import DataModel
import Foundation
import Mapping
import SQLiteStore

/// A progress event of `apply`, for a progress bar or JSON Lines.
public enum MigrationEvent: Sendable {
    /// A step starts: its position, the total, its summary and cost.
    case stepStarted(index: Int, of: Int, summary: String, cost: StepCost)
    /// A step ended after `seconds`, having changed `rows` rows.
    case stepFinished(index: Int, seconds: Double, rows: Int64)
    /// Rows done within a long step (policies), of a total.
    case rows(done: Int64, total: Int64)
    /// The checks start.
    case checking(count: Int)
}

/// Why `apply` failed; the store is unchanged.
public struct MigrationError: Error, Sendable, CustomStringConvertible {
    /// The broad reason.
    public enum Kind: Sendable, Hashable {
        case locked, storeChanged, stepFailed, checkFailed, backupFailed, verifyFailed
    }
    /// The reason.
    public var kind: Kind
    /// What happened, for people.
    public var message: String

    public var description: String { message }
}

/// What `apply` did.
public struct MigrationResult: Sendable, Codable {
    /// The version before.
    public var from: Int
    /// The version after.
    public var to: Int
    /// Rows written (inserted, copied, updated or deleted).
    public var rowsTouched: Int64
    /// Seconds from the lock to the commit.
    public var duration: Double
    /// Checks run before commit, all passed.
    public var checksPassed: Int
    /// True when rolled back on purpose (`--dry-run`).
    public var dryRun: Bool
    /// The backup written, if any.
    public var backup: String?
}

/// Executes a `MigrationPlan`, exactly as planned, in one SQLite transaction: steps,
/// checks, then the new metadata, then commit. Any failure, crash or kill leaves
/// the store exactly as it was (SQLite's journal rolls the transaction back).
public struct Migrator {
    /// Options of `apply`.
    public struct Options: Sendable {
        /// Write a consistent copy of the store here first (must not exist).
        public var backupPath: String?
        /// Run everything, report, then roll back.
        public var dryRun = false
        /// Also run `PRAGMA integrity_check` and every relationship check.
        public var verify = false
        /// Seconds to wait for another process's lock.
        public var timeout: Double = 30
        /// Tool name recorded in the history.
        public var tool = "ModelMigration"

        /// Default options.
        public init(backupPath: String? = nil, dryRun: Bool = false, verify: Bool = false, timeout: Double = 30) {
            self.backupPath = backupPath
            self.dryRun = dryRun
            self.verify = verify
            self.timeout = timeout
        }
    }

    /// Runs the policies of custom entity mappings; `nil` when the plan has none.
    public var policyRunner: (any PolicyRunning)?

    /// Creates a migrator.
    public init(policyRunner: (any PolicyRunning)? = nil) {
        self.policyRunner = policyRunner
    }

    /// Applies `plan` to its store.
    @discardableResult
    public func apply(_ plan: MigrationPlan, options: Options = Options(), progress: (MigrationEvent) -> Void = { _ in }) throws -> MigrationResult {
        let store = try Store.open(path: plan.storePath, access: .readWrite, busyTimeout: options.timeout)
        defer { try? store.close() }
        let connection = store.connection
        if let backup = options.backupPath {
            guard !FileManager.default.fileExists(atPath: backup) else {
                throw MigrationError(kind: .backupFailed, message: "\(backup): the backup file already exists; choose a new path")
            }
        }
        let started = Date()
        // A backup cannot be taken by the connection that holds the write lock, so it
        // is taken just before; PRAGMA data_version tells whether another process
        // committed in between, and then the backup is taken again.
        var attempts = 0
        while true {
            attempts += 1
            let versionBefore = try connection.scalarInt64("PRAGMA data_version") ?? 0
            if let backup = options.backupPath {
                try? FileManager.default.removeItem(atPath: backup)
                do {
                    try connection.backup(to: backup)
                } catch {
                    try? FileManager.default.removeItem(atPath: backup)
                    throw MigrationError(kind: .backupFailed, message: "\(backup): backup failed: \(error); nothing was changed")
                }
            }
            do {
                try connection.execute("BEGIN IMMEDIATE")
            } catch {
                if let backup = options.backupPath { try? FileManager.default.removeItem(atPath: backup) }
                if error.kind == .busy || error.kind == .locked {
                    throw MigrationError(kind: .locked, message: "\(plan.storePath): the store is locked by another process (waited \(options.timeout) s); nothing was changed")
                }
                throw StoreError.from(error, path: plan.storePath)
            }
            let versionAfter = try connection.scalarInt64("PRAGMA data_version") ?? 0
            if options.backupPath == nil || versionAfter == versionBefore { break }
            try connection.execute("ROLLBACK")
            if attempts >= 5 {
                if let backup = options.backupPath { try? FileManager.default.removeItem(atPath: backup) }
                throw MigrationError(kind: .backupFailed, message: "\(plan.storePath): the store kept changing while it was being backed up; nothing was changed")
            }
        }
        var committed = false
        defer { if !committed { try? connection.execute("ROLLBACK") } }

        // The store must still be what was planned for.
        let metadata = try store.readMetadata()
        guard VersionHasher.digest(metadata.versionHashes) == plan.sourceHashesDigest, metadata.storeUUID == plan.storeUUID else {
            throw MigrationError(kind: .storeChanged, message: "\(plan.storePath): the store changed since it was planned (another migration ran?); plan again")
        }

        let steps = plan.allSteps
        var index = 0
        let before = connection.totalChanges
        var checksPassed = 0
        for hop in plan.hops {
            for step in hop.steps {
                index += 1
                progress(.stepStarted(index: index, of: steps.count, summary: step.summary, cost: step.cost))
                let stepStart = Date()
                let changesBefore = connection.totalChanges
                if let invocation = step.policy {
                    guard let runner = policyRunner else {
                        throw MigrationError(kind: .stepFailed, message: "step \(index) (\(step.summary)) needs policy '\(invocation.policy)', and no policies are available to this migrator; nothing was changed")
                    }
                    try runner.run(invocation, hop: hop, store: store, progress: progress)
                    progress(.stepFinished(index: index, seconds: Date().timeIntervalSince(stepStart), rows: Int64(connection.totalChanges - changesBefore)))
                    continue
                }
                do {
                    let expected = try step.expectedRowsSQL.map { try connection.scalarInt64($0) ?? 0 }
                    for sql in step.sql { try connection.execute(sql) }
                    if let expected, let table = step.table {
                        let buildName = step.sql.first.flatMap { Self.createdTable($0) } ?? table
                        let actual = try connection.scalarInt64("SELECT count(*) FROM \(SchemaSQL.quote(buildName))") ?? 0
                        if actual != expected {
                            throw MigrationError(kind: .checkFailed, message: "\(table): the rebuilt table holds \(actual) rows, \(expected) expected")
                        }
                    }
                } catch let error as MigrationError {
                    throw error
                } catch {
                    throw MigrationError(kind: .stepFailed, message: "step \(index) (\(step.summary)) failed: \(error); nothing was changed")
                }
                progress(.stepFinished(index: index, seconds: Date().timeIntervalSince(stepStart), rows: Int64(connection.totalChanges - changesBefore)))
            }
            progress(.checking(count: hop.checks.count))
            for check in hop.checks {
                let violations = try connection.scalarInt64(check.sql) ?? 0
                if violations > 0 {
                    throw MigrationError(kind: .checkFailed, message: "check failed: \(check.summary): \(violations) row\(violations == 1 ? "" : "s") violate it; nothing was changed")
                }
                checksPassed += 1
            }
        }
        if options.verify {
            let integrity = try connection.scalarString("PRAGMA integrity_check") ?? "?"
            guard integrity == "ok" else {
                throw MigrationError(kind: .verifyFailed, message: "--verify: PRAGMA integrity_check says: \(integrity); nothing was changed")
            }
            let layout = plan.hops.last?.destinationLayout ?? plan.target.layout(entityNumbers: plan.entityNumbers)
            for check in Self.relationshipChecks(plan.target, layout: layout) {
                let violations = try connection.scalarInt64(check.sql) ?? 0
                if violations > 0 {
                    throw MigrationError(kind: .verifyFailed, message: "--verify: \(check.summary): \(violations) row\(violations == 1 ? "" : "s") violate it; nothing was changed")
                }
                checksPassed += 1
            }
        }
        let rows = Int64(connection.totalChanges - before)
        let duration = Date().timeIntervalSince(started)
        if !plan.hops.isEmpty {
            var stamped = metadata
            stamped.stamp(plan.target)
            let previous = metadata.otherKeys[StoreMetadata.maximumEntityNumberKey]?.integerValue ?? 0
            let highest = max(previous, Int64(plan.entityNumbers.values.max() ?? 0), Int64(plan.hops.flatMap { $0.sourceLayout.entityNumbers.values }.max() ?? 0))
            stamped.otherKeys[StoreMetadata.maximumEntityNumberKey] = .integer(highest)
            stamped.history.append(MigrationRecord(
                fromVersion: plan.sourceVersion, toVersion: plan.targetVersion,
                date: Date().timeIntervalSinceReferenceDate, duration: duration, rowsTouched: rows,
                mappingDigests: plan.hops.map(\.digest), tool: options.tool))
            try store.writeMetadata(stamped)
            // Core Data's own model cache describes the old version now: empty it, so
            // that Core Data never takes it for the store's model (it is optional).
            if try connection.tableExists("Z_MODELCACHE") { try connection.execute("DELETE FROM Z_MODELCACHE") }
            try connection.execute("CREATE TABLE IF NOT EXISTS \(SchemaSQL.modelCacheTable) (Z_VERSION INTEGER PRIMARY KEY, Z_CONTENT BLOB)")
            try store.writeModelCache(plan.target)
        }
        if options.dryRun {
            try connection.execute("ROLLBACK")
        } else {
            try connection.execute("COMMIT")
        }
        committed = true
        return MigrationResult(from: plan.sourceVersion, to: plan.targetVersion, rowsTouched: rows, duration: duration,
                               checksPassed: checksPassed, dryRun: options.dryRun, backup: options.backupPath)
    }

    /// The table a `CREATE TABLE "X" (…)` statement creates.
    static func createdTable(_ sql: String) -> String? {
        guard sql.hasPrefix("CREATE TABLE \""), let end = sql.dropFirst(14).firstIndex(of: "\"") else { return nil }
        return String(sql[sql.index(sql.startIndex, offsetBy: 14)..<end])
    }

    /// Every relationship of a version: to-one targets and join table keys exist.
    static func relationshipChecks(_ version: CompiledVersion, layout: StorageLayout) -> [MigrationCheck] {
        var planner = SegmentPlanner(source: version, sourceLayout: layout, destination: version, destinationLayout: layout,
                                     mapping: MappingModel(model: version.model, sourceVersion: version.version, destinationVersion: version.version, entityMappings: []),
                                     count: { _, _ in 0 }, countValues: { _, _, _ in 0 })
        for table in layout.tables { planner.addRebuildChecks(table) }
        return planner.checks
    }
}

/// Runs policy steps (`PolicyEngine` does, with a `PolicyCatalog`).
public protocol PolicyRunning {
    /// Runs one policy step of `hop` against `store`, inside the apply transaction.
    func run(_ invocation: PolicyInvocation, hop: MigrationHop, store: Store, progress: (MigrationEvent) -> Void) throws
}
