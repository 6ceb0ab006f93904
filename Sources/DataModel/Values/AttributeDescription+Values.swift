extension AttributeDescription {
    /// Every rule of this attribute that `value` breaks, each as a detail for a
    /// `subject: detail` message (`500 is above max 200`); empty when it fits.
    ///
    /// The rules are the attribute's type (kind and, for integers and floats,
    /// range), its `min`/`max` (a value for numbers and dates, a length for
    /// strings, URIs and binary data: ``limitLength(of:)``) and, for `nil`, its
    /// optionality. Model
    /// defaults and mapping-file values go through this one check, so a value a
    /// model would refuse as its default is refused in a mapping file too.
    public func violations(of value: AttributeValue?) -> [String] {
        guard let value else {
            return isOptional ? [] : ["the attribute is required; nil is not a value for it"]
        }
        if let problem = Self.typeProblem(value, type) { return [problem] }
        // One limit at a time: with min above max (itself an error) a value breaks
        // both, and the second message would add nothing.
        if let minimum, let order = Self.compare(measure(value), with: minimum), order < 0 {
            return ["\(MessageText.visible("\(value)")) is below min \(minimum)"]
        }
        if let maximum, let order = Self.compare(measure(value), with: maximum), order > 0 {
            return ["\(MessageText.visible("\(value)")) is above max \(maximum)"]
        }
        // After the limits: a stored value with a NUL (which `load` takes) that breaks
        // a limit is said to break the limit.
        switch value {
        case .string(let s), .uri(let s): return s.utf8.contains(0) ? [DefaultValueParser.nulMessage] : []
        default: return []
        }
    }

    /// The length `min` and `max` bound for a string or URI: its UTF-16 code units,
    /// as `NSString.length` counts them and Core Data's validation measures a string
    /// (`"😀"` is 2, `"e\u{301}"` is 2). Every check of a length counts so: values
    /// written here, and the SQL of a migration's and a batch request's checks.
    package static func limitLength(of text: String) -> Int { text.utf16.count }

    /// What `min`/`max` bound: the length of strings, URIs and binary data, the
    /// value itself otherwise.
    private func measure(_ value: AttributeValue) -> AttributeValue {
        switch value {
        case .string(let s), .uri(let s): .integer(Int64(Self.limitLength(of: s)))
        case .binary(let bytes): .integer(Int64(bytes.count))
        default: value
        }
    }

    /// Why `value` is not a value of `type` at all, if it is not.
    private static func typeProblem(_ value: AttributeValue, _ type: AttributeType) -> String? {
        switch (type, value) {
        case (.integer16, .integer(let v)), (.integer32, .integer(let v)), (.integer64, .integer(let v)):
            let range = type.integerRange!
            return range.contains(v)
                ? nil : "\(v) is out of range for \(type.rawValue) (\(range.lowerBound)...\(range.upperBound))"
        case (.integer16, .double(let v)), (.integer32, .double(let v)), (.integer64, .double(let v)):
            // A double where an integer belongs: SQLite's answer to integer overflow
            // (it computes in REAL), or a REAL another tool stored.
            if v.isNaN { return AttributeType.nanMessage }
            let range = type.integerRange!
            return v.rounded() == v
                ? "\(v) is out of range for \(type.rawValue) (\(range.lowerBound)...\(range.upperBound))"
                : "\(v) is not a whole number, which \(type.rawValue) holds"
        case (.double, .double(let v)), (.float, .double(let v)), (.date, .date(let v)):
            return type.problem(storingDouble: v)
        case (.string, .string), (.uri, .uri):
            return nil
        case (.decimal, .decimal(let text)):
            // Within NSDecimalNumber's exponents (DefaultValueParser.decimalExponentProblem).
            return DefaultValueParser.canonicalDecimal(text).flatMap(DefaultValueParser.decimalExponentProblem).map {
                "'\(text)' \($0)"
            }
        case (.boolean, .boolean), (.binary, .binary), (.uuid, .uuid):
            return nil
        default:
            return "\(value.displayText) is not a value of type \(type.rawValue)"
        }
    }

    /// The order of two values of one kind (`nil` when they cannot be compared),
    /// exactly: integers as integers and decimals digit by digit, so that a limit
    /// beyond a double's 15 digits still holds.
    static func compare(_ a: AttributeValue, with b: AttributeValue) -> Int? {
        func order<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : x > y ? 1 : 0 }
        switch (a, b) {
        case let (.integer(x), .integer(y)): return order(x, y)
        case let (.double(x), .double(y)), let (.date(x), .date(y)): return order(x, y)
        case let (.decimal(x), .decimal(y)):
            guard let l = ExactDecimal(x), let r = ExactDecimal(y) else { return nil }
            return l.compare(r)
        default: return nil
        }
    }
}

extension AttributeType {
    /// Why NaN is refused everywhere.
    package static let nanMessage = "NaN cannot be stored (SQLite stores it as NULL)"

    /// Why the double `value` cannot be kept by an attribute of this type (double,
    /// float or date) without being changed, or nil when it can. One rule for
    /// loads, inserts, batch updates and model values:
    /// - NaN never: SQLite binds NaN as NULL, and turns a NaN result into NULL.
    /// - ±infinity in doubles and floats, as Core Data's `NSNumber` holds it and
    ///   SQLite keeps it (a REAL); never in dates, which are instants.
    /// - A float keeps what `Float` keeps: a finite value beyond its range (which
    ///   would become infinity), or one so small that it would become 0, is refused;
    ///   within the range, rounding to float precision is what the type means.
    package func problem(storingDouble value: Double) -> String? {
        if value.isNaN { return Self.nanMessage }
        switch self {
        case .date where !value.isFinite:
            return "\(value) is not a date (a date is a finite number of seconds since 2001-01-01)"
        case .float where value.isFinite && !Float(value).isFinite:
            return "\(value) is out of range for float"
        case .float where value != 0 && Float(value) == 0:
            return "\(value) is too small for float (it would be stored as 0)"
        default:
            return nil
        }
    }
}

/// A decimal's canonical text (`-12.50`, `1.5e-3`) as sign, significant digits and
/// the power of ten of the first digit, for exact comparison.
private struct ExactDecimal {
    var negative: Bool
    /// Significant digits, no leading or trailing zeros; empty for zero.
    var digits: [UInt8]
    /// The power of ten of the first significant digit.
    var exponent: Int

    init?(_ text: String) {
        var bytes = Substring(text).utf8
        negative = bytes.first == UInt8(ascii: "-")
        if negative || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        var mantissa: [UInt8] = []
        var pointAt: Int?
        var scale = 0
        while let c = bytes.first, c != UInt8(ascii: "e"), c != UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if c == UInt8(ascii: ".") {
                pointAt = mantissa.count
                continue
            }
            guard c >= 48, c <= 57 else { return nil }
            mantissa.append(c - 48)
        }
        if !bytes.isEmpty {
            // An exponent too large for Int is beyond any limit a model can write;
            // clamping keeps the order right without trapping.
            let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
            let sign = text.hasPrefix("-") ? -1 : 1
            let magnitude = text.drop { $0 == "-" || $0 == "+" }
            scale = Int(magnitude).map { $0 * sign } ?? (sign < 0 ? -(1 << 40) : 1 << 40)
            scale = max(-(1 << 40), min(1 << 40, scale))
        }
        let integerDigits = pointAt ?? mantissa.count
        let leading = mantissa.prefix { $0 == 0 }.count
        digits = Array(mantissa.dropFirst(leading))
        while digits.last == 0 { digits.removeLast() }
        exponent = integerDigits - leading - 1 + scale
        if digits.isEmpty { negative = false }
    }

    func compare(_ other: ExactDecimal) -> Int {
        if negative != other.negative { return negative ? -1 : 1 }
        let magnitude = Self.compareMagnitude(self, other)
        return negative ? -magnitude : magnitude
    }

    private static func compareMagnitude(_ a: ExactDecimal, _ b: ExactDecimal) -> Int {
        if a.digits.isEmpty || b.digits.isEmpty { return a.digits.isEmpty ? (b.digits.isEmpty ? 0 : -1) : 1 }
        if a.exponent != b.exponent { return a.exponent < b.exponent ? -1 : 1 }
        for (x, y) in zip(a.digits, b.digits) where x != y { return x < y ? -1 : 1 }
        return a.digits.count == b.digits.count ? 0 : (a.digits.count < b.digits.count ? -1 : 1)
    }
}
