/// Why a YAML file could not be loaded, with where, for people.
///
/// A struct with a `kind` rather than an enum with payloads, so new context can be
/// added without breaking code that switches over kinds.
public struct YAMLError: Error, Sendable, CustomStringConvertible {
    /// The category of a loading failure.
    public enum Kind: Sendable {
        /// The file could not be read (missing, a directory, no permission).
        case unreadable
        /// The bytes are not UTF-8, or start with a UTF-16 or UTF-32 byte order mark.
        case notUTF8
        /// libyaml rejected the text (including forbidden control characters, tab
        /// indentation, unclosed quotes and aliases to undefined anchors).
        case syntax
        /// The file holds more than one YAML document.
        case multipleDocuments
        /// The file holds no content: empty, only comments, or only `---`.
        case emptyDocument
        /// The root of the document is not a mapping.
        case notAMapping
        /// A mapping has the same key twice.
        case duplicateKey
        /// A mapping key is a sequence or a mapping.
        case nonScalarKey
        /// Collections nest deeper than ``YAMLLoader/maximumDepth``.
        case tooDeep
        /// The file is larger than ``YAMLLoader/maximumFileSize`` bytes, or its document
        /// has more than ``YAMLLoader/maximumNodeCount`` nodes without aliases.
        case tooLarge
        /// Aliases expand the document beyond ``YAMLLoader/maximumNodeCount`` nodes.
        case aliasExpansion
        /// Valid YAML this loader does not support (another YAML version, recursive aliases).
        case unsupported
    }

    /// The category of the failure.
    public var kind: Kind
    /// What is wrong, for people, e.g. "duplicate key 'email' (first defined at line 3, column 5)".
    public var message: String
    /// The path of the file, as it was given to the loader.
    public var file: String
    /// Where the problem is; `nil` when it concerns the whole file.
    public var location: SourceLocation?

    /// Creates an error.
    public init(_ kind: Kind, _ message: String, file: String, at location: SourceLocation?) {
        self.kind = kind
        self.message = message
        self.file = file
        self.location = location
    }

    /// `file:line:column: error: message`, or `file: error: message` without a location.
    public var description: String {
        "\(location.map(\.description) ?? file): error: \(message)"
    }
}
