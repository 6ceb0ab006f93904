extension YAMLError {
    /// Turns what libyaml reported into a message for people, at libyaml's problem mark.
    ///
    /// libyaml's texts describe its scanner ("found character that cannot start any
    /// token"); the common causes get a message naming the mistake instead.
    init(_ failure: LibYAMLParser.Failure, in source: YAMLSourceText) {
        let file = source.file
        switch failure.stage {
        case .memory, .other:
            self.init(.syntax, "invalid YAML: \(failure.problem)", file: file, at: nil)
            return
        case .reader:
            // The loader checks characters before libyaml reads them, so this is a fallback.
            let location = failure.problemOffset.map(source.location(ofByteOffset:))
            let message =
                switch failure.problemValue {
                case 0?: "the file contains a NUL byte, which YAML does not allow (is it a binary file?)"
                case let value?:
                    """
                    the file contains the control character \
                    \(YAMLSourceText.codePoint(UInt32(truncatingIfNeeded: value))), which YAML does not allow
                    """
                case nil: "invalid YAML: \(failure.problem)"
                }
            self.init(.syntax, message, file: file, at: location)
            return
        case .scanner, .parser:
            break
        }
        let location = failure.problemMark.map { source.location(source.clamped($0)) }
        let contextLocation = failure.contextMark.map(source.location)
        // Finding the character walks the text, so only the message that needs it asks.
        let (kind, message) = Self.explain(failure, contextLocation: contextLocation) {
            failure.problemMark.flatMap(source.character(at:))
        }
        self.init(kind, message, file: file, at: location)
    }

    private static func explain(
        _ failure: LibYAMLParser.Failure, contextLocation: SourceLocation?,
        character: () -> (scalar: Unicode.Scalar, isIndentation: Bool)?
    ) -> (Kind, String) {
        let tabs = "tabs are not allowed for indentation; use spaces"
        switch (failure.problem, failure.context) {
        case ("found character that cannot start any token", _):
            // In block context libyaml skips spaces only; a tab where a token may start
            // is almost always indentation.
            let character = character()
            if let character, character.scalar == "\t" {
                return (.syntax, character.isIndentation ? tabs : "a tab cannot separate values here; use spaces")
            }
            if let character, "@`".unicodeScalars.contains(character.scalar) {
                return (.syntax, "a plain value cannot start with '\(character.scalar)'; put the value in quotes")
            }
        case (let problem, _) where problem.contains("tab character"):
            return (.syntax, tabs)
        case ("found unexpected end of stream", "while scanning a quoted scalar"?),
            ("found unexpected document indicator", "while scanning a quoted scalar"?):
            if let contextLocation {
                return (
                    .syntax,
                    "unclosed quoted string starting at line \(contextLocation.line), column \(contextLocation.column)"
                )
            }
            return (.syntax, "unclosed quoted string")
        case ("found incompatible YAML document", _):
            return (.unsupported, "unsupported YAML version: only %YAML 1.1 and 1.2 documents can be read")
        default:
            break
        }
        var message = "invalid YAML: \(failure.problem)"
        if let context = failure.context {
            message +=
                contextLocation.map {
                    " (\(context) starting at line \($0.line), column \($0.column))"
                } ?? " (\(context))"
        }
        return (.syntax, message)
    }
}
