package import DataModel
import Foundation

/// Writes a model's YAML versions as an Xcode `.xcdatamodeld` bundle, the mirror
/// of `XcodeModelImporter`: one `<Model> N.xcdatamodel/contents` per version in the
/// XML current Xcode writes, and `.xccurrentversion` naming the last, so that a
/// team can keep YAML as the source of truth and generate the app's model from it.
///
/// Round trip: importing the bundle gives the same versions (the same compiled
/// model and version hashes). What Xcode's format has no place for is left out and
/// listed (`ExportedModel.omissions`): defaults of binary attributes.
package struct XcodeModelExporter {
    /// The Xcode tools version and system the XML says it was saved with.
    package var toolsVersion = "23507"
    package var systemVersion = "24A335"

    /// Creates an exporter.
    package init() {}

    /// The bundle of `versions` (one model's, in version order).
    package func export(_ versions: [ModelVersionDescription], model: String) -> ExportedModel {
        var files: [ExportedModel.Version] = []
        var omissions: [String] = []
        var notes: [String] = []
        let sorted = versions.sorted(by: { $0.version < $1.version })
        var taken = Set(
            sorted.filter { $0.xcodeVersionName == nil }.map { Self.defaultFolder(model: model, version: $0.version) })
        for version in sorted {
            var folder = Self.defaultFolder(model: model, version: version.version)
            if let name = version.xcodeVersionName {
                if taken.insert(name + ".xcdatamodel").inserted {
                    folder = name + ".xcdatamodel"
                } else {
                    notes.append(
                        """
                        version \(version.version): \(name).xcdatamodel (xcodeVersion) is taken by another version; \
                        written as \(folder)
                        """
                    )
                }
            }
            files.append(
                .init(number: version.version, folder: folder, contents: contents(of: version, omissions: &omissions)))
        }
        var current = files.last?.folder ?? ""
        let marked = sorted.indices.filter { sorted[$0].xcodeIsCurrent }
        if let first = marked.first {
            current = files[first].folder
            let later = files[(first + 1)...].map(\.folder)
            notes.append(
                """
                .xccurrentversion names \(current) (version \(sorted[first].version)), as in the bundle imported, \
                although \(later.joined(separator: ", ")) \(later.count == 1 ? "is" : "are") newer; remove `current: \
                true` from its xcodeVersion to make the last version current
                """)
            if marked.count > 1 {
                notes.append(
                    """
                    versions \(marked.map { String(sorted[$0].version) }.joined(separator: ", ")) all say `current: \
                    true`; the first is current
                    """
                )
            }
        }
        return ExportedModel(name: model, versions: files, omissions: omissions, current: current, notes: notes)
    }

    /// The folder export gives a version with no `xcodeVersion` name: `<Model>` for
    /// version 1, `<Model> N` after (as Xcode names the versions it adds).
    package static func defaultFolder(model: String, version: Int) -> String {
        version == 1 ? "\(model).xcdatamodel" : "\(model) \(version).xcdatamodel"
    }

    /// One version's `contents` XML. A version imported from Xcode (it has `xcode`
    /// settings) is written exactly as its YAML says, in its order; one written in YAML
    /// only gets what Xcode gives new elements (class name = entity name, scalar
    /// accessors for numbers and booleans, `syncable`), entities and properties by name.
    func contents(of version: ModelVersionDescription, omissions: inout [String]) -> String {
        var lines = [#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#]
        let exact = version.xcode != nil
        var model: [(String, String?)] = [
            ("type", "com.apple.IDECoreDataModeler.DataModel"), ("documentVersion", "1.0"),
            ("lastSavedToolsVersion", toolsVersion), ("systemVersion", systemVersion),
        ]
        if exact {
            model += (version.xcode?.attributes ?? []).map { ($0.key, $0.value) }
        } else {
            model += [("minimumToolsVersion", "Automatic"), ("sourceLanguage", "Swift")]
        }
        model.append(("userDefinedModelVersionIdentifier", version.identifier ?? ""))
        lines.append(XMLText.element("model", model, closed: false))
        let entities = exact ? version.entities : version.entities.sorted { $0.name < $1.name }
        for entity in entities {
            lines += self.entity(entity, in: version, exact: exact, omissions: &omissions)
        }
        // Xcode 15 writes its composites after the entities.
        for composite in version.composites {
            var attributes: [(String, String?)] = [("name", composite.name)]
            Self.overlay(composite.xcode, on: &attributes)
            let body =
                composite.attributes.flatMap {
                    self.attribute($0, entity: composite.name, in: version, omissions: &omissions)
                }
                + userInfo(composite.xcode.userInfo, indent: "        ")
            if body.isEmpty {
                lines.append("    " + XMLText.element("composite", attributes))
            } else {
                lines.append("    " + XMLText.element("composite", attributes, closed: false))
                lines += body
                lines.append("    </composite>")
            }
        }
        for request in version.fetchRequests { lines += kept("fetchRequest", request, indent: "    ") }
        for configuration in version.configurations { lines += kept("configuration", configuration, indent: "    ") }
        lines += userInfo(version.xcode?.userInfo ?? [], indent: "    ")
        lines.append("</model>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `syncable="YES"` where the element or the version's default says so; on entities
    /// only for a version written in YAML only (as current Xcode writes it).
    private func syncable(_ settings: XcodeSettings, isEntity: Bool, in version: ModelVersionDescription) -> String? {
        guard version.xcode != nil else { return isEntity ? "YES" : nil }
        let byDefault = isEntity ? version.syncable != nil : version.syncable == .all
        return settings.syncable ?? byDefault ? "YES" : nil
    }

    private func entity(
        _ entity: EntityDescription, in version: ModelVersionDescription, exact: Bool,
        omissions: inout [String]
    ) -> [String] {
        var attributes: [(String, String?)] = [("name", entity.name)]
        attributes.append(("representedClassName", exact ? nil : entity.name))
        attributes.append(("parentEntity", entity.parent))
        attributes.append(("isAbstract", entity.isAbstract ? "YES" : nil))
        attributes.append(("elementID", entity.renamedFrom))
        attributes.append(("versionHashModifier", entity.hashModifier))
        attributes.append(("syncable", syncable(entity.xcode, isEntity: true, in: version)))
        Self.overlay(entity.xcode, on: &attributes)
        var lines = ["    " + XMLText.element("entity", attributes, closed: false)]
        var properties: [(name: String, lines: [String])] = []
        for attribute in entity.attributes {
            properties.append(
                (attribute.name, self.attribute(attribute, entity: entity.name, in: version, omissions: &omissions)))
        }
        for relationship in entity.relationships {
            properties.append((relationship.name, self.relationship(relationship, entity: entity, in: version)))
        }
        for fetched in entity.fetchedProperties {
            properties.append((fetched.name, kept("fetchedProperty", fetched, indent: "        ")))
        }
        // Xcode lists an entity's properties by name, attributes and relationships together.
        if !exact { properties.sort { $0.name < $1.name } }
        lines += properties.flatMap(\.lines)
        lines += userInfo(entity.xcode.userInfo, indent: "        ")
        for index in entity.indexes where !index.isCompound {
            lines.append("        " + XMLText.element("fetchIndex", [("name", index.name)], closed: false))
            for element in index.elements {
                let source: [(String, String?)] =
                    element.expression.map { [("expression", $0), ("expressionType", element.expressionType)] }
                    ?? [("property", element.property)]
                lines.append(
                    "            "
                        + XMLText.element(
                            "fetchIndexElement",
                            source + [
                                ("type", "Binary"),
                                ("order", element.isDescending ? "descending" : "ascending"),
                            ]))
            }
            lines.append("        </fetchIndex>")
        }
        let compound = entity.indexes.filter(\.isCompound)
        if !compound.isEmpty {
            lines.append("        <compoundIndexes>")
            for index in compound {
                lines.append("            <compoundIndex>")
                lines += index.elements.map { "                " + XMLText.element("index", [("value", $0.property)]) }
                lines.append("            </compoundIndex>")
            }
            lines.append("        </compoundIndexes>")
        }
        if !entity.uniqueness.isEmpty {
            lines.append("        <uniquenessConstraints>")
            for constraint in entity.uniqueness {
                lines.append("            <uniquenessConstraint>")
                lines += constraint.properties.map {
                    "                " + XMLText.element("constraint", [("value", $0)])
                }
                lines.append("            </uniquenessConstraint>")
            }
            lines.append("        </uniquenessConstraints>")
        }
        lines.append("    </entity>")
        return lines
    }

    private func attribute(
        _ a: AttributeDescription, entity: String, in version: ModelVersionDescription,
        omissions: inout [String]
    ) -> [String] {
        var attributes: [(String, String?)] = [("name", a.name)]
        attributes.append(("optional", a.isOptional ? "YES" : nil))
        attributes.append(("transient", a.isTransient ? "YES" : nil))
        attributes.append(("indexed", a.isIndexed ? "YES" : nil))
        attributes.append(("attributeType", XcodeVocabulary.typeName(a.type)))
        attributes.append(("composite", a.composite))
        if a.type == .date {
            attributes.append(("minDateTimeInterval", a.minimum.flatMap(Self.seconds)))
            attributes.append(("maxDateTimeInterval", a.maximum.flatMap(Self.seconds)))
            attributes.append(("defaultDateTimeInterval", a.defaultValue.flatMap(Self.seconds)))
        } else {
            attributes.append(("minValueString", a.minimum.map(Self.text)))
            attributes.append(("maxValueString", a.maximum.map(Self.text)))
            if let value = a.defaultValue {
                if a.type == .binary || a.type == .transformable {
                    omissions.append(
                        "\(entity).\(a.name): the default of a \(a.type.rawValue) attribute (Xcode's format has none)")
                } else if !XMLText.canHold(Self.text(value)) {
                    omissions.append(
                        "\(entity).\(a.name): the default, which holds control characters XML 1.0 cannot carry")
                } else {
                    attributes.append(("defaultValueString", Self.text(value)))
                }
            }
        }
        attributes.append(("allowsExternalBinaryDataStorage", a.allowsExternalStorage ? "YES" : nil))
        attributes.append(("preserveAfterDeletion", a.preservesValueInHistoryOnDeletion ? "YES" : nil))
        attributes.append(("valueTransformerName", a.transformer))
        attributes.append(("elementID", a.renamedFrom))
        attributes.append(("versionHashModifier", a.hashModifier))
        if version.xcode == nil, a.type.isNumeric && a.type != .decimal || a.type == .boolean {
            attributes.append(("usesScalarValueType", "YES"))
        }
        attributes.append(("syncable", syncable(a.xcode, isEntity: false, in: version)))
        Self.overlay(a.xcode, on: &attributes) { key, text in
            // Xcode's own text for a value the YAML states in its words, while it means
            // the same value; "Undefined" for an untyped transient.
            switch key {
            case "attributeType":
                return (text == "Undefined" || text.isEmpty) && a.isTransient && a.type == .transformable
            case "defaultValueString", "defaultDateTimeInterval":
                return Self.reads(text, key: key, as: a.defaultValue, type: a.type)
            case "minValueString", "minDateTimeInterval": return Self.reads(text, key: key, as: a.minimum, type: a.type)
            case "maxValueString", "maxDateTimeInterval": return Self.reads(text, key: key, as: a.maximum, type: a.type)
            default: return false
            }
        }
        if let index = attributes.firstIndex(where: { $0.0 == "attributeType" }), attributes[index].1 == "" {
            attributes[index].1 = nil
        }
        return element("attribute", attributes, userInfo: a.xcode.userInfo, indent: "        ")
    }

    private func relationship(
        _ r: RelationshipDescription, entity: EntityDescription, in version: ModelVersionDescription
    ) -> [String] {
        var attributes: [(String, String?)] = [("name", r.name)]
        attributes.append(("optional", r.isOptional ? "YES" : nil))
        attributes.append(("transient", r.isTransient ? "YES" : nil))
        attributes.append(("toMany", r.isToMany ? "YES" : nil))
        attributes.append(("ordered", r.isOrdered ? "YES" : nil))
        attributes.append(("minCount", r.minCount.map(String.init)))
        // Xcode writes maxCount="1" for every to-one; a to-many's only when bounded.
        attributes.append(("maxCount", r.isToMany ? r.maxCount.map(String.init) : "1"))
        attributes.append(("deletionRule", XcodeVocabulary.deleteRuleName(r.deleteRule)))
        attributes.append(("destinationEntity", r.destination))
        attributes.append(("inverseName", r.inverse))
        // The inverse's entity: the destination, or the ancestor of it that declares the inverse.
        attributes.append(("inverseEntity", r.inverse.map { inverseEntity(of: $0, from: r.destination, in: version) }))
        attributes.append(("elementID", r.renamedFrom))
        attributes.append(("versionHashModifier", r.hashModifier))
        attributes.append(("syncable", syncable(r.xcode, isEntity: false, in: version)))
        Self.overlay(r.xcode, on: &attributes)
        return element("relationship", attributes, userInfo: r.xcode.userInfo, indent: "        ")
    }

    /// The element's kept settings over what the model says: a setting the model has no
    /// word for is added; one it has (`defaultValueString`) replaces the model's text
    /// only when `keepsText` says Xcode's text still means the model's value.
    private static func overlay(
        _ settings: XcodeSettings, on attributes: inout [(String, String?)],
        keepsText: (String, String) -> Bool = { _, _ in false }
    ) {
        for entry in settings.attributes {
            if let index = attributes.firstIndex(where: { $0.0 == entry.key }) {
                if attributes[index].1 == nil || keepsText(entry.key, entry.value) { attributes[index].1 = entry.value }
            } else {
                attributes.append((entry.key, entry.value))
            }
        }
    }

    /// True when `text`, read as import reads `key`, gives `value`.
    static func reads(_ text: String, key: String, as value: AttributeValue?, type: AttributeType) -> Bool {
        guard let value else { return false }
        var converter = VersionConverter(path: "")
        return converter.read(text, key: key, type: type) == value
    }

    /// What export writes for a value the importer converted to `scalar`.
    static func xmlText(of scalar: Scalar, key: String, type: AttributeType) -> String? {
        let text =
            switch scalar {
            case .plain(let v), .quoted(let v): v
            }
        if key != "defaultValueString", type == .string || type == .binary || type == .uri {
            return UInt64(text).map(String.init)
        }
        guard case .success(let value) = DefaultValueParser.parse(text, as: type) else { return nil }
        return key.hasSuffix("TimeInterval") ? seconds(value) : Self.text(value)
    }

    /// An element with its user info, or closed when it has none.
    private func element(
        _ name: String, _ attributes: [(String, String?)], userInfo entries: [XcodeSettings.Entry], indent: String
    ) -> [String] {
        guard !entries.isEmpty else { return [indent + XMLText.element(name, attributes)] }
        return [indent + XMLText.element(name, attributes, closed: false)] + userInfo(entries, indent: indent + "    ")
            + ["\(indent)</\(name)>"]
    }

    private func userInfo(_ entries: [XcodeSettings.Entry], indent: String) -> [String] {
        guard !entries.isEmpty else { return [] }
        return ["\(indent)<userInfo>"]
            + entries.map { "\(indent)    " + XMLText.element("entry", [("key", $0.key), ("value", $0.value)]) }
            + ["\(indent)</userInfo>"]
    }

    /// A fetched property, fetch request or configuration, as it was read.
    private func kept(_ tag: String, _ element: XcodeElement, indent: String) -> [String] {
        var attributes: [(String, String?)] = [("name", element.name)]
        attributes += element.settings.attributes.map { ($0.key, $0.value) }
        if element.settings.syncable == true { attributes.append(("syncable", "YES")) }
        if element.children.isEmpty, element.settings.userInfo.isEmpty {
            return [indent + XMLText.element(tag, attributes)]
        }
        var lines = [indent + XMLText.element(tag, attributes, closed: false)]
        lines += element.children.map {
            indent + "    " + XMLText.element($0.tag, $0.attributes.map { ($0.key, $0.value) })
        }
        lines += userInfo(element.settings.userInfo, indent: indent + "    ")
        lines.append("\(indent)</\(tag)>")
        return lines
    }

    private func inverseEntity(of inverse: String, from destination: String, in version: ModelVersionDescription)
        -> String
    {
        var current: String? = destination
        var seen: Set<String> = []
        while let name = current, seen.insert(name).inserted,
            let entity = version.entities.first(where: { $0.name == name })
        {
            if entity.relationships.contains(where: { $0.name == inverse }) { return name }
            current = entity.parent
        }
        return destination
    }

    /// A value as Xcode writes it in `defaultValueString` and the limits.
    static func text(_ value: AttributeValue) -> String {
        if case .boolean(let v) = value { return v ? "YES" : "NO" }
        return value.description
    }

    /// A date as seconds since 2001-01-01, as Xcode writes it.
    static func seconds(_ value: AttributeValue) -> String? {
        guard case .date(let seconds) = value else { return nil }
        return seconds.rounded() == seconds && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds)
    }
}

/// Why a bundle could not be written.
package struct ExportError: Error, Sendable, CustomStringConvertible {
    /// What is wrong.
    package var message: String
    init(_ message: String) { self.message = message }
    package var description: String { message }
}
