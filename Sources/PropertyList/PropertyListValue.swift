/// A property list value, as stored in Core Data's `Z_METADATA.Z_PLIST`.
///
/// Equality is exact rather than numeric: reals and dates compare by bit pattern,
/// so `.real(.nan) == .real(.nan)` and `.real(-0.0) != .real(0.0)`. Equal values
/// therefore encode to the same bytes, and `Hashable` stays lawful for NaN.
/// Strings keep Swift's canonical-equivalence equality, since dictionary keys are
/// Swift strings anyway.
package enum PropertyListValue: Sendable, Hashable {
    /// A string (`NSString`).
    case string(String)
    /// A signed 64-bit integer (`NSNumber`).
    case integer(Int64)
    /// A floating-point number (`NSNumber`).
    case real(Double)
    /// A boolean (`NSNumber` / `CFBoolean`).
    case boolean(Bool)
    /// A date, as seconds since 2001-01-01 00:00:00 UTC (`NSDate`'s reference date).
    case date(Double)
    /// Raw bytes (`NSData`).
    case data([UInt8])
    /// An ordered list (`NSArray`; binary plist sets decode as arrays too).
    case array([PropertyListValue])
    /// A dictionary with string keys (`NSDictionary`).
    case dictionary([String: PropertyListValue])

    package static func == (lhs: PropertyListValue, rhs: PropertyListValue) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): a == b
        case let (.integer(a), .integer(b)): a == b
        case let (.real(a), .real(b)): a.bitPattern == b.bitPattern
        case let (.boolean(a), .boolean(b)): a == b
        case let (.date(a), .date(b)): a.bitPattern == b.bitPattern
        case let (.data(a), .data(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.dictionary(a), .dictionary(b)): a == b
        default: false
        }
    }

    package func hash(into hasher: inout Hasher) {
        switch self {
        case .string(let value):
            hasher.combine(0)
            hasher.combine(value)
        case .integer(let value):
            hasher.combine(1)
            hasher.combine(value)
        case .real(let value):
            hasher.combine(2)
            hasher.combine(value.bitPattern)
        case .boolean(let value):
            hasher.combine(3)
            hasher.combine(value)
        case .date(let value):
            hasher.combine(4)
            hasher.combine(value.bitPattern)
        case .data(let value):
            hasher.combine(5)
            hasher.combine(value)
        case .array(let value):
            hasher.combine(6)
            hasher.combine(value)
        case .dictionary(let value):
            hasher.combine(7)
            hasher.combine(value)
        }
    }
}

extension PropertyListValue {
    /// The string, if this is a `.string`.
    package var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The integer, if this is an `.integer`.
    package var integerValue: Int64? {
        if case .integer(let value) = self { value } else { nil }
    }

    /// The number, if this is a `.real`.
    package var realValue: Double? {
        if case .real(let value) = self { value } else { nil }
    }

    /// The boolean, if this is a `.boolean`.
    package var booleanValue: Bool? {
        if case .boolean(let value) = self { value } else { nil }
    }

    /// Seconds since 2001-01-01 00:00:00 UTC, if this is a `.date`.
    package var dateValue: Double? {
        if case .date(let value) = self { value } else { nil }
    }

    /// The bytes, if this is a `.data`.
    package var dataValue: [UInt8]? {
        if case .data(let value) = self { value } else { nil }
    }

    /// The elements, if this is an `.array`.
    package var arrayValue: [PropertyListValue]? {
        if case .array(let value) = self { value } else { nil }
    }

    /// The entries, if this is a `.dictionary`.
    package var dictionaryValue: [String: PropertyListValue]? {
        if case .dictionary(let value) = self { value } else { nil }
    }

    /// The value for `key` if this is a `.dictionary` holding it; `nil` otherwise.
    package subscript(key: String) -> PropertyListValue? {
        dictionaryValue?[key]
    }
}

extension PropertyListValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// A `.string`.
    package init(stringLiteral value: String) { self = .string(value) }
    /// An `.integer`.
    package init(integerLiteral value: Int64) { self = .integer(value) }
    /// A `.real`.
    package init(floatLiteral value: Double) { self = .real(value) }
    /// A `.boolean`.
    package init(booleanLiteral value: Bool) { self = .boolean(value) }
    /// An `.array`.
    package init(arrayLiteral elements: PropertyListValue...) { self = .array(elements) }
    /// A `.dictionary`; a repeated key keeps its last value.
    package init(dictionaryLiteral elements: (String, PropertyListValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
