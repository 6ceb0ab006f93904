import DataModel
import Foundation
import Mapping
import PropertyList
import SQLiteStore

/// Executes a `MigrationPlan`, exactly as planned, in one SQLite transaction: steps,
/// checks, then the new metadata, then commit.
///
/// Any failure, crash or kill leaves the store exactly as it was: SQLite's journal
/// rolls the transaction back, and after a failure `apply` itself makes sure it did
/// (a journal SQLite could not roll back is replayed by a new connection) and
/// compares the store's bytes with those it had under the lock before the first
/// write, so "nothing was changed" is checked, not assumed.
public struct Migrator {
    /// Options of `apply`.
    public struct Options: Sendable {
        /// Keep a copy of the store as it was before the migration here (the file
        /// must not exist; its folder must). The copy is taken under the migration's
        /// lock and kept only when the migration commits (`StoreBackup`).
        public var backupPath: String?
        /// Keep a copy of the store as it was before the migration under this folder
        /// (created if missing), in the store's own folder path beneath it (the
        /// backups of `/srv/a/App.sqlite` go in `DIR/srv/a/`), named
        /// `<store>.v<from>-to-<to>.<UTC time>.sqlite` (a new name every release, so a
        /// deploy script can pass the same folder every time); kept only when the
        /// migration commits.
        public var backupDirectory: String?
        /// With ``backupDirectory``: once the migration commits, keep only this many
        /// of the store's backups there, the newest, and remove the older ones; the
        /// backup just taken is always kept (`BackupRetention`). Nil keeps them all.
        public var keepBackups: Int?
        /// Run everything, report, then roll back.
        public var dryRun = false
        /// Seconds to wait, in all, for other processes' locks on the store.
        public var timeout: Double = 30
        /// Tool name recorded in the history.
        public var tool = "ModelMigration"
        /// Stops the migration from another thread (signals); it rolls back.
        public var cancellation: MigrationCancellation?
        /// Report rows done within long SQL steps (rebuilds, index builds) through
        /// SQLite's progress handler.
        public var rowProgress = true

        /// Default options. (`--verify` is planned: ``PlanningOptions/verify``.)
        public init(backupPath: String? = nil, dryRun: Bool = false, timeout: Double = 30) {
            self.backupPath = backupPath
            self.dryRun = dryRun
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
    ///
    /// With a backup asked for, the copy is taken under the migration's lock once the
    /// store is found to be the version planned, and kept only when the migration
    /// commits (`StoreBackup`): a failed or dry run leaves none, and says so.
    @discardableResult
    public func apply(
        _ plan: MigrationPlan, options: Options = Options(), progress: (MigrationEvent) -> Void = { _ in }
    ) throws -> MigrationResult {
        if plan.isEmpty { return try verifyCurrent(plan, options: options) }
        let backup = try StoreBackup.requested(by: options, plan: plan)
        let store: Store
        do {
            store = try Store.open(path: plan.storePath, access: .readWrite, busyTimeout: options.timeout)
        } catch {
            throw backup.map { Self.settle($0, copy: nil, published: nil, after: Self.unchanged(error)) }
                ?? Self.unchanged(error)
        }
        let started = Date()
        // Taken under the lock before the first write: once it exists, whatever
        // fails, the store is brought back and proven unchanged before the error
        // is reported.
        var before: StoreFingerprint?
        // The copy for the backup, until it becomes the backup (`published`).
        var copy: StoreBackup.Copy?
        var published: String?
        do {
            let result = try inLockedTransaction(store, plan: plan, options: options) {
                let fingerprint = try StoreFingerprint(store)
                before = fingerprint
                options.cancellation?.attach(store.connection)
                // The store must still be what was planned for, before it is copied.
                let metadata = try plannedMetadata(store, plan: plan)
                if let backup {
                    copy = try backup.write(from: store, isWAL: fingerprint.isWAL, cancellation: options.cancellation)
                }
                var result = try migrate(
                    store, plan: plan, metadata: metadata, options: options, started: started, progress: progress)
                if options.dryRun { return (result, .rollback) }
                if let backup, let written = copy {
                    published = try backup.publish(written)
                    copy = nil
                    result.backup = published
                }
                return (result, .commit)
            }
            options.cancellation?.detach()
            // A dry run's copy: nothing was changed, so no backup is kept.
            if let copy { StoreBackup.remove(copy.temporary) }
            try store.close()
            return Self.pruneBackups(after: result, backup: backup, keep: options.keepBackups)
        } catch {
            options.cancellation?.detach()
            guard let before else {
                // Nothing was written: the lock was not taken, or the store was not
                // read yet (and no copy was taken).
                try? store.close()
                throw backup.map { Self.settle($0, copy: nil, published: nil, after: error) } ?? error
            }
            let reported: any Error
            if options.cancellation?.isCancelled == true {
                let interrupted = MigrationError(
                    kind: .interrupted, message: "interrupted: rolled back, the store is unchanged")
                reported = restore(store, to: before, after: interrupted)
            } else {
                // Errors of SQLite itself (a COMMIT that could not write) say what failed
                // in words, and, once the store is proven unchanged, that it is.
                let described =
                    error is MigrationError
                    ? error
                    : MigrationError(
                        kind: .stepFailed,
                        message:
                            "\(plan.storePath): the migration failed: \(Self.words(for: error)); nothing was changed",
                        statement: (error as? SQLiteError)?.sql)
                reported = restore(store, to: before, after: described)
            }
            guard let backup else { throw reported }
            throw Self.settle(backup, copy: copy, published: published, after: reported)
        }
    }

    /// A store that could not be opened for writing (permissions, an immutable
    /// file): nothing was written, and the message says so as every other
    /// failure's does.
    static func unchanged(_ error: any Error) -> any Error {
        guard var failure = error as? StoreError, !failure.message.contains("nothing was changed") else { return error }
        failure.message += "; nothing was changed"
        return failure
    }

    /// `keepBackups`: after a commit that kept a backup in a backup folder, the
    /// store's older backups there beyond the newest `keep` go (never the new one).
    static func pruneBackups(after result: MigrationResult, backup: StoreBackup?, keep: Int?) -> MigrationResult {
        guard let keep, let backup, let taken = result.backup, !result.dryRun,
            case .folder(let folder, _) = backup.destination
        else { return result }
        let report = BackupRetention.prune(
            BackupRetention.group(folder: folder, storeName: backup.storeName), keep: keep, sparing: taken)
        var pruned = result
        pruned.prunedBackups = report.removed
        pruned.backupsLeft = report.left.map { "\($0.path): \($0.reason)" }
        return pruned
    }

    /// After a failure: when the store is proven unchanged, no backup is kept (the
    /// copy, or a backup published just before a commit that failed, is removed, and
    /// the message says so); when it is not, the copy becomes the backup to restore
    /// from, and the message names it.
    static func settle(_ backup: StoreBackup, copy: StoreBackup.Copy?, published: String?, after error: any Error)
        -> any Error
    {
        let failure = error as? MigrationError
        if failure?.kind == .restoreFailed, var message = failure?.message {
            if let kept = published ?? copy.flatMap({ try? backup.publish($0) }) {
                message += "; the backup of the store as it was before: \(kept)"
            }
            return MigrationError(kind: .restoreFailed, message: message, statement: failure?.statement)
        }
        if let copy { StoreBackup.remove(copy.temporary) }
        if let published { StoreBackup.remove(published) }
        // Folders made for this backup go too, when nothing else is in them.
        for folder in backup.createdFolders { rmdir(folder) }
        guard let failure else { return error }
        var message = failure.message
        let kept: String
        switch backup.destination {
        case .file(let path): kept = "so this run kept no backup at \(path)"
        case .folder(_, let root): kept = "so this run kept no backup in \(root)"
        }
        message +=
            message.hasSuffix("nothing was changed") || message.hasSuffix("the store is unchanged")
            ? ", \(kept)" : "; \(kept)"
        return MigrationError(kind: failure.kind, message: message, statement: failure.statement)
    }

    /// The store's metadata, once the store is found to be the one planned for:
    /// the same version (hash set) and store (UUID), with the rows the plan moves as
    /// the plan relies on.
    func plannedMetadata(_ store: Store, plan: MigrationPlan) throws -> StoreMetadata {
        let metadata = try store.readMetadata()
        guard VersionHasher.digest(metadata.versionHashes) == plan.sourceHashesDigest,
            metadata.storeUUID == plan.storeUUID
        else {
            throw MigrationError(
                kind: .storeChanged,
                message:
                    """
                    \(plan.storePath): the store changed since it was planned (another migration ran?); plan again; \
                    nothing was changed
                    """
            )
        }
        // What the plan relies on, checked on exactly the rows it will migrate; a
        // check a rebuild makes in its own scan is left to it (`refusal(after:)`).
        let separate = plan.preconditions.filter { $0.checkedByRebuildOf == nil }
        if !(try StoreAudit.violations(of: separate, on: store.connection)).isEmpty {
            // The refusal names every violation, as if no check were left to a rebuild.
            let problems = try StoreAudit.violations(of: plan.preconditions, on: store.connection)
            throw MigrationError(
                kind: .inconsistentStore,
                message: StoreAudit.refusal(path: plan.storePath, version: plan.hops[0].source, problems: problems))
        }
        return metadata
    }

    /// After the steps failed, when the plan left preconditions to the rebuilds'
    /// own scans: the steps are rolled back to `mm_apply`, every precondition runs
    /// on the store as it was, and a violation refuses the store with the very
    /// refusal `plannedMetadata` gives before any step. Nil when they all hold (the
    /// failure was the steps' own), or when the run was interrupted.
    func preconditionRefusal(_ plan: MigrationPlan, on connection: Connection, after error: any Error, options: Options)
        -> MigrationError?
    {
        guard plan.preconditions.contains(where: { $0.checkedByRebuildOf != nil }),
            options.cancellation?.isCancelled != true,
            (error as? MigrationError)?.kind != .interrupted
        else { return nil }
        do {
            try connection.execute("ROLLBACK TO SAVEPOINT mm_apply")
            let problems = try StoreAudit.violations(of: plan.preconditions, on: connection)
            guard !problems.isEmpty else { return nil }
            return MigrationError(
                kind: .inconsistentStore,
                message: StoreAudit.refusal(path: plan.storePath, version: plan.hops[0].source, problems: problems))
        } catch {
            return nil
        }
    }

    /// Runs the plan inside the locked transaction (`inLockedTransaction` commits
    /// it, or on a dry run rolls it back).
    func migrate(
        _ store: Store, plan: MigrationPlan, metadata: StoreMetadata, options: Options, started: Date,
        progress: (MigrationEvent) -> Void
    ) throws -> MigrationResult {
        let connection = store.connection

        // References that already dangle are carried, not refused. Counting them
        // costs a pass over every relationship, so it is done only when a check
        // finds dangling references: the work is rolled back to this savepoint and
        // run again with each hop's references counted before its steps.
        try connection.execute("SAVEPOINT mm_apply")
        var run: HopRun
        do {
            do {
                run = try runHops(plan, store: store, countBaselines: false, options: options, progress: progress)
            } catch is BaselinesNeeded {
                try connection.execute("ROLLBACK TO SAVEPOINT mm_apply")
                run = try runHops(plan, store: store, countBaselines: true, options: options, progress: progress)
            }
        } catch {
            // A precondition left to a rebuild's scan (`checkedByRebuildOf`) fails
            // that rebuild, or an earlier step: the store's refusal comes first.
            throw preconditionRefusal(plan, on: connection, after: error, options: options) ?? error
        }
        try connection.execute("RELEASE SAVEPOINT mm_apply")

        let rows = run.rowsWritten
        let duration = Date().timeIntervalSince(started)
        var stamped = metadata
        stamped.stamp(plan.target)
        let previous = metadata.otherKeys[StoreMetadata.maximumEntityNumberKey]?.integerValue ?? 0
        let highest = max(
            previous, Int64(plan.entityNumbers.values.max() ?? 0),
            Int64(plan.hops.flatMap { $0.sourceLayout.entityNumbers.values }.max() ?? 0))
        stamped.otherKeys[StoreMetadata.maximumEntityNumberKey] = .integer(highest)
        stamped.history.append(
            MigrationRecord(
                fromVersion: plan.sourceVersion, toVersion: plan.targetVersion,
                date: Date().timeIntervalSinceReferenceDate, duration: duration, rowsTouched: rows,
                mappingDigests: plan.hops.map(\.digest), tool: options.tool))
        try store.writeMetadata(stamped)
        // Core Data's own model cache describes the old version now: empty it, so
        // that Core Data never takes it for the store's model (it is optional).
        if try connection.tableExists("Z_MODELCACHE") { try connection.execute("DELETE FROM Z_MODELCACHE") }
        try connection.execute(
            "CREATE TABLE IF NOT EXISTS \(SchemaSQL.modelCacheTable) (Z_VERSION INTEGER PRIMARY KEY, Z_CONTENT BLOB)")
        try store.writeModelCache(plan.target)
        return MigrationResult(
            from: plan.sourceVersion, to: plan.targetVersion, rowsTouched: rows, duration: duration,
            checksPassed: run.checksPassed, dryRun: options.dryRun, backup: nil,
            carriedDanglingReferences: run.carried, warnings: run.emptied.map(\.description))
    }

    /// What running the hops found.
    struct HopRun {
        var checksPassed = 0
        /// References that dangled before the migration and still do, for people,
        /// by the check subject they were found by (each subject once).
        var carried: [String] = []
        var carriedSubjects: Set<String> = []
        /// Properties policies left empty where the source had values.
        var emptied: [EmptiedProperty] = []
        /// Rows the steps wrote (``MigrationResult/rowsTouched``).
        var rowsWritten: Int64 = 0
        /// The dangling references of the store before the first hop, by
        /// relationship direction (counted only with `countBaselines`).
        var initial: [ReferenceKey: Int64] = [:]
    }

    /// A reference check failed while references were not counted beforehand.
    struct BaselinesNeeded: Error {}

    /// Where a check runs: its failure's kind and the word its message starts with.
    enum CheckPhase {
        /// A hop's checks, before commit.
        case hop
        /// `--verify`'s checks, after every hop.
        case verify

        var failure: MigrationError.Kind { self == .verify ? .verifyFailed : .checkFailed }
        var label: String { self == .verify ? "--verify" : "check failed" }
    }

    /// Runs every hop's steps and checks, then the plan's `--verify` steps. With
    /// `countBaselines`, the dangling references of each hop's source are counted
    /// before its steps, and a check passes when it finds no more than were there.
    func runHops(
        _ plan: MigrationPlan, store: Store, countBaselines: Bool, options: Options,
        progress: (MigrationEvent) -> Void
    ) throws -> HopRun {
        let connection = store.connection
        var run = HopRun()
        let total = plan.allSteps.count
        var index = 0
        for (hopIndex, hop) in plan.hops.enumerated() {
            let baselines =
                countBaselines ? try Self.danglingCounts(hop.source, layout: hop.sourceLayout, on: connection) : [:]
            if hopIndex == 0 { run.initial = baselines }
            // The data decides: the hop's source must satisfy its requirements.
            let refused = try StoreAudit.violations(of: hop.requirements, on: connection)
            if !refused.isEmpty {
                throw MigrationError(
                    kind: .dataRefused,
                    message: "hop \(hop.from) → \(hop.to) cannot migrate this store's data:\n"
                        + refused.map { "  " + $0 }.joined(separator: "\n") + "; nothing was changed")
            }
            for step in hop.steps {
                index += 1
                if options.cancellation?.isCancelled == true {
                    throw MigrationError(
                        kind: .interrupted, message: "interrupted: rolled back, the store is unchanged")
                }
                run.rowsWritten = run.rowsWritten.adding(
                    saturating: try runStep(
                        step, index: index, of: total, hop: hop, store: store, emptied: &run.emptied,
                        rowProgress: options.rowProgress, progress: progress))
            }
            progress(.checking(count: hop.checks.count))
            var probes: [SQLFragment: Int64] = [:]
            for check in hop.checks {
                let allowed =
                    check.reference.flatMap { Self.sourceReference($0, through: [hop]) }.flatMap { baselines[$0] } ?? 0
                try evaluate(
                    check, allowed: allowed, countBaselines: countBaselines, on: connection, run: &run, probes: &probes,
                    phase: .hop)
            }
        }
        for step in plan.verification {
            try verify(step, countBaselines: countBaselines, on: connection, run: &run)
        }
        return run
    }

    /// Runs one of the plan's `--verify` steps on the migrated store, before commit.
    func verify(_ step: VerificationStep, countBaselines: Bool, on connection: Connection, run: inout HopRun) throws {
        switch step {
        case .policyValues:
            // Data a policy dropped without a word fails `--verify`.
            if !run.emptied.isEmpty {
                throw MigrationError(
                    kind: .verifyFailed,
                    message: "--verify: " + run.emptied.map(\.description).joined(separator: "; ")
                        + "; nothing was changed")
            }
        case .integrity:
            // The whole store as it will be committed: every page.
            let integrity = try connection.scalarString("PRAGMA integrity_check") ?? "?"
            guard integrity == "ok" else {
                throw MigrationError(
                    kind: .verifyFailed,
                    message: "--verify: PRAGMA integrity_check says: \(integrity); nothing was changed")
            }
        case .relationships(let checks):
            var probes: [SQLFragment: Int64] = [:]
            for verified in checks {
                let allowed = verified.before.flatMap { run.initial[$0] } ?? 0
                try evaluate(
                    verified.check, allowed: allowed, countBaselines: countBaselines, on: connection, run: &run,
                    probes: &probes,
                    phase: .verify)
            }
        case .store, .currentRelationships:
            throw MigrationError(
                kind: .verifyFailed,
                message: """
                    --verify: step '\(step.summary)' checks a store at its target, not a migration (a plan edited by \
                    hand?); nothing was changed
                    """)
        }
    }

    /// Runs one check; fails when it finds more violating rows than `allowed`.
    /// `probes` keeps the answers of probes shared by several checks (one scan of a
    /// table for all its required values) for the checks of one batch: nothing
    /// changes the store between them.
    func evaluate(
        _ check: MigrationCheck, allowed: Int64, countBaselines: Bool, on connection: Connection,
        run: inout HopRun, probes: inout [SQLFragment: Int64], phase: CheckPhase
    ) throws {
        var found: Int64?
        if let probe = check.probeSQL {
            if probes[probe] == nil { probes[probe] = try connection.scalarInt64(probe) ?? 0 }
            found = probes[probe]
        }
        let violations = found == 0 ? 0 : try connection.scalarInt64(check.sql) ?? 0
        if violations > allowed {
            if check.reference != nil, !countBaselines { throw BaselinesNeeded() }
            let already = allowed > 0 ? " (\(allowed) of them already did before the migration)" : ""
            throw MigrationError(
                kind: phase.failure,
                message: """
                    \(phase.label): \(check.summary): \(violations) row\(violations == 1 ? "" : "s") \
                    violate\(violations == 1 ? "s" : "") it\(already); nothing was changed
                    """)
        }
        let subject = check.reference.map { "\($0)" } ?? check.summary
        if violations > 0, run.carriedSubjects.insert(subject).inserted {
            run.carried.append(
                """
                \(subject): \(violations) row\(violations == 1 ? "" : "s") already pointed to objects the store does \
                not have, and still do\(violations == 1 ? "es" : "") (carried as they were)
                """)
        }
        run.checksPassed += 1
    }

    /// What went wrong in words first, SQLite's code after.
    static func words(for error: any Error) -> String {
        (error as? SQLiteError)?.explained ?? "\(error)"
    }
}
