extension MigrationPlan {
    /// What `--fail-on-destructive` (of `plan`, `apply`, `fleet plan` and `fleet
    /// apply`) says of this plan: a `destructive` outcome listing every warning that
    /// loses data, or nil when the plan loses nothing.
    public var destructiveRefusal: Outcome? {
        let destructive = destructiveWarnings
        guard !destructive.isEmpty else { return nil }
        return Outcome(
            .destructive,
            """
            \(storePath): the plan from version \(sourceVersion) to \(targetVersion) has \
            \(destructive.count) destructive step\(destructive.count == 1 ? "" : "s") (--fail-on-destructive); nothing was changed:
            """ + destructive.map { "\n  " + $0.message }.joined())
    }
}
