import Foundation
import PropertyList

/// A model version saved in Xcode 3's binary format: a folder with `elements` (an
/// `NSKeyedArchiver` archive of Xcode's `XDPMModel`, its entities and their
/// properties, each Core Data setting a tagged value of a UML stereotype) and
/// `layout` (the diagram), instead of the XML `contents` file of later Xcodes.
///
/// It is read into the XML current Xcode writes, so the rest of the import treats
/// it as any other version. Read: entities (name, abstract, class name,
/// `versionHashModifier`) and attributes (name, type, optional, transient,
/// indexed, default, min/max, transformer, external storage,
/// `versionHashModifier`), relationships (destination, inverse, counts, to-many,
/// ordered, delete rule; read from the models Xcode embeds in mapping models),
/// inheritance (a generalization: `_general` is the parent of `_specific`), fetch
/// request templates (kept as the XML's, which the import lists as it lists theirs),
/// numbers archived as `NSDecimalNumber` (a count Xcode kept as a decimal) and
/// uniqueness constraints. Anything else in the archive (fetched properties: no public
/// sample of them in this format has been seen) is refused naming what it is, so
/// nothing is silently dropped.
enum XcodeThreeModel {
    /// The XML `contents` equivalent of the archive at `path`.
    static func contents(ofArchiveAt path: String) throws(ImportError) -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ImportError(.unreadable, "\(path): cannot read the file")
        }
        let root: PropertyListValue
        do {
            root = try BinaryPropertyList.decodeArchive([UInt8](data))
        } catch {
            throw ImportError(.unreadable, "\(path): not an Xcode 3 data model (\(error))")
        }
        do {
            return Data(try xml(of: KeyedArchive(root)).utf8)
        } catch {
            let message = (error as? Failure)?.message ?? (error as? KeyedArchive.Failure)?.message ?? "\(error)"
            throw ImportError(
                .unreadable,
                "\(path): an Xcode 3 data model this importer cannot read: \(message); "
                    + """
                    open the model in Xcode and save it in the current format (File inspector, Tools Version), then \
                    import again
                    """
            )
        }
    }

    struct Failure: Error { let message: String }

    /// The YAML of a model Xcode embeds in a mapping model (`sourcemodeldata`), as
    /// version 1 of `model`, so that its version hashes can be computed and compared
    /// with the imported versions'; `label` names it in errors.
    static func embeddedYAML(_ bytes: [UInt8], model: String, label: String) throws(ImportError) -> String {
        let xml: Data
        do {
            xml = Data(try self.xml(of: KeyedArchive(try BinaryPropertyList.decodeArchive(bytes))).utf8)
        } catch {
            let message = (error as? Failure)?.message ?? (error as? KeyedArchive.Failure)?.message ?? "\(error)"
            throw ImportError(.unreadable, "\(label): \(message)")
        }
        var converter = VersionConverter(path: label, data: xml)
        guard let converted = converter.convert(xml) else { throw ImportError(.invalid, converter.errors) }
        return YAMLEmitter.emit(
            converted, model: model, version: 1, header: [], warnings: [], conversions: converter.conversions)
    }

    static func xml(of archive: KeyedArchive) throws -> String {
        guard archive.className(archive.top) == "XDPMModel", let model = archive.fields(archive.top) else {
            throw Failure(message: "its root object is \(archive.className(archive.top) ?? "unknown"), not XDPMModel")
        }
        let known: Set<String> = [
            "XDPMModel", "XDModelPackage", "XDPMEntity", "XDPMAttribute", "XDPMRelationship", "XDUMLClassImp",
            "XDUMLPropertyImp",
            "XDUMLStereotypeImp", "XDUMLGeneralizationImp", "XDPMFetchRequest", "NSDecimalNumberPlaceholder",
            "NSMutableArray", "NSArray",
            "NSMutableDictionary", "NSDictionary", "NSMutableSet", "NSSet", "NSMutableString", "NSString", "NSNumber",
            "NSDate", "NSData", "NSMutableData",
        ]
        var classes: Set<String> = []
        for object in archive.objects {
            if case .dictionary(let d) = object, case .string(let name)? = d["$classname"] { classes.insert(name) }
        }
        if let unknown = classes.subtracting(known).sorted().first {
            throw Failure(
                message: "it holds \(unknown) objects (relationships or other elements not read from this format)")
        }
        var entities: [(name: String, xml: String)] = []
        var pending = [model["_xd_rootPackage"]]
        var visited = 0
        // Entities live in the package's owned elements (and nested packages).
        while let next = pending.popLast(), visited < 10_000 {
            visited += 1
            guard let fields = archive.fields(next) else { continue }
            for (key, value) in fields where key.hasSuffix("storage") {
                for item in archive.dictionary(value).map(\.1) + archive.array(value) {
                    switch archive.className(item) {
                    case "XDPMEntity": entities.append(try entity(item, archive))
                    case "XDModelPackage": pending.append(item)
                    default: continue
                    }
                }
            }
        }
        var seen: Set<String> = []
        entities = entities.filter { seen.insert($0.name).inserted }.sorted { $0.name < $1.name }
        guard !entities.isEmpty else { throw Failure(message: "no entities found in it") }
        let requests = try fetchRequests(archive)
        return """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Xcode 3">
            \((entities.map(\.xml) + requests).joined(separator: "\n"))
            </model>

            """
    }

    static let attributeTypes: [Int64: String] = [
        0: "Undefined", 100: "Integer 16", 200: "Integer 32", 300: "Integer 64", 400: "Decimal", 500: "Double",
        600: "Float",
        700: "String", 800: "Boolean", 900: "Date", 1000: "Binary", 1100: "UUID", 1200: "URI", 1800: "Transformable",
    ]

    /// The model's fetch request templates (`XDPMFetchRequest` without a fetched
    /// property) as the XML's `<fetchRequest>` elements, by name.
    static func fetchRequests(_ archive: KeyedArchive) throws -> [String] {
        var requests: [(String, String)] = []
        for object in archive.objects where archive.className(object) == "XDPMFetchRequest" {
            guard let fields = archive.fields(object), let name = archive.string(fields["_name"]) else {
                throw Failure(message: "a fetch request without a name")
            }
            guard archive.resolve(fields["_fetchedProperty"]) == nil else {
                throw Failure(
                    message:
                        """
                        fetch request \(name) belongs to a fetched property (fetched properties are not read from this \
                        format)
                        """
                )
            }
            guard let entity = archive.string(archive.fields(fields["_entity"])?["_name"]) else {
                throw Failure(message: "fetch request \(name) names no entity")
            }
            var xml = ["name=\"\(escape(name))\"", "entity=\"\(escape(entity))\""]
            if let predicate = archive.string(fields["_predicateString"]), !predicate.isEmpty {
                xml.append("predicateString=\"\(escape(predicate))\"")
            }
            requests.append((name, "    <fetchRequest \(xml.joined(separator: " "))/>"))
        }
        return requests.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// The entity's parent: the `_general` side of a generalization whose `_specific`
    /// side is the entity (Xcode lists it in both entities' buckets).
    static func parent(of fields: [String: PropertyListValue], named name: String, _ archive: KeyedArchive) throws
        -> String?
    {
        let bucket = fields["XDBucketForGeneralizationsstorage"]
        var parents: [String] = []
        for item in archive.array(bucket) + archive.dictionary(bucket).map(\.1) {
            guard archive.className(item) == "XDUMLGeneralizationImp", let generalization = archive.fields(item) else {
                continue
            }
            guard archive.string(archive.fields(generalization["_specific"])?["_name"]) == name else { continue }
            guard let general = archive.string(archive.fields(generalization["_general"])?["_name"]) else {
                throw Failure(message: "entity \(name) has a parent entity without a name")
            }
            if !parents.contains(general) { parents.append(general) }
        }
        guard parents.count <= 1 else {
            throw Failure(message: "entity \(name) has several parent entities (\(parents.joined(separator: ", ")))")
        }
        return parents.first
    }

    static func entity(_ value: PropertyListValue, _ archive: KeyedArchive) throws -> (name: String, xml: String) {
        guard let fields = archive.fields(value), let name = archive.string(fields["_name"]) else {
            throw Failure(message: "an entity without a name")
        }
        let tags = archive.taggedValues(of: fields)
        var attributes = ["name=\"\(escape(name))\""]
        if let parent = try parent(of: fields, named: name, archive) {
            attributes.append("parentEntity=\"\(escape(parent))\"")
        }
        if case .string(let className)? = tags["XD_PSK_entityClassName"], !className.isEmpty,
            className != "NSManagedObject"
        {
            attributes.append("representedClassName=\"\(escape(className))\"")
        }
        if case .boolean(true)? = fields["_isAbstract"] {
            attributes.append("isAbstract=\"YES\"")
        } else if case .boolean(true)? = tags["XD_PSK_isAbstract"] {
            attributes.append("isAbstract=\"YES\"")
        }
        if case .string(let modifier)? = tags["XD_PSK_versionHashModifier"], !modifier.isEmpty {
            attributes.append("versionHashModifier=\"\(escape(modifier))\"")
        }
        var properties: [(String, String)] = []
        let owned =
            archive.dictionary(fields["XDBucketForOwnedAttributesstorage"]).map(\.1)
            + archive.array(fields["XDBucketForOwnedAttributesstorage"])
        for item in owned {
            switch archive.className(item) {
            case "XDPMAttribute": properties.append(try attribute(item, of: name, archive))
            case "XDPMRelationship": properties.append(try relationship(item, of: name, archive))
            default:
                let kind = archive.className(item) ?? "property"
                throw Failure(
                    message:
                        "entity \(name) has a \(kind) (only attributes and relationships are read from this format)")
            }
        }
        var body = properties.sorted { $0.0 < $1.0 }.map { "        " + $0.1 }
        body += uniqueness(archive.array(tags["XDPMUniquenessConstraints"]), archive)
        return (
            name, "    <entity \(attributes.joined(separator: " "))>\n\(body.joined(separator: "\n"))\n    </entity>"
        )
    }

    /// `XDPMUniquenessConstraints`, an array of arrays of property names, as the XML's
    /// `uniquenessConstraints` (hashed: a version's hashes need them).
    static func uniqueness(_ constraints: [PropertyListValue], _ archive: KeyedArchive) -> [String] {
        let lists = constraints.map { archive.array($0).compactMap(archive.string) }.filter { !$0.isEmpty }
        guard !lists.isEmpty else { return [] }
        var lines = ["        <uniquenessConstraints>"]
        for list in lists {
            lines.append("            <uniquenessConstraint>")
            lines += list.map { "                <constraint value=\"\(escape($0))\"/>" }
            lines.append("            </uniquenessConstraint>")
        }
        lines.append("        </uniquenessConstraints>")
        return lines
    }

    static func attribute(_ value: PropertyListValue, of entity: String, _ archive: KeyedArchive) throws -> (
        String, String
    ) {
        guard let fields = archive.fields(value), let name = archive.string(fields["_name"]) else {
            throw Failure(message: "\(entity): an attribute without a name")
        }
        let tags = archive.taggedValues(of: fields)
        guard case .integer(let code)? = tags["XD_PAttK_attributeType"], let type = attributeTypes[code] else {
            throw Failure(message: "\(entity).\(name): no attribute type this importer knows")
        }
        var xml = ["name=\"\(escape(name))\""]
        if case .boolean(true)? = tags["XD_PPSK_isOptional"] { xml.append("optional=\"YES\"") }
        if case .boolean(true)? = tags["XD_PPSK_isTransient"] { xml.append("transient=\"YES\"") }
        if case .boolean(true)? = tags["XD_PPSK_isIndexed"] { xml.append("indexed=\"YES\"") }
        xml.append("attributeType=\"\(type)\"")
        for (key, attributeName) in [
            ("XD_PAttK_defaultValueAsString", "defaultValueString"), ("XD_PAttK_minValueString", "minValueString"),
            ("XD_PAttK_maxValueString", "maxValueString"), ("XD_PAttK_valueTransformerName", "valueTransformerName"),
            ("XD_PPSK_versionHashModifier", "versionHashModifier"),
        ] {
            if let text = scalarText(tags[key]), !text.isEmpty { xml.append("\(attributeName)=\"\(escape(text))\"") }
        }
        if case .boolean(true)? = tags["XD_PAttK_allowsExternalBinaryDataStorage"] {
            xml.append("allowsExternalBinaryDataStorage=\"YES\"")
        }
        return (name, "<attribute \(xml.joined(separator: " "))/>")
    }

    /// Core Data's `NSDeleteRule` numbers, as Xcode's XML names them.
    static let deleteRules: [Int64: String] = [0: "No Action", 1: "Nullify", 2: "Cascade", 3: "Deny"]

    /// A relationship: its destination and inverse are references to the entity and
    /// relationship objects of the archive (`XD_PRK_destination`,
    /// `XD_PRK_inverseRelationship`); counts, to-many, ordered and delete rule are
    /// tagged values, as for attributes.
    static func relationship(_ value: PropertyListValue, of entity: String, _ archive: KeyedArchive) throws -> (
        String, String
    ) {
        guard let fields = archive.fields(value), let name = archive.string(fields["_name"]) else {
            throw Failure(message: "\(entity): a relationship without a name")
        }
        let tags = archive.taggedValues(of: fields)
        guard let destination = archive.string(archive.fields(tags["XD_PRK_destination"])?["_name"]) else {
            throw Failure(message: "\(entity).\(name): a relationship without a destination entity")
        }
        let toMany: Bool = if case .boolean(true)? = tags["XD_PRK_isToMany"] { true } else { false }
        var xml = ["name=\"\(escape(name))\""]
        if case .boolean(true)? = tags["XD_PPSK_isOptional"] { xml.append("optional=\"YES\"") }
        if case .boolean(true)? = tags["XD_PPSK_isTransient"] { xml.append("transient=\"YES\"") }
        if toMany { xml.append("toMany=\"YES\"") }
        if case .boolean(true)? = tags["XD_PRK_ordered"] { xml.append("ordered=\"YES\"") }
        // The archive always holds both counts; 0 is "not set" (a to-many's 0 maximum: unbounded).
        if case .integer(let minimum)? = tags["XD_PRK_minCount"], minimum > 0 { xml.append("minCount=\"\(minimum)\"") }
        if !toMany {
            xml.append("maxCount=\"1\"")
        } else if case .integer(let maximum)? = tags["XD_PRK_maxCount"], maximum > 0 {
            xml.append("maxCount=\"\(maximum)\"")
        }
        if case .integer(let rule)? = tags["XD_PRK_deleteRule"], let ruleName = deleteRules[rule] {
            xml.append("deletionRule=\"\(ruleName)\"")
        }
        xml.append("destinationEntity=\"\(escape(destination))\"")
        if let inverse = archive.string(archive.fields(tags["XD_PRK_inverseRelationship"])?["_name"]) {
            xml.append("inverseName=\"\(escape(inverse))\" inverseEntity=\"\(escape(destination))\"")
        }
        for (key, attributeName) in [
            ("XD_PPSK_elementID", "elementID"), ("XD_PPSK_versionHashModifier", "versionHashModifier"),
        ] {
            if let text = scalarText(tags[key]), !text.isEmpty { xml.append("\(attributeName)=\"\(escape(text))\"") }
        }
        return (name, "<relationship \(xml.joined(separator: " "))/>")
    }

    static func scalarText(_ value: PropertyListValue?) -> String? {
        switch value {
        case .string(let s)?: s
        case .integer(let n)?: String(n)
        case .real(let d)?: String(d)
        case .boolean(let b)?: b ? "YES" : "NO"
        default: nil
        }
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
