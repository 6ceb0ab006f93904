import Foundation

/// Paths as POSIX shell words, for the commands the toolkit's messages suggest
/// (`migrate restore 'my store.sqlite' …`): a word of safe characters as it is, any
/// other in single quotes.
package enum ShellWord {
    /// `text` as one shell word.
    package static func quoted(_ text: String) -> String {
        text.allSatisfy { $0.isLetter || $0.isNumber || "/._-+:@".contains($0) }
            ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
