import ModelMigration

/// The running tally of `fleet apply`, shared by the workers in a `Locked` box.
struct FleetApplyState {
    var tally = FleetTally()
    /// `--fail-on-destructive`'s first pass: the stores that are not fine, kept
    /// (without their plans) to be listed if the gate refuses the run.
    var held: [FleetStoreOutcome] = []
    /// The migrated stores' warnings, alike ones (the same words, other counts)
    /// together, in the order they first came: said once at the end of the text
    /// report, not once per store.
    var warnings: [WarningGroup] = []

    /// One warning, and the stores that had it (or one like it).
    struct WarningGroup {
        var shape: String
        var example: String
        var firstStore: String
        var stores: Int
    }

    /// Adds a store's warning to its group.
    mutating func add(warning: String, of store: String) {
        // Counts are numbers of their own (` 12 `, `(12)`), never the digits of a name (`addr1`).
        let shape = warning.replacing(/(^|[^A-Za-z0-9_.])[0-9][0-9,.]*/) { "\($0.output.1)#" }
        if let index = warnings.firstIndex(where: { $0.shape == shape }) {
            warnings[index].stores += 1
        } else {
            warnings.append(WarningGroup(shape: shape, example: warning, firstStore: store, stores: 1))
        }
    }

    /// The text lines of the warnings: a warning of one store names it; one of
    /// several gives the first store's and the number of stores.
    var warningLines: [String] {
        warnings.map { group in
            group.stores == 1
                ? "warning: \(group.firstStore): \(group.example)"
                : """
                warning: \(group.stores) stores: \(group.example) (at \(group.firstStore); each store's counts are in \
                --json's records)
                """
        }
    }
}
