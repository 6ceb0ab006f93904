package import DataModel
import Foundation

/// Exact conversion between attribute values and SQLite values, per attribute type
/// (Docs/Stores.md): dates as seconds since 2001-01-01 (REAL), booleans 0/1,
/// UUIDs as 16-byte blobs, decimals as text that round-trips exactly.
package enum ValueCoding {
    /// The SQLite value stored for `value` in a column of `type`.
    package static func databaseValue(_ value: AttributeValue?, as type: AttributeType) -> DatabaseValue {
        guard let value else { return .null }
        switch value {
        case .integer(let v):
            return type == .double || type == .float
                ? .real(Double(v)) : type == .decimal ? .text(String(v)) : .integer(v)
        case .boolean(let v): return .integer(v ? 1 : 0)
        case .decimal(let v): return .text(v)
        case .double(let v): return .real(type == .float ? Double(Float(v)) : v)
        case .string(let v): return .text(v)
        case .date(let v): return .real(v)
        case .binary(let v): return .blob(v)
        case .uuid(let v): return .blob(uuidBytes(v) ?? [])
        case .uri(let v): return .text(v)
        }
    }

    /// The attribute value read from a column of `type`; `nil` for NULL. Values of
    /// another storage class (as Apple's stores may hold) are converted exactly.
    package static func attributeValue(_ value: DatabaseValue, as type: AttributeType) -> AttributeValue? {
        switch (type, value) {
        case (_, .null): return nil
        case (.integer16, .integer(let v)), (.integer32, .integer(let v)), (.integer64, .integer(let v)):
            return .integer(v)
        // A REAL where an integer belongs (SQLite's answer to integer overflow, or
        // another tool's value): a whole number within Int64 is that integer; any
        // other (2.5, 1e19, ±inf) stays the double it is, never truncated or clamped,
        // so that dumps show it and the model's checks refuse it.
        case (.integer16, .real(let v)), (.integer32, .real(let v)), (.integer64, .real(let v)):
            return Int64(exactly: v).map { .integer($0) } ?? .double(v)
        case (.boolean, .integer(let v)): return .boolean(v != 0)
        case (.boolean, .real(let v)): return .boolean(v != 0)
        // Text that is not a decimal number, and infinity, are read as what they are.
        // (Read as stored: a decimal's text beyond NSDecimalNumber's range is still one.)
        case (.decimal, .text(let v)): return DefaultValueParser.canonicalDecimal(v) != nil ? .decimal(v) : .string(v)
        case (.decimal, .integer(let v)): return .decimal(String(v))
        case (.decimal, .real(let v)): return v.isFinite ? .decimal(v.description) : .double(v)
        case (.double, .real(let v)), (.float, .real(let v)), (.date, .real(let v)):
            return type == .date ? .date(v) : .double(v)
        case (.double, .integer(let v)), (.float, .integer(let v)): return .double(Double(v))
        case (.date, .integer(let v)): return .date(Double(v))
        case (.string, .text(let v)), (.uri, .text(let v)): return type == .uri ? .uri(v) : .string(v)
        case (.binary, .blob(let v)), (.transformable, .blob(let v)): return .binary(v)
        case (.uuid, .blob(let v)) where v.count == 16: return .uuid(uuidString(v))
        case (.uuid, .text(let v)): return DefaultValueParser.canonicalUUIDValue(v).map { .uuid($0) } ?? .string(v)
        case (_, .text(let v)): return .string(v)
        case (_, .blob(let v)): return .binary(v)
        case (_, .integer(let v)): return .integer(v)
        case (_, .real(let v)): return .double(v)
        }
    }

    // MARK: Binary data that allows external storage

    /// Core Data keeps binary data that allows external storage as `0x01` followed
    /// by the bytes (in the row), or `0x02` followed by a file name and a NUL (the
    /// bytes in `.<store name>_SUPPORT/_EXTERNAL_DATA/<name>` beside the store).
    /// This toolkit writes the first form.
    package static func databaseValue(_ value: AttributeValue?, as attribute: AttributeDescription) -> DatabaseValue {
        if attribute.allowsExternalStorage, attribute.type == .binary, case .binary(let bytes)? = value {
            return .blob([1] + bytes)
        }
        return databaseValue(value, as: attribute.type)
    }

    /// The attribute value read from a column; for binary data that allows external
    /// storage, the bytes in the row or in the external data file (see
    /// `databaseValue(_:as:)`).
    /// - Parameter storePath: the store's path, to find external data files.
    package static func attributeValue(_ value: DatabaseValue, as attribute: AttributeDescription, storePath: String)
        throws(StoreError) -> AttributeValue?
    {
        guard attribute.allowsExternalStorage, attribute.type == .binary, case .blob(let bytes) = value,
            let marker = bytes.first
        else {
            return attributeValue(value, as: attribute.type)
        }
        switch marker {
        case 1:
            return .binary(Array(bytes.dropFirst()))
        case 2:
            let name = String(decoding: bytes.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
            let file = externalDataFolder(storePath: storePath) + "/" + name
            guard !name.isEmpty, !name.contains("/"), let data = FileManager.default.contents(atPath: file) else {
                throw StoreError(
                    .invalidObject,
                    "\(attribute.name): its data is kept outside the store, in \(file), which cannot be read",
                    path: storePath)
            }
            return .binary([UInt8](data))
        default:
            return .binary(bytes)
        }
    }

    /// Where Core Data keeps external binary data of the store at `storePath`.
    package static func externalDataFolder(storePath: String) -> String {
        let url = URL(fileURLWithPath: storePath)
        return url.deletingLastPathComponent().path + "/." + url.deletingPathExtension().lastPathComponent
            + "_SUPPORT/_EXTERNAL_DATA"
    }

    /// 16 bytes from a canonical UUID string.
    package static func uuidBytes(_ text: String) -> [UInt8]? {
        let hex = text.filter { $0 != "-" }
        guard hex.count == 32 else { return nil }
        return VersionHash(hex: hex)?.bytes
    }

    /// The canonical lowercase string of 16 UUID bytes.
    package static func uuidString(_ bytes: [UInt8]) -> String {
        let hex = VersionHash(bytes: bytes).hex
        let h = Array(hex)
        return String(h[0..<8]) + "-" + String(h[8..<12]) + "-" + String(h[12..<16]) + "-" + String(h[16..<20]) + "-"
            + String(h[20..<32])
    }

    /// Whether `value` lies within the attribute's `min`/`max` (a value for numbers
    /// and dates, a length for strings, URIs and binary data), with the reason when not.
    package static func checkLimits(_ value: AttributeValue, of attribute: AttributeDescription) -> String? {
        func number(_ v: AttributeValue?) -> Double? {
            switch v {
            case .integer(let n)?: Double(n)
            case .double(let n)?, .date(let n)?: n
            case .decimal(let text)?: Double(text)
            default: nil
            }
        }
        let measured: Double?
        let what: String
        switch value {
        case .string(let s), .uri(let s): (measured, what) = (Double(AttributeDescription.limitLength(of: s)), "length")
        case .binary(let b) where attribute.type == .binary: (measured, what) = (Double(b.count), "length")
        default: (measured, what) = (number(value), "value")
        }
        guard let measured else { return nil }
        let shown = what == "length" ? "length \(Int(measured))" : value.displayText
        if let lower = number(attribute.minimum), measured < lower {
            return "\(shown) is below the minimum \(attribute.minimum!)"
        }
        if let upper = number(attribute.maximum), measured > upper {
            return "\(shown) is above the maximum \(attribute.maximum!)"
        }
        return nil
    }

    /// Whether `value` fits an attribute of `type` (kind and range), with the reason when not.
    package static func check(_ value: AttributeValue, fits type: AttributeType) -> String? {
        switch (type, value) {
        // NaN, infinite dates, floats beyond Float: the one rule of the model's values.
        case (.double, .double(let v)), (.float, .double(let v)), (.date, .date(let v)):
            return type.problem(storingDouble: v)
        case (.integer16, .integer(let v)), (.integer32, .integer(let v)), (.integer64, .integer(let v)):
            return type.integerRange!.contains(v) ? nil : "\(v) is out of range for \(type.rawValue)"
        case (.decimal, .decimal), (.decimal, .integer), (.double, .integer),
            (.string, .string), (.boolean, .boolean), (.binary, .binary), (.transformable, .binary),
            (.uuid, .uuid), (.uri, .uri):
            return nil
        case (.float, .integer(let v)):
            // Every Int64 is within Float's range; rounding to float precision is the type's.
            return type.problem(storingDouble: Double(v))
        default:
            return "expected \(valueNoun(type))"
        }
    }

    /// "an integer16 value", "a uuid value": the type with its article, for messages.
    package static func valueNoun(_ type: AttributeType) -> String {
        "\(type.isInteger ? "an" : "a") \(type.rawValue) value"
    }
}
