/// Thrown when bytes cannot be decoded as a binary property list.
///
/// A struct with an extensible ``Kind`` rather than an enum, so new kinds of
/// problems can be added without breaking code that switches over them.
/// The ``message`` reads `subject: detail`, where the subject is the header, the
/// trailer or `object N at offset O` (the object's index in the offset table and its
/// byte offset in the input).
package struct PropertyListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What sort of problem was found.
    package struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The kind's name, as written in this file.
        package let name: String

        private init(_ name: String) { self.name = name }

        /// The input does not start with the `bplist00` magic.
        package static let notABinaryPlist = Kind("notABinaryPlist")
        /// An object, or the trailer itself, extends past the end of its area.
        package static let truncated = Kind("truncated")
        /// The trailer holds impossible sizes, counts or positions.
        package static let invalidTrailer = Kind("invalidTrailer")
        /// An offset table entry or an object reference points outside its range.
        package static let invalidOffset = Kind("invalidOffset")
        /// An object is malformed: a bad count marker or an invalid string encoding.
        package static let invalidObject = Kind("invalidObject")
        /// A well-formed object with no ``PropertyListValue`` counterpart (null, fill,
        /// UID, unknown markers, integers beyond 64 bits).
        package static let unsupportedObject = Kind("unsupportedObject")
        /// A container contains itself through references.
        package static let cycle = Kind("cycle")
        /// Containers nest deeper than ``BinaryPropertyList/maximumDepth``.
        package static let tooDeep = Kind("tooDeep")
        /// A dictionary key is not a string.
        package static let nonStringKey = Kind("nonStringKey")

        /// The kind's name.
        package var description: String { name }
    }

    /// What sort of problem was found.
    package let kind: Kind
    /// `subject: detail`, for people.
    package let message: String

    /// Creates an error.
    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    package var description: String { message }
}
