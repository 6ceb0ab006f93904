/// A position in a source file: 1-based line and column (columns count Unicode scalars).
public struct SourceLocation: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The path of the file, as it was given to the loader.
    public var file: String
    /// The 1-based line.
    public var line: Int
    /// The 1-based column.
    public var column: Int

    /// Creates a location.
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`, the form compilers and editors understand.
    public var description: String { "\(file):\(line):\(column)" }
}
