import Foundation

/// Why a text is not a value of an attribute type.
public struct ValueParseFailure: Error, Sendable, Hashable {
    /// `expected …`-style detail, for people.
    public var message: String

    /// Creates a failure with its reason.
    public init(message: String) { self.message = message }
}

/// Parses attribute values (defaults, limits) from their text, per type, exactly.
package enum DefaultValueParser {
    /// Largest significand `NSDecimalNumber` holds: 38 decimal digits.
    package static let maximumDecimalDigits = 38

    /// Why a string value may not hold U+0000: the SQL text that carries defaults
    /// (`ALTER TABLE … DEFAULT '…'`, `coalesce(…, '…')`) ends at the first NUL, so
    /// SQLite would see a cut statement.
    static let nulMessage = "a NUL character (\\0) is not allowed (SQLite's SQL text ends at the first NUL)"

    /// Parses `text` as a value of `type`.
    package static func parse(_ text: String, as type: AttributeType) -> Result<AttributeValue, ValueParseFailure> {
        func fail(_ message: String) -> Result<AttributeValue, ValueParseFailure> { .failure(.init(message: message)) }
        switch type {
        case .integer16, .integer32, .integer64:
            guard let range = type.integerRange, let value = parseInteger(text) else {
                return fail("'\(text)' is not an integer")
            }
            guard range.contains(value.clamped), !value.overflowed else {
                return fail("\(text) is out of range for \(type.rawValue) (\(range.lowerBound)...\(range.upperBound))")
            }
            return .success(.integer(value.clamped))
        case .decimal:
            guard let canonical = canonicalDecimal(text) else {
                return fail(
                    "'\(text)' is not an exact decimal number (digits with an optional sign, point and exponent)")
            }
            // The significand's digits only: the exponent's digits are not significant,
            // nor are leading and trailing zeros (10^39 is 1 × 10^39 to NSDecimalNumber).
            var significand = Array(
                canonical.prefix(while: { $0 != "e" && $0 != "E" }).filter(\.isNumber).drop(while: { $0 == "0" }))
            while significand.last == "0" { significand.removeLast() }
            if significand.count > maximumDecimalDigits {
                return fail(
                    """
                    '\(text)' has more than \(maximumDecimalDigits) significant digits, which a decimal cannot hold \
                    exactly
                    """
                )
            }
            if let problem = decimalExponentProblem(canonical) {
                return fail("'\(text)' \(problem)")
            }
            return .success(.decimal(canonical))
        case .double, .float:
            guard isDecimalNumberSyntax(text), let value = Double(text), value.isFinite else {
                return fail("'\(text)' is not a finite number")
            }
            if type == .float, !Float(value).isFinite {
                return fail("\(text) is out of range for float")
            }
            return .success(.double(value))
        case .string:
            if text.utf8.contains(0) { return fail(nulMessage) }
            return .success(.string(text))
        case .boolean:
            switch text.lowercased() {
            case "true", "yes": return .success(.boolean(true))
            case "false", "no": return .success(.boolean(false))
            default: return fail("'\(text)' is not a boolean (true or false)")
            }
        case .date:
            guard let seconds = ISO8601.parse(text) else {
                return fail(
                    "'\(text)' is not an ISO 8601 date (2026-01-31, 2026-01-31T09:30:00Z or with an offset like +02:00)"
                )
            }
            return .success(.date(seconds))
        case .uuid:
            guard let uuid = canonicalUUID(text) else {
                return fail("'\(text)' is not a UUID (8-4-4-4-12 hexadecimal digits)")
            }
            return .success(.uuid(uuid))
        case .uri:
            if text.utf8.contains(0) { return fail(nulMessage) }
            guard isURI(text) else {
                return fail("'\(text)' is not an absolute URI (scheme:rest, e.g. https://example.com)")
            }
            return .success(.uri(text))
        case .binary:
            guard let bytes = Self.base64Bytes(text) else {
                return fail("'\(text)' is not base64-encoded binary data")
            }
            return .success(.binary(bytes))
        case .transformable:
            return fail("transformable attributes cannot have a default value")
        case .composite:
            return fail("composite attributes take their defaults from their elements")
        }
    }

    private static func parseInteger(_ text: String) -> (clamped: Int64, overflowed: Bool)? {
        var scalars = Substring(text)
        var negative = false
        if let first = scalars.first, first == "-" || first == "+" {
            negative = first == "-"
            scalars = scalars.dropFirst()
        }
        guard !scalars.isEmpty, scalars.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        var value: Int64 = 0
        for digit in scalars {
            let d = Int64(digit.asciiValue! - 48)
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = negative ? m.subtractingReportingOverflow(d) : m.addingReportingOverflow(d)
            if o1 || o2 { return (negative ? Int64.min : Int64.max, true) }
            value = a
        }
        return (value, false)
    }

    /// Why a canonical decimal lies outside what `NSDecimalNumber` holds exactly, or
    /// nil: a mantissa of at most 38 digits times 10 to an exponent from -128 to 127
    /// (`NSDecimal`'s `_exponent` is a signed 8-bit field). A number needing a smaller
    /// exponent would be rounded (1e-129 becomes 0), a larger one is an overflow.
    package static func decimalExponentProblem(_ canonical: String) -> String? {
        let parts = canonical.split(maxSplits: 1, whereSeparator: { $0 == "e" || $0 == "E" })
        let number = parts[0].filter { $0 != "-" && $0 != "+" }
        var exponent = 0
        if parts.count == 2 {
            // Beyond ±10^6 the answer is the same; the text may hold any number of digits.
            let digits = parts[1].drop(while: { $0 == "+" || $0 == "-" }).drop(while: { $0 == "0" })
            let magnitude = digits.count > 7 ? 10_000_000 : Int(String(digits)) ?? 0
            exponent = parts[1].hasPrefix("-") ? -magnitude : magnitude
        }
        let pieces = number.split(separator: ".", omittingEmptySubsequences: false)
        let whole = pieces[0], fraction = pieces.count > 1 ? pieces[1] : ""
        var digits = Array(whole + fraction)
        // The exponent of the last digit, then without trailing and leading zeros.
        var last = exponent - fraction.count
        while let tail = digits.last, tail == "0" {
            digits.removeLast()
            last += 1
        }
        digits = Array(digits.drop(while: { $0 == "0" }))
        if digits.isEmpty { return nil }
        if last < -128 {
            return "is too small for a decimal (NSDecimalNumber's exponent goes down to -128: it would be rounded)"
        }
        // Trailing zeros may be put back into the mantissa, up to 38 digits.
        if last - (maximumDecimalDigits - digits.count) > 127 {
            return "is too large for a decimal (at most 38 digits times 10^127)"
        }
        return nil
    }

    private static func isDecimalNumberSyntax(_ text: String) -> Bool {
        canonicalDecimal(text) != nil
    }

    /// `[+-]digits[.digits][e[+-]digits]`, returned without a leading `+`.
    package static func canonicalDecimal(_ text: String) -> String? {
        let chars = Array(text.utf8)
        var i = 0
        var out = ""
        if i < chars.count, chars[i] == UInt8(ascii: "-") || chars[i] == UInt8(ascii: "+") {
            if chars[i] == UInt8(ascii: "-") { out.append("-") }
            i += 1
        }
        func digits() -> Int {
            let start = i
            while i < chars.count, chars[i] >= 48, chars[i] <= 57 { i += 1 }
            return i - start
        }
        let start = i
        let intDigits = digits()
        var fracDigits = 0
        if i < chars.count, chars[i] == UInt8(ascii: ".") {
            i += 1
            fracDigits = digits()
        }
        guard intDigits + fracDigits > 0 else { return nil }
        if i < chars.count, chars[i] == UInt8(ascii: "e") || chars[i] == UInt8(ascii: "E") {
            i += 1
            if i < chars.count, chars[i] == UInt8(ascii: "-") || chars[i] == UInt8(ascii: "+") { i += 1 }
            guard digits() > 0 else { return nil }
        }
        guard i == chars.count else { return nil }
        out += String(decoding: chars[start...], as: UTF8.self)
        return out
    }

    /// The canonical lowercase form of a UUID string, or nil.
    package static func canonicalUUIDValue(_ text: String) -> String? { canonicalUUID(text) }

    static func canonicalUUID(_ text: String) -> String? {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12],
            groups.allSatisfy({ $0.allSatisfy(\.isHexDigit) && $0.allSatisfy(\.isASCII) })
        else { return nil }
        return text.lowercased()
    }

    static func isURI(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else { return false }
        let scheme = text[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter else { return false }
        return scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
            && !text.contains(where: { $0.isWhitespace })
    }

    /// Standard base64 (RFC 4648), padded or not, whitespace ignored; nil when
    /// malformed. Foundation decodes; padding is completed first, since Foundation
    /// requires it and the model format does not.
    static func base64Bytes(_ text: String) -> [UInt8]? {
        // Whitespace byte by byte: "\r\n" (MIME's line break) is one Character, which
        // a filter on Characters comparing with "\r" and "\n" would keep.
        let whitespace: [UInt8] = [0x20, 0x0A, 0x0D, 0x09]
        var compact = text.utf8.filter { !whitespace.contains($0) }
        guard compact.count % 4 != 1 else { return nil }
        if compact.last != UInt8(ascii: "=") {
            compact += repeatElement(UInt8(ascii: "="), count: (4 - compact.count % 4) % 4)
        }
        return Data(base64Encoded: Data(compact)).map { [UInt8]($0) }
    }
}
