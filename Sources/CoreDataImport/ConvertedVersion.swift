import DataModel

/// One version as the model format will state it: the facts the YAML emitter writes.
struct ConvertedVersion {
    var identifier: String?
    var toolsVersion: String?
    var systemVersion: String?
    var entities: [ConvertedEntity] = []
    /// The `<model>` element's other attributes and user info.
    var xcode = XcodeSettings()
    /// Which elements say `syncable="YES"` unless they say otherwise (chosen to need
    /// the fewest exceptions).
    var syncable: SyncableDefault?
    var fetchRequests: [XcodeElement] = []
    var configurations: [XcodeElement] = []
    /// Xcode 15's `<composite>` types, in file order.
    var composites: [ConvertedComposite] = []
    /// The version's folder name in the bundle, when export would not give it back.
    var bundleName: String?
    /// `.xccurrentversion` names this version although later versions exist.
    var isCurrentBeforeLast = false
}

/// A `<composite name="…">`: a named list of attributes (Docs/Xcode.md).
struct ConvertedComposite {
    var name: String
    var position = XMLPosition(line: 1, column: 1)
    var xcode = XcodeSettings()
    var attributes: [ConvertedAttribute] = []
}

/// Where an element is written in its `contents` file.
struct XMLPosition: Equatable {
    var line: Int
    var column: Int
}

struct ConvertedEntity {
    var name: String
    var position = XMLPosition(line: 1, column: 1)
    var xcode = XcodeSettings()
    var fetchedProperties: [XcodeElement] = []
    var parent: String?
    var isAbstract = false
    var renamedFrom: String?
    var hashModifier: String?
    var attributes: [ConvertedAttribute] = []
    var relationships: [ConvertedRelationship] = []
    var uniqueness: [[String]] = []
    var indexes: [ConvertedIndex] = []
}

/// A YAML scalar as written: plain (numbers, booleans) or double-quoted.
enum Scalar: Equatable {
    case plain(String)
    case quoted(String)
}

struct ConvertedAttribute {
    var name: String
    var type: AttributeType
    var position = XMLPosition(line: 1, column: 1)
    var xcode = XcodeSettings()
    var isOptional = false
    var isTransient = false
    var isIndexed = false
    var defaultValue: Scalar?
    var minimum: Scalar?
    var maximum: Scalar?
    var allowsExternalStorage = false
    var preservesValueOnDeletion = false
    var transformer: String?
    var renamedFrom: String?
    var hashModifier: String?
    /// A composite attribute's composite (`composite="Address"`).
    var composite: String?
}

struct ConvertedRelationship {
    var name: String
    var destination: String
    var position = XMLPosition(line: 1, column: 1)
    var xcode = XcodeSettings()
    var isToMany = false
    var isOrdered = false
    var isOptional = true
    var isTransient = false
    var minCount: UInt64?
    var maxCount: UInt64?
    var inverse: String?
    var deleteRule: DeleteRule = .nullify
    var renamedFrom: String?
    var hashModifier: String?
}

struct ConvertedIndex {
    /// One `<fetchIndexElement>`: a property, or an expression with its result type.
    struct Element {
        var property: String
        var descending: Bool
        var expression: String?
        var expressionType: String?
    }

    var name: String?
    var elements: [Element]
    var isCompound = false
    var position = XMLPosition(line: 1, column: 1)
}

/// The name rules of the model format, shared with DataModel's decoder: the
/// importer checks them itself so that a refused name is reported against the
/// Xcode file it came from.
typealias NameRules = Identifier
