import DataModel
import Foundation

/// `xcmapping.xml` written from a mapping model value: the mirror of
/// ``XcodeMappingModel/parse(_:path:)``, with the keys that reader knows and the layout
/// Xcode writes (a Core Data XML store: `databaseInfo` with Xcode's own version
/// hashes of its editing entities, then one `<object>` per mapping, ids `z101`…,
/// relationships by `idrefs`, archives in base64 lines of 76 characters).
///
/// Deterministic: the same value gives the same bytes (the store's UUID is derived
/// from the content). The embedded models (`sourcemodeldata`, `destinationmodeldata`)
/// are not written: they are Xcode's own `XDPMModel` archives, which this toolkit reads
/// but does not write (Docs/Importing.md says what Xcode does without them).
extension XcodeMappingModel {
    /// The entity version hashes of Xcode's mapping editor model, as every
    /// `xcmapping.xml` of the corpus records them (42 files, all identical).
    private static let editorHashes: [(String, String)] = [
        ("XDDevAttributeMapping", "0plcXXRN7XHKl5CcF+fwriFmUpON3ZtcI/AfK748aWc="),
        ("XDDevEntityMapping", "qeN1Ym3TkWN1G6dU9RfX6Kd2ccEvcDVWHpd3LpLgboI="),
        ("XDDevMappingModel", "EqtMzvRnVZWkXwBHu4VeVGy8UyoOe+bi67KC79kphlQ="),
        ("XDDevPropertyMapping", "XN33V44TTGY4JETlMoOB5yyTKxB+u4slvDIinv0rtGA="),
        ("XDDevRelationshipMapping", "akYY9LhehVA/mCb4ATLWuI9XGLcjpm14wWL1oEBtIcs="),
    ]

    /// One `<object>`: its type, id, attributes (name, type, text) and relationships.
    private struct Object {
        var type: String
        var id: Int
        var attributes: [(name: String, type: String, text: String)] = []
        var relationships: [(name: String, kind: String, destination: String, ids: [Int])] = []

        mutating func string(_ name: String, _ value: String?) {
            if let value { attributes.append((name, "string", value)) }
        }

        mutating func binary(_ name: String, _ value: [UInt8]?) {
            if let value { attributes.append((name, "binary", XcodeMappingModel.base64Lines(value))) }
        }

        var lines: [String] {
            var lines = ["    <object type=\"\(type)\" id=\"z\(id)\">"]
            for attribute in attributes {
                let text = attribute.type == "binary" ? attribute.text : XMLText.escape(attribute.text)
                lines.append(
                    "        <attribute name=\"\(attribute.name)\" type=\"\(attribute.type)\">\(text)</attribute>")
            }
            for relationship in relationships {
                let ids = relationship.ids.map { "z\($0)" }.joined(separator: " ")
                let refs = ids.isEmpty ? "" : " idrefs=\"\(ids)\""
                lines.append(
                    """
                            <relationship name=\"\(relationship.name)\" type=\"\(relationship.kind)\" \
                    destination=\"\(relationship.destination)\"\(refs)>
                    """
                        + "</relationship>")
            }
            return lines + ["    </object>"]
        }
    }

    /// Base64 in lines of 76 characters, each ending in a line feed, as Xcode writes archives.
    static func base64Lines(_ bytes: [UInt8]) -> String {
        let text = Data(bytes).base64EncodedString()
        var lines: [Substring] = []
        var start = text.startIndex
        while start < text.endIndex {
            let end = text.index(start, offsetBy: 76, limitedBy: text.endIndex) ?? text.endIndex
            lines.append(text[start..<end])
            start = end
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The objects: the mapping model first (z101), then each entity mapping followed by
    /// its attribute and relationship mappings.
    private var objects: [Object] {
        var model = Object(type: "XDDEVMAPPINGMODEL", id: 101)
        model.string("sourcemodelpath", sourceModelPath)
        model.string("destinationmodelpath", destinationModelPath)
        var objects: [Object] = []
        var next = 102
        var entityIDs: [Int] = []
        for mapping in entityMappings {
            var entity = Object(type: "XDDEVENTITYMAPPING", id: next)
            next += 1
            entityIDs.append(entity.id)
            entity.string("migrationpolicyclassname", mapping.policyClass ?? "")
            entity.string("sourcename", mapping.source)
            entity.string("mappingtypename", mapping.mappingType)
            entity.attributes.append(("mappingnumber", "int16", String(mapping.number)))
            entity.string("destinationname", mapping.destination)
            entity.attributes.append(("autogenerateexpression", "bool", mapping.autogeneratesSource ? "1" : "0"))
            entity.string("sourcefilterpredicatestring", mapping.filterPredicate)
            entity.binary("sourceexpressiondata", mapping.sourceExpression)
            entity.binary("userinfodata", mapping.userInfo)
            if let name = mapping.name, name != mapping.effectiveNameByDefault { entity.string("name", name) }
            var properties: [Object] = []
            for (kind, list) in [
                ("XDDEVATTRIBUTEMAPPING", mapping.attributes), ("XDDEVRELATIONSHIPMAPPING", mapping.relationships),
            ] {
                var ids: [Int] = []
                for property in list {
                    var object = Object(type: kind, id: next)
                    next += 1
                    ids.append(object.id)
                    object.string("sourcemappingname", property.sourceMappingName)
                    object.string("sourcekeypath", property.sourceKeyPath)
                    object.binary("valueexpressiondata", property.valueExpression)
                    object.binary("userinfodata", property.userInfo)
                    if kind == "XDDEVRELATIONSHIPMAPPING" {
                        object.attributes.append(("autogenerateexpression", "bool", property.autogenerates ? "1" : "0"))
                    }
                    object.string("name", property.name)
                    object.relationships.append(("entitymapping", "1/1", "XDDEVENTITYMAPPING", [entity.id]))
                    properties.append(object)
                }
                let name = kind == "XDDEVATTRIBUTEMAPPING" ? "attributemappings" : "relationshipmappings"
                entity.relationships.append((name, "0/0", kind, ids))
            }
            entity.relationships.insert(("mappingmodel", "1/1", "XDDEVMAPPINGMODEL", [model.id]), at: 0)
            objects.append(entity)
            objects += properties
        }
        model.relationships.append(("entitymappings", "0/0", "XDDEVENTITYMAPPING", entityIDs))
        return [model] + objects
    }

    /// The `xcmapping.xml` text.
    package var xml: String {
        let objects = self.objects
        let body = objects.flatMap(\.lines)
        // The store's UUID: the first 16 bytes of the body's SHA-256, as a version 4 UUID.
        var digest = Array(VersionHasher.sha256Hex(Array(body.joined(separator: "\n").utf8)).uppercased())
        digest[12] = "4"
        digest[16] = "8"
        let hex = String(digest.prefix(32))
        let uuid = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(
                hex[
                    hex.index(
                        hex.startIndex, offsetBy: range.lowerBound)..<hex.index(
                            hex.startIndex, offsetBy: range.upperBound)])
        }.joined(separator: "-")
        var lines = [
            "<?xml version=\"1.0\" standalone=\"yes\"?>",
            "<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">",
            "",
            "<database>",
            "    <databaseInfo>",
            "        <version>134481920</version>",
            "        <UUID>\(uuid)</UUID>",
            "        <nextObjectID>\((objects.map(\.id).max() ?? 100) + 1)</nextObjectID>",
            "        <metadata>",
            "            <plist version=\"1.0\">",
            "                <dict>",
            "                    <key>NSPersistenceFrameworkVersion</key>",
            "                    <integer>640</integer>",
            "                    <key>NSStoreModelVersionHashes</key>",
            "                    <dict>",
        ]
        for (entity, hash) in Self.editorHashes {
            lines += [
                "                        <key>\(entity)</key>", "                        <data>", "\t\t\(hash)",
                "\t\t</data>",
            ]
        }
        lines += [
            "                    </dict>",
            "                    <key>NSStoreModelVersionHashesVersion</key>",
            "                    <integer>3</integer>",
            "                    <key>NSStoreModelVersionIdentifiers</key>",
            "                    <array>",
            "                        <string></string>",
            "                    </array>",
            "                </dict>",
            "            </plist>",
            "        </metadata>",
            "    </databaseInfo>",
        ]
        return (lines + body + ["</database>"]).joined(separator: "\n") + "\n"
    }
}

extension XcodeMappingModel.EntityMapping {
    /// The name Core Data gives an entity mapping Xcode records no name for.
    var effectiveNameByDefault: String {
        var unnamed = self
        unnamed.name = nil
        return unnamed.effectiveName
    }
}
