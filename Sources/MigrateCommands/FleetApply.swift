import ArgumentParser
import DataModel
import Foundation
import ModelMigration

/// `migrate fleet apply STORES…`
struct FleetApply: MigrateCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Migrate every store of a fleet, --jobs at a time, each atomically as `migrate apply` does.",
        discussion: """
            A store that fails never stops the others and is left unchanged. Rerunning after an interruption \
            (even kill -9) picks up where it stopped: stores at the target are skipped. \
            Exit 0 every store ends current; 1 some failed (each named); 4 or 5 some had no path or an \
            unknown version and none failed otherwise; 128+n stopped by signal n (stores under way rolled back). \
            With --fail-on-destructive every store is planned first, and when any plan loses data no store is \
            changed: exit 6, those stores listed.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var selection: FleetStores
    @OptionGroup var planning: PlanningFlags
    /// The stores and the planning flags (sibling groups, not one nested group: `PlansOneStore`).
    var fleet: FleetOptions { FleetOptions(selection: selection, planning: planning) }

    @Option(
        name: .long, help: ArgumentHelp("Stores migrated at a time (default: the number of cores).", valueName: "n"))
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    /// `--backup-dir` (never searched for stores), `--dry-run`, `--timeout`.
    @OptionGroup var migration: MigrationRunOptions

    @OptionGroup var gate: DestructiveGate

    func validate() throws {
        try fleet.validate()
        if jobs < 1 { throw ValidationError("--jobs must be 1 or more") }
        if gate.failOnDestructive && fleet.storesFrom.contains("-") {
            throw ValidationError(
                """
                --fail-on-destructive plans every store before migrating any, so it reads the list twice, and standard \
                input (--stores-from -) can be read once: write the list to a file
                """)
        }
    }

    /// One run: its id, when it began, and the stop its signals ask for.
    struct RunContext {
        /// Every JSON record names the run, which `fleet restore --log … --run ID` undoes.
        let id = FleetLog.newRunID()
        /// The process's start: the run's time includes starting and planning.
        let started = Invocation.current.started
        let stop: FleetStop
        let signals: FleetSignals
        let excluded: [String]

        /// The run's time so far, for the summary's `tally.seconds`.
        var seconds: Double { (Date().timeIntervalSince(started) * 1000).rounded() / 1000 }
    }

    func run() throws {
        // SIGINT and SIGTERM are handled from the start: a signal in the gate's pass
        // also ends with a record for every store and a summary.
        let stop = FleetStop()
        let signals: FleetSignals
        do { signals = try FleetSignals(stop: stop) } catch { throw global.fail(error) }
        defer { signals.stop() }
        let context = RunContext(stop: stop, signals: signals, excluded: migration.backupDirectory.map { [$0] } ?? [])
        let planner = try global.fleetPlanner(fleet.planning.options())
        if gate.failOnDestructive { try refuseDestructivePlans(planner, context) }
        try applyAll(planner, context)
    }

    /// `--fail-on-destructive`: every store is planned before any is migrated, so
    /// that a fleet never half-applies a gate. When a plan loses data, the stores
    /// that are not fine are listed and nothing is changed (exit 6). A store whose
    /// plan becomes destructive after this pass (another writer) is still refused
    /// by itself while applying.
    func refuseDestructivePlans(_ planner: MigrationPlanner, _ context: RunContext) throws {
        let (excluded, run) = (context.excluded, context.id)
        let shared = Locked(FleetApplyState())
        var runner = FleetRunner(planner: planner, jobs: jobs, stop: context.stop)
        runner.refusesDestructivePlans = true
        runner.acceptedLosses = try gate.losses(for: planner, global: global)
        runner.run(fleet.list(excluding: excluded), mode: .survey) { outcome in
            shared.withLock { state in
                state.tally.add(outcome)
                guard outcome.status.isFailure || outcome.status == .duplicate else { return }
                var kept = outcome
                kept.plan = nil
                state.held.append(kept)
            }
        }
        if context.stop.isStopped { try reportStoppedBeforeApplying(context) }
        let state = shared.withLock { $0 }
        var tally = state.tally
        guard tally.destructive > 0 else { return }
        tally.seconds = context.seconds
        // Destructive plans are there: the run ends with the weightiest outcome.
        let ending = tally.ending(answeringStatus: false) ?? .destructive
        if global.json {
            for outcome in state.held { Output.jsonLine(FleetStoreRecord(outcome, run: run)) }
            Output.jsonLine(
                FleetSummaryRecord(
                    command: "apply", run: run, shard: fleet.selectedShard?.description, exitCode: ending.exitCode,
                    tally: tally))
        } else {
            Output.err("error: \(tally.destructiveSummary); no store was changed")
            Output.out(
                (["\(tally.stores) store\(tally.stores == 1 ? "" : "s") planned, none changed"] + tally.problemLines())
                    .joined(separator: "\n"))
        }
        throw global.said(ending)
    }

    /// Migrates every store, `--jobs` at a time, reporting each as it ends.
    func applyAll(_ planner: MigrationPlanner, _ context: RunContext) throws {
        let (excluded, run, stop, signals) = (context.excluded, context.id, context.stop, context.signals)
        var options = migration.migratorOptions
        options.rowProgress = false
        let progress = FleetProgress(
            total: Output.stderrIsTerminal && !global.json ? fleet.count(excluding: excluded) : nil)
        let json = global.json
        let shared = Locked(FleetApplyState())
        var runner = FleetRunner(planner: planner, jobs: jobs, stop: stop) {
            PolicyEngine(catalog: MigrateTool.policies)
        }
        runner.refusesDestructivePlans = gate.failOnDestructive
        runner.acceptedLosses = try gate.losses(for: planner, global: global)
        runner.run(fleet.list(excluding: excluded), mode: .apply(options)) { outcome in
            let tally = shared.withLock { state in
                state.tally.add(outcome)
                return state.tally
            }
            if json {
                Output.jsonLine(FleetStoreRecord(outcome, run: run))
            } else if outcome.status.isFailure && outcome.started {
                progress.finish()
                Output.err("error: \(outcome.path): \(outcome.message ?? outcome.status.meaning)")
            } else if [.migrated, .wouldMigrate].contains(outcome.status) {
                shared.withLock { state in
                    for warning in outcome.warnings { state.add(warning: warning, of: outcome.path) }
                }
            }
            for left in outcome.result?.backupsLeft ?? [] where !json {
                Output.err("warning: \(outcome.path): --keep: \(left)")
            }
            progress.update(tally)
        }
        progress.finish()
        for line in shared.withLock({ $0.warningLines }) { Output.err(line) }
        var tally = shared.withLock { $0.tally }
        tally.seconds = context.seconds
        // A signal that came after the last store finished stopped nothing.
        let signal = stop.stoppedWork ? signals.received : nil
        let ending = signal.map { Outcome.Kind.interrupted(signal: $0) } ?? tally.ending(answeringStatus: false)
        if tally.stores == 0 && fleet.selectedShard == nil && signal == nil {
            throw global.fail("no stores found (folders are searched for --pattern, \(fleet.pattern) here)", .failed)
        }
        if json {
            Output.jsonLine(
                FleetSummaryRecord(
                    command: "apply", run: run, shard: fleet.selectedShard?.description,
                    exitCode: ending?.exitCode ?? 0, tally: tally))
        } else {
            Output.out(summaryLines(tally, signal: signal).joined(separator: "\n"))
        }
        if let ending { throw global.said(ending) }
    }

    /// A signal during the gate's pass, before any store was migrated: every store
    /// gets its `interrupted` record (not started), then the summary; exit 128 + signal.
    func reportStoppedBeforeApplying(_ context: RunContext) throws -> Never {
        var tally = FleetTally()
        for entry in fleet.list(excluding: context.excluded) {
            let outcome = context.stop.unstarted(entry)
            tally.add(outcome)
            if global.json { Output.jsonLine(FleetStoreRecord(outcome, run: context.id)) }
        }
        tally.seconds = context.seconds
        let signal = context.signals.received ?? SIGTERM
        let ending = Outcome.Kind.interrupted(signal: signal)
        if global.json {
            Output.jsonLine(
                FleetSummaryRecord(
                    command: "apply", run: context.id, shard: fleet.selectedShard?.description,
                    exitCode: ending.exitCode, tally: tally))
        } else {
            Output.out(summaryLines(tally, signal: signal).joined(separator: "\n"))
        }
        throw global.said(ending)
    }

    /// The closing text of a run.
    func summaryLines(_ tally: FleetTally, signal: Int32?) -> [String] {
        let rate = tally.seconds > 0 ? Double(tally.stores) / tally.seconds : 0
        var parts: [String] = []
        if tally.migrated > 0 { parts.append("\(tally.migrated) migrated") }
        if tally.wouldMigrate > 0 { parts.append("\(tally.wouldMigrate) would be migrated (dry run, rolled back)") }
        if tally.current > 0 { parts.append("\(tally.current) already current") }
        if tally.destructive > 0 { parts.append("\(tally.destructive) refused as destructive") }
        if tally.noPath > 0 { parts.append("\(tally.noPath) without a migration path") }
        if tally.unknownVersion > 0 { parts.append("\(tally.unknownVersion) of an unknown version") }
        if tally.failed > 0 { parts.append("\(tally.failed) failed") }
        if tally.interrupted > 0 { parts.append("\(tally.interrupted) stopped by the signal (rolled back)") }
        if tally.notStarted > 0 { parts.append("\(tally.notStarted) not started") }
        if tally.duplicates > 0 { parts.append("\(tally.duplicates) reached again by another path (handled once)") }
        var lines = [
            """
            \(tally.stores) store\(tally.stores == 1 ? "" : "s")\(fleet.selectedShard.map { " in shard \($0)" } ?? "") \
            in \(String(format: "%.1f", tally.seconds)) s (\(String(format: "%.1f", rate)) stores/s): \
            \(parts.joined(separator: ", "))
            """
        ]
        if let signal {
            lines.append(
                "stopped by signal \(signal): the stores under way were rolled back; rerun the same command to finish")
        }
        return lines + tally.problemLines()
    }
}
