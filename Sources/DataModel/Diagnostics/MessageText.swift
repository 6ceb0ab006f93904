/// Text from a file or a store said inside a message for people.
package enum MessageText {
    /// `text` with its control characters written as JSON writes them (`\n`,
    /// `\u001b`): a key or value quoted in a message can neither split the message
    /// nor drive the terminal that shows it (an ESC sequence setting the window's
    /// title, say). C0 and C1 controls and DEL; every other character stays as it is.
    /// `keepingLineBreaks`: line feeds and tabs stay (a whole message or report, whose
    /// lines are its own).
    package static func visible(_ text: String, keepingLineBreaks: Bool = false) -> String {
        func isControl(_ scalar: Unicode.Scalar) -> Bool {
            guard scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) else { return false }
            return !keepingLineBreaks || (scalar != "\n" && scalar != "\t")
        }
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var shown = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": shown += "\\n"
            case "\r": shown += "\\r"
            case "\t": shown += "\\t"
            case _ where isControl(scalar):
                let hex = String(scalar.value, radix: 16)
                shown += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: shown.unicodeScalars.append(scalar)
            }
        }
        return shown
    }
}
