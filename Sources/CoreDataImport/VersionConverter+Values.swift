import DataModel
import Foundation

/// Attribute values as Xcode writes them (defaults, limits, dates): read into the
/// model format's values, with the text kept where export must write it back.
extension VersionConverter {
    /// `text` of `key` as import reads it, as the value the model format then holds
    /// (nil: no value): how export knows whether Xcode's text still means the YAML's value.
    mutating func read(_ text: String, key: String, type: AttributeType) -> AttributeValue? {
        let scalar: Scalar?
        switch key {
        case "defaultValueString":
            scalar = type == .date ? nil : defaultValue(text, type: type, subject: "", place: "", line: 0)
        case "minValueString", "maxValueString":
            scalar = limit(text, key: key, type: type, subject: "", place: "", line: 0)
        default: scalar = type == .date ? dateValue(text, subject: "", line: 0) : nil
        }
        guard let scalar else { return nil }
        let value =
            switch scalar {
            case .plain(let v), .quoted(let v): v
            }
        if key != "defaultValueString", type == .string || type == .binary || type == .uri {
            return UInt64(value).map { .integer(Int64(clamping: $0)) }
        }
        guard case .success(let parsed) = DefaultValueParser.parse(value, as: type) else { return nil }
        return parsed
    }

    /// Keeps `key`'s original text in `settings` when export, writing `value`, would
    /// write something else.
    func keepText(
        _ node: XMLElementNode, _ key: String, _ value: Scalar?, type: AttributeType, into settings: inout XcodeSettings
    ) {
        guard let original = node.attributes[key] else { return }
        let exported = value.flatMap { XcodeModelExporter.xmlText(of: $0, key: key, type: type) }
        if exported != original { settings[key] = original }
    }

    mutating func defaultValue(_ text: String, type: AttributeType, subject: String, place: String, line: Int)
        -> Scalar?
    {
        switch type {
        case .string:
            return .quoted(text)
        case .transformable, .binary, .composite:
            warnings.add("defaults of \(type.rawValue) attributes (kept for Xcode; the format has none)", at: place)
            return nil
        case .boolean:
            switch text {
            case "YES", "1", "true": return .plain("true")
            case "NO", "0", "false": return .plain("false")
            default: break
            }
        default:
            // Xcode writes an empty default for a UUID or URI field left blank: no default.
            if text.isEmpty { return nil }
        }
        if let scalar = wellFormed(text, type: type) { return scalar }
        return foundationReading(
            text, type: type, attribute: "defaultValueString", place: place, subject: subject, line: line)
    }

    /// `text` as the model format writes it, when it is a well-formed value of `type`.
    func wellFormed(_ text: String, type: AttributeType) -> Scalar? {
        guard case .success = DefaultValueParser.parse(text, as: type) else { return nil }
        switch type {
        case .integer16, .integer32, .integer64, .double, .float, .boolean: return .plain(text)
        default: return .quoted(text)
        }
    }

    /// A value Xcode saved that is not well formed for its type, read as Foundation
    /// reads it when the model is compiled (`NSString`'s `integerValue`, `doubleValue`,
    /// `boolValue`), and recorded for the file's header. A UUID or URI that does not
    /// parse is no value at all for Core Data: the default is left out, also recorded.
    mutating func foundationReading(
        _ text: String, type: AttributeType, attribute key: String,
        place: String, subject: String, line: Int
    ) -> Scalar? {
        let shown = "\(place): \(key) \"\(text.debugDescription.dropFirst().dropLast())\""
        func converted(_ scalar: Scalar, _ rule: String) -> Scalar {
            let value =
                switch scalar {
                case .plain(let v), .quoted(let v): v
                }
            conversions.append("\(shown) → \(value) (\(rule))")
            return scalar
        }
        switch type {
        case .integer16, .integer32, .integer64:
            let read = FoundationScalarText.integerValue(text)
            let range = type.integerRange ?? Int64.min...Int64.max
            let value = min(max(read, range.lowerBound), range.upperBound)
            return converted(
                .plain(String(value)),
                value == read ? "NSString.integerValue" : "NSString.integerValue, clamped to \(type.rawValue)")
        case .double, .float:
            return converted(.plain(FoundationScalarText.numericPrefix(text)), "NSString.doubleValue")
        case .decimal:
            let prefix = FoundationScalarText.numericPrefix(text)
            if case .success = DefaultValueParser.parse(prefix, as: .decimal) {
                return converted(.quoted(prefix), "its numeric prefix, as NSDecimalNumber reads it")
            }
        case .boolean:
            return converted(.plain(FoundationScalarText.boolValue(text) ? "true" : "false"), "NSString.boolValue")
        case .uuid, .uri:
            conversions.append(
                "\(shown) left out (not a \(type == .uuid ? "UUID" : "URI"): Core Data has no value for it)")
            return nil
        default:
            break
        }
        if case .failure(let failure) = DefaultValueParser.parse(text, as: type) {
            errors.append("\(path):\(line):1: \(subject): \(key) \(failure.message)")
        }
        return nil
    }

    mutating func limit(_ text: String?, key: String, type: AttributeType, subject: String, place: String, line: Int)
        -> Scalar?
    {
        guard let text, !text.isEmpty else { return nil }
        switch type {
        case .string, .binary, .uri:
            if let length = UInt64(text) { return .plain(String(length)) }
            let length = max(FoundationScalarText.integerValue(text), 0)
            conversions.append(
                """
                \(place): \(key) \"\(text.debugDescription.dropFirst().dropLast())\" → \(length) (NSString.integerValue)
                """
            )
            return .plain(String(length))
        case .integer16, .integer32, .integer64, .double, .float, .decimal:
            if let scalar = wellFormed(text, type: type) { return scalar }
            return foundationReading(text, type: type, attribute: key, place: place, subject: subject, line: line)
        case .boolean, .uuid, .transformable, .date, .composite:
            warnings.add("limits on \(type.rawValue) attributes (kept for Xcode; the format has none)", at: place)
            return nil
        }
    }

    /// Xcode writes dates as seconds since 2001-01-01 (`defaultDateTimeInterval="0"`);
    /// the format writes ISO 8601, which `ISO8601.format` renders exactly (microseconds).
    mutating func dateValue(_ text: String?, subject: String, line: Int) -> Scalar? {
        guard let text, !text.isEmpty else { return nil }
        guard let seconds = Double(text), seconds.isFinite else {
            errors.append("\(path):\(line):1: \(subject): '\(text)' is not a number of seconds since 2001-01-01")
            return nil
        }
        return .quoted(ISO8601.format(secondsSinceReferenceDate: seconds))
    }
}
