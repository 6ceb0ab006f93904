import ArgumentParser
import ModelMigration

/// `migrate status STORE`: is a migration needed, and possible?
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Tell whether a store is current: exit 0 current, 3 migration needed and possible, 4 no migration path, 5 unknown version.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var options: PlanOptions

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
    }

    struct FailedReport: Encodable {
        var store: String
        var status: String
        var exitCode: Int32
        var message: String
        var error: ErrorReport.Detail
    }

    func run() throws {
        // Read-only: a policy this migrate lacks does not stop the answer; it is named.
        let outcome = global.makePlan(options, checkingPolicies: false)
        switch outcome {
        case .failure(let message, let code, _, _):
            let status = code == ExitStatus.unknownVersion ? "unknown-version" : code == ExitStatus.noMigrationPath ? "no-path" : "error"
            if global.json {
                // status answers in its own report whatever the outcome; the error
                // object sits beside it, as in every command's failure.
                try Output.json(FailedReport(store: options.store, status: status, exitCode: code.rawValue, message: message,
                                             error: .init(message: message, exitCode: code.rawValue, diagnostics: nil)))
                throw code
            }
            throw global.fail(outcome)
        case .plan(let plan):
            let needed = !plan.isEmpty
            let message = needed
                ? "\(options.store): \(plan.model) version \(plan.sourceVersion), migration to \(plan.targetVersion) needed (\(plan.allSteps.count) steps)"
                : "\(options.store): \(plan.model) version \(plan.sourceVersion), current"
            let missing = plan.missingPolicies(known: Set(MigrateTool.policies.names))
            if global.json {
                try Output.json(Report(store: options.store, status: needed ? "migration-needed" : "current", exitCode: needed ? 3 : 0,
                                       model: plan.model, version: plan.sourceVersion, target: plan.targetVersion, message: message,
                                       missingPolicies: missing.isEmpty ? nil : missing.map(\.policy)))
            } else {
                Output.out(message)
                for (policy, file) in missing { Output.err(GlobalOptions.missingPolicyWarning(policy, file: file)) }
            }
            if needed { throw ExitStatus.migrationNeeded }
        }
    }
}
