import Foundation

/// A value as SQLite stores it: one of its five storage classes.
///
/// Its `description` is an SQL literal (`NULL`, `42`, `1.5`, `'it''s'`, `X'0A0B'`), so
/// values can be shown in plans and messages as they would be written in SQL.
package enum DatabaseValue: Sendable, Hashable {
    /// SQL `NULL`.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An IEEE 754 double. SQLite stores NaN as `NULL`.
    case real(Double)
    /// UTF-8 text; may contain NUL characters.
    case text(String)
    /// Bytes; an empty blob is not `NULL`.
    case blob([UInt8])
}

extension DatabaseValue {
    /// An integer value.
    package init(_ value: Int64) { self = .integer(value) }
    /// An integer value.
    package init(_ value: Int) { self = .integer(Int64(value)) }
    /// A boolean stored as 0 or 1, as Core Data stores it.
    package init(_ value: Bool) { self = .integer(value ? 1 : 0) }
    /// A real value.
    package init(_ value: Double) { self = .real(value) }
    /// A text value.
    package init(_ value: String) { self = .text(value) }
    /// A blob value.
    package init(_ value: [UInt8]) { self = .blob(value) }

    /// Whether the value is `NULL`.
    package var isNull: Bool { self == .null }

    /// The integer, for `.integer` only.
    package var int64: Int64? {
        if case .integer(let value) = self { value } else { nil }
    }

    /// The number, for `.real` and for `.integer` (converted): a column without REAL
    /// affinity keeps integral doubles as integers.
    package var double: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }

    /// The text, for `.text` only.
    package var string: String? {
        if case .text(let value) = self { value } else { nil }
    }

    /// The bytes, for `.blob` only.
    package var blob: [UInt8]? {
        if case .blob(let value) = self { value } else { nil }
    }
}

extension DatabaseValue: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral
{
    /// An integer literal as `.integer`.
    package init(integerLiteral value: Int64) { self = .integer(value) }
    /// A float literal as `.real`.
    package init(floatLiteral value: Double) { self = .real(value) }
    /// A string literal as `.text`.
    package init(stringLiteral value: String) { self = .text(value) }
}

extension DatabaseValue: CustomStringConvertible {
    /// The value as an SQL literal.
    package var description: String {
        switch self {
        case .null:
            return "NULL"
        case .integer(let value):
            return String(value)
        case .real(let value):
            // SQLite has no literal for infinity or NaN; 9e999 overflows to infinity when
            // parsed (the trick sqlite3's own `.dump` uses), and NaN is stored as NULL.
            if value.isNaN { return "NULL" }
            if value.isInfinite { return value < 0 ? "-9e999" : "9e999" }
            return String(value)  // "3.0", "1e-05": still REAL when parsed back
        case .text(let value):
            return quotedSQLText(value)
        case .blob(let bytes):
            let digits: [Character] = Array("0123456789ABCDEF")
            var hex = "X'"
            hex.reserveCapacity(bytes.count * 2 + 3)
            for byte in bytes {
                hex.append(digits[Int(byte >> 4)])
                hex.append(digits[Int(byte & 0x0F)])
            }
            return hex + "'"
        }
    }
}

/// `text` as an SQL string literal: between single quotes, inner quotes doubled.
private func quotedSQLText(_ text: String) -> String { SQLText.enclosed(text, in: "'") }

/// In a plan's JSON, a value bound to a statement: `null`, a number, `{"text": …}`
/// or `{"blob": "<hex>"}` (an integer and a real stay apart: `{"real": 1.0}`).
extension DatabaseValue: Codable {
    private enum Key: String, CodingKey { case integer, real, text, blob }

    package init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), single.decodeNil() {
            self = .null
            return
        }
        let c = try decoder.container(keyedBy: Key.self)
        if let v = try c.decodeIfPresent(Int64.self, forKey: .integer) {
            self = .integer(v)
        } else if let v = try c.decodeIfPresent(Double.self, forKey: .real) {
            self = .real(v)
        } else if let v = try c.decodeIfPresent(String.self, forKey: .text) {
            self = .text(v)
        } else if let hex = try c.decodeIfPresent(String.self, forKey: .blob) {
            var bytes: [UInt8] = []
            var index = hex.startIndex
            while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex),
                let byte = UInt8(hex[index..<next], radix: 16)
            {
                bytes.append(byte)
                index = next
            }
            self = .blob(bytes)
        } else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "expected null, integer, real, text or blob"))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .integer(let v):
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(v, forKey: .integer)
        case .real(let v):
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(v, forKey: .real)
        case .text(let v):
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(v, forKey: .text)
        case .blob(let v):
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(v.map { String(format: "%02x", $0) }.joined(), forKey: .blob)
        }
    }
}
