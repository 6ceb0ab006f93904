public import DataModel

/// How one destination property gets its value.
public enum PropertySource: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Copied from a source property of the same or another name (`$source.name`).
    case copy(from: String)
    /// Copied from a source property and converted (numeric widening, to-one ↔ to-many…).
    case convert(from: String, conversion: Conversion)
    /// A new property, filled with its default (or nil when optional).
    case defaultValue(AttributeValue?)
    /// Computed by the entity's custom policy.
    case policy
    /// An expression over the source object (a mapping file's `{ value: "…" }`,
    /// Core Data's `NSExpression` format), checked against the source version and
    /// compiled into the hop's `INSERT … SELECT`. `nilOnFailure`: a string that is
    /// not a number becomes nil instead of failing the migration.
    case expression(String, nilOnFailure: Bool)

    public var description: String {
        switch self {
        case .copy(let name): "$source.\(name)"
        case .convert(let name, let conversion): "\(conversion)($source.\(name))"
        case .defaultValue(let value?): "default \(value.displayText)"
        case .defaultValue(nil): "nil"
        case .policy: "policy"
        case .expression(let text, let nilOnFailure): "value \(text)\(nilOnFailure ? " (nil on failure)" : "")"
        }
    }
}

/// A value conversion inference may apply while copying.
public enum Conversion: String, Sendable, Hashable, Codable, CustomStringConvertible {
    /// A wider integer, or integer/float to double or decimal.
    case widen
    /// Optional to required: nil values take the destination's default.
    case fillDefault
    /// To-one becomes to-many or the reverse (a shape change of the relationship storage).
    case reshape
    /// Unordered becomes ordered (order of primary keys) or the reverse.
    case reorder

    public var description: String { rawValue }
}

/// One destination property and where its value comes from.
public struct PropertyMapping: Sendable, Hashable, Codable {
    /// The destination property's name.
    public var name: String
    /// Where the value comes from.
    public var source: PropertySource
    /// True for relationships.
    public var isRelationship: Bool

    /// Creates a property mapping.
    public init(name: String, source: PropertySource, isRelationship: Bool) {
        self.name = name
        self.source = source
        self.isRelationship = isRelationship
    }

    /// How the property changed, for people: kept, renamed, added, converted, policy.
    public var change: String {
        switch source {
        case .copy(let from): from == name ? "kept" : "renamed from \(from)"
        case .convert(let from, let conversion):
            from == name ? "converted (\(conversion))" : "renamed from \(from), converted (\(conversion))"
        case .defaultValue(let value?): "added (default \(value.displayText))"
        case .defaultValue(nil): "added"
        case .policy: "by policy"
        case .expression(let text, _): "computed: \(text)"
        }
    }
}

/// How one destination entity is produced.
public struct EntityMapping: Sendable, Hashable, Codable {
    /// The kind of mapping, as Core Data's `NSEntityMappingType`.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Same shape: rows carried over as they are.
        case copy
        /// A new entity, no source rows.
        case add
        /// A removed entity: its rows are dropped.
        case remove
        /// Rows carried over with property changes.
        case transform
        /// Rows produced by a user policy.
        case custom
    }

    /// The mapping's name (`SourceToDestination`, as Core Data names them).
    public var name: String
    /// The kind.
    public var kind: Kind
    /// The source entity (nil for `add`).
    public var source: String?
    /// The destination entity (nil for `remove`).
    public var destination: String?
    /// The policy name for `custom`.
    public var policy: String?
    /// Destination properties in name order (empty for `remove`).
    public var properties: [PropertyMapping]
    /// Source properties that have no destination (dropped data).
    public var droppedProperties: [String]
    /// Changes that need no data migration: indexes, defaults, delete rules, limits.
    public var layoutChanges: [String]
    /// Which source objects become destination objects (a mapping file's
    /// `filter:`, Core Data's source predicate of an entity mapping); the others are
    /// dropped, and references to them are removed.
    public var filter: String? = nil

    /// Creates an entity mapping.
    public init(
        name: String, kind: Kind, source: String?, destination: String?, policy: String? = nil,
        properties: [PropertyMapping] = [], droppedProperties: [String] = [], layoutChanges: [String] = []
    ) {
        self.name = name
        self.kind = kind
        self.source = source
        self.destination = destination
        self.policy = policy
        self.properties = properties
        self.droppedProperties = droppedProperties
        self.layoutChanges = layoutChanges
    }

    /// The property mapping of a destination property.
    public func property(_ name: String) -> PropertyMapping? { properties.first { $0.name == name } }

    /// How the entity changed, for people: new entity, removed, unchanged, changed
    /// (renamed), or set by a policy. `migrate diff` and `migrate diagram` both say it so.
    public var change: String {
        // A name of its own (`mappingName:`) is the one policies and `$manager` ask by.
        let named =
            kind != .add && kind != .remove && name != "\(source ?? "")To\(destination ?? "")"
            ? ", entity mapping \(name)" : ""
        switch kind {
        case .add: return "new entity"
        case .remove: return "removed: its rows are dropped"
        case .copy: return "unchanged" + named
        case .transform:
            return "changed" + (source != destination ? ", renamed from \(source ?? "?")" : "")
                + (filter.map { ", only objects where \($0)" } ?? "")
                + named
        case .custom:
            return "policy \(policy ?? "?")" + (source != destination ? ", from \(source ?? "?")" : "") + named
        }
    }
}

/// The mapping between two versions of a model: what `migrate diff` prints and the
/// planner turns into SQL.
public struct MappingModel: Sendable, Hashable, Codable {
    /// The model's name.
    public var model: String
    /// The source version.
    public var sourceVersion: Int
    /// The destination version.
    public var destinationVersion: Int
    /// Entity mappings in destination entity name order, removals last.
    public var entityMappings: [EntityMapping]
    /// The mapping file it came from, when any (otherwise fully inferred).
    public var mappingFile: String?
    /// What the stored data must satisfy for this mapping to migrate (`nil`: nothing).
    public var requirements: [DataRequirement]?
    /// The destination entities in the order the mapping file lists them (the
    /// order policies run in each stage); `nil` for inferred mappings.
    public var fileOrder: [String]?

    /// The entity mapping producing a destination entity.
    public func mapping(forDestination name: String) -> EntityMapping? {
        entityMappings.first { $0.destination == name }
    }

    /// Every entity mapping producing a destination entity: its own (the one
    /// `mapping(forDestination:)` gives) first, then the further mappings a mapping
    /// file adds (`destination:`, a merge), in the file's order.
    package func mappings(forDestination name: String) -> [EntityMapping] {
        entityMappings.filter { $0.destination == name }
    }

    /// The further mappings into destination entities: every mapping into an entity
    /// after its own.
    package var furtherMappings: [EntityMapping] {
        var seen: Set<String> = []
        return entityMappings.filter { mapping in
            guard let destination = mapping.destination else { return false }
            return !seen.insert(destination).inserted
        }
    }

    /// True when some entity is produced by a policy.
    public var usesPolicies: Bool { entityMappings.contains { $0.kind == .custom } }

    /// Creates a mapping model.
    public init(
        model: String, sourceVersion: Int, destinationVersion: Int, entityMappings: [EntityMapping],
        mappingFile: String? = nil,
        fileOrder: [String]? = nil
    ) {
        self.fileOrder = fileOrder
        self.model = model
        self.sourceVersion = sourceVersion
        self.destinationVersion = destinationVersion
        self.entityMappings = entityMappings
        self.mappingFile = mappingFile
    }
}
