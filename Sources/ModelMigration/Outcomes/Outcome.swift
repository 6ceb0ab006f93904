public import DataModel

/// How a command, or one store of a fleet, ended: a kind from the one table of
/// outcomes (``Kind``: exit code, JSON status word, what it means) and a message
/// for people.
///
/// Every error any part of the toolkit throws becomes an outcome through one
/// function, ``init(_:)``, so that `status`, `plan`, `apply`, every other command
/// and the fleet runner report a failure with the same exit code and the same word
/// (as swift-argument-parser's `MessageInfo` turns any error into one message and
/// one exit code).
public struct Outcome: Error, Sendable, CustomStringConvertible {
    /// Which outcome it is; its exit code and word come with it.
    public var kind: Kind
    /// What happened, for people: `subject: detail`, without a leading `error: `.
    public var message: String
    /// Model or mapping-file diagnostics, when the outcome comes from them (each
    /// with its file, line and column).
    public var diagnostics: [Diagnostic]
    /// The SQL statement that failed, when one did (``MigrationError/statement``):
    /// apart from ``message``, for `--verbose` and `--json`.
    public var statement: String?

    /// An outcome of `kind`, saying `message`.
    public init(_ kind: Kind, _ message: String, diagnostics: [Diagnostic] = [], statement: String? = nil) {
        self.kind = kind
        self.message = message
        self.diagnostics = diagnostics
        self.statement = statement
    }

    /// The process's exit code for this outcome (``Kind/exitCode``).
    public var exitCode: Int32 { kind.exitCode }

    /// The JSON status word (``Kind/word``).
    public var word: String { kind.word }

    /// True when the outcome is a failure or a refusal (anything but a success or
    /// an answer such as `migration-needed`).
    public var isFailure: Bool { kind.isFailure }

    public var description: String { message }
}
