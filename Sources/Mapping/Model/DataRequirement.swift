import DataModel

/// A change inference maps, whose success the stored data decides (as in Core
/// Data, where the inferred mapping exists and the migration fails only on data
/// that breaks the destination's rules): an optional attribute made required
/// without a default migrates when no stored value is nil.
///
/// The planner counts the objects that break the requirement: none, the hop
/// migrates (and its checks confirm it); some, it refuses, naming the entity, the
/// property, the count and the remedies.
public struct DataRequirement: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What the data must satisfy.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// No stored value of the source property is nil.
        case noNil
        /// No stored object of the source entity (with its subentities): a new
        /// required to-one relationship has no destination to give existing objects,
        /// and on an empty entity nothing needs one (`sourceProperty` is empty).
        case noObjects
    }

    /// The requirement.
    public var kind: Kind
    /// The destination entity.
    public var entity: String
    /// The destination property.
    public var property: String
    /// The source entity.
    public var sourceEntity: String
    /// The source property.
    public var sourceProperty: String

    /// Creates a requirement.
    public init(kind: Kind, entity: String, property: String, sourceEntity: String, sourceProperty: String) {
        self.kind = kind
        self.entity = entity
        self.property = property
        self.sourceEntity = sourceEntity
        self.sourceProperty = sourceProperty
    }

    public var description: String {
        switch kind {
        case .noNil:
            """
            \(entity).\(property): optional → required without a default: migrates when no stored \
            \(sourceEntity).\(sourceProperty) is nil
            """
        case .noObjects:
            """
            \(entity).\(property): new required property: migrates when the store holds no \(sourceEntity) objects of \
            its own
            """
        }
    }
}
