package import DataModel

/// Where each character of a YAML scalar's text is in its file, so that an error
/// at a column of an expression points at the file's line and column.
///
/// The value a YAML parser returns is not the file's text: quoted scalars have
/// escapes (`\"`, `\u00e9`, `''`), and line folding turns a line break and the
/// next line's indentation into one space (flow scalars, `>` blocks) or keeps the
/// break and drops the indentation (`|` blocks). The map walks the value and the
/// file side by side: escapes are one character of the value, and a run of
/// whitespace in the value matches a run of whitespace (line breaks included) in
/// the file (YAML 1.2 §6.5 and §7.3).
package struct ScalarPositions: Sendable, Hashable {
    /// Where the scalar's text starts (after an opening quote; for a block scalar,
    /// its first content line at its indentation).
    package var start: SourceLocation
    /// The 1-based line and column of each Unicode scalar of the value, and one
    /// more for the position just past its end.
    private var positions: [Position]

    private struct Position: Sendable, Hashable {
        var line: Int
        var column: Int
    }

    /// A map that knows only where the text starts: columns count from there on
    /// its first line (for values built without a file).
    package init(start: SourceLocation) {
        self.start = start
        self.positions = []
    }

    /// Maps `value`, a scalar of `style` whose text starts at `start`, onto the
    /// file's `lines` (its text split at line breaks).
    init(value: String, style: YAMLNode.ScalarStyle, start: SourceLocation, lines: [Substring]) {
        self.start = start
        let value = Array(value.unicodeScalars)
        let text = lines.map { line -> [Unicode.Scalar] in
            var scalars = Array(line.unicodeScalars)
            if scalars.last == "\r" { scalars.removeLast() }
            return scalars
        }
        var line = start.line - 1, column = start.column - 1
        var positions: [Position] = []
        positions.reserveCapacity(value.count + 1)
        // The file's character at (line, column); a line break at the end of a line.
        func character() -> Unicode.Scalar? {
            guard line < text.count else { return nil }
            return column < text[line].count ? text[line][column] : (line + 1 < text.count ? "\n" : nil)
        }
        func advance() {
            if line < text.count, column < text[line].count {
                column += 1
            } else {
                line += 1
                column = 0
            }
        }
        func isSpace(_ c: Unicode.Scalar) -> Bool { c == " " || c == "\t" || c == "\n" }
        var index = 0
        while index < value.count, let c = character() {
            if style == .doubleQuoted, c == "\\" {
                advance()
                guard let escaped = character() else { break }
                if escaped == "\n" {
                    // An escaped line break: nothing in the value, nor the next
                    // line's leading whitespace.
                    advance()
                    while let next = character(), next == " " || next == "\t" { advance() }
                    continue
                }
                positions.append(Position(line: line + 1, column: column))
                let length =
                    switch escaped {
                    case "x": 3
                    case "u": 5
                    case "U": 9
                    default: 1
                    }
                for _ in 0..<length { advance() }
                index += 1
            } else if style == .singleQuoted, c == "'" {
                positions.append(Position(line: line + 1, column: column + 1))
                advance()
                advance()
                index += 1
            } else if isSpace(c) {
                // A run of whitespace in the file is the value's run of whitespace
                // (folded, or with indentation dropped): its characters all sit at
                // the run's start.
                let at = Position(line: line + 1, column: column + 1)
                while let next = character(), isSpace(next) { advance() }
                while index < value.count, isSpace(value[index]) {
                    positions.append(at)
                    index += 1
                }
            } else {
                positions.append(Position(line: line + 1, column: column + 1))
                advance()
                index += 1
            }
        }
        // Past the file's text (a value longer than its source: not expected):
        // the rest stays on the last known position.
        let last = Position(line: line + 1, column: column + 1)
        while positions.count < value.count + 1 {
            positions.append(positions.count == value.count ? last : (positions.last ?? last))
        }
        self.positions = positions
    }

    /// Where the 1-based `column` (in Unicode scalars) of the value is in the file.
    package func location(ofColumn column: Int) -> SourceLocation {
        var location = start
        guard !positions.isEmpty else {
            location.column += max(0, column - 1)
            return location
        }
        let position = positions[min(max(0, column - 1), positions.count - 1)]
        location.line = position.line
        location.column = position.column
        return location
    }
}
