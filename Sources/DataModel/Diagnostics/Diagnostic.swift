/// One problem found in a model or mapping file.
///
/// Validators collect every diagnostic of a run and report them together, so a
/// user fixes all problems in one pass rather than one per run.
public struct Diagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How serious a diagnostic is.
    public enum Severity: String, Sendable, Hashable, Codable {
        case error, warning, note
    }

    /// How serious this is; any `error` makes the input unusable.
    public var severity: Severity
    /// `subject: detail`, for people.
    public var message: String
    /// Where the problem is; `nil` when it concerns a whole folder (e.g. a missing version).
    public var location: SourceLocation?
    /// An extra line that helps fixing it, such as a did-you-mean.
    public var hint: String?

    /// Creates a diagnostic.
    public init(_ severity: Severity = .error, _ message: String, at location: SourceLocation?, hint: String? = nil) {
        self.severity = severity
        self.message = message
        self.location = location
        self.hint = hint
    }

    /// `file:line:column: error: message` on one line (no source excerpt).
    public var description: String {
        let prefix = location.map { "\($0): " } ?? ""
        return "\(prefix)\(severity.rawValue): \(message)"
    }
}

/// Thrown when loading or validating produced at least one error diagnostic.
public struct DiagnosticsError: Error, Sendable, CustomStringConvertible {
    /// Every diagnostic of the run, errors and warnings, in file then position order.
    public var diagnostics: [Diagnostic]

    /// Creates the error.
    public init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }

    /// The diagnostics, one per line, without source excerpts.
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
