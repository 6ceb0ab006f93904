/// Thrown when bytes cannot be decoded as a binary property list.
///
/// A struct with an extensible ``Kind`` rather than an enum, so new kinds of
/// problems can be added without breaking code that switches over them.
/// The ``message`` reads `subject: detail`, where the subject is the header, the
/// trailer or `object N at offset O` (the object's index in the offset table and its
/// byte offset in the input).
public struct PropertyListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What sort of problem was found.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The kind's name, as written in this file.
        public let name: String

        private init(_ name: String) { self.name = name }

        /// The input does not start with the `bplist00` magic.
        public static let notABinaryPlist = Kind("notABinaryPlist")
        /// An object, or the trailer itself, extends past the end of its area.
        public static let truncated = Kind("truncated")
        /// The trailer holds impossible sizes, counts or positions.
        public static let invalidTrailer = Kind("invalidTrailer")
        /// An offset table entry or an object reference points outside its range.
        public static let invalidOffset = Kind("invalidOffset")
        /// An object is malformed: a bad count marker or an invalid string encoding.
        public static let invalidObject = Kind("invalidObject")
        /// A well-formed object with no ``PropertyListValue`` counterpart (null, fill,
        /// UID, unknown markers, integers beyond 64 bits).
        public static let unsupportedObject = Kind("unsupportedObject")
        /// A container contains itself through references.
        public static let cycle = Kind("cycle")
        /// Containers nest deeper than ``BinaryPropertyList/maximumDepth``.
        public static let tooDeep = Kind("tooDeep")
        /// A dictionary key is not a string.
        public static let nonStringKey = Kind("nonStringKey")

        /// The kind's name.
        public var description: String { name }
    }

    /// What sort of problem was found.
    public let kind: Kind
    /// `subject: detail`, for people.
    public let message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
