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
        guard let fields = fields(value), fields["NS.keys"] == nil, case .array(let items)? = resolve(fields["NS.objects"]) else { return [] }
        return items
    }

    /// The tagged values of an element's stereotypes: key → value.
    func taggedValues(of element: [String: PropertyListValue]) -> [String: PropertyListValue] {
        var values: [String: PropertyListValue] = [:]
        for (_, stereotype) in dictionary(element["XDBucketForStereotypesstorage"]) {
            for (key, property) in dictionary(fields(stereotype)?["XDBucketForOwnedAttributesstorage"]) {
                if let value = resolve(fields(property)?["_default"]) { values[key] = value }
            }
        }
        return values
    }
}
