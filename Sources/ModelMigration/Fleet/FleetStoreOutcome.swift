import SQLiteStore

/// What happened to one store of a fleet.
public struct FleetStoreOutcome: Sendable {
    /// The store's path, as the list gave it.
    public var path: String
    /// Where the store stands, from the one table of outcomes: `current`,
    /// `migrationNeeded` (`status`, `plan`), `migrated`, `wouldMigrate` (a dry run),
    /// `noPath`, `unknownVersion`, `destructive` (`--fail-on-destructive`), `failed`
    /// (the store is unchanged) or `duplicate` (the same store file as
    /// ``duplicateOf``, listed before it: not handled again).
    public var status: Outcome.Kind
    /// The store's model, when recognised.
    public var model: String?
    /// The store's version before the run, when recognised.
    public var version: Int?
    /// The version it is migrated to.
    public var target: Int?
    /// Why it failed, or a note.
    public var message: String?
    /// The SQL statement that failed, when one did (kept out of ``message``).
    public var statement: String?
    /// For a duplicate: the path of the list that reaches the same file first.
    public var duplicateOf: String?
    /// What `apply` did, for migrated stores.
    public var result: MigrationResult?
    /// The plan's warnings (destructive ones say how many values are lost), and
    /// after a migration the policies' warnings.
    public var warnings: [String] = []
    /// The store's plan (`FleetRunner.Mode.survey` only, for showing one per chain).
    public var plan: MigrationPlan?
    /// Seconds spent on this store.
    public var seconds: Double
    /// `fleet restore`: what was put back, and where the replaced store is kept.
    package var restored: StoreRestore.Result?
    /// False for a store a stopped run never started (status `interrupted`).
    public var started = true
}

extension FleetStoreOutcome {
    /// An outcome decided without handling the store (a fleet command's own refusal).
    package init(path: String, status: Outcome.Kind, message: String?, seconds: Double) {
        self.init(path: path, status: status, message: message, duplicateOf: nil, seconds: seconds)
    }
}
