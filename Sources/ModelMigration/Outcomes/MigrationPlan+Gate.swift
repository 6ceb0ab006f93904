extension MigrationPlan {
    /// The plan with each destructive warning `losses` accepts marked accepted
    /// (`MigrationWarning.isAccepted`): `--fail-on-destructive` lets those through,
    /// and output says which were accepted, with their counts.
    package func accepting(_ losses: AcceptedLosses) -> MigrationPlan {
        guard !losses.isEmpty else { return self }
        var plan = self
        for index in plan.warnings.indices where losses.accepts(plan.warnings[index]) {
            plan.warnings[index].isAccepted = true
        }
        return plan
    }

    /// The destructive warnings no reviewed acceptance lets through.
    package var unacceptedDestructiveWarnings: [MigrationWarning] {
        destructiveWarnings.filter { $0.isAccepted != true }
    }

    /// What `--fail-on-destructive` (of `plan`, `apply`, `fleet plan` and `fleet
    /// apply`) says of this plan: a `destructive` outcome listing every warning that
    /// loses data and is not accepted, or nil when the plan loses nothing else.
    public var destructiveRefusal: Outcome? {
        let destructive = unacceptedDestructiveWarnings
        guard !destructive.isEmpty else { return nil }
        let accepted = destructiveWarnings.count - destructive.count
        return Outcome(
            .destructive,
            """
            \(storePath): the plan from version \(sourceVersion) to \(targetVersion) has \
            \(destructive.count) destructive step\(destructive.count == 1 ? "" : "s") (--fail-on-destructive)\
            \(accepted > 0 ? " beside \(accepted) accepted" : ""); nothing was changed:
            """
                + destructive.map { "\n  " + $0.message + ($0.subject.map { " (accept with --accept \($0))" } ?? "") }
                .joined())
    }
}
