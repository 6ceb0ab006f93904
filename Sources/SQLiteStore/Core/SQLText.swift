/// SQL text helpers shared by every module that writes SQL.
package enum SQLText {
    /// `identifier` as an SQL quoted identifier: in double quotes, inner quotes
    /// doubled (`ZPERSON` → `"ZPERSON"`, `a"b` → `"a""b"`). The one quoting function:
    /// every identifier from a model is quoted with it.
    package static func q(_ identifier: String) -> String {
        var result = String.UnicodeScalarView()
        result.append("\"")
        for scalar in identifier.unicodeScalars {
            result.append(scalar)
            if scalar == "\"" { result.append("\"") }
        }
        result.append("\"")
        return String(result)
    }
}
