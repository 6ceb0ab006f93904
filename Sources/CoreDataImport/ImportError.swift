/// Why an Xcode model could not be imported. Carries every problem found, each as
/// `file:line: subject: detail`.
public struct ImportError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, broadly.
    public enum Kind: String, Sendable {
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
    public var kind: Kind
    /// Every problem, one line each.
    public var problems: [String]

    /// Creates an error from one or more problems.
    public init(_ kind: Kind, _ problems: [String]) {
        self.kind = kind
        self.problems = problems
    }

    /// Creates an error from one problem.
    public init(_ kind: Kind, _ problem: String) {
        self.init(kind, [problem])
    }

    public var description: String { problems.joined(separator: "\n") }
}
