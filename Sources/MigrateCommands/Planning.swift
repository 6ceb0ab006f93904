import ArgumentParser
import DataModel
import Foundation
import ModelMigration
import SQLiteStore

/// Options of the commands that plan: the store and the target version.
struct PlanOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The store.", valueName: "store"))
    var store: String

    @Option(name: .long, help: ArgumentHelp("The target version (default: the current, highest version).", valueName: "n"))
    var to: Int?

    @Flag(name: .long, help: """
        Remove references the store already holds to objects it does not have (join rows deleted, keys set to nil) as the first steps, \
        instead of carrying them as they are.
        """)
    var removeDanglingReferences = false

    @Option(name: .long, help: ArgumentHelp("""
        Which path to take: chain (every hop on its own, its mapping file or inferred; no spans) or direct \
        (one mapping from the store's version to the target: its mapping file, else inferred). \
        Default: a mapping file from the store's version, else the chain when every hop maps, else the direct inferred mapping. \
        A path that cannot be followed exits 4 with the reason.
        """, valueName: "chain|direct"))
    var path: PathChoice?
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
    @Flag(name: .long, help: """
        Exit 6, changing nothing, when the plan has destructive steps (an attribute or entity dropped with its data, \
        values a rebuild cannot keep), listing them.
        """)
    var failOnDestructive = false

    /// The refusal of the plan (``MigrationPlan/destructiveRefusal``); nil when the
    /// gate is off or the plan loses nothing.
    func refusal(of plan: MigrationPlan) -> Outcome? {
        failOnDestructive ? plan.destructiveRefusal : nil
    }
}

/// What planning ended in: a plan, or an outcome that says why not.
enum PlanOutcome {
    case plan(MigrationPlan)
    /// Why no plan, and for model errors the diagnostics rendered with their lines.
    case failure(Outcome, rendered: String? = nil)
}

extension GlobalOptions {
    /// Plans the migration of a store, turning every error into its exit code.
    /// `forApply`: the migrator checks the rows' entity numbers under its lock, so
    /// the plan does not check them first. `checkingPolicies` false: a mapping file
    /// may name a policy this `migrate` lacks (read-only commands only tell; the
    /// plan lists it in ``MigrationPlan/missingPolicies(known:)``).
    func makePlan(_ options: PlanOptions, timeout: Double = 5, exactCounts: Bool = false, forApply: Bool = false,
                  checkingPolicies: Bool = true) -> PlanOutcome {
        let result = ModelLoader.load(path: models)
        let compiled: [CompiledModel]
        do {
            compiled = try result.compiledModels()
        } catch {
            return Self.modelFailure(error.diagnostics, sources: result.sources)
        }
        do {
            let store = try Store.open(path: options.store, access: .readOnly, busyTimeout: timeout)
            defer { try? store.close() }
            var planner = MigrationPlanner(models: compiled, migrationsFolder: migrations,
                                           knownPolicies: checkingPolicies ? Set(MigrateTool.policies.names) : nil)
            planner.exactCounts = exactCounts
            planner.checksPreconditions = !forApply
            if forApply { planner.countLimit = 100_000 }
            planner.removesDanglingReferences = options.removeDanglingReferences
            planner.pathPreference = options.path?.preference ?? .automatic
            planner.policyInputs = MigrateTool.policies.declaredInputs
            planner.policyUnwritten = MigrateTool.policies.unwritten
            planner.policyFunctions = MigrateTool.policies.functions
            return .plan(try planner.plan(store: store, to: options.to))
        } catch let error as DiagnosticsError {
            return Self.modelFailure(error.diagnostics, sources: [:])
        } catch {
            var outcome = Outcome(error)
            if outcome.kind == .unknownVersion { outcome.message += restoreHint(PlanningError(classifying: error), store: options.store) }
            return .failure(outcome)
        }
    }

    /// What read-only commands say of a policy a mapping file names and this
    /// `migrate` lacks: they answer anyway; `plan` and `apply` of that hop exit 4.
    static func missingPolicyWarning(_ policy: String, file: String?) -> String {
        """
        warning: \(file ?? "a mapping file") names policy '\(policy)', which is not compiled into this \(Migrate.toolName): \
        `plan` and `apply` of that hop need a \(Migrate.toolName) built with it (Docs/Migrations.md: "Your own policies and your own migrate")
        """
    }

    /// For a store newer than this deployment (a rollback of the code, not of the
    /// store): the command that puts back the backup taken before the newer release
    /// migrated it.
    func restoreHint(_ planning: PlanningError, store: String) -> String {
        guard let unknown = planning.underlying as? UnknownVersionError, unknown.drift == nil, let recognition = unknown.recognition,
              let stamped = recognition.stampedVersion, let current = recognition.currentVersion, stamped > current else { return "" }
        return """

            to go back to version \(current): `\(Migrate.toolName) restore \(Apply.shellQuoted(store)) --backup-dir DIR --version \(current)` \
            puts back the backup `apply --backup-dir DIR` kept when it migrated the store from version \(current) \
            (changes made to the store since are lost; Docs/Deploying.md: "Rolling back")
            """
    }

    /// Model or mapping-file errors: every diagnostic, rendered with its line.
    static func modelFailure(_ diagnostics: [Diagnostic], sources: [String: String]) -> PlanOutcome {
        // Mapping files are read again for their excerpts (models come with theirs).
        var sources = sources
        for file in Set(diagnostics.compactMap { $0.location?.file }) where sources[file] == nil {
            if let data = FileManager.default.contents(atPath: file), data.count < 1 << 20 { sources[file] = String(decoding: data, as: UTF8.self) }
        }
        return .failure(Outcome(DiagnosticsError(diagnostics)), rendered: DiagnosticRenderer(sources: sources).render(diagnostics))
    }

    /// Reports a planning failure and returns its exit code.
    func fail(_ outcome: PlanOutcome) -> ExitCode {
        guard case .failure(let failure, let rendered) = outcome else { return ExitCode(Outcome.Kind.failed) }
        return fail(failure, rendered: rendered)
    }
}

enum PlanRenderer {
    static func render(_ plan: MigrationPlan, showSQL: Bool) -> String {
        var lines: [String] = []
        if plan.isEmpty {
            return "\(plan.storePath): \(plan.model) version \(plan.sourceVersion) is current; nothing to do"
        }
        let fused = plan.path.pieces.contains { piece in
            piece.kind == .inferredChain && plan.hops.filter { $0.from >= piece.from && $0.to <= piece.to }.count < piece.to - piece.from
        }
        lines.append("""
            \(plan.storePath): \(plan.model) version \(plan.sourceVersion) → \(plan.targetVersion), \
            \(plan.hops.count) hop\(plan.hops.count == 1 ? "" : "s")\(fused ? " (inferred hops fused)" : "")
            """)
        lines.append(contentsOf: pathLines(plan.path))
        lines.append(contentsOf: hopLines(plan, showSQL: showSQL))
        lines.append("")
        lines.append("""
            \(plan.allSteps.count) steps, about \(rowsWritten(plan)) rows to write; \
            run `\(Migrate.toolName) apply \(plan.storePath)\(plan.targetVersion == plan.currentVersion ? "" : " --to \(plan.targetVersion)")` to execute
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
            let what = hop.mapping.mappingFile.map { "mapping file \($0)" } ?? (hop.kind == .directInferred ? "direct inferred" : "inferred")
            lines.append("hop \(hop.from) → \(hop.to): \(what)")
            for step in hop.steps {
                number += 1
                lines.append("  \(String(number).leftPad(3)). \(step.summary)  [\(step.cost)]")
                if showSQL {
                    for (index, sql) in step.sql.enumerated() {
                        lines.append("         " + sql)
                        let arguments = step.arguments(of: index)
                        if !arguments.isEmpty {
                            lines.append("           -- bound: " + arguments.enumerated().map { "?\($0.offset + 1) = \($0.element)" }.joined(separator: ", "))
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
