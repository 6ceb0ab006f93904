import ArgumentParser
import Mapping
import ModelMigration
import SQLiteStore

/// `migrate plan STORE`: every step, its SQL, cost and warnings, changing nothing.
struct Plan: MigrateCommand, PlansOneStore {
    static let configuration = CommandConfiguration(
        abstract:
            """
            Show what apply would do: every hop and step with its cost class, destructive warnings, and with --sql the \
            SQL.
            """,
        discussion: """
            Exit 0 with a plan (or nothing to do); 4 no migration path; 5 unknown store version; \
            6 destructive steps with --fail-on-destructive; 1 failure.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var options: PlanOptions
    @OptionGroup var planning: PlanningFlags

    @Flag(name: .long, help: "Show the SQL of every step.")
    var sql = false

    @Flag(name: .long, help: "With --json: include the compiled models and layouts of every hop (large).")
    var includeModels = false

    @OptionGroup var gate: DestructiveGate

    func run() throws {
        let gated: StoreRun.Gated
        do {
            gated = try global.storeRun(planningOptions, gate: gate).plan(options.store, timeout: 5)
        } catch let failure as PlanningFailure {
            throw global.fail(failure)
        } catch {
            throw global.fail(GlobalOptions.planningFailure(Outcome(error)))
        }
        let (plan, refusal) = (gated.plan, gated.refusal)
        if global.json {
            if includeModels {
                try Output.json(plan)
            } else {
                var report = PlanReport(plan)
                report.error = refusal.map(ErrorReport.Detail.init)
                try Output.json(report)
            }
        } else {
            Output.out(PlanRenderer.render(plan, showSQL: sql))
        }
        if let refusal {
            // The report above carries the refusal (JSON: its `error` object); text says it on stderr.
            throw global.json ? global.said(refusal.kind) : global.fail(refusal)
        }
    }
}

/// `plan --json`: the plan without the compiled models and layouts it carries
/// (`--include-models` adds them).
struct PlanReport: Encodable {
    struct Step: Encodable {
        var kind: String
        var summary: String
        var sql: [String]
        /// The values bound to each statement's `?` placeholders, statement by
        /// statement (a mapping file's literals); absent when none are.
        var arguments: [[DatabaseValue]]?
        /// The cost class as the text plan shows it (`O(1)`, `rewrite of 300 rows`…).
        var cost: String
        /// Rows the step reads or writes (0 for O(1) steps).
        var rows: Int64
        var table: String?
        /// For the policy step: the policies, in the order their stages run.
        var policies: [String]?

        init(_ step: MigrationStep) {
            kind = step.kind.rawValue
            summary = step.summary
            sql = step.sql
            let statements = step.statements
            arguments = statements.allSatisfy(\.arguments.isEmpty) ? nil : statements.map(\.arguments)
            cost = "\(step.cost)"
            rows = step.cost.rows
            table = step.table
            if case .policy(let stage) = step { policies = stage.policies.map(\.policy) }
        }

        /// A `--verify` step: it reads the store and writes nothing (no SQL of its own;
        /// its queries are its checks').
        init(_ step: VerificationStep) {
            kind = step.kind.rawValue
            summary = step.summary
            sql = []
            cost = "\(StepCost.constant)"
            rows = 0
        }
    }
    struct Hop: Encodable {
        var from: Int
        var to: Int
        /// `mappingFile`, `inferredChain` or `directInferred`: the path piece it belongs to.
        var kind: String
        var mappingFile: String?
        var steps: [Step]
        var checks: [String]
        var requirements: [String]
    }
    var store: String
    var model: String
    var sourceVersion: Int
    var targetVersion: Int
    var currentVersion: Int
    var upToDate: Bool
    /// The path taken: its pieces with why, why the alternatives were not taken, and
    /// where the chain of hops and the direct mapping would give different data.
    var path: MigrationPath
    var hops: [Hop]
    var warnings: [MigrationWarning]
    var preconditions: [String]
    /// The preconditions `apply` checks within the rebuild of their table, a step
    /// that reads every row of it, instead of by a scan before any step (absent
    /// when none).
    var preconditionsCheckedByRebuilds: [CheckedByRebuild]?
    struct CheckedByRebuild: Encodable {
        var precondition: String
        var table: String
    }
    var danglingReferences: [DanglingReferences]
    /// `--verify`'s steps, run after every hop before commit (absent without `--verify`).
    var verification: [Step]?
    /// `--fail-on-destructive` refused the plan (exit 6): the error, listing the destructive warnings.
    var error: ErrorReport.Detail?

    init(_ plan: MigrationPlan) {
        store = plan.storePath
        model = plan.model
        sourceVersion = plan.sourceVersion
        targetVersion = plan.targetVersion
        currentVersion = plan.currentVersion
        upToDate = plan.isEmpty
        path = plan.path
        hops = plan.hops.map {
            Hop(
                from: $0.from, to: $0.to, kind: $0.kind.rawValue, mappingFile: $0.mapping.mappingFile,
                steps: $0.steps.map(Step.init),
                checks: $0.checks.map(\.summary), requirements: $0.requirements.map(\.summary))
        }
        warnings = plan.warnings
        preconditions = plan.preconditions.map(\.summary)
        let inRebuilds = plan.preconditions.compactMap { check in
            check.checkedByRebuildOf.map { CheckedByRebuild(precondition: check.summary, table: $0) }
        }
        preconditionsCheckedByRebuilds = inRebuilds.isEmpty ? nil : inRebuilds
        danglingReferences = plan.danglingReferences
        verification = plan.verification.isEmpty ? nil : plan.verification.map(Step.init)
    }
}
