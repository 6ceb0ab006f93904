/// The type of an attribute, as written in a model file.
public enum AttributeType: String, Sendable, Hashable, Codable, CaseIterable {
    case integer16, integer32, integer64, decimal, double, float, string, boolean, date, binary, uuid, uri,
        transformable
    /// Xcode 15's composite attribute (`NSCompositeAttributeDescription`): a named group of
    /// attributes declared once per version (`composites:`), kept and hashed but not
    /// stored by this toolkit (Docs/Xcode.md, "Composite attributes").
    case composite

    /// Core Data's `NSAttributeType` raw value, which the entity version hash encodes.
    public var typeCode: Int32 {
        switch self {
        case .integer16: 100
        case .integer32: 200
        case .integer64: 300
        case .decimal: 400
        case .double: 500
        case .float: 600
        case .string: 700
        case .boolean: 800
        case .date: 900
        case .binary: 1000
        case .uuid: 1100
        case .uri: 1200
        case .transformable: 1800
        case .composite: 2100
        }
    }

    /// True for the three integer widths.
    public var isInteger: Bool { self == .integer16 || self == .integer32 || self == .integer64 }

    /// True for every numeric type (integers, decimal, double, float).
    public var isNumeric: Bool { isInteger || self == .decimal || self == .double || self == .float }

    /// The inclusive range of an integer width; `nil` for other types.
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .integer16: Int64(Int16.min)...Int64(Int16.max)
        case .integer32: Int64(Int32.min)...Int64(Int32.max)
        case .integer64: Int64.min...Int64.max
        default: nil
        }
    }
}
