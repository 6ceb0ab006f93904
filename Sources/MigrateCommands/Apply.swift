import ArgumentParser
import DataModel
import Foundation
import ModelMigration
import SQLiteStore
import ScratchFiles

/// `migrate apply STORE`: run the plan in one transaction.
struct Apply: MigrateCommand, PlansOneStore {
    static let configuration = CommandConfiguration(
        abstract: "Migrate a store to the target version in one transaction: all of it or nothing.",
        discussion: """
            Exit 0 done (or nothing to do); 1 failure (store unchanged); 4 no migration path; 5 unknown store version; \
            6 destructive steps with --fail-on-destructive (store unchanged).
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var options: PlanOptions
    @OptionGroup var planning: PlanningFlags

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            Keep a copy of the store as it was here (the file must not exist, its folder must); kept only when the \
            migration commits.
            """, valueName: "path"))
    var backup: String?

    @OptionGroup var migration: MigrationRunOptions

    @Flag(
        name: .long,
        help:
            """
            Do not report rows done within long table rebuilds and index builds (the benchmark measures what reporting \
            costs).
            """
    )
    var noProgress = false

    @OptionGroup var gate: DestructiveGate

    @Flag(
        name: .long,
        help:
            """
            When no file is at the store's path, create the store at the target version (a fresh server) instead of \
            failing.
            """
    )
    var createIfMissing = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --create-if-missing: the model of the store (default: the only one under --models).",
            valueName: "name"))
    var model: String?

    var backupDirectory: String? { migration.backupDirectory }
    var dryRun: Bool { migration.dryRun }
    var verify: Bool { planning.verify }
    var timeout: Double { migration.timeout }

    func validate() throws {
        if backup != nil && backupDirectory != nil {
            throw ValidationError("--backup and --backup-dir: give one of them")
        }
        if let backup, let why = StoreSideFiles.pairing(of: backup, with: options.store) {
            throw ValidationError(
                """
                --backup \(backup): SQLite pairs that path with the store (and resets or deletes it on the next open): \
                \(why)
                """
            )
        }
        if model != nil && !createIfMissing {
            throw ValidationError("--model names the model of a store --create-if-missing creates")
        }
    }

    func run() throws {
        var info = stat()
        // Only a path naming nothing at all: a dangling symbolic link is a mistake to report.
        // Another process may create it first (two replicas of one deploy): then it
        // is there, and this run migrates it like any store.
        if createIfMissing, lstat(options.store, &info) != 0, errno == ENOENT, try create() {
            return
        }
        sweepBackupFolder()
        // SIGINT (Ctrl-C) and SIGTERM (a deploy job stopped) stop the planning's reads
        // and roll the migration back.
        let interruption: SignalCancellation
        do { interruption = try SignalCancellation() } catch {
            throw report(Outcome(.failed, "\(options.store): \(error)"))
        }
        defer { interruption.stop() }
        let run: StoreRun
        do { run = try global.storeRun(planningOptions, gate: gate) } catch {
            throw report(error.outcome, rendered: error.rendered)
        }
        var migratorOptions = migration.migratorOptions
        migratorOptions.backupPath = backup
        migratorOptions.cancellation = interruption.cancellation
        migratorOptions.rowProgress = !noProgress
        let progress = ProgressReporter(json: global.json)
        let ending = run.apply(
            options.store, options: migratorOptions, interruptedBy: { interruption.signal },
            willMigrate: { plan in for warning in plan.warnings where !global.json { Output.err("warning: \(warning)") }
            },
            progress: { progress.report($0) })
        progress.finish()
        let plan: MigrationPlan
        let result: MigrationResult
        switch ending {
        case .notPlanned(let failure), .failed(_, let failure):
            let rendered = GlobalOptions.planningFailure(failure)
            throw report(rendered.outcome, rendered: rendered.rendered)
        case .refused(let refused, let refusal):
            throw report(refusal, destructive: refused.unacceptedDestructiveWarnings.map(\.message))
        case .current(let current):
            return reportCurrent(current)
        case .migratedByAnother(let migrated):
            return reportMigratedByAnother(migrated)
        case .ran(let ran, let done):
            (plan, result) = (ran, done)
        }
        // `--json`'s done event lists every warning `plan --json` lists, then the
        // policies' (as `fleet apply --json` does): it listed only the latter.
        var reported = result
        reported.warnings = plan.warnings.map(\.description) + result.warnings.map { "destructive: \($0)" }
        for note in result.carriedDanglingReferences where !global.json { Output.err("note: \(note)") }
        for warning in result.warnings where !global.json { Output.err("warning: destructive: \(warning)") }
        if plan.isEmpty {
            if global.json {
                Output.jsonLine(Event.done(reported))
            } else {
                Output.out(
                    """
                    \(options.store): \(plan.model) version \(plan.sourceVersion) is current; nothing to do; \
                    --verify: \(result.checksPassed) checks passed
                    """)
            }
            return
        }
        if global.json {
            Output.jsonLine(Event.done(reported))
        } else {
            printDone(result)
        }
    }

    /// What a killed run left where this one keeps backups goes now, whether or not
    /// this run takes one (the store may already be current).
    func sweepBackupFolder() {
        if let backupDirectory {
            ScratchFile.sweep(folder: StoreBackup.filedFolder(in: backupDirectory, for: options.store))
        } else if let backup {
            ScratchFile.sweep(beside: backup)
        }
    }

    /// The store is at the target already: nothing to do.
    func reportCurrent(_ plan: MigrationPlan) {
        if global.json {
            Output.jsonLine(
                Event.done(
                    MigrationResult(
                        from: plan.sourceVersion, to: plan.targetVersion, rowsTouched: 0, duration: 0, checksPassed: 0,
                        dryRun: dryRun, backup: nil)))
        } else {
            Output.out("\(options.store): \(plan.model) version \(plan.sourceVersion) is current; nothing to do")
        }
    }

    /// Another process migrated the store to the plan's target while this run waited:
    /// nothing to do, and no backup kept by this run.
    func reportMigratedByAnother(_ plan: MigrationPlan) {
        if global.json {
            Output.jsonLine(
                Event.done(
                    MigrationResult(
                        from: plan.targetVersion, to: plan.targetVersion, rowsTouched: 0, duration: 0, checksPassed: 0,
                        dryRun: dryRun, backup: nil)))
        } else {
            Output.out(
                """
                \(options.store): \(plan.model) version \(plan.targetVersion) is current (another process migrated it \
                from version \(plan.sourceVersion) while this run waited); nothing to do
                """)
        }
    }

    /// What a migration did, as text, with how to restore its backup.
    func printDone(_ result: MigrationResult) {
        let verb = result.dryRun ? "dry run: would migrate" : "migrated"
        // A dry run copies the store as a real run would (the copy fits, the
        // folder is writable), then keeps no backup: nothing was changed.
        let asked = backup != nil || backupDirectory != nil
        let rolledBack =
            asked
            ? " (rolled back; the store is unchanged, so no backup was kept)" : " (rolled back; the store is unchanged)"
        Output.out(
            """
            \(verb) \(options.store) from version \(result.from) to \(result.to): \(result.rowsTouched) rows written, \
            \(result.checksPassed) checks passed, \(String(format: "%.3f", result.duration)) s\
            \(result.dryRun ? rolledBack : "")\(result.backup.map { "; backup at \($0)" } ?? "")
            """)
        if let folder = backupDirectory, !result.dryRun, result.backup != nil {
            Output.out(
                """
                to restore the backup: \(Migrate.toolName) restore \(ShellWord.quoted(options.store)) \
                --backup-dir \(ShellWord.quoted(folder)) --version \(result.from)
                """)
            printPruned(result)
        } else if let backup = result.backup, !result.dryRun {
            // With nothing else using the store: the copy is a complete store of
            // the old version, and any -wal/-shm beside the store belongs to the new one.
            Output.out(
                """
                to restore the backup, with nothing using the store: cp \(ShellWord.quoted(backup)) \
                \(ShellWord.quoted(options.store)) && rm -f \(ShellWord.quoted(options.store + "-wal")) \
                \(ShellWord.quoted(options.store + "-shm"))
                """)
        }
    }
}

extension Apply {
    /// `--keep N`: the older backups removed, and any file named like one that was left.
    func printPruned(_ result: MigrationResult) {
        if let pruned = result.prunedBackups, !pruned.isEmpty, let keep = migration.keep {
            Output.out(
                """
                removed \(pruned.count) older backup\(pruned.count == 1 ? "" : "s") of the store (--keep \(keep)): \
                \(pruned.joined(separator: ", "))
                """)
        }
        for left in result.backupsLeft { Output.err("warning: --keep: \(left)") }
    }

    /// A failure of `apply`: text on stderr, or with `--json` the `failed` event that
    /// ends the JSON Lines, carrying the error object (``Output/render(_:)``).
    /// `destructive`: the warnings `--fail-on-destructive` refused.
    func report(_ failure: Outcome, rendered: String? = nil, destructive: [String]? = nil) -> CommandEnding {
        var ending = global.fail(failure, rendered: rendered)
        ending.form = .applyEvent(destructive: destructive)
        return ending
    }

    /// `--create-if-missing` with nothing at the path: a new store at the target
    /// version (nothing to migrate), or with `--dry-run` only what would be made.
    /// Creates the store; false when another process created it first.
    func create() throws -> Bool {
        let compiled = try global.model(named: model, in: global.loadModels())
        let version = try global.versions([options.to ?? compiled.current.version], of: compiled)[0]
        if !dryRun {
            // A signal while the store is built beside its path stops here; the built file is removed.
            let interruption: SignalCancellation
            do {
                interruption = try SignalCancellation()
            } catch {
                throw global.fail("\(options.store): \(error)", .failed)
            }
            defer { interruption.stop() }
            let created: Store
            do {
                created = try Store.create(
                    path: options.store, version: version, overwrite: false, forCoreData: false,
                    isCancelled: { interruption.cancellation.isCancelled })
            } catch {
                switch error.kind {
                case .alreadyExists: return false
                case .interrupted:
                    throw global.fail(
                        "\(options.store): \(error.message)", .interrupted(signal: interruption.signal ?? SIGTERM))
                default: throw global.fail(error)
                }
            }
            do { try created.close() } catch { throw global.fail(error) }
        }
        if global.json {
            Output.jsonLine(
                Event.created(store: options.store, model: compiled.name, version: version.version, dryRun: dryRun))
        } else {
            Output.out(
                """
                \(dryRun ? "dry run: would create" : "created") \(options.store): no store was there \
                (--create-if-missing); model \(compiled.name) version \(version.version)
                """)
        }
        return true
    }
}

/// How a migration runs, shared by `apply` and `fleet apply`.
struct MigrationRunOptions: ParsableArguments {
    @Option(
        name: .customLong("backup-dir"),
        help: ArgumentHelp(
            """
            Keep a copy of each store as it was in this folder, as <store>.v<from>-to-<to>.<UTC time>.sqlite, only \
            when its migration commits (the same folder works release after release; a fleet puts each copy under its \
            store's own folder path).
            """, valueName: "folder"))
    var backupDirectory: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            With --backup-dir: once a store's migration commits, keep its newest N backups there and remove the older \
            ones (never the one just taken).
            """, valueName: "n"))
    var keep: Int?

    @Flag(name: .long, help: "Run the whole migration and its checks, report, then roll back.")
    var dryRun = false

    @Option(
        name: .long,
        help: ArgumentHelp("Seconds to wait for another process's lock on the store.", valueName: "seconds"))
    var timeout: Double = 30

    func validate() throws {
        // NaN fails every comparison, and infinity would trap where seconds are shown.
        if !(timeout >= 0) || !timeout.isFinite {
            throw ValidationError("--timeout must be a number of seconds, 0 or more")
        }
        if let keep {
            guard keep >= 1 else {
                throw ValidationError("--keep must be 1 or more (the backup just taken is always kept)")
            }
            guard backupDirectory != nil else {
                throw ValidationError("--keep counts the backups in --backup-dir: give --backup-dir")
            }
        }
    }

    /// The migrator's options for these flags.
    var migratorOptions: Migrator.Options {
        var options = Migrator.Options(dryRun: dryRun, timeout: timeout)
        options.backupDirectory = backupDirectory
        options.keepBackups = keep
        options.tool = "\(Migrate.toolName) \(Migrate.configuration.version)"
        return options
    }
}

/// Progress on stderr when it is a terminal; JSON Lines events on stdout with --json.
final class ProgressReporter {
    let json: Bool
    let terminal = Output.stderrIsTerminal
    var started = Date()

    init(json: Bool) { self.json = json }

    func report(_ event: MigrationEvent) {
        switch event {
        case .stepStarted(let index, let total, let summary, let cost):
            started = Date()
            if json {
                Output.jsonLine(Apply.Event.step(index: index, of: total, summary: summary, cost: "\(cost)"))
            } else if terminal {
                Output.progress("[\(index)/\(total)] \(summary) [\(cost)]")
            }
        case .stepFinished(let index, let seconds, let rows):
            if json { Output.jsonLine(Apply.Event.stepDone(index: index, seconds: seconds, rows: rows)) }
        case .rows(let done, let total):
            if json {
                Output.jsonLine(Apply.Event.rows(done: done, total: total))
            } else if terminal {
                // The rate and ETA of the rows done since the step started, once they mean something.
                let estimate = ProgressEstimate(done: done, total: total, elapsed: Date().timeIntervalSince(started))
                Output.progress("  " + estimate.text(unit: "rows"))
            }
        case .checking(let count):
            if json { Output.jsonLine(Apply.Event.checks(count: count)) }
        }
    }

    func finish() {
        if terminal && !json { Output.progress(nil) }
    }
}

/// SIGINT and SIGTERM, while a command writes, cancel its work (it rolls back)
/// instead of killing the process mid-transaction.
final class SignalCancellation: Sendable {
    let cancellation = MigrationCancellation()
    private let watcher: SignalWatcher

    /// The signal that cancelled, if any.
    var signal: Int32? { watcher.received }

    init() throws {
        let cancellation = self.cancellation
        watcher = try SignalWatcher { _ in cancellation.cancel() }
    }

    /// Restores the default handlers.
    func stop() { watcher.stop() }
}

extension Apply {
    /// `apply --json`: one JSON object per line, `event` naming its kind.
    enum Event: Encodable {
        case step(index: Int, of: Int, summary: String, cost: String)
        case stepDone(index: Int, seconds: Double, rows: Int64)
        case rows(done: Int64, total: Int64)
        case checks(count: Int)
        case done(MigrationResult)
        /// `--create-if-missing` created the store (nothing to migrate).
        case created(store: String, model: String, version: Int, dryRun: Bool)
        /// The outcome of a failure; `destructive`: the warnings `--fail-on-destructive` refused (exit 6).
        case failed(Outcome, destructive: [String]? = nil)

        private enum Key: String, CodingKey {
            case event, index, of, summary, cost, seconds, rows, done, total, count, from, to, rowsTouched,
                checksPassed, dryRun,
                backup, prunedBackups, backupsLeft, danglingReferences, warnings, message, exitCode, status, error,
                destructive, store, model, version
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            switch self {
            case .step(let index, let of, let summary, let cost):
                try c.encode("step", forKey: .event)
                try c.encode(index, forKey: .index)
                try c.encode(of, forKey: .of)
                try c.encode(summary, forKey: .summary)
                try c.encode(cost, forKey: .cost)
            case .stepDone(let index, let seconds, let rows):
                try c.encode("stepDone", forKey: .event)
                try c.encode(index, forKey: .index)
                try c.encode((seconds * 1000).rounded() / 1000, forKey: .seconds)
                try c.encode(rows, forKey: .rows)
            case .rows(let done, let total):
                try c.encode("rows", forKey: .event)
                try c.encode(done, forKey: .done)
                try c.encode(total, forKey: .total)
            case .checks(let count):
                try c.encode("checks", forKey: .event)
                try c.encode(count, forKey: .count)
            case .done(let result):
                try c.encode("done", forKey: .event)
                try c.encode(result.from, forKey: .from)
                try c.encode(result.to, forKey: .to)
                try c.encode(result.rowsTouched, forKey: .rowsTouched)
                try c.encode((result.duration * 1000).rounded() / 1000, forKey: .seconds)
                try c.encode(result.checksPassed, forKey: .checksPassed)
                try c.encode(result.dryRun, forKey: .dryRun)
                try c.encode(result.backup, forKey: .backup)
                try c.encodeIfPresent(result.prunedBackups, forKey: .prunedBackups)
                if !result.backupsLeft.isEmpty { try c.encode(result.backupsLeft, forKey: .backupsLeft) }
                try c.encode(result.carriedDanglingReferences, forKey: .danglingReferences)
                try c.encode(result.warnings, forKey: .warnings)
            case .created(let store, let model, let version, let dryRun):
                try c.encode("created", forKey: .event)
                try c.encode(store, forKey: .store)
                try c.encode(model, forKey: .model)
                try c.encode(version, forKey: .version)
                try c.encode(dryRun, forKey: .dryRun)
            case .failed(let outcome, let destructive):
                try c.encode("failed", forKey: .event)
                try c.encode(outcome.message, forKey: .message)
                try c.encode(outcome.exitCode, forKey: .exitCode)
                try c.encode(outcome.word, forKey: .status)
                try c.encodeIfPresent(destructive, forKey: .destructive)
                try c.encode(ErrorReport.Detail(outcome), forKey: .error)
            }
        }
    }
}
