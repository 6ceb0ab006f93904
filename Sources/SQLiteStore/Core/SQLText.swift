/// SQL text helpers shared by every module that writes SQL.
package enum SQLText {
    /// `identifier` as an SQL quoted identifier: in double quotes, inner quotes
    /// doubled (`ZPERSON` → `"ZPERSON"`, `a"b` → `"a""b"`). The one quoting function:
    /// every identifier from a model is quoted with it.
    package static func q(_ identifier: String) -> String { enclosed(identifier, in: "\"") }

    /// `text` between `quote`s, inner ones doubled (an identifier in `"`, a string literal
    /// in `'`). Works on Unicode scalars: a quote followed by a combining mark is one
    /// `Character` but still a quote to SQLite.
    package static func enclosed(_ text: String, in quote: Unicode.Scalar) -> String {
        var result = String.UnicodeScalarView()
        result.append(quote)
        for scalar in text.unicodeScalars {
            result.append(scalar)
            if scalar == quote { result.append(quote) }
        }
        result.append(quote)
        return String(result)
    }

    /// SQL giving `expression`'s value as `quote()` writes it, for a message: a text's
    /// control characters made visible (`mm_quoted_text`). `quote()` ends a text at its
    /// first NUL, and an ESC in a stored value would reach the terminal.
    package static func shownValue(_ expression: String) -> String {
        "CASE typeof(\(expression)) WHEN 'text' THEN mm_quoted_text(\(expression)) ELSE quote(\(expression)) END"
    }
}
