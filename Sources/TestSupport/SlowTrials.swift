import Foundation
public import Testing

/// Whether the slow trials run: SIGKILL and signal trials, fault injection on
/// large stores, resource limits. They are opt-in so that `make test` stays quick
/// on a laptop; CI and `make test-all` set `MIGRATE_SLOW_TESTS=1` and run them.
public enum SlowTrials {
    /// True when the environment sets `MIGRATE_SLOW_TESTS=1`.
    public static var enabled: Bool { ProcessInfo.processInfo.environment["MIGRATE_SLOW_TESTS"] == "1" }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test or suite only when ``SlowTrials/enabled``:
    /// `@Suite(.slowTrial) struct CrashTests { … }`.
    public static var slowTrial: Self {
        .enabled(if: SlowTrials.enabled, "a slow trial: set MIGRATE_SLOW_TESTS=1 (make test-all, CI) to run it")
    }
}
