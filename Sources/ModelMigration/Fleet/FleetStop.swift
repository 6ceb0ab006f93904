import Foundation

/// Stops a fleet run from another thread (a signal handler): no store is started
/// after it, and every migration under way is cancelled, rolling back.
///
/// `@unchecked Sendable`: its state is only touched under its lock.
public final class FleetStop: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    private var running: [ObjectIdentifier: MigrationCancellation] = [:]
    private var interruptedWork = false

    /// A stop not yet requested.
    public init() {}

    /// Whether `stop()` was called.
    public var isStopped: Bool { lock.withLock { stopped } }

    /// Whether the stop changed the run: a migration under way was cancelled, or a
    /// store was left unstarted. A signal after the last store finished did not.
    public var stoppedWork: Bool { lock.withLock { interruptedWork } }

    /// Stops the run: no new store, and the migrations under way roll back.
    public func stop() {
        let cancellations = lock.withLock { () -> [MigrationCancellation] in
            stopped = true
            if !running.isEmpty { interruptedWork = true }
            return Array(running.values)
        }
        for cancellation in cancellations { cancellation.cancel() }
    }

    /// A store the stop left unstarted.
    func skipped() {
        lock.withLock { interruptedWork = true }
    }

    /// A cancellation for one store's migration, cancelled at once when the run is
    /// already stopping.
    func register(_ cancellation: MigrationCancellation) {
        let cancelNow = lock.withLock { () -> Bool in
            running[ObjectIdentifier(cancellation)] = cancellation
            return stopped
        }
        if cancelNow { cancellation.cancel() }
    }

    func unregister(_ cancellation: MigrationCancellation) {
        _ = lock.withLock { running.removeValue(forKey: ObjectIdentifier(cancellation)) }
    }
}
