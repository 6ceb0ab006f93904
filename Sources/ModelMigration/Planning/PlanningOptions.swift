/// The settings a plan is made with: built once from a command's options and
/// handed to `MigrationPlanner`, so that `migrate plan`, `apply`, `status` and the
/// fleet commands given the same options make the same plan (and `apply` executes
/// the plan `plan` shows). The plan keeps them (``MigrationPlan/options``).
public struct PlanningOptions: Sendable, Hashable, Codable {
    /// The target version (`--to`; nil: the model's current version).
    public var target: Int?
    /// Which path to take (`--path`): the rule, the chain of hops, or the direct mapping.
    public var path: MigrationPath.Preference = .automatic
    /// Remove the references the store already holds to objects it does not have
    /// (join rows deleted, keys set to nil, as Core Data's nullify would), as the
    /// plan's first steps, instead of carrying them (`--remove-dangling-references`).
    public var removesDanglingReferences = false
    /// Count every row and every dropped value, even in tables over `countLimit`
    /// rows (`--exact-counts`; otherwise those are estimated from the highest row
    /// id, dropped values are only checked for presence, and their rows are
    /// audited by `apply` under its lock).
    public var exactCounts = false
    /// Tables above this many rows are not scanned while planning (unless
    /// `exactCounts`).
    public var countLimit: Int64 = RowCounter.planningCountLimit
    /// Plan `--verify`'s steps (``MigrationPlan/verification``): the integrity of
    /// every page and every relationship of the result, checked before commit.
    public var verify = false

    /// Creates options.
    public init(
        target: Int? = nil, path: MigrationPath.Preference = .automatic, removesDanglingReferences: Bool = false,
        exactCounts: Bool = false, verify: Bool = false
    ) {
        self.target = target
        self.path = path
        self.removesDanglingReferences = removesDanglingReferences
        self.exactCounts = exactCounts
        self.verify = verify
    }
}
