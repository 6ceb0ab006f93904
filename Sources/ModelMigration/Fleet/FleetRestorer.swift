import Foundation
import SQLiteStore

/// Undoes a fleet run (`migrate fleet restore`): every store the run migrated goes
/// back to the backup that run took, `jobs` at a time.
///
/// Each store is restored exactly as `migrate restore` restores one
/// (`StoreRestore.restore`: the backup checked, then copied, locked and renamed over
/// the store, the replaced store kept in `.replaced/`), so each store ends at the
/// backup or as it was, never half; one that fails never stops the others. Before
/// that, where the store stands decides: a store already at the version the backup
/// holds is left as it is (a rerun after an interruption picks up where it
/// stopped), and a store the run migrated that is no longer at the version the
/// run left it at (another release since, or a store replaced) is refused, since
/// putting the run's backup back would undo more than the run.
package struct FleetRestorer: Sendable {
    /// One store to put back.
    package struct Item: Sendable, Hashable {
        /// The store, as the run's log or the store list names it.
        package var store: String
        /// The backup the run took (from the run's log); nil: the newest backup in
        /// the backup folder taken at ``version``.
        package var backup: String?
        /// The version to go back to: the store's before the run.
        package var version: Int
        /// The version the run migrated the store to, when the log says it.
        package var migratedTo: Int?

        /// An item.
        package init(store: String, backup: String?, version: Int, migratedTo: Int?) {
            self.store = store
            self.backup = backup
            self.version = version
            self.migratedTo = migratedTo
        }
    }

    /// The options of each store's restore (backup folder, timeout, models).
    package var options: StoreRestore.Options
    /// How many stores are restored at a time.
    package var jobs: Int
    /// Stops the run from elsewhere (a signal): no store starts, and the copies
    /// under way are removed before they take a store's name.
    package var stop: FleetStop

    /// A restorer.
    package init(options: StoreRestore.Options, jobs: Int, stop: FleetStop = FleetStop()) {
        self.options = options
        self.jobs = max(1, jobs)
        self.stop = stop
    }

    /// Restores every item (a run's log), reporting each outcome as it is known.
    package func run(_ items: [Item], report: @escaping @Sendable (FleetStoreOutcome) -> Void) {
        FleetRunner.forEach(
            items.makeIterator(), jobs: jobs, stop: stop, report: report,
            unstarted: { [stop] in stop.skipped($0.store) }
        ) {
            [self] item in handle(item)
        }
    }

    /// Restores every store of `stores` to its newest backup taken at `version`.
    package func run(_ stores: FleetStoreList, version: Int, report: @escaping @Sendable (FleetStoreOutcome) -> Void) {
        var stores = stores
        stores.stop = stop
        FleetRunner.forEach(stores.makeIterator(), jobs: jobs, stop: stop, report: report, unstarted: stop.unstarted) {
            [self] entry in
            guard case .store(let path) = entry else { return FleetRunner.listOutcome(entry) }
            return handle(Item(store: path, backup: nil, version: version, migratedTo: nil))
        }
    }

    /// One store.
    package func handle(_ item: Item) -> FleetStoreOutcome {
        let started = Date()
        var outcome = FleetStoreOutcome(path: item.store, status: .failed, target: item.version, seconds: 0)
        func finish(_ status: Outcome.Kind, _ message: String? = nil) -> FleetStoreOutcome {
            outcome.status = status
            if let message {
                outcome.message =
                    message.hasPrefix(item.store + ": ") ? String(message.dropFirst(item.store.count + 2)) : message
            }
            outcome.seconds = Date().timeIntervalSince(started)
            return outcome
        }
        if let refusal = standing(of: item, into: &outcome) { return finish(refusal.kind, refusal.message) }
        var options = self.options
        if let backup = item.backup {
            options.file = backup
        } else {
            options.version = item.version
        }
        let cancellation = MigrationCancellation()
        options.cancellation = cancellation
        stop.register(cancellation)
        defer { stop.unregister(cancellation) }
        do {
            let result = try StoreRestore.restore(store: item.store, options: options)
            outcome.model = result.model
            outcome.target = result.version
            outcome.restored = result
            return finish(.restored)
        } catch {
            // A copy the run's stop cancelled is `interrupted`, naming the signal.
            return finish(
                cancellation.isCancelled && stop.isStopped ? .interrupted(signal: stop.signal ?? SIGINT) : .failed,
                error.message)
        }
    }

    /// Where the store stands, when that decides without a restore: nil to restore
    /// it, else the outcome (`current`: already at the version; `failed`: missing,
    /// or not where the run left it). Records the store's model and version.
    func standing(of item: Item, into outcome: inout FleetStoreOutcome) -> Outcome? {
        var info = stat()
        guard lstat(item.store, &info) == 0 else {
            return Outcome(
                .failed,
                """
                no store at the path; nothing was changed (a store removed since the run stays removed: to put its \
                backup there, restore it alone with migrate restore)
                """)
        }
        // A store that cannot be read is restored as `restore` restores it (the
        // damaged file is kept in `.replaced/`).
        guard let store = try? Store.open(path: item.store, access: .readOnly, busyTimeout: options.timeout) else {
            return nil
        }
        defer { try? store.close() }
        guard let metadata = try? store.readMetadata(), let now = metadata.modelVersion else { return nil }
        outcome.model = metadata.modelName
        outcome.version = now
        if now == item.version { return Outcome(.current, "already at version \(now); nothing to do") }
        if let migratedTo = item.migratedTo, now != migratedTo {
            return Outcome(
                .failed,
                """
                at version \(now), not version \(migratedTo) the run migrated it to: it changed since the run; nothing \
                was changed (to put the run's backup back anyway: migrate restore \(item.store) --from \
                \(item.backup ?? "BACKUP"))
                """)
        }
        if item.migratedTo == nil, now < item.version {
            return Outcome(
                .failed,
                """
                at version \(now), below version \(item.version): no migration from version \(item.version) to undo; \
                nothing was changed
                """
            )
        }
        return nil
    }
}
