import DataModel
import SQLiteStore

/// `--verify`'s steps, planned with the rest (``PlanningOptions/verify``): `plan
/// --verify` shows them and `apply --verify` runs exactly them.
extension MigrationPlanner {
    /// After a migration, before commit: nothing a policy dropped without a word
    /// (when the plan runs policies), every page, every relationship of the target,
    /// each reference check allowed the dangling references its relationship had
    /// before the migration when every hop copies it.
    static func verification(after plan: MigrationPlan) -> [VerificationStep] {
        let layout = plan.hops.last?.destinationLayout ?? plan.target.layout(entityNumbers: plan.entityNumbers)
        let checks = CheckBuilder.relationshipChecks(plan.target, layout: layout).map { check in
            VerificationStep.VerifiedCheck(
                check: check, before: check.reference.flatMap { Migrator.sourceReference($0, through: plan.hops) })
        }
        let runsPolicies = plan.allSteps.contains { if case .policy = $0 { true } else { false } }
        return (runsPolicies ? [.policyValues] : []) + [.integrity, .relationships(checks)]
    }

    /// On a store already at its target, in one read transaction: every page, what
    /// a migration would rely on (its entity numbers and rows), every relationship
    /// (references that dangle are reported, not failed: no migration made them).
    static func currentStoreVerification(_ store: Store, version: CompiledVersion, refusesStrayValues: Bool) throws
        -> [VerificationStep]
    {
        let layout = try store.layout(for: version)
        var audit = StoreAudit(version: version, layout: layout)
        audit.refusesStrayValues = refusesStrayValues
        return [
            .integrity,
            .store(VerificationStep.StoreVerification(preconditions: audit.preconditions(), layout: layout)),
            .currentRelationships(CheckBuilder.relationshipChecks(version, layout: layout)),
        ]
    }
}
