import Foundation

/// A typed attribute value parsed from model text: defaults and limits.
///
/// Values keep an exact canonical form: decimals stay decimal strings, dates are
/// seconds since 2001-01-01T00:00:00Z (Core Data's reference date), UUIDs are
/// lowercase canonical strings.
public enum AttributeValue: Sendable, Hashable, Codable, CustomStringConvertible {
    case integer(Int64)
    /// An exact decimal in canonical text form (`-12.50` stays `-12.50`).
    case decimal(String)
    case double(Double)
    case string(String)
    case boolean(Bool)
    /// Seconds since 2001-01-01T00:00:00Z.
    case date(Double)
    case binary([UInt8])
    /// Canonical lowercase `8-4-4-4-12` form.
    case uuid(String)
    case uri(String)

    /// A canonical text rendering, stable across platforms (used in hashes and JSON).
    public var description: String {
        switch self {
        case .integer(let v): return String(v)
        case .decimal(let v): return v
        case .double(let v): return Self.canonical(v)
        case .string(let v): return v
        case .boolean(let v): return v ? "true" : "false"
        case .date(let v): return ISO8601.format(secondsSinceReferenceDate: v)
        case .binary(let v): return Data(v).base64EncodedString()
        case .uuid(let v): return v
        case .uri(let v): return v
        }
    }

    /// Like `description`, with strings quoted so that empty and padded strings show.
    public var displayText: String {
        switch self {
        case .string(let v): return "\"\(v)\""
        default: return description
        }
    }

    /// Shortest round-tripping rendering of a double (`1.0` prints as `1.0`).
    static func canonical(_ value: Double) -> String {
        value.description
    }

    private enum CodingKeys: String, CodingKey {
        case integer, decimal, double, string, boolean, date, binary, uuid, uri
    }

    // Encoded as a one-key object, `{"date": "2026-01-01T00:00:00Z"}`, with the canonical
    // text, so compiled JSON is stable across platforms and readable.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let key: CodingKeys =
            switch self {
            case .integer: .integer
            case .decimal: .decimal
            case .double: .double
            case .string: .string
            case .boolean: .boolean
            case .date: .date
            case .binary: .binary
            case .uuid: .uuid
            case .uri: .uri
            }
        try container.encode(description, forKey: key)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let key = container.allKeys.first, container.allKeys.count == 1 else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "expected one value key"))
        }
        let text = try container.decode(String.self, forKey: key)
        let type: AttributeType =
            switch key {
            case .integer: .integer64
            case .decimal: .decimal
            case .double: .double
            case .string: .string
            case .boolean: .boolean
            case .date: .date
            case .binary: .binary
            case .uuid: .uuid
            case .uri: .uri
            }
        switch DefaultValueParser.parse(text, as: type) {
        case .success(let value): self = value
        case .failure(let reason):
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: reason.message))
        }
    }
}
