public import DataModel
public import Foundation
import SQLiteStore

/// A source object as a policy sees it: typed, KVC-like access to its values and
/// relationships that load when asked (a policy never holds the whole table).
public struct SourceObject {
    /// The entity (in the source version).
    public let entity: String
    /// `Z_PK`.
    public let primaryKey: Int64
    /// Attribute values in the order of `shape.names` (one array per row, not a
    /// dictionary: objects stream by the million).
    let storage: [AttributeValue?]
    /// To-one relationship keys in the order of `shape.toOneNames`.
    let keys: [Int64?]
    let shape: ObjectShape
    /// `Z_OPT`, Core Data's change counter, carried over by default.
    let changeCounter: Int64
    unowned let reader: SourceReader

    /// Non-nil attribute values by name.
    public var values: [String: AttributeValue] {
        var result: [String: AttributeValue] = [:]
        for (i, name) in shape.names.enumerated() { if let value = storage[i] { result[name] = value } }
        return result
    }

    /// The value of an attribute, `nil` when nil.
    ///
    /// Reading a property the source entity does not have is a mistake (a policy
    /// on the wrong hop, a typo): it gives `nil` here, and the manager fails the
    /// migration right after the phase that read it, naming the property.
    public subscript(_ name: String) -> AttributeValue? {
        if let i = shape.position(of: name) { return storage[i] }
        reader.noteRead(of: name, in: entity)
        return nil
    }

    /// The key of a to-one relationship's destination, read with the row.
    func toOneKey(_ name: String) -> Int64? {
        shape.toOneIndex[name].flatMap { keys[$0] }
    }

    /// A string attribute (`nil` when nil or not a string).
    public func string(_ name: String) -> String? {
        if case .string(let v)? = self[name] { return v }
        if case .uri(let v)? = self[name] { return v }
        return nil
    }

    /// An integer attribute.
    public func integer(_ name: String) -> Int64? {
        if case .integer(let v)? = self[name] { return v }
        return nil
    }

    /// A double or float attribute (integers convert).
    public func double(_ name: String) -> Double? {
        switch self[name] {
        case .double(let v)?: v
        case .integer(let v)?: Double(v)
        default: nil
        }
    }

    /// A boolean attribute.
    public func bool(_ name: String) -> Bool? {
        if case .boolean(let v)? = self[name] { return v }
        return nil
    }

    /// A date attribute, as a `Date`.
    public func date(_ name: String) -> Date? {
        if case .date(let v)? = self[name] { return Date(timeIntervalSinceReferenceDate: v) }
        return nil
    }

    /// Binary, transformable or UUID bytes.
    public func data(_ name: String) -> [UInt8]? {
        switch self[name] {
        case .binary(let v)?: return v
        case .uuid(let v)?: return ValueCoding.uuidBytes(v)
        default: return nil
        }
    }

    /// The destination of a to-one relationship, loaded now.
    public func object(_ relationship: String) throws -> SourceObject? {
        try reader.toOne(of: self, relationship)
    }

    /// The destinations of a to-many relationship, loaded now, in order.
    public func objects(_ relationship: String) throws -> [SourceObject] {
        try reader.toMany(of: self, relationship)
    }
}

/// The attribute names of one entity's objects, in storage order, shared by every
/// object of that entity. Immutable once made.
final class ObjectShape: Sendable {
    let names: [String]
    let index: [String: Int]
    let toOneNames: [String]
    let toOneIndex: [String: Int]

    /// The position of an attribute name. Policies name attributes by string for
    /// every row: for the few names of most entities, comparing them (short names
    /// compare as two machine words) beats hashing the name for the dictionary.
    @inline(__always)
    func position(of name: String) -> Int? {
        guard names.count <= 16 else { return index[name] }
        for i in names.indices where names[i] == name { return i }
        return nil
    }

    init(names: [String], toOneNames: [String] = []) {
        self.names = names
        index = Dictionary(names.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { a, _ in a })
        self.toOneNames = toOneNames
        toOneIndex = Dictionary(
            toOneNames.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { a, _ in a })
    }
}

/// A destination object a policy creates or completes.
public struct DestinationObject: Sendable, Hashable {
    /// The entity (in the destination version).
    public let entity: String
    /// `Z_PK`.
    public let primaryKey: Int64
    /// Attribute values in the order of the entity's shape.
    var storage: [AttributeValue?]
    let shape: ObjectShape
    /// Values set for names the entity does not have (refused when stored).
    var unknown: [String: AttributeValue?] = [:]
    /// Positions changed since the object was created or read (what `update`
    /// writes): a bit mask, the first 64 in a word of its own, so that setting a
    /// value allocates nothing for most objects.
    var changedLow: UInt64 = 0
    var changedHigh: [UInt64] = []

    mutating func markChanged(_ i: Int) {
        if i < 64 {
            changedLow |= 1 << UInt64(i)
            return
        }
        let word = i / 64 - 1
        if changedHigh.count <= word { changedHigh += Array(repeating: 0, count: word + 1 - changedHigh.count) }
        changedHigh[word] |= 1 << UInt64(i % 64)
    }

    /// The changed positions, ascending.
    var changedPositions: [Int] {
        storage.indices.filter { i in
            i < 64
                ? changedLow & (1 << UInt64(i)) != 0
                : (i / 64 - 1 < changedHigh.count && changedHigh[i / 64 - 1] & (1 << UInt64(i % 64)) != 0)
        }
    }
    /// To-one relationships by name: the destination's primary key, or nil.
    public var toOne: [String: Int64?]
    /// `Z_OPT`: the source's for objects made from one (as inference copies it), 1 for new ones.
    var changeCounter: Int64 = 1

    init(
        entity: String, primaryKey: Int64, shape: ObjectShape, storage: [AttributeValue?]? = nil,
        toOne: [String: Int64?] = [:]
    ) {
        self.entity = entity
        self.primaryKey = primaryKey
        self.shape = shape
        self.storage = storage ?? Array(repeating: nil, count: shape.names.count)
        self.toOne = toOne
    }

    /// Attribute values by name (nil values included).
    public var values: [String: AttributeValue?] {
        get {
            var result: [String: AttributeValue?] = unknown
            for (i, name) in shape.names.enumerated() { result[name] = .some(storage[i]) }
            return result
        }
        set {
            storage = Array(repeating: nil, count: shape.names.count)
            unknown = [:]
            for i in storage.indices { markChanged(i) }
            for (name, value) in newValue { self[name] = value }
        }
    }

    /// Gets or sets an attribute value.
    public subscript(_ name: String) -> AttributeValue? {
        get { shape.position(of: name).flatMap { storage[$0] } ?? (unknown[name] ?? nil) }
        set {
            if let i = shape.position(of: name) {
                storage[i] = newValue
                markChanged(i)
            } else {
                unknown[name] = .some(newValue)
            }
        }
    }

    public static func == (a: DestinationObject, b: DestinationObject) -> Bool {
        a.entity == b.entity && a.primaryKey == b.primaryKey && a.values == b.values && a.toOne == b.toOne
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(entity)
        hasher.combine(primaryKey)
    }

    /// Points a to-one relationship at a destination object (or nothing).
    public mutating func setRelationship(_ name: String, to destination: DestinationObject?) {
        toOne[name] = .some(destination?.primaryKey)
    }

    /// Points a to-one relationship at a primary key (or nothing).
    public mutating func setRelationship(_ name: String, toKey key: Int64?) {
        toOne[name] = .some(key)
    }
}
