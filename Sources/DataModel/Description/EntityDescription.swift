/// A fetch index on an entity (Core Data's `NSFetchIndexDescription`): not hashed,
/// part of the layout hash.
public struct IndexDescription: Sendable, Hashable, Codable {
    /// One indexed property and its direction.
    public struct Element: Sendable, Hashable, Codable {
        /// The property's name; for an expression element, the key path it names when
        /// it is one (`name`), else empty.
        public var property: String
        /// Descending order when true.
        public var isDescending: Bool
        /// Where the element is written.
        public var location: SourceLocation
        /// An expression element's `NSExpression` text (`lowercase:(name)`), as Xcode
        /// writes it; nil for a property element.
        public var expression: String?
        /// An expression element's result type, as Xcode writes it (`String`).
        public var expressionType: String?

        /// Creates an element.
        public init(
            property: String, isDescending: Bool, location: SourceLocation, expression: String? = nil,
            expressionType: String? = nil
        ) {
            self.property = property
            self.isDescending = isDescending
            self.location = location
            self.expression = expression
            self.expressionType = expressionType
        }

        /// The key path an expression names, when the whole expression is one
        /// identifier (`name`): the only expressions whose SQL form is known, their
        /// column. Nil for other expressions (`lowercase:(name)`).
        public static func keyPath(of expression: String) -> String? {
            Identifier.isPropertyName(expression) ? expression : nil
        }
    }

    /// The index name; generated from the property names when the file gives none.
    public var name: String
    /// Written by Xcode 8 as a `<compoundIndex>` (no name of its own), not a `<fetchIndex>`.
    public var isCompound = false
    /// The indexed properties, in order.
    public var elements: [Element]
    /// Where the index is written.
    public var location: SourceLocation

    enum CodingKeys: String, CodingKey {
        case name, elements, location
    }
}

/// A uniqueness constraint: a set of property names whose values are unique together.
public struct UniquenessConstraint: Sendable, Hashable, Codable {
    /// The property names, in the order written.
    public var properties: [String]
    /// Where the constraint is written.
    public var location: SourceLocation

    /// How Core Data hashes it: the names joined with ".".
    public var hashText: String { properties.joined(separator: ".") }
}

/// An entity as written in one model version file.
public struct EntityDescription: Sendable, Hashable, Codable {
    /// The entity's name (starts with an uppercase letter).
    public var name: String
    /// The parent entity, for inheritance.
    public var parent: String?
    /// Abstract entities have no instances of their own.
    public var isAbstract: Bool = false
    /// Attributes in file order.
    public var attributes: [AttributeDescription] = []
    /// Relationships in file order.
    public var relationships: [RelationshipDescription] = []
    /// Uniqueness constraints (hashed).
    public var uniqueness: [UniquenessConstraint] = []
    /// Fetch indexes (not hashed).
    public var indexes: [IndexDescription] = []
    /// Core Data's `renamingIdentifier`: the entity's name in the previous version.
    public var renamedFrom: String?
    /// Core Data's `versionHashModifier`.
    public var hashModifier: String?
    /// Fetched properties, kept as Xcode wrote them (not stored, not hashed).
    package var fetchedProperties: [XcodeElement] = []
    /// What Xcode says of it that neither hash nor layout reads (`representedClassName`,
    /// `codeGenerationType`, user info, …), kept for export.
    package var xcode = XcodeSettings()
    /// Where the entity's name is written.
    public var location: SourceLocation

    // What only Xcode reads is not part of the encoded form (a store's model cache):
    // caches written before it existed stay readable, and it changes no compiled fact.
    enum CodingKeys: String, CodingKey {
        case name, parent, isAbstract, attributes, relationships, uniqueness, indexes, renamedFrom, hashModifier,
            location
    }

    /// Creates an entity description.
    public init(name: String, location: SourceLocation) {
        self.name = name
        self.location = location
    }

    /// The location of a declared property, attribute or relationship.
    public func location(ofProperty name: String) -> SourceLocation? {
        attributes.first { $0.name == name }?.location ?? relationships.first { $0.name == name }?.location
    }
}

/// One version of a model, as written in `Models/<Model>/<N>.yaml`.
public struct ModelVersionDescription: Sendable, Hashable, Codable {
    /// The model's name (`model:` key).
    public var model: String
    /// The version number (`version:` key; equals the file name).
    public var version: Int
    /// The optional `identifier:` label (→ `NSStoreModelVersionIdentifiers`).
    public var identifier: String?
    /// Entities in file order.
    public var entities: [EntityDescription]
    /// The file it was read from.
    public var file: String
    /// Where the `model:` value is written.
    public var modelLocation: SourceLocation
    /// Where the `version:` value is written.
    public var versionLocation: SourceLocation
    /// The `<model>` element's settings when the version came from (or is kept for)
    /// Xcode: export then writes exactly what the file says; nil for a version written
    /// in YAML only, which export gives Xcode's defaults for new elements.
    package var xcode: XcodeSettings?
    /// Which elements say `syncable="YES"` unless they say otherwise.
    package var syncable: SyncableDefault?
    /// Fetch request templates, kept as Xcode wrote them.
    package var fetchRequests: [XcodeElement] = []
    /// Configurations (named sets of entities), kept as Xcode wrote them.
    package var configurations: [XcodeElement] = []
    /// Composite attribute types (Xcode 15's `<composite>`), in file order. Not part of
    /// the encoded form: no store is created for a version that uses them.
    public var composites: [CompositeDescription] = []
    /// The version's folder name in the Xcode bundle it was imported from, without
    /// `.xcdatamodel` (`xcodeVersion: { name: … }`), when it is not the name export
    /// would give it (`<Model>`, `<Model> N`): export writes it back.
    package var xcodeVersionName: String?
    /// The versions the app ships a mapping model from, to this one
    /// (`mappedFrom: [11]`, written by `migrate import`): a migration from one of
    /// them needs its mapping file and never infers that step.
    package var mappedFrom: [Int] = []
    /// True when `.xccurrentversion` named this version although later ones exist
    /// (`xcodeVersion: { current: true }`): export keeps it current.
    package var xcodeIsCurrent = false

    // What only Xcode reads is not part of the encoded form (a store's model cache):
    // caches written before it existed stay readable, and it changes no compiled fact.
    enum CodingKeys: String, CodingKey {
        case model, version, identifier, entities, file, modelLocation, versionLocation
    }

    /// Creates a version description.
    public init(
        model: String, version: Int, identifier: String? = nil, entities: [EntityDescription], file: String,
        modelLocation: SourceLocation? = nil, versionLocation: SourceLocation? = nil
    ) {
        self.model = model
        self.version = version
        self.identifier = identifier
        self.entities = entities
        self.file = file
        self.modelLocation = modelLocation ?? SourceLocation(file: file, line: 1, column: 1)
        self.versionLocation = versionLocation ?? SourceLocation(file: file, line: 1, column: 1)
    }

    /// The entity with a given name.
    public func entity(named name: String) -> EntityDescription? {
        entities.first { $0.name == name }
    }

    /// The composite with a given name.
    public func composite(named name: String) -> CompositeDescription? {
        composites.first { $0.name == name }
    }
}
