import ModelMigration

/// The running tally of `fleet apply`, updated under the runner's reporting lock.
final class FleetApplyState: @unchecked Sendable {
    var tally = FleetTally()
    /// `--fail-on-destructive`'s first pass: the stores that are not fine, kept
    /// (without their plans) to be listed if the gate refuses the run.
    var held: [FleetStoreOutcome] = []
}
