/// An attribute as written in one model version file.
public struct AttributeDescription: Sendable, Hashable, Codable {
    /// The attribute's name (a property identifier, starting with a lowercase letter).
    public var name: String
    /// The attribute's type.
    public var type: AttributeType
    /// Whether the value may be nil. The short form `string?` sets this.
    public var isOptional: Bool = false
    /// Never stored: no column, not hashed into the entity.
    public var isTransient: Bool = false
    /// Whether the column gets an index (not hashed; changes the layout hash).
    public var isIndexed: Bool = false
    /// The default value, parsed per type (not hashed).
    public var defaultValue: AttributeValue?
    /// Core Data's `renamingIdentifier`: the name this attribute had in the previous version.
    public var renamedFrom: String?
    /// Core Data's `versionHashModifier`.
    public var hashModifier: String?
    /// Binary only: allows external storage (hashed as Core Data does).
    public var allowsExternalStorage: Bool = false
    /// Kept in persistent history when the object is deleted (hashed).
    public var preservesValueInHistoryOnDeletion: Bool = false
    /// Transformable only: the value transformer's name (not hashed).
    public var transformer: String?
    /// Lower limit: a value for numbers and dates, a length for strings and binary data.
    public var minimum: AttributeValue?
    /// Upper limit: a value for numbers and dates, a length for strings and binary data.
    public var maximum: AttributeValue?
    /// Composite attributes only: the name of the version's composite it holds
    /// (Xcode's `composite="…"`).
    public var composite: String?
    /// What Xcode says of it that neither hash nor layout reads (`usesScalarValueType`,
    /// `customClassName`, user info, …), kept for export.
    package var xcode = XcodeSettings()
    /// Where the attribute's name is written.
    public var location: SourceLocation

    // What only Xcode reads is not part of the encoded form (a store's model cache):
    // caches written before it existed stay readable, and it changes no compiled fact.
    enum CodingKeys: String, CodingKey {
        case name, type, isOptional, isTransient, isIndexed, defaultValue, renamedFrom, hashModifier,
            allowsExternalStorage
        case preservesValueInHistoryOnDeletion, transformer, minimum, maximum, location
    }

    /// Creates an attribute description.
    public init(name: String, type: AttributeType, isOptional: Bool = false, location: SourceLocation) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.location = location
    }
}
