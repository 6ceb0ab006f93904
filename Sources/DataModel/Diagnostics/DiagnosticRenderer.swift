/// Renders diagnostics the way compilers do: the header line, the offending source
/// line and a caret under the column, then the hint.
///
/// ```
/// Models/Contacts/2.yaml:7:14: error: attribute 'age': unknown type 'integr16'
///       age: integr16
///            ^
///   hint: did you mean 'integer16'?
/// ```
public struct DiagnosticRenderer: Sendable {
    /// Source text per file path, used for the excerpt lines.
    public var sources: [String: String]

    /// Creates a renderer that shows excerpts from the given sources.
    public init(sources: [String: String] = [:]) { self.sources = sources }

    /// The full rendering of one diagnostic, without a trailing newline.
    public func render(_ diagnostic: Diagnostic) -> String {
        var lines = [diagnostic.description]
        if let location = diagnostic.location, let text = sources[location.file],
           let line = Self.line(location.line, of: text) {
            // Tabs are kept so that the caret lines up in a terminal.
            var printable = ""
            for scalar in line.unicodeScalars.prefix(400) {
                printable.unicodeScalars.append(scalar.value < 0x20 && scalar != "\t" ? "?" : scalar)
            }
            lines.append("    " + printable)
            let pad = line.unicodeScalars.prefix(min(400, max(0, location.column - 1))).map { $0 == "\t" ? "\t" : " " }
            lines.append("    " + pad.joined() + "^")
        }
        if let hint = diagnostic.hint {
            lines.append("  hint: \(hint)")
        }
        return lines.joined(separator: "\n")
    }

    /// Every diagnostic rendered, separated by newlines.
    public func render(_ diagnostics: [Diagnostic]) -> String {
        diagnostics.map(render).joined(separator: "\n")
    }

    static func line(_ number: Int, of text: String) -> Substring? {
        guard number >= 1 else { return nil }
        var current = 1
        var start = text.startIndex
        while current < number {
            guard let newline = text[start...].firstIndex(of: "\n") else { return nil }
            start = text.index(after: newline)
            current += 1
        }
        let end = text[start...].firstIndex(where: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) ?? text.endIndex
        return text[start..<end]
    }
}
