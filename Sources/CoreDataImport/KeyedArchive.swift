import PropertyList

/// The objects of an `NSKeyedArchiver` archive, their references followed.
struct KeyedArchive {
    /// Why bytes are not a keyed archive.
    struct Failure: Error { let message: String }

    let objects: [PropertyListValue]
    let top: PropertyListValue

    init(_ root: PropertyListValue) throws {
        guard case .dictionary(let archive) = root, case .array(let objects)? = archive["$objects"],
            case .dictionary(let top)? = archive["$top"], let first = top["root"]
        else {
            throw Failure(message: "not an NSKeyedArchiver archive")
        }
        self.objects = objects
        self.top = first
    }

    /// The object a value refers to (`{"CF$UID": n}`), or the value; nil for `$null`.
    func resolve(_ value: PropertyListValue?) -> PropertyListValue? {
        var value = value
        for _ in 0..<8 {
            guard case .dictionary(let d)? = value, d.count == 1, case .integer(let uid)? = d["CF$UID"] else { break }
            guard uid >= 0, Int(uid) < objects.count else { return nil }
            value = objects[Int(uid)]
        }
        if case .string("$null")? = value { return nil }
        return value
    }

    /// The fields of an archived object.
    func fields(_ value: PropertyListValue?) -> [String: PropertyListValue]? {
        guard case .dictionary(let d)? = resolve(value) else { return nil }
        return d
    }

    func className(_ value: PropertyListValue?) -> String? {
        guard let fields = fields(value), case .dictionary(let c)? = resolve(fields["$class"]),
            case .string(let name)? = c["$classname"]
        else { return nil }
        return name
    }

    func string(_ value: PropertyListValue?) -> String? {
        if case .string(let s)? = resolve(value) { return s }
        return nil
    }

    /// An archived `NSDictionary`: keys (strings) to values.
    func dictionary(_ value: PropertyListValue?) -> [(String, PropertyListValue)] {
        guard let fields = fields(value), case .array(let keys)? = resolve(fields["NS.keys"]),
            case .array(let values)? = resolve(fields["NS.objects"]), keys.count == values.count
        else { return [] }
        return zip(keys, values).compactMap { key, value in string(key).map { ($0, value) } }
    }

    /// An archived `NSArray` or `NSSet` (an `NSDictionary`'s values are not its items).
    func array(_ value: PropertyListValue?) -> [PropertyListValue] {
        guard let fields = fields(value), fields["NS.keys"] == nil,
            case .array(let items)? = resolve(fields["NS.objects"])
        else { return [] }
        return items
    }

    /// The tagged values of an element's stereotypes: key → value.
    func taggedValues(of element: [String: PropertyListValue]) -> [String: PropertyListValue] {
        var values: [String: PropertyListValue] = [:]
        for (_, stereotype) in dictionary(element["XDBucketForStereotypesstorage"]) {
            for (key, property) in dictionary(fields(stereotype)?["XDBucketForOwnedAttributesstorage"]) {
                let value = fields(property)?["_default"]
                if className(value) == "NSDecimalNumberPlaceholder" {
                    if let number = decimal(value) { values[key] = number }
                } else if let value = resolve(value) {
                    values[key] = value
                }
            }
        }
        return values
    }

    /// An archived `NSDecimalNumber` (Xcode 3 kept some counts as one): an integer
    /// when it is whole and fits, else its decimal text. Nil when it is not one
    /// (NaN, a mantissa longer than its 128 bits).
    func decimal(_ value: PropertyListValue?) -> PropertyListValue? {
        guard let f = fields(value), case .integer(let length)? = resolve(f["NS.length"]), (0...8).contains(length),
            case .data(let bytes)? = resolve(f["NS.mantissa"]), bytes.count >= 2 * Int(length)
        else { return nil }
        let bigEndian: Bool = if case .integer(0)? = resolve(f["NS.mantissa.bo"]) { true } else { false }
        let exponent: Int64 = if case .integer(let e)? = resolve(f["NS.exponent"]) { e } else { 0 }
        let negative: Bool = if case .boolean(true)? = resolve(f["NS.negative"]) { true } else { false }
        // The mantissa's 16-bit words, least significant first, as decimal digits.
        var digits = [UInt8](repeating: 0, count: 1)  // least significant first
        for word in (0..<Int(length)).reversed() {
            let (a, b) = (UInt32(bytes[2 * word]), UInt32(bytes[2 * word + 1]))
            var carry = bigEndian ? a << 8 | b : b << 8 | a
            for index in digits.indices {
                let next = UInt32(digits[index]) * 65_536 + carry
                digits[index] = UInt8(next % 10)
                carry = next / 10
            }
            while carry > 0 {
                digits.append(UInt8(carry % 10))
                carry /= 10
            }
        }
        while digits.count > 1, digits.last == 0 { digits.removeLast() }
        var text = String(digits.reversed().map { Character(String($0)) })
        if text != "0" {
            if exponent > 0 {
                guard exponent <= 128 else { return nil }
                text += String(repeating: "0", count: Int(exponent))
            } else if exponent < 0 {
                guard exponent >= -128 else { return nil }
                let places = Int(-exponent)
                if text.count <= places { text = String(repeating: "0", count: places - text.count + 1) + text }
                text.insert(".", at: text.index(text.endIndex, offsetBy: -places))
                while text.hasSuffix("0") { text.removeLast() }
                if text.hasSuffix(".") { text.removeLast() }
            }
            if negative { text = "-" + text }
        }
        if let whole = Int64(text) { return .integer(whole) }
        return .string(text)
    }
}
