/// A composite attribute type of one model version (Xcode 15's `<composite name="…">`,
/// Core Data's `NSCompositeAttributeDescription.elements`): a named list of attributes
/// that an attribute `{ type: composite, composite: Name }` holds as one value.
///
/// Its elements may themselves be composites. Core Data hashes a composite attribute
/// from its elements (`VersionHasher.hashComposite`); how Core Data lays one out in
/// SQLite has not been checked against a store, so a version with composite
/// attributes is compiled and hashed but no store is created or migrated for it
/// (`CompiledVersion.storageRefusal`).
public struct CompositeDescription: Sendable, Hashable, Codable {
    /// The composite's name (`Address`).
    public var name: String
    /// Its elements, in file order.
    public var attributes: [AttributeDescription] = []
    /// What Xcode says of it that nothing here reads (user info, other XML attributes).
    package var xcode = XcodeSettings()
    /// Where the composite's name is written.
    public var location: SourceLocation

    enum CodingKeys: String, CodingKey {
        case name, attributes, location
    }

    /// Creates a composite description.
    public init(name: String, attributes: [AttributeDescription] = [], location: SourceLocation) {
        self.name = name
        self.attributes = attributes
        self.location = location
    }
}
