import DataModel
import Foundation
import SQLiteStore

/// Runs one planner and one migrator over many stores, `jobs` at a time.
///
/// It adds scheduling and reporting around what `migrate status` and `migrate
/// apply` do to one store, not a second way to migrate: each store is planned
/// against its own tables and migrated by `Migrator.apply` in its own transaction,
/// so every store ends old or new, never half, whatever happens to the runner. A
/// store that fails never stops the others. Stores come from a `FleetStoreList`,
/// pulled one at a time, and each outcome is handed to `report` as soon as it is
/// known, so memory stays flat in the number of stores.
public struct FleetRunner: Sendable {
    /// What to do to each store.
    public enum Mode: Sendable {
        /// Plan each store and report where it stands; change nothing.
        case survey
        /// Migrate each store that needs it, with these options (`backupDirectory`
        /// receives each store's copy under its own folder path, so that stores with
        /// the same file name never collide).
        case apply(Migrator.Options)
    }

    /// The planner every store is planned with (models compiled once).
    public var planner: MigrationPlanner
    /// How many stores are handled at a time.
    public var jobs: Int
    /// A policy runner for one store's migration (policies are not shared between
    /// stores running at the same time).
    public var makePolicyRunner: @Sendable () -> (any PolicyRunning)?
    /// Stops the run from elsewhere.
    public var stop: FleetStop
    /// `--fail-on-destructive`: a store whose plan loses data is reported as
    /// `destructive` and left as it is, never migrated.
    public var refusesDestructivePlans = false
    /// Reviewed losses per model name (`--accept`, `accepted-losses.yaml`): the gate
    /// lets them through and each store's warnings say they were accepted.
    package var acceptedLosses: [String: AcceptedLosses] = [:]

    /// A runner.
    public init(
        planner: MigrationPlanner, jobs: Int, stop: FleetStop = FleetStop(),
        makePolicyRunner: @escaping @Sendable () -> (any PolicyRunning)? = { nil }
    ) {
        self.planner = planner
        self.jobs = max(1, jobs)
        self.stop = stop
        self.makePolicyRunner = makePolicyRunner
    }

    /// Handles every store of `stores`, `jobs` at a time, calling `report` (from
    /// any thread, one call at a time) with each store's outcome. Returns when every
    /// store started is done; after `stop`, no store is started.
    public func run(_ stores: FleetStoreList, mode: Mode, report: @escaping @Sendable (FleetStoreOutcome) -> Void) {
        var stores = stores
        stores.stop = stop
        Self.forEach(stores.makeIterator(), jobs: jobs, stop: stop, report: report, unstarted: stop.unstarted) {
            [self] entry in
            if case .store(let path) = entry { return handle(path, mode: mode) }
            return Self.listOutcome(entry)
        }
    }

    /// The outcome of an entry of the list that is not a store to handle: a
    /// duplicate, a backup or kept copy listed, or a source that could not be read.
    package static func listOutcome(_ entry: FleetStoreList.Entry) -> FleetStoreOutcome {
        switch entry {
        case .store(let path):
            return FleetStoreOutcome(path: path, status: .failed, message: "not handled", seconds: 0)
        case .duplicate(let path, let first):
            return FleetStoreOutcome(
                path: path, status: .duplicate,
                message: """
                    the same store file as \(first) (same device and inode: a hard link, a symbolic link or a path \
                    listed twice); handled once, as \(first)
                    """, duplicateOf: first, seconds: 0)
        case .unreadable(let path, let reason):
            return FleetStoreOutcome(
                path: path, status: .failed, message: "cannot read the store list: \(reason)", seconds: 0)
        case .notAStore(let path, let reason):
            return FleetStoreOutcome(path: path, status: .notAStore, message: reason, seconds: 0)
        }
    }

    /// Hands every element of `items` to `handle`, `jobs` at a time, and each
    /// outcome to `report` (one call at a time) as soon as it is known. After
    /// `stop`, no element is started: each is reported as `unstarted` says (a store
    /// not started; a duplicate path still a duplicate). The scheduling of every
    /// fleet command.
    package static func forEach<Items: IteratorProtocol>(
        _ items: Items, jobs: Int, stop: FleetStop, report: @escaping @Sendable (FleetStoreOutcome) -> Void,
        unstarted: @escaping @Sendable (Items.Element) -> FleetStoreOutcome,
        handle: @escaping @Sendable (Items.Element) -> FleetStoreOutcome
    ) {
        // The list, advanced by one worker at a time.
        let source = Locked(items)
        // One report at a time.
        let reporting = Locked(())
        let work = {
            while let item = source.withLock({ $0.next() }) {
                let outcome = stop.isStopped ? unstarted(item) : handle(item)
                reporting.withLock { _ in report(outcome) }
            }
        }
        // Large stacks: a policy's work and SQLite's parser run on these threads.
        // Threads that cannot be started (a small `ulimit -v`) mean fewer jobs, and
        // none at all means this thread does the work: never a wait for a thread
        // that does not exist.
        var threads: [OSThread] = []
        for _ in 0..<jobs {
            guard let thread = try? OSThread.start(stackSize: 8 << 20, work) else { break }
            threads.append(thread)
        }
        if threads.isEmpty { work() }
        for thread in threads { thread.join() }
    }

    /// Why a path named as a store is not a store file, in words.
    static func missingStoreWords(_ path: String, isFolder: Bool) -> String {
        if isFolder {
            return
                """
                a folder, not a store file (named like a store, it is taken for one; to search inside it, rename it or \
                pass another --pattern)
                """
        }
        var link = stat()
        return lstat(path, &link) == 0 ? "a symbolic link to a file that does not exist" : "no such store file"
    }

    /// The one single-store run every store of the fleet goes through.
    var storeRun: StoreRun {
        var run = StoreRun(planner: planner, makePolicyRunner: makePolicyRunner)
        run.refusesDestructivePlans = refusesDestructivePlans
        let losses = acceptedLosses
        run.acceptedLosses = { losses[$0.name] ?? AcceptedLosses() }
        return run
    }

    /// One store: plan it, and in `.apply` mode migrate it when it needs it, through
    /// ``StoreRun`` as `migrate apply` does.
    public func handle(_ path: String, mode: Mode) -> FleetStoreOutcome {
        let started = Date()
        var outcome = FleetStoreOutcome(path: path, status: .failed, seconds: 0)
        func finish(_ status: Outcome.Kind, _ message: String? = nil) -> FleetStoreOutcome {
            outcome.status = status
            // Messages that start with the store's path say it once.
            if let message {
                outcome.message = message.hasPrefix(path + ": ") ? String(message.dropFirst(path.count + 2)) : message
            }
            outcome.seconds = Date().timeIntervalSince(started)
            return outcome
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return finish(.failed, "\(path): \(Self.missingStoreWords(path, isFolder: isDirectory.boolValue))")
        }
        guard case .apply(var options) = mode else {
            let gated: StoreRun.Gated
            do {
                gated = try storeRun.plan(path, timeout: 5)
            } catch {
                recognize(path, into: &outcome)
                let failure = Outcome(error)
                return finish(failure.kind, failure.message)
            }
            describe(gated.plan, into: &outcome)
            outcome.plan = gated.plan
            if let refusal = gated.refusal { return finish(refusal.kind, refusal.message) }
            return finish(gated.plan.isEmpty ? .current : .migrationNeeded)
        }
        let cancellation = MigrationCancellation()
        options.cancellation = cancellation
        stop.register(cancellation)
        defer { stop.unregister(cancellation) }
        // A migration the run's stop cancelled is `interrupted`, naming the signal.
        let ending = storeRun.apply(
            path, options: options, interruptedBy: { [stop] in stop.isStopped ? stop.signal ?? SIGINT : nil })
        if let plan = ending.plan { describe(plan, into: &outcome) }
        switch ending {
        case .notPlanned(let failure):
            recognize(path, into: &outcome)
            // `fleet apply`: a store that could not even be planned was only read.
            let unchanged = failure.kind == .failed && !failure.message.contains("nothing was changed")
            return finish(failure.kind, failure.message + (unchanged ? "; nothing was changed" : ""))
        case .current:
            // Stores already at the target are skipped: rerunning a fleet after an
            // interruption picks up where it stopped.
            return finish(.current)
        case .migratedByAnother:
            return finish(.current, "migrated by another process meanwhile")
        case .refused(_, let refusal):
            return finish(refusal.kind, refusal.message)
        case .ran(_, let result):
            outcome.result = result
            outcome.warnings += result.warnings.map { "destructive: \($0)" }
            return finish(ending.kind)
        case .failed(_, let failure):
            outcome.statement = failure.statement
            return finish(failure.kind, failure.message)
        }
    }

    /// A planned store's model, versions and warnings, for its record.
    private func describe(_ plan: MigrationPlan, into outcome: inout FleetStoreOutcome) {
        outcome.model = plan.model
        outcome.version = plan.sourceVersion
        outcome.target = plan.targetVersion
        outcome.warnings = plan.warnings.map(\.description)
    }

    /// For a store that could not be planned (no path, a policy missing, a store that
    /// does not match its version): its model, version and target when its hashes
    /// name a version, so that the record and `fleet status`'s table still place it.
    func recognize(_ path: String, into outcome: inout FleetStoreOutcome) {
        guard let store = try? Store.open(path: path, access: .readOnly, busyTimeout: 1) else { return }
        defer { try? store.close() }
        guard let metadata = try? store.readMetadata(),
            let recognition = VersionRecognition.recognize(metadata, among: planner.models),
            let version = recognition.version,
            let model = planner.models.first(where: { $0.name == recognition.model })
        else { return }
        outcome.model = model.name
        outcome.version = version
        outcome.target = planner.options.target ?? model.current.version
    }
}
