import ArgumentParser
import Foundation
import ModelMigration

/// `migrate fleet restore (--log FILE [--run ID] | STORES… --backup-dir DIR --version N)`
struct FleetRestore: MigrateCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract:
            """
            Undo a fleet run: put every store it migrated back to the backup it took, each atomically as `migrate \
            restore` does.
            """,
        discussion: """
            --log FILE [--run ID]: the stores a `fleet apply --json` run migrated (its records name the run, the store \
            and the backup), each from the backup that run took; a store no longer at the version the run left it at \
            is refused. STORES… --backup-dir DIR --version N: every store of the list from its newest backup taken at \
            version N. Either way a store already at that version is left as it is (a rerun picks up where an \
            interrupted one stopped), each backup is checked as `restore` checks it, and the replaced store is kept in \
            .replaced/ beside it. Exit 0 every store restored or already there; 1 some failed (each named; each left \
            as it was); 128+n stopped by signal n (no store half restored).
            """)

    @OptionGroup var global: GlobalOptions

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The JSON Lines of the fleet apply --json run to undo (- reads standard input).", valueName: "file"))
    var log: String?

    @Option(
        name: .customLong("run"),
        help: ArgumentHelp(
            "With --log: the run to undo, by the run of its records (needed when the log holds several).",
            valueName: "id"))
    var runID: String?

    /// Without `--log`: the stores, as `fleet apply` was given them.
    @OptionGroup var selection: FleetStores

    @Option(
        name: .customLong("backup-dir"),
        help: ArgumentHelp("Without --log: the folder fleet apply --backup-dir wrote into.", valueName: "folder"))
    var backupDirectory: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Without --log: the version to go back to (backups taken at version N).", valueName: "n"))
    var version: Int?

    @Option(
        name: .long, help: ArgumentHelp("Stores restored at a time (default: the number of cores).", valueName: "n"))
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(
        name: .long,
        help: ArgumentHelp("Seconds to wait for another process's lock on each store.", valueName: "seconds"))
    var timeout: Double = 30

    @Flag(
        name: .long,
        help: """
            Put back a backup that fails PRAGMA integrity_check: the store was already damaged when apply (without \
            --verify) copied it, and comes back as it was. Its entity hashes are still checked.
            """)
    var allowDamaged = false

    func validate() throws {
        if jobs < 1 { throw ValidationError("--jobs must be 1 or more") }
        if !(timeout >= 0) || !timeout.isFinite {
            throw ValidationError("--timeout must be a number of seconds, 0 or more")
        }
        if log != nil {
            guard selection.isEmpty, backupDirectory == nil, version == nil else {
                throw ValidationError(
                    "--log names the stores and their backups: give no stores, --backup-dir or --version with it")
            }
        } else {
            if runID != nil { throw ValidationError("--run picks a run of --log's file: give --log") }
            guard !selection.isEmpty, backupDirectory != nil, let version else {
                throw ValidationError(
                    "give --log FILE (a fleet apply --json run), or the stores with --backup-dir DIR and --version N")
            }
            if version < 1 { throw ValidationError("--version must be 1 or more") }
        }
    }

    func run() throws {
        // Signals are handled from the start: one during the reading of the log or
        // the models still ends with a record for every store and a summary.
        let stop = FleetStop()
        let signals: FleetSignals
        do { signals = try FleetSignals(stop: stop) } catch { throw global.fail(error) }
        defer { signals.stop() }
        let chosen = try log.map { try chooseRun(in: $0, stop: stop, signals: signals) }
        if let chosen, chosen.items.isEmpty && chosen.withoutBackup.isEmpty {
            throw global.fail("\(log ?? "-"): run \(chosen.shown) migrated no store; nothing to undo", .failed)
        }
        var options = StoreRestore.Options(backupDirectory: backupDirectory ?? "")
        options.timeout = timeout
        options.allowsDamaged = allowDamaged
        options.models = global.loadModelsIfPresent()
        let id = FleetLog.newRunID()
        let json = global.json
        let progress = FleetProgress(total: Output.stderrIsTerminal && !json ? chosen.map { $0.items.count } : nil)
        let tally = Locked(FleetTally())
        let report: @Sendable (FleetStoreOutcome) -> Void = { outcome in
            let now = tally.withLock { state in
                state.add(outcome)
                return state
            }
            if json {
                Output.jsonLine(FleetStoreRecord(outcome, run: id))
            } else if outcome.status.isFailure && outcome.started {
                progress.finish()
                Output.err("error: \(outcome.path): \(outcome.message ?? outcome.status.meaning)")
            }
            progress.update(now)
        }
        for store in chosen?.withoutBackup ?? [] {
            report(
                FleetStoreOutcome(
                    path: store, status: .failed,
                    message: "the run kept no backup of it (no --backup-dir); nothing was changed", seconds: 0))
        }
        let restorer = FleetRestorer(options: options, jobs: jobs, stop: stop)
        if let chosen {
            restorer.run(chosen.items, report: report)
        } else {
            restorer.run(
                selection.list(excluding: backupDirectory.map { [$0] } ?? []), version: version ?? 0, report: report)
        }
        progress.finish()
        var done = tally.withLock { $0 }
        done.seconds = (Date().timeIntervalSince(Invocation.current.started) * 1000).rounded() / 1000
        try finish(done, signal: stop.stoppedWork ? signals.received : nil, run: id, undoes: chosen?.id)
    }

    /// The run of the log to undo: `--run`, or the log's only run.
    func chooseRun(in path: String, stop: FleetStop, signals: FleetSignals) throws -> FleetLog.Run {
        let log: FleetLog
        do {
            log = try FleetLog(path: path, stop: stop)
        } catch is FleetLog.Interrupted {
            let signal = signals.received ?? SIGTERM
            throw global.fail(
                "\(path): interrupted while reading the log; nothing was changed", .interrupted(signal: signal))
        } catch {
            throw global.fail("\(path): cannot read the log: \(error)", .failed)
        }
        if let run = runID {
            guard let found = log.runs.first(where: { $0.id == run }) else {
                throw global.fail("\(path): no run \(run) in the log (it holds: \(Self.listed(log.runs)))", .usage)
            }
            return found
        }
        if log.runs.isEmpty {
            throw global.fail("\(path): the log holds no fleet apply --json run; nothing was changed", .failed)
        }
        guard log.runs.count == 1, let only = log.runs.first else {
            throw global.fail(
                "\(path): the log holds \(log.runs.count) runs: \(Self.listed(log.runs)); give --run ID", .usage)
        }
        return only
    }

    static func listed(_ runs: [FleetLog.Run]) -> String {
        runs.map { "\($0.shown) (\($0.items.count + $0.withoutBackup.count) stores migrated)" }.joined(separator: ", ")
    }

    /// The closing summary and the exit code, as `fleet apply`'s.
    func finish(_ tally: FleetTally, signal: Int32?, run: String, undoes: String?) throws {
        let ending = signal.map { Outcome.Kind.interrupted(signal: $0) } ?? tally.ending(answeringStatus: false)
        if tally.stores == 0 && signal == nil && log == nil {
            throw global.fail(
                "no stores found (folders are searched for --pattern, \(selection.pattern) here)", .failed)
        }
        if global.json {
            Output.jsonLine(
                FleetSummaryRecord(
                    command: "restore", run: run, undoes: undoes, shard: selection.selectedShard?.description,
                    exitCode: ending?.exitCode ?? 0, tally: tally))
        } else {
            var parts: [String] = []
            if tally.restored > 0 {
                parts.append("\(tally.restored) restored (each replaced store kept in .replaced/ beside it)")
            }
            if tally.current > 0 { parts.append("\(tally.current) already at the backup's version") }
            if tally.failed > 0 { parts.append("\(tally.failed) failed") }
            if tally.interrupted > 0 { parts.append("\(tally.interrupted) stopped by the signal (left as they were)") }
            if tally.notStarted > 0 { parts.append("\(tally.notStarted) not started") }
            if tally.duplicates > 0 { parts.append("\(tally.duplicates) reached again by another path (handled once)") }
            var lines = [
                """
                \(tally.stores) store\(tally.stores == 1 ? "" : "s") in \(String(format: "%.1f", tally.seconds)) s: \
                \(parts.joined(separator: ", "))
                """
            ]
            if let signal {
                lines.append(
                    "stopped by signal \(signal): no store was half restored; rerun the same command to finish")
            }
            Output.out((lines + tally.problemLines()).joined(separator: "\n"))
        }
        if let ending { throw global.said(ending) }
    }
}
