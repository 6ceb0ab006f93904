import DataModel
import Foundation

/// A source object as a policy sees it: typed, KVC-like access to its values and
/// relationships that load when asked (a policy never holds the whole table).
public struct SourceObject {
    /// The entity (in the source version).
    public let entity: String
    /// `Z_PK`.
    public let primaryKey: Int64
    /// Non-nil attribute values.
    public let values: [String: AttributeValue]
    /// To-one relationship keys read with the row.
    let toOneKeys: [String: Int64]
    unowned let reader: SourceReader

    /// The value of an attribute, `nil` when nil.
    public subscript(_ name: String) -> AttributeValue? { values[name] }

    /// A string attribute (`nil` when nil or not a string).
    public func string(_ name: String) -> String? {
        if case .string(let v)? = values[name] { return v }
        if case .uri(let v)? = values[name] { return v }
        return nil
    }

    /// An integer attribute.
    public func integer(_ name: String) -> Int64? {
        if case .integer(let v)? = values[name] { return v }
        return nil
    }

    /// A double or float attribute (integers convert).
    public func double(_ name: String) -> Double? {
        switch values[name] {
        case .double(let v)?: v
        case .integer(let v)?: Double(v)
        default: nil
        }
    }

    /// A boolean attribute.
    public func bool(_ name: String) -> Bool? {
        if case .boolean(let v)? = values[name] { return v }
        return nil
    }

    /// A date attribute, as a `Date`.
    public func date(_ name: String) -> Date? {
        if case .date(let v)? = values[name] { return Date(timeIntervalSinceReferenceDate: v) }
        return nil
    }

    /// Binary, transformable or UUID bytes.
    public func data(_ name: String) -> [UInt8]? {
        if case .binary(let v)? = values[name] { return v }
        return nil
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

/// A destination object a policy creates or completes.
public struct DestinationObject: Sendable, Hashable {
    /// The entity (in the destination version).
    public let entity: String
    /// `Z_PK`.
    public let primaryKey: Int64
    /// Attribute values; a missing key or nil means nil.
    public var values: [String: AttributeValue?]
    /// To-one relationships by name: the destination's primary key, or nil.
    public var toOne: [String: Int64?]

    /// Gets or sets an attribute value.
    public subscript(_ name: String) -> AttributeValue? {
        get { values[name] ?? nil }
        set { values[name] = .some(newValue) }
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
