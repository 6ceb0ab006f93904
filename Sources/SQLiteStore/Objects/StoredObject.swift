public import DataModel

/// One object read from or written to a store: its entity, primary key, attribute
/// values and relationships as destination primary keys.
public struct StoredObject: Sendable, Hashable {
    /// The object's entity (its own, not its root's).
    public var entity: String
    /// `Z_PK`.
    public var primaryKey: Int64
    /// Non-nil attribute values by name (nil values are absent).
    public var values: [String: AttributeValue]
    /// Relationship name → destination primary keys (to-one: zero or one; ordered
    /// to-many: in order; unordered to-many: ascending).
    public var relationships: [String: [Int64]]
    /// For a member of an ordered to-many (its to-one's inverse keeps order): the
    /// to-one's name → the stored order value that places it in its owner's list.
    /// Read by dumps (`_position`) and written by `load`, so that a list survives a
    /// dump and load whatever files its members were written to.
    package var positions: [String: Int64] = [:]

    /// Creates an object value.
    public init(
        entity: String, primaryKey: Int64, values: [String: AttributeValue] = [:],
        relationships: [String: [Int64]] = [:]
    ) {
        self.entity = entity
        self.primaryKey = primaryKey
        self.values = values
        self.relationships = relationships
    }
}
