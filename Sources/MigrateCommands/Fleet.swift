import ArgumentParser
import DataModel
import Foundation
import ModelMigration

/// `migrate fleet status|plan|apply STORES…`: many stores in one command.
struct Fleet: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Status, plan or migrate many stores at once: files, folders searched for stores, or a list.",
        discussion: """
            Each store is handled as `migrate status`, `plan` or `apply` handles one, `--jobs` at a time; \
            a store that fails never stops the others. `--shard I/N` (or `--shards N` with \
            $JOB_COMPLETION_INDEX) takes a stable share of the stores, so that the pods of a Kubernetes \
            Indexed Job handle every store exactly once.
            """,
        subcommands: [FleetStatus.self, FleetPlan.self, FleetApply.self])
}

/// Where a fleet's stores come from, and which of them this process takes.
struct FleetOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("Stores: files, or folders searched (recursively) for files matching --pattern.", valueName: "stores"))
    var stores: [String] = []

    @Option(name: .customLong("stores-from"),
            help: ArgumentHelp("A file with one store (or folder) path a line; - reads standard input. May be repeated.", valueName: "file"))
    var storesFrom: [String] = []

    @Option(name: .long, help: ArgumentHelp("The file names searched for in folders (fnmatch pattern).", valueName: "glob"))
    var pattern = "*.sqlite"

    @Option(name: .long, help: ArgumentHelp("Take only shard I of N: the stores whose path hashes to I modulo N (0 ≤ I < N).", valueName: "I/N"))
    var shard: String?

    @Option(name: .long, help: ArgumentHelp("Take shard $JOB_COMPLETION_INDEX of N (a Kubernetes Indexed Job's pod index).", valueName: "N"))
    var shards: Int?

    @Flag(name: .long, help: "Remove references stores already hold to objects they do not have, as `plan`/`apply` do with this flag.")
    var removeDanglingReferences = false

    func validate() throws {
        if stores.isEmpty && storesFrom.isEmpty { throw ValidationError("give the stores: paths, folders or --stores-from FILE") }
        if storesFrom.filter({ $0 == "-" }).count > 1 { throw ValidationError("--stores-from -: standard input can be read once") }
        if shard != nil && shards != nil { throw ValidationError("--shard and --shards: give one of them") }
        if let shard, FleetShard(parsing: shard) == nil {
            throw ValidationError("--shard \(shard): expected I/N with 0 ≤ I < N, e.g. 0/4")
        }
        if let shards {
            guard shards >= 1 else { throw ValidationError("--shards must be 1 or more") }
            guard let text = ProcessInfo.processInfo.environment["JOB_COMPLETION_INDEX"] else {
                throw ValidationError("--shards \(shards): JOB_COMPLETION_INDEX is not set (give --shard I/N outside an Indexed Job)")
            }
            guard let index = Int(text), FleetShard(index: index, count: shards) != nil else {
                throw ValidationError("--shards \(shards): JOB_COMPLETION_INDEX=\(text) is not a shard index below \(shards)")
            }
        }
    }

    /// The shard this process takes, if any.
    var selectedShard: FleetShard? {
        if let shard { return FleetShard(parsing: shard) }
        if let shards, let text = ProcessInfo.processInfo.environment["JOB_COMPLETION_INDEX"], let index = Int(text) {
            return FleetShard(index: index, count: shards)
        }
        return nil
    }

    /// The stores, listed lazily.
    func list(excluding excluded: [String] = []) -> FleetStoreList {
        FleetStoreList(sources: stores.map { .path($0) } + storesFrom.map { .listFile($0) }, pattern: pattern,
                       excludedFolders: excluded, shard: selectedShard)
    }

    /// How many stores the list holds (a first walk, for progress), unless it
    /// reads standard input, which can be read once.
    func count(excluding excluded: [String]) -> Int? {
        if storesFrom.contains("-") { return nil }
        var count = 0
        for entry in list(excluding: excluded) {
            if case .unreadable = entry { continue }
            count += 1
        }
        return count
    }
}

extension GlobalOptions {
    /// The models compiled once for a whole fleet, and the mapping files of each
    /// checked once, before any store is touched.
    func fleetPlanner(removeDanglingReferences: Bool) throws -> MigrationPlanner {
        let result = ModelLoader.load(path: models)
        let compiled: [CompiledModel]
        do {
            compiled = try result.compiledModels()
        } catch {
            if case .failure(let message, let code, let diagnostics, let rendered) = Self.modelFailure(error.diagnostics, sources: result.sources) {
                throw fail(message, code, diagnostics: diagnostics, rendered: rendered)
            }
            throw ExitStatus.failure
        }
        for model in compiled {
            let files = MappingFiles.load(folder: migrations, model: model.name)
            let errors = files.diagnostics.filter { $0.severity == .error }
            if !errors.isEmpty {
                if case .failure(let message, let code, let diagnostics, let rendered) = Self.modelFailure(files.diagnostics, sources: [:]) {
                    throw fail(message, code, diagnostics: diagnostics, rendered: rendered)
                }
            }
        }
        var planner = MigrationPlanner(models: compiled, migrationsFolder: migrations, knownPolicies: Set(MigrateTool.policies.names))
        planner.removesDanglingReferences = removeDanglingReferences
        planner.policyInputs = MigrateTool.policies.declaredInputs
        planner.policyUnwritten = MigrateTool.policies.unwritten
        planner.policyFunctions = MigrateTool.policies.functions
        return planner
    }
}

/// Counts of a fleet run, and the stores that need a person's attention.
struct FleetTally: Encodable {
    var stores = 0
    var current = 0
    var migrationNeeded = 0
    var migrated = 0
    var wouldMigrate = 0
    var noPath = 0
    var unknownVersion = 0
    var failed = 0
    /// Paths that reach a store listed before them (handled once, as that path).
    var duplicates = 0
    var seconds = 0.0
    /// Every store that is not fine, with why (these are few, or the run is wrong),
    /// and every duplicate path, with the path it duplicates.
    var problems: [Problem] = []

    struct Problem: Encodable {
        var store: String
        var status: String
        var message: String
    }

    mutating func add(_ outcome: FleetStoreOutcome) {
        stores += 1
        switch outcome.status {
        case .current: current += 1
        case .migrationNeeded: migrationNeeded += 1
        case .migrated: migrated += 1
        case .wouldMigrate: wouldMigrate += 1
        case .noPath: noPath += 1
        case .unknownVersion: unknownVersion += 1
        case .failed: failed += 1
        case .duplicate: duplicates += 1
        }
        switch outcome.status {
        case .noPath, .unknownVersion, .failed, .duplicate:
            problems.append(Problem(store: outcome.path, status: outcome.status.rawValue, message: outcome.message ?? ""))
        default: break
        }
    }

    /// The exit code: 1 when any store failed, else 5 when any has an unknown
    /// version, else 4 when any has no path, else `otherwise`.
    func exitCode(otherwise: Int32) -> Int32 {
        if failed > 0 { return ExitStatus.failure.rawValue }
        if unknownVersion > 0 { return ExitStatus.unknownVersion.rawValue }
        if noPath > 0 { return ExitStatus.noMigrationPath.rawValue }
        return otherwise
    }

    /// The problems, grouped by status, for the closing text.
    func problemLines() -> [String] {
        var lines: [String] = []
        for (status, title) in [("failed", "failed"), ("unknown-version", "unknown version"), ("no-path", "no migration path"),
                                ("duplicate", "reached again by another path, handled once")] {
            let some = problems.filter { $0.status == status }
            if some.isEmpty { continue }
            lines.append("\(title) (\(some.count)):")
            for problem in some { lines.append("  \(problem.store): \(problem.message)") }
        }
        return lines
    }
}

/// One JSON Lines record per store.
struct FleetStoreRecord: Encodable {
    var event = "store"
    var store: String
    var status: String
    var model: String?
    var version: Int?
    var target: Int?
    var seconds: Double
    var rowsTouched: Int64?
    var checksPassed: Int?
    var backup: String?
    var warnings: [String]?
    var danglingReferences: [String]?
    var duplicateOf: String?
    var message: String?

    init(_ outcome: FleetStoreOutcome) {
        store = outcome.path
        status = outcome.status.rawValue
        model = outcome.model
        version = outcome.version
        target = outcome.target
        seconds = (outcome.seconds * 1000).rounded() / 1000
        message = outcome.message
        duplicateOf = outcome.duplicateOf
        if let result = outcome.result {
            rowsTouched = result.rowsTouched
            checksPassed = result.checksPassed
            backup = result.backup
            danglingReferences = result.carriedDanglingReferences
        }
        if !outcome.warnings.isEmpty { warnings = outcome.warnings }
    }
}

/// The closing JSON Lines record.
struct FleetSummaryRecord: Encodable {
    var event = "summary"
    var command: String
    var shard: String?
    var exitCode: Int32
    var tally: FleetTally
    var versions: [VersionCount]?
    var chains: [ChainRecord]?

    struct VersionCount: Encodable {
        var model: String
        var version: Int
        var target: Int
        var stores: Int
        var status: String
    }

    struct ChainRecord: Encodable {
        var model: String
        var from: Int
        var to: Int
        var stores: Int
        var example: String
        var steps: [String]
        var warnings: [String]
    }
}

/// Progress of a fleet run on stderr, when it is a terminal.
///
/// `@unchecked Sendable`: updated only under `FleetRunner`'s reporting lock.
final class FleetProgress: @unchecked Sendable {
    let total: Int?
    let started = Date()
    let terminal = Output.stderrIsTerminal
    private var lastDraw = Date.distantPast

    init(total: Int?) { self.total = total }

    func update(_ tally: FleetTally) {
        guard terminal else { return }
        let now = Date()
        guard now.timeIntervalSince(lastDraw) > 0.1 || tally.stores == total else { return }
        lastDraw = now
        let estimate = ProgressEstimate(done: Int64(tally.stores), total: total.map(Int64.init), elapsed: now.timeIntervalSince(started))
        var line = "\r\u{1B}[K\(tally.stores)\(total.map { "/\($0)" } ?? "") stores"
        let bad = tally.failed + tally.noPath + tally.unknownVersion
        if bad > 0 { line += ", \(bad) failed" }
        // Stores finish unevenly: a tenth of a store a second is still a rate.
        if let rate = estimate.rate { line += String(format: ", %.1f stores/s", rate) }
        if let left = estimate.secondsLeft { line += ", ETA \(left) s" }
        Output.errRaw(line)
    }

    func finish() { if terminal { Output.errRaw("\r\u{1B}[K") } }
}

/// `migrate fleet status STORES…`
struct FleetStatus: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "How many stores are at each version: current, migratable, without a path, unknown.",
        discussion: """
            Exit 0 every store current; 3 some need a migration, all possible; 4 some have no path; \
            5 some have an unknown version; 1 some could not be read.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var fleet: FleetOptions

    @Option(name: .long, help: ArgumentHelp("Stores read at a time (default: the number of cores).", valueName: "n"))
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws { if jobs < 1 { throw ValidationError("--jobs must be 1 or more") } }

    func run() throws {
        let planner = try global.fleetPlanner(removeDanglingReferences: fleet.removeDanglingReferences)
        let state = FleetSurvey(json: global.json)
        FleetRunner(planner: planner, jobs: jobs).run(fleet.list(), mode: .survey) { state.add($0) }
        let code = try state.finish(command: "status", shard: fleet.selectedShard, showPlans: false, sharded: fleet.selectedShard != nil)
        if code != 0 { throw ExitCode(code) }
    }
}

/// `migrate fleet plan STORES…`
struct FleetPlan: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Plan a fleet: each distinct chain (model, from, to) shown once, with the number of stores it applies to.",
        discussion: "Exit 0 every store can be migrated (or is current); 4 some have no path; 5 some have an unknown version; 1 some could not be planned.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var fleet: FleetOptions

    @Flag(name: .long, help: "Show each step's SQL and each check.")
    var sql = false

    @Option(name: .long, help: ArgumentHelp("Stores read at a time (default: the number of cores).", valueName: "n"))
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws { if jobs < 1 { throw ValidationError("--jobs must be 1 or more") } }

    func run() throws {
        let planner = try global.fleetPlanner(removeDanglingReferences: fleet.removeDanglingReferences)
        let state = FleetSurvey(json: global.json, showSQL: sql)
        FleetRunner(planner: planner, jobs: jobs).run(fleet.list(), mode: .survey) { state.add($0) }
        let code = try state.finish(command: "plan", shard: fleet.selectedShard, showPlans: true, sharded: fleet.selectedShard != nil)
        if code != 0 { throw ExitCode(code) }
    }
}

/// What `fleet status` and `fleet plan` gather: counts per version, one plan per
/// chain (the first store's), and the problems. Called one outcome at a time.
final class FleetSurvey: @unchecked Sendable {
    // `@unchecked Sendable`: `FleetRunner` calls `add` under its reporting lock.
    let json: Bool
    let showSQL: Bool
    var tally = FleetTally()
    var versions: [VersionKey: Int] = [:]
    var chains: [ChainKey: (count: Int, plan: MigrationPlan)] = [:]
    var chainOrder: [ChainKey] = []

    struct VersionKey: Hashable, Comparable {
        var model: String, version: Int, target: Int
        static func < (a: Self, b: Self) -> Bool { (a.model, a.version, a.target) < (b.model, b.version, b.target) }
    }

    struct ChainKey: Hashable {
        var model: String, from: Int, to: Int
    }

    init(json: Bool, showSQL: Bool = false) {
        self.json = json
        self.showSQL = showSQL
    }

    func add(_ outcome: FleetStoreOutcome) {
        tally.add(outcome)
        if json { Output.jsonLine(FleetStoreRecord(outcome)) }
        guard let model = outcome.model, let version = outcome.version, let target = outcome.target else { return }
        versions[VersionKey(model: model, version: version, target: target), default: 0] += 1
        if outcome.status == .migrationNeeded, let plan = outcome.plan {
            let key = ChainKey(model: model, from: version, to: target)
            if let known = chains[key] {
                chains[key] = (known.count + 1, known.plan)
            } else {
                chains[key] = (1, plan)
                chainOrder.append(key)
            }
        }
    }

    /// Prints the closing report and returns the exit code.
    func finish(command: String, shard: FleetShard?, showPlans: Bool, sharded: Bool) throws -> Int32 {
        if tally.stores == 0 && !sharded {
            throw ValidationError("no stores found (folders are searched for --pattern, *.sqlite by default)")
        }
        let code = tally.exitCode(otherwise: command == "status" && tally.migrationNeeded > 0 ? ExitStatus.migrationNeeded.rawValue : 0)
        let sortedVersions = versions.sorted { $0.key < $1.key }
        if json {
            let chainRecords = showPlans ? chainOrder.map { key -> FleetSummaryRecord.ChainRecord in
                let (count, plan) = chains[key]!
                return .init(model: key.model, from: key.from, to: key.to, stores: count, example: plan.storePath,
                             steps: plan.allSteps.map(\.summary), warnings: plan.warnings.map(\.description))
            } : nil
            Output.jsonLine(FleetSummaryRecord(
                command: command, shard: shard?.description, exitCode: code, tally: tally,
                versions: sortedVersions.map { .init(model: $0.key.model, version: $0.key.version, target: $0.key.target, stores: $0.value,
                                                     status: $0.key.version == $0.key.target ? "current" : "migration-needed") },
                chains: chainRecords))
            return code
        }
        var lines: [String] = []
        lines.append("\(tally.stores) store\(tally.stores == 1 ? "" : "s")\(shard.map { " in shard \($0)" } ?? "")")
        if !sortedVersions.isEmpty {
            let rows = sortedVersions.map { entry -> [String] in
                let key = entry.key
                return [key.model, String(key.version), String(entry.value),
                        key.version == key.target && !(chains[ChainKey(model: key.model, from: key.version, to: key.target)] != nil)
                            ? "current" : "migration to \(key.target) needed"]
            }
            lines.append(contentsOf: TextTable.render(header: ["model", "version", "stores", "status"], rows: rows).map { "  " + $0 })
        }
        var counts: [String] = []
        if tally.current > 0 { counts.append("\(tally.current) current") }
        if tally.migrationNeeded > 0 { counts.append("\(tally.migrationNeeded) to migrate") }
        if tally.noPath > 0 { counts.append("\(tally.noPath) without a migration path") }
        if tally.unknownVersion > 0 { counts.append("\(tally.unknownVersion) of an unknown version") }
        if tally.failed > 0 { counts.append("\(tally.failed) unreadable") }
        if tally.duplicates > 0 { counts.append("\(tally.duplicates) reached again by another path") }
        if !counts.isEmpty { lines.append(counts.joined(separator: ", ")) }
        if showPlans {
            for key in chainOrder {
                let (count, plan) = chains[key]!
                lines.append("")
                lines.append("== \(key.model) \(key.from) → \(key.to): \(count) store\(count == 1 ? "" : "s") (plan of \(plan.storePath))")
                lines.append(contentsOf: PlanRenderer.hopLines(plan, showSQL: showSQL))
            }
        }
        let problems = tally.problemLines()
        if !problems.isEmpty { lines.append(""); lines.append(contentsOf: problems) }
        Output.out(lines.joined(separator: "\n"))
        return code
    }
}

/// `migrate fleet apply STORES…`
struct FleetApply: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Migrate every store of a fleet, --jobs at a time, each atomically as `migrate apply` does.",
        discussion: """
            A store that fails never stops the others and is left unchanged. Rerunning after an interruption \
            (even kill -9) picks up where it stopped: stores at the target are skipped. \
            Exit 0 every store ends current; 1 some failed (each named); 4 or 5 some had no path or an \
            unknown version and none failed otherwise; 128+n stopped by signal n (stores under way rolled back).
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var fleet: FleetOptions

    @Option(name: .long, help: ArgumentHelp("Stores migrated at a time (default: the number of cores).", valueName: "n"))
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    /// `--backup-dir` (never searched for stores), `--dry-run`, `--verify`, `--timeout`.
    @OptionGroup var migration: MigrationRunOptions

    func validate() throws {
        if jobs < 1 { throw ValidationError("--jobs must be 1 or more") }
    }

    func run() throws {
        let planner = try global.fleetPlanner(removeDanglingReferences: fleet.removeDanglingReferences)
        var options = migration.migratorOptions
        options.rowProgress = false
        let excluded = migration.backupDirectory.map { [$0] } ?? []
        let progress = FleetProgress(total: Output.stderrIsTerminal && !global.json ? fleet.count(excluding: excluded) : nil)
        let stop = FleetStop()
        let signals: FleetSignals
        do { signals = try FleetSignals(stop: stop) } catch { throw global.fail("\(error)", ExitStatus.failure) }
        defer { signals.stop() }
        let json = global.json
        let state = FleetApplyState()
        let runner = FleetRunner(planner: planner, jobs: jobs, stop: stop) { PolicyEngine(catalog: MigrateTool.policies) }
        runner.run(fleet.list(excluding: excluded), mode: .apply(options)) { outcome in
            state.tally.add(outcome)
            if json {
                Output.jsonLine(FleetStoreRecord(outcome))
            } else if [.failed, .noPath, .unknownVersion].contains(outcome.status) {
                progress.finish()
                Output.err("error: \(outcome.path): \(outcome.message ?? outcome.status.rawValue)")
            } else if [.migrated, .wouldMigrate].contains(outcome.status), !outcome.warnings.isEmpty {
                progress.finish()
                for warning in outcome.warnings { Output.err("warning: \(outcome.path): \(warning)") }
            }
            progress.update(state.tally)
        }
        progress.finish()
        var tally = state.tally
        tally.seconds = (Date().timeIntervalSince(progress.started) * 1000).rounded() / 1000
        // A signal that came after the last store finished stopped nothing.
        let signal = stop.stoppedWork ? signals.received : nil
        var code = tally.exitCode(otherwise: 0)
        if let signal { code = 128 + signal }
        if tally.stores == 0 && fleet.selectedShard == nil && signal == nil {
            throw global.fail("no stores found (folders are searched for --pattern, \(fleet.pattern) here)", ExitStatus.failure)
        }
        if json {
            Output.jsonLine(FleetSummaryRecord(command: "apply", shard: fleet.selectedShard?.description, exitCode: code, tally: tally))
        } else {
            let rate = tally.seconds > 0 ? Double(tally.stores) / tally.seconds : 0
            var parts: [String] = []
            if tally.migrated > 0 { parts.append("\(tally.migrated) migrated") }
            if tally.wouldMigrate > 0 { parts.append("\(tally.wouldMigrate) would be migrated (dry run, rolled back)") }
            if tally.current > 0 { parts.append("\(tally.current) already current") }
            if tally.noPath > 0 { parts.append("\(tally.noPath) without a migration path") }
            if tally.unknownVersion > 0 { parts.append("\(tally.unknownVersion) of an unknown version") }
            if tally.failed > 0 { parts.append("\(tally.failed) failed") }
            if tally.duplicates > 0 { parts.append("\(tally.duplicates) reached again by another path (handled once)") }
            var lines = ["""
                \(tally.stores) store\(tally.stores == 1 ? "" : "s")\(fleet.selectedShard.map { " in shard \($0)" } ?? "") \
                in \(String(format: "%.1f", tally.seconds)) s (\(String(format: "%.1f", rate)) stores/s): \(parts.joined(separator: ", "))
                """]
            if let signal {
                lines.append("stopped by signal \(signal): the stores under way were rolled back; rerun the same command to finish")
            }
            let problems = tally.problemLines()
            if !problems.isEmpty { lines.append(contentsOf: problems) }
            Output.out(lines.joined(separator: "\n"))
        }
        if code != 0 { throw ExitCode(code) }
    }
}

/// The running tally of `fleet apply`, updated under the runner's reporting lock.
final class FleetApplyState: @unchecked Sendable {
    var tally = FleetTally()
}

/// SIGINT and SIGTERM stop a fleet run: no new store, the ones under way roll back.
final class FleetSignals: Sendable {
    private let watcher: SignalWatcher

    var received: Int32? { watcher.received }

    init(stop: FleetStop) throws {
        watcher = try SignalWatcher { _ in stop.stop() }
    }

    func stop() { watcher.stop() }
}
