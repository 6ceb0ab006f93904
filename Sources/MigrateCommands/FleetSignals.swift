import ModelMigration

/// SIGINT and SIGTERM stop a fleet run: no new store, the ones under way roll back.
final class FleetSignals: Sendable {
    private let watcher: SignalWatcher

    var received: Int32? { watcher.received }

    init(stop: FleetStop) throws {
        watcher = try SignalWatcher { signal in stop.stop(signal: signal) }
    }

    func stop() { watcher.stop() }
}
