public import Predicates

/// Why a fetch, batch update or batch delete was refused or failed. Nothing was
/// written when it is thrown.
public struct RequestError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// A predicate, expression, key or option does not fit the model (usage).
        case invalidRequest
        /// The store's data refuses the change: a deny rule, a value the model
        /// refuses, a uniqueness constraint.
        case refused
        /// The store failed (I/O, lock timeout…).
        case failed
    }

    /// What went wrong.
    public var kind: Kind
    /// For people: `subject: detail`, with the text and a caret for predicates.
    public var message: String
    /// Whether the request's write failed and the store could not be proven unchanged
    /// afterwards (the guarded write's proof): a signal must not be reported as a
    /// clean rollback over it.
    package var isUnproven = false

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// A predicate or expression error, prefixed with where the text came from
    /// (`--where`, `--set visits`).
    public init(_ error: Predicates.PredicateError, in context: String) {
        self.init(.invalidRequest, "\(context): \(error.message)\n" + error.caretLines(indent: "  "))
    }

    public var description: String { message }
}
