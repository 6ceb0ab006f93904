import Foundation

/// Patterns for `MATCHES` are ICU regular expressions, as `NSRegularExpression`
/// reads them; a literal pattern is checked when the predicate is.
enum RegularExpressionCheck {
    static func isValid(_ pattern: String) -> Bool {
        (try? NSRegularExpression(pattern: pattern)) != nil
    }
}
