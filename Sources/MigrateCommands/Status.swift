import ArgumentParser
import MigrationPolicies
import ModelMigration

/// `migrate status STORE`: is a migration needed, and possible?
struct Status: MigrateCommand, PlansOneStore {
    static let configuration = CommandConfiguration(
        abstract:
            """
            Tell whether a store is current: exit 0 current, 3 migration needed and possible, 4 no migration path, 5 \
            unknown version.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var options: PlanOptions
    @OptionGroup var planning: PlanningFlags

    /// `status --json`: the answer, whatever it is. `status` is the outcome's word
    /// (`current`, `migration-needed`, or for a failure its word), `exitCode` its code;
    /// a failure adds the `error` object every command's failure carries.
    struct Report: Encodable {
        var store: String
        var status: String
        var exitCode: Int32
        var model: String?
        var version: Int?
        var target: Int?
        var message: String
        /// Policies the mapping files of the needed hops name that this `migrate`
        /// lacks (absent when none): `apply` needs a `migrate` built with them.
        var missingPolicies: [String]?
        var error: ErrorReport.Detail?

        init(store: String, outcome: Outcome, plan: MigrationPlan? = nil, missingPolicies: [String] = []) {
            self.store = store
            status = outcome.word
            exitCode = outcome.exitCode
            model = plan?.model
            version = plan?.sourceVersion
            target = plan?.targetVersion
            message = outcome.message
            self.missingPolicies = missingPolicies.isEmpty ? nil : missingPolicies
            error = outcome.isFailure ? ErrorReport.Detail(outcome) : nil
        }
    }

    func run() throws {
        // Read-only: a policy this migrate lacks does not stop the answer; it is named.
        let plan: MigrationPlan
        do {
            plan = try global.storeRun(planningOptions, checkingPolicies: false).plan(options.store, timeout: 5)
                .plan
        } catch {
            var ending = global.fail((error as? PlanningFailure) ?? GlobalOptions.planningFailure(Outcome(error)))
            // status answers in its own report whatever the outcome; the error object sits inside it.
            ending.form = .statusReport(store: options.store)
            throw ending
        }
        let outcome =
            plan.isEmpty
            ? Outcome(.current, "\(options.store): \(plan.model) version \(plan.sourceVersion), current")
            : Outcome(
                .migrationNeeded,
                """
                \(options.store): \(plan.model) version \(plan.sourceVersion), migration to \(plan.targetVersion) \
                needed (\(plan.allSteps.count) steps)
                """)
        let missing = plan.missingPolicies(known: Set(MigrateTool.policies.names))
        if global.json {
            try Output.json(
                Report(store: options.store, outcome: outcome, plan: plan, missingPolicies: missing.map(\.policy)))
        } else {
            Output.out(outcome.message)
            for (policy, file) in missing { Output.err(GlobalOptions.missingPolicyWarning(policy, file: file)) }
        }
        if outcome.exitCode != 0 { throw global.said(outcome.kind) }
    }
}
