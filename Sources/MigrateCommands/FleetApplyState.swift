import ModelMigration

/// The running tally of `fleet apply`, shared by the workers in a `Locked` box.
struct FleetApplyState {
    var tally = FleetTally()
    /// `--fail-on-destructive`'s first pass: the stores that are not fine, kept
    /// (without their plans) to be listed if the gate refuses the run.
    var held: [FleetStoreOutcome] = []
}
