import Foundation
package import Testing

/// Runs a test on a thread of its own instead of one of the test pool's: for a test that
/// mostly waits (a signal sent after a pause, a lock held for a while, a slow producer,
/// a child process racing another).
///
/// Swift Testing runs tests on the cooperative pool, as many threads as cores, and a
/// synchronous test that sleeps holds one of them: on two cores two waiting tests stop
/// every other test. On a thread of its own a test waits beside the pool, and its pauses
/// are real ones, never stretched by tests that hold the pool.
package struct OwnThreadTrait: SuiteTrait, TestTrait, TestScoping {
    package var isRecursive: Bool { true }

    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's own scope runs as it is; each test case gets a thread.
        guard testCase != nil else { return try await function() }
        // The test's synchronous body runs where the task runs: on the preferred executor.
        try await withTaskExecutorPreference(OwnThreadExecutor()) { try await function() }
    }
}

extension Trait where Self == OwnThreadTrait {
    /// The test (or each test of the suite) on a thread of its own (``OwnThreadTrait``).
    package static var ownThread: Self { OwnThreadTrait() }
}

/// A task executor that runs each job on a new thread, so that the jobs of one test
/// case (a synchronous body is one job) run off the cooperative pool.
final class OwnThreadExecutor: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let thread = Thread { job.runSynchronously(on: executor) }
        // As the main thread's: some tests parse deeply nested input.
        thread.stackSize = 8 << 20
        thread.start()
    }
}
