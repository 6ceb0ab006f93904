/// One SQL statement or condition with the values bound to its `?` parameters, in
/// order: the text and its arguments travel as one value, so that a statement can
/// never be run with another statement's values (GRDB's `SQL` pairs them the same way).
public struct SQLFragment: Sendable, Hashable, Encodable, CustomStringConvertible {
    /// The SQL text: identifiers from the layout (quoted), aliases, `?`, keywords.
    public var sql: String
    /// The values for the `?`s, in order (a mapping file's literals are never
    /// written into the text).
    package var arguments: [DatabaseValue]

    /// Creates a fragment.
    package init(_ sql: String, _ arguments: [DatabaseValue] = []) {
        self.sql = sql
        self.arguments = arguments
    }

    public var description: String { sql }

    /// The statement with each `?` outside a quoted string or identifier replaced by
    /// its value as an SQL literal (`DatabaseValue.description`): for a condition
    /// embedded in a check, which carries no arguments of its own.
    package var inlined: String {
        var result = ""
        var values = arguments.makeIterator()
        var quote: Character?
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                result.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                result.append(character)
            } else if character == "?", let value = values.next() {
                result += value.description
            } else {
                result.append(character)
            }
        }
        return result
    }
}
