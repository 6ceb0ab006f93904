import Foundation

/// A value shared between threads, read and written only under its lock.
///
/// The one lock type of the package: a class shared between threads keeps every
/// mutable value in a `Locked` box and is then `Sendable` without `@unchecked`.
/// `Mutex` (Synchronization) does the same, but needs macOS 15; the package
/// supports macOS 13.
///
/// ```swift
/// let counts = Locked([String: Int]())
/// counts.withLock { $0["a", default: 0] += 1 }
/// ```
///
/// `@unchecked Sendable`, as `Mutex` is whatever its value: the value is reached
/// only inside `withLock`, so no two threads touch it at once. Keep the closures
/// short (no I/O, no waiting) and never call `withLock` on the same box from
/// inside one (`NSLock` is not recursive: that deadlocks). A value that is not
/// `Sendable` itself must not leave the closure to be used unlocked elsewhere; the
/// one such value held today is `MigrationCancellation`'s connection, on which
/// other threads only call `interrupt()`, the call SQLite allows from any thread.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// A box holding `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, under the lock, and returns what it returns.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

extension Locked where Value: Sendable {
    /// A copy of the value, read under the lock.
    package var current: Value { withLock { $0 } }
}
