import ArgumentParser
import Foundation
import ModelMigration

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
}

/// `--fail-on-destructive` of `plan`, `apply` and `fleet plan|apply`: a gate for
/// deploy scripts.
struct DestructiveGate: ParsableArguments {
    @Flag(name: .long, help: """
        Exit 6, changing nothing, when the plan has destructive steps (an attribute or entity dropped with its data, \
        values a rebuild cannot keep), listing them.
        """)
    var failOnDestructive = false

    /// The refusal of `plan`, with the destructive warnings it lists; nil when the
    /// gate is off or the plan loses nothing.
    func refusal(of plan: MigrationPlan) -> String? {
        let destructive = plan.destructiveWarnings
        guard failOnDestructive, !destructive.isEmpty else { return nil }
        return """
            \(plan.storePath): the plan from version \(plan.sourceVersion) to \(plan.targetVersion) has \
            \(destructive.count) destructive step\(destructive.count == 1 ? "" : "s") (--fail-on-destructive); nothing was changed:
            """ + destructive.map { "\n  " + $0.message }.joined()
    }
}

/// What planning ended in, mapped to the documented exit codes.
enum PlanOutcome {
    case plan(MigrationPlan)
    /// The message (after `error: `), the exit code, and for model errors the
    /// diagnostics with their rendered text.
    case failure(String, ExitCode, diagnostics: [Diagnostic]? = nil, rendered: String? = nil)
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
            planner.policyInputs = MigrateTool.policies.declaredInputs
            planner.policyUnwritten = MigrateTool.policies.unwritten
            planner.policyFunctions = MigrateTool.policies.functions
            return .plan(try planner.plan(store: store, to: options.to))
        } catch let error as DiagnosticsError {
            return Self.modelFailure(error.diagnostics, sources: [:])
        } catch {
            let planning = PlanningError(classifying: error)
            switch planning.kind {
            case .unknownVersion: return .failure(planning.message + restoreHint(planning, store: options.store), ExitStatus.unknownVersion)
            case .noPath: return .failure(planning.message, ExitStatus.noMigrationPath)
            case .storeMismatch, .failed: return .failure(planning.message, ExitStatus.failure)
            case .unknownTarget: return .failure(planning.message, ExitStatus.usage)
            }
        }
    }

    /// What read-only commands say of a policy a mapping file names and this
    /// `migrate` lacks: they answer anyway; `plan` and `apply` of that hop exit 4.
    static func missingPolicyWarning(_ policy: String, file: String?) -> String {
        """
        warning: \(file ?? "a mapping file") names policy '\(policy)', which is not compiled into this \(Migrate.toolName): \
        `plan` and `apply` of that hop need a \(Migrate.toolName) built with it (README: "Your own policies and your own migrate")
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
            (changes made to the store since are lost; README: "Rolling back")
            """
    }

    /// Model or mapping-file errors: every diagnostic, rendered with its line.
    static func modelFailure(_ diagnostics: [Diagnostic], sources: [String: String]) -> PlanOutcome {
        // Mapping files are read again for their excerpts (models come with theirs).
        var sources = sources
        for file in Set(diagnostics.compactMap { $0.location?.file }) where sources[file] == nil {
            if let data = FileManager.default.contents(atPath: file), data.count < 1 << 20 { sources[file] = String(decoding: data, as: UTF8.self) }
        }
        let errors = diagnostics.filter { $0.severity == .error }
        let message = errors.count == 1 ? errors[0].description : "\(errors.count) errors in the models or mapping files"
        return .failure(message, ExitStatus.failure, diagnostics: diagnostics, rendered: DiagnosticRenderer(sources: sources).render(diagnostics))
    }

    /// Reports a planning failure and returns its exit code.
    func fail(_ outcome: PlanOutcome) -> ExitCode {
        guard case .failure(let message, let code, let diagnostics, let rendered) = outcome else { return ExitStatus.failure }
        return fail(message, code, diagnostics: diagnostics, rendered: rendered)
    }
}

enum PlanRenderer {
    static func render(_ plan: MigrationPlan, showSQL: Bool) -> String {
        var lines: [String] = []
        if plan.isEmpty {
            return "\(plan.storePath): \(plan.model) version \(plan.sourceVersion) is current; nothing to do"
        }
        lines.append("""
            \(plan.storePath): \(plan.model) version \(plan.sourceVersion) → \(plan.targetVersion), \
            \(plan.hops.count) hop\(plan.hops.count == 1 ? "" : "s")\
            \(plan.hops.count < plan.targetVersion - plan.sourceVersion ? " (inferred hops fused)" : "")
            """)
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

    /// Each hop with its numbered steps and checks, then the warnings.
    static func hopLines(_ plan: MigrationPlan, showSQL: Bool) -> [String] {
        var lines: [String] = []
        var number = 0
        for hop in plan.hops {
            lines.append("")
            lines.append("hop \(hop.from) → \(hop.to): \(hop.mapping.mappingFile.map { "mapping file \($0)" } ?? "inferred")")
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
