public import DataModel
import Foundation
public import Predicates
import SQLiteStore

/// `NSFetchRequest` for a store: an entity (with its subentities unless told
/// otherwise), a predicate in Core Data's format syntax, sort descriptors on key
/// paths, limit and offset, and the properties to read.
public struct FetchRequest: Sendable, Hashable {
    /// One sort descriptor.
    public struct SortKey: Sendable, Hashable {
        /// A key path (`name`, `city.name`, `orders.@count`).
        public var keyPath: String
        /// Ascending unless false.
        public var ascending: Bool

        /// Creates a sort descriptor.
        public init(_ keyPath: String, ascending: Bool = true) {
            self.keyPath = keyPath
            self.ascending = ascending
        }
    }

    /// The entity.
    public var entity: String
    /// A predicate (`visits >= 10 AND city.name == 'Oslo'`); nil fetches every object.
    public var predicate: String?
    /// Sort descriptors; ties (and no descriptors) go by primary key.
    public var sortKeys: [SortKey] = []
    /// At most this many objects (nil: no limit; the CLI reads `--limit 0` as nil,
    /// as `NSFetchRequest.fetchLimit` reads 0).
    public var limit: Int?
    /// Skip this many objects first.
    public var offset: Int?
    /// Include objects of subentities (Core Data's default).
    public var includesSubentities = true
    /// Key paths or expressions to read; nil reads every stored attribute and to-one
    /// relationship (as the destination's primary key) of the entity and its subentities.
    public var properties: [String]?

    /// Creates a request for every object of `entity`.
    public init(entity: String) {
        self.entity = entity
    }
}

/// One column of a fetch's result.
public struct FetchColumn: Sendable, Hashable {
    /// The property or expression as requested.
    public var name: String
    /// The type of its values.
    public var type: ValueType
    /// For an attribute, its description (exact decoding of stored values).
    public var attribute: AttributeDescription?
    /// For a default column, the entity declaring it: rows of other entities have
    /// no such property.
    public var declaredIn: String?
}

/// One fetched object.
public struct FetchedRow: Sendable, Hashable {
    /// The object's own entity (a subentity's name for its objects).
    public var entity: String
    /// `Z_PK`.
    public var primaryKey: Int64
    /// One value per column (nil for nil); `hasProperty[i]` is false where the
    /// object's entity has no such property.
    public var values: [AttributeValue?]
    /// Whether the object's entity has each column's property.
    public var hasProperty: [Bool]
}
