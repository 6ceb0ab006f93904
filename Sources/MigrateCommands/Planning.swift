import ArgumentParser
import DataModel
import Foundation
import Mapping
import MigrationPolicies
import ModelMigration
import SQLiteStore

/// Options of the commands that plan one store: the store and the target version
/// (the planning flags are `PlanningFlags`, a sibling group of each command).
struct PlanOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The store.", valueName: "store"))
    var store: String

    @Option(
        name: .long, help: ArgumentHelp("The target version (default: the current, highest version).", valueName: "n"))
    var to: Int?

}

/// A command that plans one store (`plan`, `apply`, `status`): its planner's settings
/// are built here, once, so that the three plan with exactly the same settings.
/// `planning` is a sibling option group of `options`, not nested in it: argument-parser's
/// debug builds check a nested group again at every level, which made a debug `plan`
/// three times slower to start (Docs/Development.md "Option groups").
protocol PlansOneStore {
    var options: PlanOptions { get }
    var planning: PlanningFlags { get }
}

extension PlansOneStore {
    /// The planner's settings for the command's flags.
    var planningOptions: PlanningOptions { planning.options(target: options.to) }
}

/// The flags that shape a plan, the same for `plan`, `apply`, `status` and the
/// fleet commands (``PlanningOptions``).
struct PlanningFlags: ParsableArguments {
    @Flag(
        name: .long,
        help: """
            Remove references the store already holds to objects it does not have (join rows deleted, keys set to nil) \
            as the first steps, instead of carrying them as they are.
            """)
    var removeDanglingReferences = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            Which path to take: chain (every hop on its own, its mapping file or inferred; no spans) or direct (one \
            mapping from the store's version to the target: its mapping file, else inferred). Default: a mapping file \
            from the store's version, else the chain when every hop maps, else the direct inferred mapping. A path \
            that cannot be followed exits 4 with the reason.
            """, valueName: "chain|direct"))
    var path: PathChoice?

    @Flag(name: .long, help: "Count rows and dropped values exactly even in tables over a million rows (slower).")
    var exactCounts = false

    @Flag(
        name: .long,
        help: """
            Plan --verify's checks: PRAGMA integrity_check and every relationship of the result, before committing \
            (plan shows them, apply runs them; on a store already current, apply runs them alone).
            """)
    var verify = false

    /// The planner's settings for these flags.
    func options(target: Int? = nil) -> PlanningOptions {
        PlanningOptions(
            target: target, path: path?.preference ?? .automatic, removesDanglingReferences: removeDanglingReferences,
            exactCounts: exactCounts, verify: verify)
    }
}

/// `--path chain|direct`.
enum PathChoice: String, ExpressibleByArgument, CaseIterable {
    case chain, direct

    /// The planner's preference.
    var preference: MigrationPath.Preference { self == .chain ? .chain : .direct }
}

/// `--fail-on-destructive` of `plan`, `apply` and `fleet plan|apply`: a gate for
/// deploy scripts.
struct DestructiveGate: ParsableArguments {
    @Flag(
        name: .long,
        help: """
            Exit 6, changing nothing, when the plan has destructive steps (an attribute or entity dropped with its \
            data, values a rebuild cannot keep), listing them.
            """)
    var failOnDestructive = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            With --fail-on-destructive: let this reviewed loss through (repeatable): Entity.property (a dropped \
            attribute or relationship, its pairs or order) or Entity (its objects and properties). Any other loss \
            still exits 6. <migrations>/<Model>/accepted-losses.yaml accepts losses per hop (`2-to-3: [Book.playlist]`).
            """, valueName: "name"))
    var accept: [String] = []

    func validate() throws {
        if !accept.isEmpty && !failOnDestructive {
            throw ValidationError(
                "--accept lets a reviewed loss through --fail-on-destructive: give --fail-on-destructive too")
        }
        for name in accept where !AcceptedLosses.isName(name) {
            throw ValidationError("--accept \(name): expected Entity or Entity.property")
        }
    }

    /// The reviewed losses for `model`, unchecked: `--accept` and the model's
    /// `accepted-losses.yaml` (read only when the gate is on).
    private func uncheckedLosses(model: String, migrations: String) throws -> AcceptedLosses {
        guard failOnDestructive || !accept.isEmpty else { return AcceptedLosses() }
        return try AcceptedLosses.load(accept: accept, migrationsFolder: migrations, model: model)
    }

    /// The reviewed losses for `model`, every name checked against it: an `--accept`
    /// name that names nothing is a usage error (exit 64), a name in the file a
    /// failure naming its line (exit 1), as a mapping file's.
    func losses(for model: CompiledModel, migrations: String) throws -> AcceptedLosses {
        let losses = try uncheckedLosses(model: model.name, migrations: migrations)
        let problems = losses.unknownNames(in: model)
        let unknownAccepted = problems.filter { $0.location == nil }
        if !unknownAccepted.isEmpty {
            let lines = unknownAccepted.map { problem in problem.message + (problem.hint.map { "; \($0)" } ?? "") }
            throw Outcome(.usage, lines.joined(separator: "\n"))
        }
        if !problems.isEmpty { throw DiagnosticsError(problems) }
        return losses
    }

    /// The reviewed losses of every model `planner` plans, for a fleet runner.
    func losses(for planner: MigrationPlanner, global: GlobalOptions) throws -> [String: AcceptedLosses] {
        var result: [String: AcceptedLosses] = [:]
        for model in planner.models {
            do {
                result[model.name] = try losses(for: model, migrations: global.migrations)
            } catch {
                throw global.fail(error)
            }
        }
        return result
    }
}

/// A command that plans could not: the outcome, and for model or mapping-file errors
/// the diagnostics rendered with their lines.
struct PlanningFailure: Error {
    var outcome: Outcome
    var rendered: String?
}

extension GlobalOptions {
    /// The one single-store run (``StoreRun``) of `apply`, `plan`, `status` and the
    /// requests: the models compiled, the planner with this `migrate`'s policies and
    /// `options`, and with `gate` its reviewed losses and refusal. `checkingPolicies`
    /// false: a mapping file may name a policy this `migrate` lacks (read-only commands
    /// only tell; the plan lists it in ``MigrationPlan/missingPolicies(known:)``).
    func storeRun(_ options: PlanningOptions, gate: DestructiveGate? = nil, checkingPolicies: Bool = true)
        throws(PlanningFailure) -> StoreRun
    {
        let result = ModelLoader.load(path: models)
        let compiled: [CompiledModel]
        do {
            compiled = try result.compiledModels()
        } catch {
            throw Self.modelFailure(error.diagnostics, sources: result.sources)
        }
        let planner = Self.planner(
            compiled, migrations: migrations, options: options, checkingPolicies: checkingPolicies)
        var run = StoreRun(planner: planner) { PolicyEngine(catalog: MigrateTool.policies) }
        run.toolName = Migrate.toolName
        if let gate {
            run.refusesDestructivePlans = gate.failOnDestructive
            let migrations = self.migrations
            run.acceptedLosses = { model in try gate.losses(for: model, migrations: migrations) }
        }
        return run
    }

    /// An outcome's failure as a command that plans reports it: model and mapping-file
    /// diagnostics rendered with their lines.
    static func planningFailure(_ outcome: Outcome) -> PlanningFailure {
        outcome.diagnostics.isEmpty
            ? PlanningFailure(outcome: outcome) : modelFailure(outcome.diagnostics, sources: [:], outcome: outcome)
    }

    /// The planner of every command that plans: the models, the mapping files'
    /// folder, this `migrate`'s policies and the planning options.
    static func planner(_ models: [CompiledModel], migrations: String, options: PlanningOptions, checkingPolicies: Bool)
        -> MigrationPlanner
    {
        var planner = MigrationPlanner(
            models: models, migrationsFolder: migrations,
            knownPolicies: checkingPolicies ? Set(MigrateTool.policies.names) : nil, options: options)
        planner.policyInputs = MigrateTool.policies.declaredInputs
        planner.policyUnwritten = MigrateTool.policies.unwritten
        planner.policyFunctions = MigrateTool.policies.functions
        return planner
    }

    /// What read-only commands say of a policy a mapping file names and this
    /// `migrate` lacks: they answer anyway; `plan` and `apply` of that hop exit 4.
    static func missingPolicyWarning(_ policy: String, file: String?) -> String {
        """
        warning: \(file ?? "a mapping file") names policy '\(policy)', which is not compiled into this \
        \(Migrate.toolName): `plan` and `apply` of that hop need a \(Migrate.toolName) built with it \
        (Docs/Migrations.md: "Your own policies and your own migrate")
        """
    }

    /// Model or mapping-file errors: every diagnostic, rendered with its line.
    static func modelFailure(_ diagnostics: [Diagnostic], sources: [String: String], outcome: Outcome? = nil)
        -> PlanningFailure
    {
        // Mapping files are read again for their excerpts (models come with theirs).
        var sources = sources
        for file in Set(diagnostics.compactMap { $0.location?.file }) where sources[file] == nil {
            if let data = FileManager.default.contents(atPath: file), data.count < 1 << 20 {
                sources[file] = String(decoding: data, as: UTF8.self)
            }
        }
        return PlanningFailure(
            outcome: outcome ?? Outcome(DiagnosticsError(diagnostics)),
            rendered: DiagnosticRenderer(sources: sources).render(diagnostics))
    }
}

enum PlanRenderer {
    static func render(_ plan: MigrationPlan, showSQL: Bool) -> String {
        var lines: [String] = []
        if plan.isEmpty {
            return
                (["\(plan.storePath): \(plan.model) version \(plan.sourceVersion) is current; nothing to do"]
                + verificationLines(plan))
                .joined(separator: "\n")
        }
        let fused = plan.path.pieces.contains { piece in
            piece.kind == .inferredChain
                && plan.hops.filter { $0.from >= piece.from && $0.to <= piece.to }.count < piece.to - piece.from
        }
        lines.append(
            """
            \(plan.storePath): \(plan.model) version \(plan.sourceVersion) → \(plan.targetVersion), \
            \(plan.hops.count) hop\(plan.hops.count == 1 ? "" : "s")\(fused ? " (inferred hops fused)" : "")
            """)
        lines.append(contentsOf: pathLines(plan.path))
        lines.append(contentsOf: hopLines(plan, showSQL: showSQL))
        lines.append(contentsOf: verificationLines(plan))
        lines.append("")
        lines.append(
            """
            \(plan.allSteps.count) steps, about \(rowsWritten(plan)) rows to write; run `\(Migrate.toolName) apply \
            \(plan.storePath)\(plan.targetVersion == plan.currentVersion ? "" : " --to \(plan.targetVersion)")` to \
            execute
            """)
        return lines.joined(separator: "\n")
    }

    /// Rows the steps write (copies, updates, policies), as `apply` counts them
    /// afterwards; index builds read rows and write none.
    static func rowsWritten(_ plan: MigrationPlan) -> Int64 {
        plan.allSteps.reduce(Int64(0)) { total, step in
            let (sum, overflow) = total.addingReportingOverflow(step.cost.rowsWritten)
            return overflow ? .max : sum
        }
    }

    /// `--verify`'s steps, in the order `apply --verify` runs them.
    static func verificationLines(_ plan: MigrationPlan) -> [String] {
        guard !plan.verification.isEmpty else { return [] }
        return ["", plan.isEmpty ? "--verify (apply runs these on the store as it is):" : "--verify before commit:"]
            + plan.verification.map { "  - \($0.summary)" }
    }

    /// The path taken, piece by piece with why, and why the alternatives were not
    /// taken; nothing for a single hop with nothing else to choose.
    static func pathLines(_ path: MigrationPath) -> [String] {
        if path.pieces.count == 1, path.pieces[0].to - path.pieces[0].from == 1, path.notTaken.isEmpty { return [] }
        if path.pieces.isEmpty { return [] }
        var lines = ["path: \(path.summary)"]
        for piece in path.pieces { lines.append("  \(piece.from) → \(piece.to): \(piece.kind): \(piece.reason)") }
        for line in path.notTaken { lines.append("  not taken: \(line)") }
        return lines
    }

    /// Each hop with its numbered steps and checks, then the warnings.
    static func hopLines(_ plan: MigrationPlan, showSQL: Bool) -> [String] {
        var lines: [String] = []
        var number = 0
        for hop in plan.hops {
            lines.append("")
            let what =
                hop.mapping.mappingFile.map { "mapping file \($0)" }
                ?? (hop.kind == .directInferred ? "direct inferred" : "inferred")
            lines.append("hop \(hop.from) → \(hop.to): \(what)")
            for step in hop.steps {
                number += 1
                lines.append("  \(String(number).leftPad(3)). \(step.summary)  [\(step.cost)]")
                if showSQL {
                    for statement in step.statements {
                        lines.append("         " + statement.sql)
                        let arguments = statement.arguments
                        if !arguments.isEmpty {
                            lines.append(
                                "           -- bound: "
                                    + arguments.enumerated().map { "?\($0.offset + 1) = \($0.element)" }.joined(
                                        separator: ", "))
                        }
                    }
                }
            }
            if !hop.checks.isEmpty {
                lines.append("  checks before commit: \(hop.checks.count)")
                if showSQL { for check in hop.checks { lines.append("       - \(check.summary)") } }
            }
        }
        if !plan.warnings.isEmpty {
            lines.append("")
            for warning in plan.warnings { lines.append("warning: \(warning)") }
        }
        return lines
    }
}
