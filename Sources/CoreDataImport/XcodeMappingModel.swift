package import Foundation

/// An Xcode mapping model (`.xcmappingmodel`) as read from its `xcmapping.xml`: a Core
/// Data XML store of Xcode's own editing objects. One `XDDEVMAPPINGMODEL` names the two
/// model versions (`sourcemodelpath`, `destinationmodelpath`) and lists its
/// `XDDEVENTITYMAPPING`s; each of those lists its `XDDEVATTRIBUTEMAPPING`s and
/// `XDDEVRELATIONSHIPMAPPING`s. Objects no entity mapping lists (left behind when a
/// mapping was deleted in Xcode) are not part of the mapping model.
///
/// A value: reading does not decide anything; `MappingModelConverter` does.
package struct XcodeMappingModel: Sendable {
    /// One entity mapping (`NSEntityMapping`).
    package struct EntityMapping: Sendable {
        /// `name`, when Xcode recorded one (else Core Data's default, `<Source>To<Destination>`).
        package var name: String?
        /// `sourcename`: the source entity; nil for an entity mapping that adds objects.
        package var source: String?
        /// `destinationname`: the destination entity; nil for one that removes objects.
        package var destination: String?
        /// `mappingtypename` (`Undefined`, `Custom`, `Add`, `Remove`, `Copy`, `Transform`).
        package var mappingType: String?
        /// `mappingnumber`: the order of the mapping in the model (policy stages run in it).
        package var number: Int
        /// `migrationpolicyclassname`: the `NSEntityMigrationPolicy` subclass.
        package var policyClass: String?
        /// `autogenerateexpression`: the source fetch is Core Data's default one.
        package var autogeneratesSource: Bool
        /// `sourcefilterpredicatestring`: the predicate the default fetch is narrowed by.
        package var filterPredicate: String?
        /// `sourceexpressiondata`: a custom source fetch, archived.
        package var sourceExpression: [UInt8]?
        /// `userinfodata`: the archived user info dictionary.
        package var userInfo: [UInt8]?
        /// Attribute mappings, in the order the file lists them.
        package var attributes: [PropertyMapping]
        /// Relationship mappings, in the order the file lists them.
        package var relationships: [PropertyMapping]
        /// Attributes of the element this reader does not know.
        package var unknown: [String]
        /// The line of the element, for messages.
        package var line: Int

        /// The name Core Data gives the mapping.
        /// ` (line N)` of `xcmapping.xml`; nothing for a compiled mapping model, which has no lines.
        package var lineText: String { line > 0 ? " (line \(line))" : "" }

        package var effectiveName: String {
            if let name, !name.isEmpty { return name }
            switch (source, destination) {
            case let (s?, d?): return "\(s)To\(d)"
            case let (s?, nil): return s
            case let (nil, d?): return d
            case (nil, nil): return ""
            }
        }
    }

    /// One attribute or relationship mapping (`NSPropertyMapping`).
    package struct PropertyMapping: Sendable {
        /// `name`: the destination property.
        package var name: String
        /// `valueexpressiondata`: the archived value expression.
        package var valueExpression: [UInt8]?
        /// `autogenerateexpression` (relationships): Xcode writes the expression at compile time.
        package var autogenerates: Bool
        /// `sourcekeypath` (relationships): the key path the related source objects come from.
        package var sourceKeyPath: String?
        /// `sourcemappingname` (relationships): the entity mapping that made their destinations.
        package var sourceMappingName: String?
        /// `userinfodata`: the archived user info dictionary.
        package var userInfo: [UInt8]?
        /// Attributes of the element this reader does not know.
        package var unknown: [String]
        /// The line of the element, for messages.
        package var line: Int
    }

    /// The `.xcmappingmodel` folder's path.
    package var path: String
    /// `sourcemodelpath`: the source version as the project recorded it.
    package var sourceModelPath: String?
    /// `destinationmodelpath`.
    package var destinationModelPath: String?
    /// Whether the file embeds the two models (`sourcemodeldata`, `destinationmodeldata`).
    package var embedsModels: Bool
    /// `sourcemodeldata`: Xcode's editing copy of the source model (an `XDPMModel` archive).
    package var sourceModelData: [UInt8]? = nil
    /// `destinationmodeldata`: the copy of the destination model.
    package var destinationModelData: [UInt8]? = nil
    /// A compiled mapping model's entity version hashes, by entity name, of its source
    /// and destination entities (`NSSourceEntityVersionHash`…); nil for `xcmapping.xml`.
    package var recordedHashes: (source: [String: [UInt8]], destination: [String: [UInt8]])? = nil
    /// The entity mappings, in `mappingnumber` order.
    package var entityMappings: [EntityMapping]
    /// Elements or attributes of the file this reader does not know, one line each.
    package var unknown: [String]

    /// The YAML of an embedded model (`sourceModelData`, `destinationModelData`) as
    /// version 1 of `model`, to compile for its version hashes; `label` names it in errors.
    public static func yaml(ofEmbeddedModel bytes: [UInt8], model: String, label: String) throws(ImportError) -> String
    {
        try XcodeThreeModel.embeddedYAML(bytes, model: model, label: label)
    }

    /// The folder name without `.xcmappingmodel` (a compiled one's without `.cdm`).
    package var name: String {
        let last = (path as NSString).lastPathComponent
        return last.hasSuffix(".xcmappingmodel")
            ? String(last.dropLast(15)) : last.hasSuffix(".cdm") ? String(last.dropLast(4)) : last
    }

    private static let entityKeys: Set<String> = [
        "name", "sourcename", "destinationname", "mappingtypename", "mappingnumber", "migrationpolicyclassname",
        "autogenerateexpression", "sourcefilterpredicatestring", "sourceexpressiondata", "userinfodata",
    ]
    private static let propertyKeys: Set<String> = [
        "name", "valueexpressiondata", "autogenerateexpression", "sourcekeypath", "sourcemappingname", "userinfodata",
    ]
    private static let modelKeys: Set<String> = [
        "sourcemodelpath", "destinationmodelpath", "sourcemodeldata", "destinationmodeldata",
    ]

    /// Reads `xcmapping.xml` of the mapping model at `path` (the `.xcmappingmodel` folder).
    package static func read(path: String) throws(ImportError) -> XcodeMappingModel {
        let file = (path as NSString).appendingPathComponent("xcmapping.xml")
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ImportError(.unreadable, "\(file): cannot read the file")
        }
        return try parse(data, path: path)
    }

    /// One `<object>` of the file: its type, attributes and relationships' ids.
    private struct XMLObject {
        var type: String
        var attributes: [String: (text: String, type: String)]
        var relationships: [String: [String]]
        var line: Int
    }

    /// The file's objects by id.
    private static func objects(of root: XMLElementNode) -> [String: XMLObject] {
        var objects: [String: XMLObject] = [:]
        for element in root.children(named: "object") {
            guard let id = element.attributes["id"] else { continue }
            var object = XMLObject(
                type: (element.attributes["type"] ?? "").uppercased(), attributes: [:], relationships: [:],
                line: element.line)
            for child in element.children {
                guard let name = child.attributes["name"]?.lowercased() else { continue }
                if child.name == "attribute" {
                    object.attributes[name] = (child.text, child.attributes["type"] ?? "string")
                } else if child.name == "relationship" {
                    object.relationships[name] = (child.attributes["idrefs"] ?? "").split(separator: " ").map(
                        String.init)
                }
            }
            objects[id] = object
        }
        return objects
    }

    /// Parses the XML of a mapping model whose folder is `path` (for messages).
    package static func parse(_ data: Data, path: String) throws(ImportError) -> XcodeMappingModel {
        let file = (path as NSString).appendingPathComponent("xcmapping.xml")
        let root: XMLElementNode
        do { root = try XMLTreeBuilder.parse(data) } catch {
            throw ImportError(.malformed, "\(file):\(error.line):\(error.column): \(error.message)")
        }
        guard root.name == "database" else {
            throw ImportError(
                .malformed,
                "\(file):\(root.line): not a mapping model (the root element is <\(root.name)>, not <database>)")
        }
        let objects = Self.objects(of: root)
        var unknown: [String] = []
        guard let model = objects.values.first(where: { $0.type == "XDDEVMAPPINGMODEL" }) else {
            throw ImportError(.malformed, "\(file): no XDDEVMAPPINGMODEL object: not a mapping model")
        }
        func text(_ object: XMLObject, _ key: String) -> String? {
            guard let value = object.attributes[key]?.text.trimmingCharacters(in: .whitespacesAndNewlines),
                !value.isEmpty
            else { return nil }
            return value
        }
        func bytes(_ object: XMLObject, _ key: String) -> [UInt8]? {
            text(object, key).flatMap { Data(base64Encoded: $0, options: .ignoreUnknownCharacters) }.map { [UInt8]($0) }
        }
        func flag(_ object: XMLObject, _ key: String) -> Bool {
            ["1", "YES", "true"].contains(text(object, key) ?? "")
        }
        for key in model.attributes.keys.sorted() where !modelKeys.contains(key) {
            unknown.append("\(file):\(model.line): XDDEVMAPPINGMODEL attribute '\(key)'")
        }

        var entityMappings: [EntityMapping] = []
        for id in model.relationships["entitymappings"] ?? [] {
            guard let object = objects[id], object.type == "XDDEVENTITYMAPPING" else { continue }
            func properties(_ key: String) -> [PropertyMapping] {
                (object.relationships[key] ?? []).compactMap { id in
                    guard let property = objects[id], let name = text(property, "name") else { return nil }
                    return PropertyMapping(
                        name: name, valueExpression: bytes(property, "valueexpressiondata"),
                        autogenerates: flag(property, "autogenerateexpression"),
                        sourceKeyPath: text(property, "sourcekeypath"),
                        sourceMappingName: text(property, "sourcemappingname"),
                        userInfo: bytes(property, "userinfodata"),
                        unknown: property.attributes.keys.filter { !propertyKeys.contains($0) }.sorted(),
                        line: property.line)
                }
            }
            entityMappings.append(
                EntityMapping(
                    name: text(object, "name"), source: text(object, "sourcename"),
                    destination: text(object, "destinationname"),
                    mappingType: text(object, "mappingtypename"),
                    number: Int(text(object, "mappingnumber") ?? "") ?? entityMappings.count,
                    policyClass: text(object, "migrationpolicyclassname"),
                    autogeneratesSource: flag(object, "autogenerateexpression"),
                    filterPredicate: text(object, "sourcefilterpredicatestring"),
                    sourceExpression: bytes(object, "sourceexpressiondata"),
                    userInfo: bytes(object, "userinfodata"), attributes: properties("attributemappings"),
                    relationships: properties("relationshipmappings"),
                    unknown: object.attributes.keys.filter { !entityKeys.contains($0) }.sorted(), line: object.line))
        }
        // Stable: mappings with the same number keep the file's order.
        let ordered = entityMappings.enumerated().sorted {
            ($0.element.number, $0.offset) < ($1.element.number, $1.offset)
        }.map(\.element)
        return XcodeMappingModel(
            path: path, sourceModelPath: text(model, "sourcemodelpath"),
            destinationModelPath: text(model, "destinationmodelpath"),
            embedsModels: model.attributes["sourcemodeldata"] != nil,
            sourceModelData: bytes(model, "sourcemodeldata"),
            destinationModelData: bytes(model, "destinationmodeldata"),
            entityMappings: ordered, unknown: unknown)
    }
}
