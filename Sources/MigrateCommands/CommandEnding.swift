import ArgumentParser
import Foundation
import ModelMigration

/// How a command ends when it does not end plainly (exit 0, its output said): a
/// failure still to be said, or an answer said already whose kind exits non-zero
/// (`status`'s migration-needed, a fleet's heaviest outcome).
///
/// Commands throw it and never pick an exit code: `MigrateTool.main` catches every
/// error in one place (argument-parser's included), says it through
/// ``Output/render(_:)`` and exits with its kind's code from the outcome table
/// (``Outcome/Kind``).
struct CommandEnding: Error {
    /// How the outcome is said.
    enum Form {
        /// `error: …` on stderr (or the rendered text), or with `--json` the error
        /// object on stdout, on one line.
        case errorObject
        /// `apply --json`: the `failed` event that ends its JSON Lines, with the
        /// destructive warnings `--fail-on-destructive` refused.
        case applyEvent(destructive: [String]?)
        /// `status --json`: its report, whatever the answer, carrying the error object.
        case statusReport(store: String)
        /// Said already, by the command's own output (a plan with its refusal, a
        /// fleet's summary, validate's diagnostics): only the exit code is left.
        case said
    }

    var outcome: Outcome
    /// The text form, when it is more than `error: <message>` (diagnostics with
    /// their lines, argument-parser's usage).
    var rendered: String?
    var form: Form
    /// `--json`: the error object on stdout instead of text on stderr.
    var json: Bool
    /// `--verbose`: the statement that failed, under the text.
    var verbose: Bool

    init(_ outcome: Outcome, rendered: String? = nil, form: Form = .errorObject, json: Bool, verbose: Bool = false) {
        self.outcome = outcome
        self.rendered = rendered
        self.form = form
        self.json = json
        self.verbose = verbose
    }

    /// The process's exit code: the outcome table's.
    var exitCode: Int32 { outcome.exitCode }

    /// What to say on stderr when the JSON that carried this failure could not be
    /// written: its text form, as without `--json`. Nil when there is no failure, no
    /// JSON, or when the command's own output said it (`.said`: a plan, a fleet's
    /// summary, validate's diagnostics), which no text here would replace.
    var textWhenJSONIsLost: String? {
        guard json, outcome.kind.isFailure else { return nil }
        if case .said = form { return nil }
        return rendered ?? "error: \(outcome.message)"
    }

    /// Every error that reaches the tool's entry, as an ending: a command's, a
    /// planning failure, argument-parser's usage errors (exit 64; with `--json` the
    /// error object too), anything else through its outcome. Nil for help and a
    /// clean exit, which argument-parser prints itself.
    static func of(_ error: any Error, command: any ParsableCommand.Type, json: Bool) -> CommandEnding? {
        switch error {
        case let ending as CommandEnding:
            return ending
        case let failure as PlanningFailure:
            return CommandEnding(failure.outcome, rendered: failure.rendered, json: json)
        case let outcome as Outcome:
            return CommandEnding(outcome, json: json)
        default:
            break
        }
        let code = command.exitCode(for: error).rawValue
        if code == ExitCode.success.rawValue { return nil }
        guard code == ExitCode.validationFailure.rawValue else { return CommandEnding(Outcome(error), json: json) }
        let text = command.message(for: error).trimmingCharacters(in: .whitespacesAndNewlines)
        let firstLine = text.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? text
        let message = firstLine.hasPrefix("Error: ") ? String(firstLine.dropFirst(7)) : firstLine
        let full = command.fullMessage(for: error, columns: Invocation.current.columns)
        return CommandEnding(
            Outcome(.usage, message.isEmpty ? Outcome.Kind.usage.meaning : message), rendered: full, json: json)
    }
}

extension Output {
    /// Says how a command ended: the one renderer of failures, text or JSON.
    static func render(_ ending: CommandEnding) {
        let outcome = ending.outcome
        switch ending.form {
        case .said:
            return
        case .applyEvent(let destructive) where ending.json:
            jsonLine(Apply.Event.failed(outcome, destructive: destructive))
        case .statusReport(let store) where ending.json:
            // status's report is pretty JSON, whatever the answer.
            try? json(Status.Report(store: store, outcome: outcome))
        case _ where ending.json:
            // One line: a fleet's JSON Lines log stays JSON Lines whatever fails.
            jsonLine(ErrorReport(error: .init(outcome)))
        default:
            err(ending.rendered ?? "error: \(outcome.message)")
            if ending.verbose, let statement = outcome.statement { err("  in: \(statement)") }
        }
    }
}

/// A command of `migrate`: parse → one library call → render. Its failures and
/// non-zero answers are thrown as ``CommandEnding``s, said in one place.
protocol MigrateCommand: ParsableCommand {
    /// `--models`, `--migrations`, `--json`, `--verbose`.
    var global: GlobalOptions { get }
}
