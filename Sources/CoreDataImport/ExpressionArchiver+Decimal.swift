import PropertyList

/// An `NSDecimalNumber` constant as Foundation's `-[NSDecimalNumber encodeWithCoder:]`
/// keys it: `NS.exponent` and `NS.length` (32-bit integers), `NS.negative` and
/// `NS.compact` (booleans), `NS.mantissa.bo` 1 (little-endian) and `NS.mantissa`, the
/// eight 16-bit words of the 128-bit mantissa, least significant first (16 bytes).
/// `KeyedArchive.decimal` is the reader.
extension ExpressionArchiver {
    /// The archived fields of the decimal written `text` (`-12.5`, `3e-4`), or nil when
    /// `NSDecimal` cannot hold it exactly: more than 38 significant digits, or an
    /// exponent outside -128...127 once trailing zeros are moved into it.
    static func decimalFields(_ text: String) -> [String: PropertyListValue]? {
        guard let (negative, digits, exponent) = decimalParts(text) else { return nil }
        var words = [UInt16](repeating: 0, count: 8)
        for digit in digits {
            var carry = UInt32(digit)
            for index in words.indices {
                let next = UInt32(words[index]) * 10 + carry
                words[index] = UInt16(truncatingIfNeeded: next)
                carry = next >> 16
            }
            guard carry == 0 else { return nil }
        }
        let length = (words.lastIndex(where: { $0 != 0 }) ?? -1) + 1
        return [
            "NS.exponent": .integer(Int64(exponent)), "NS.length": .integer(Int64(length)),
            "NS.negative": .boolean(negative && length > 0), "NS.compact": .boolean(true),
            "NS.mantissa.bo": .integer(1), "NS.mantissa": .data(words.flatMap { [UInt8($0 & 0xff), UInt8($0 >> 8)] }),
        ]
    }

    /// Sign, significant digits (most significant first, no leading or trailing zeros)
    /// and the exponent of the last one; nil for text that is not a decimal or that
    /// `NSDecimal` cannot hold.
    private static func decimalParts(_ text: String) -> (Bool, [UInt8], Int)? {
        var rest = Substring(text)
        let negative = rest.first == "-"
        if rest.first == "-" || rest.first == "+" { rest = rest.dropFirst() }
        var exponent = 0
        if let e = rest.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            guard let value = Int(rest[rest.index(after: e)...]), abs(value) < 1_000 else { return nil }
            exponent = value
            rest = rest[..<e]
        }
        let pieces = rest.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let fraction = pieces.count == 2 ? pieces[1] : ""
        let all = pieces[0] + fraction
        guard !all.isEmpty, all.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        var digits = all.map { $0.asciiValue! - 48 }
        exponent -= fraction.count
        while digits.last == 0 {
            digits.removeLast()
            exponent += 1
        }
        digits = Array(digits.drop(while: { $0 == 0 }))
        if digits.isEmpty { return (false, [], 0) }
        // An exponent too large for its 8 bits takes zeros back into the mantissa.
        while exponent > 127, digits.count < 38 {
            digits.append(0)
            exponent -= 1
        }
        guard digits.count <= 38, (-128...127).contains(exponent) else { return nil }
        return (negative, digits, exponent)
    }
}
