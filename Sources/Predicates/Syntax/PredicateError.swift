/// A predicate or expression that does not parse or does not fit the model:
/// `column N: detail`, then the text with a caret under the column.
public struct PredicateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// The text is not in the format string syntax.
        case syntax
        /// The text parses but does not fit the model (unknown key, type mismatch…).
        case type
    }

    /// What went wrong.
    public var kind: Kind
    /// The detail, e.g. `expected an expression after '=='`.
    public var detail: String
    /// The 1-based column (in Unicode scalars) the problem is at.
    public var column: Int
    /// The predicate or expression as given.
    public var source: String

    /// Creates an error at a 0-based offset of `source`.
    public init(_ kind: Kind, _ detail: String, at offset: Int, in source: String) {
        self.kind = kind
        self.detail = detail
        self.column = offset + 1
        self.source = source
    }

    /// `column N: detail` without the text and caret.
    public var message: String { "column \(column): \(detail)" }

    /// The message, the text on its own line and a caret under the column.
    public var description: String {
        "\(message)\n" + caretLines(indent: "  ")
    }

    /// The text (one line; tabs and newlines shown as spaces) and a caret under the column.
    public func caretLines(indent: String) -> String {
        let line = String(
            String.UnicodeScalarView(source.unicodeScalars.map { $0 == "\n" || $0 == "\t" || $0 == "\r" ? " " : $0 }))
        let caret = String(repeating: " ", count: max(0, column - 1)) + "^"
        return "\(indent)\(line)\n\(indent)\(caret)"
    }
}
