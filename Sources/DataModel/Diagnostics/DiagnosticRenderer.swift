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
        var lines: [String: [String.Index]] = [:]
        return render(diagnostic, lineStarts: &lines)
    }

    /// Every diagnostic rendered, separated by newlines. Each file's lines are
    /// found once: looking a line up from the start of its file per diagnostic made
    /// 10,000 warnings of one large file take minutes.
    public func render(_ diagnostics: [Diagnostic]) -> String {
        var lines: [String: [String.Index]] = [:]
        return diagnostics.map { render($0, lineStarts: &lines) }.joined(separator: "\n")
    }

    private func render(_ diagnostic: Diagnostic, lineStarts: inout [String: [String.Index]]) -> String {
        var lines = [diagnostic.description]
        if let location = diagnostic.location, let text = sources[location.file] {
            if lineStarts[location.file] == nil { lineStarts[location.file] = Self.lineStarts(of: text) }
            if let line = Self.line(location.line, of: text, starts: lineStarts[location.file]!) {
                // Tabs are kept so that the caret lines up in a terminal.
                var printable = ""
                for scalar in line.unicodeScalars.prefix(400) {
                    printable.unicodeScalars.append(scalar.value < 0x20 && scalar != "\t" ? "?" : scalar)
                }
                lines.append("    " + printable)
                let pad = line.unicodeScalars.prefix(min(400, max(0, location.column - 1))).map {
                    $0 == "\t" ? "\t" : " "
                }
                lines.append("    " + pad.joined() + "^")
            }
        }
        if let hint = diagnostic.hint {
            lines.append("  hint: \(hint)")
        }
        return lines.joined(separator: "\n")
    }

    /// Where each line of `text` starts: after each line feed (a CR LF pair ends a
    /// line too, since its LF is seen byte by byte).
    static func lineStarts(of text: String) -> [String.Index] {
        var starts = [text.startIndex]
        let utf8 = text.utf8
        var index = utf8.startIndex
        while let newline = utf8[index...].firstIndex(of: UInt8(ascii: "\n")) {
            index = utf8.index(after: newline)
            starts.append(index)
        }
        return starts
    }

    /// Line `number` (1-based) without its line break, or nil beyond the text.
    static func line(_ number: Int, of text: String) -> Substring? {
        line(number, of: text, starts: lineStarts(of: text))
    }

    private static func line(_ number: Int, of text: String, starts: [String.Index]) -> Substring? {
        guard number >= 1, number <= starts.count else { return nil }
        let start = starts[number - 1]
        let utf8 = text.utf8
        let end = utf8[start...].firstIndex { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") } ?? utf8.endIndex
        return text[start..<end]
    }
}
