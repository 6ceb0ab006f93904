/// Why an Xcode model could not be imported. Carries every problem found, each as
/// `file:line: subject: detail`.
package struct ImportError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, broadly.
    package enum Kind: String, Sendable {
        /// The path is missing or unreadable, or holds no version.
        case unreadable
        /// A `contents` file is not well-formed XML or not a Core Data model.
        case malformed
        /// Names or values the model format refuses.
        case invalid
        /// The `--order` list does not match the bundle's versions.
        case order
    }

    /// What went wrong, broadly.
    package var kind: Kind
    /// Every problem, one line each.
    package var problems: [String]

    /// Creates an error from one or more problems.
    package init(_ kind: Kind, _ problems: [String]) {
        self.kind = kind
        self.problems = problems
    }

    /// Creates an error from one problem.
    package init(_ kind: Kind, _ problem: String) {
        self.init(kind, [problem])
    }

    package var description: String { problems.joined(separator: "\n") }
}
