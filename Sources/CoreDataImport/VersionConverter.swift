import DataModel
import Foundation

/// Converts one `contents` XML document into a `ConvertedVersion`, collecting errors
/// (names or values the format refuses) and warnings (what it has no place for).
struct VersionConverter {
    let path: String
    var errors: [String] = []
    var warnings = WarningCollector()
    /// Values Xcode accepted that are not well-formed values of their type, with what
    /// they were read as (`Conversation.mutedStatus: defaultValueString "NO" → 0`):
    /// the YAML file's header names each one.
    var conversions: [String] = []

    /// The file's lines, to place an element at the column of its name.
    private let lines: [Substring]

    init(path: String, data: Data = Data()) {
        self.path = path
        self.lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
    }

    // XML attributes Xcode rewrites whenever it saves (the tools and system that saved
    // it, the document format): not kept. Everything else is, in the model format or
    // in the element's `xcode` settings (Docs/Xcode.md).
    private static let rewrittenModelKeys: Set<String> = [
        "type", "documentVersion", "lastSavedToolsVersion", "systemVersion",
        "userDefinedModelVersionIdentifier",
    ]
    private static let entityKeys: Set<String> = [
        "name", "parentEntity", "isAbstract", "versionHashModifier", "elementID",
        "renamingIdentifier", "syncable",
    ]
    private static let attributeKeys: Set<String> = [
        "name", "optional", "transient", "indexed", "attributeType", "defaultValueString",
        "defaultDateTimeInterval", "minValueString", "maxValueString",
        "minDateTimeInterval", "maxDateTimeInterval", "valueTransformerName",
        "versionHashModifier", "elementID", "renamingIdentifier",
        "allowsExternalBinaryDataStorage", "preserveAfterDeletion", "syncable", "composite",
    ]
    private static let relationshipKeys: Set<String> = [
        "name", "optional", "transient", "toMany", "ordered", "deletionRule",
        "destinationEntity", "inverseName", "inverseEntity", "minCount", "maxCount",
        "versionHashModifier", "elementID", "renamingIdentifier", "syncable",
    ]

    private static let types = XcodeVocabulary.typesByName
    private static let deleteRules = XcodeVocabulary.deleteRulesByName

    mutating func convert(_ data: Data) -> ConvertedVersion? {
        let root: XMLElementNode
        do { root = try XMLTreeBuilder.parse(data) } catch {
            errors.append("\(path):\(error.line):\(error.column): not well-formed XML: \(error.message)")
            return nil
        }
        guard root.name == "model" else {
            errors.append("\(at(root)): not a Core Data model (the root element is <\(root.name)>, expected <model>)")
            return nil
        }
        var version = ConvertedVersion()
        version.identifier = root.attributes["userDefinedModelVersionIdentifier"].flatMap { $0.isEmpty ? nil : $0 }
        version.toolsVersion = root.attributes["lastSavedToolsVersion"]
        version.systemVersion = root.attributes["systemVersion"]
        version.xcode = keep(root, except: Self.rewrittenModelKeys)
        for child in root.children {
            switch child.name {
            case "entity":
                if let entity = convertEntity(child) { version.entities.append(entity) }
            case "configuration":
                if let element = keptElement(child, place: "model") { version.configurations.append(element) }
            case "fetchRequest":
                if let element = keptElement(child, place: "model") { version.fetchRequests.append(element) }
            case "elements":
                // Box positions of Xcode's graph editor: read by neither code generation
                // nor Core Data, and rewritten by Xcode as the diagram is moved.
                break
            case "userInfo":
                version.xcode.userInfo = userInfo(child)
            case "composite":
                if let composite = convertComposite(child) { version.composites.append(composite) }
            default:
                warnings.add("unknown element <\(child.name)>", at: "model")
            }
        }
        if version.entities.isEmpty, errors.isEmpty {
            errors.append("\(at(root)): the model has no entities; the format needs at least one")
        }
        version.syncable = Self.syncableDefault(&version)
        return version
    }

    /// The default that leaves the fewest elements saying otherwise; each element's
    /// own `syncable` is then kept only where it differs.
    private static func syncableDefault(_ version: inout ConvertedVersion) -> SyncableDefault? {
        let entities = version.entities.map { $0.xcode.syncable == true }
        let properties = version.entities.flatMap {
            $0.attributes.map { $0.xcode.syncable == true } + $0.relationships.map { $0.xcode.syncable == true }
        }
        func exceptions(_ choice: SyncableDefault?) -> Int {
            let entity = choice != nil, property = choice == .all
            return entities.filter { $0 != entity }.count + properties.filter { $0 != property }.count
        }
        let choice = [SyncableDefault?.none, .entities, .all].min { exceptions($0) < exceptions($1) } ?? nil
        let entity = choice != nil, property = choice == .all
        for e in version.entities.indices {
            let own = version.entities[e].xcode.syncable ?? false
            version.entities[e].xcode.syncable = own == entity ? nil : own
            for a in version.entities[e].attributes.indices {
                let own = version.entities[e].attributes[a].xcode.syncable ?? false
                version.entities[e].attributes[a].xcode.syncable = own == property ? nil : own
            }
            for r in version.entities[e].relationships.indices {
                let own = version.entities[e].relationships[r].xcode.syncable ?? false
                version.entities[e].relationships[r].xcode.syncable = own == property ? nil : own
            }
        }
        for c in version.composites.indices {
            for a in version.composites[c].attributes.indices {
                let own = version.composites[c].attributes[a].xcode.syncable ?? false
                version.composites[c].attributes[a].xcode.syncable = own == property ? nil : own
            }
        }
        return choice
    }

    // MARK: Entities

    private mutating func convertEntity(_ node: XMLElementNode) -> ConvertedEntity? {
        guard let name = node.attributes["name"] else {
            errors.append("\(at(node)): <entity> without a name")
            return nil
        }
        if !NameRules.isEntityName(name) {
            errors.append(
                """
                \(at(node)): entity '\(name)': not a valid entity name (ASCII letters, digits and '_', starting with \
                an uppercase letter)
                """
            )
        }
        var entity = ConvertedEntity(name: name)
        entity.position = position(of: node)
        entity.parent = node.attributes["parentEntity"]
        entity.isAbstract = flag(node.attributes["isAbstract"])
        entity.renamedFrom = renamingIdentifier(node, name: name)
        entity.hashModifier = nonEmpty(node.attributes["versionHashModifier"])
        entity.xcode = keep(node, except: Self.entityKeys)
        keepFalseFlags(node, ["isAbstract"], into: &entity.xcode)
        keepRenamingIdentifier(node, name: name, into: &entity.xcode)
        for child in node.children {
            switch child.name {
            case "attribute":
                if let attribute = convertAttribute(child, entity: name) { entity.attributes.append(attribute) }
            case "relationship":
                if let relationship = convertRelationship(child, entity: name) {
                    entity.relationships.append(relationship)
                }
            case "fetchedProperty":
                if let element = keptElement(child, place: name) { entity.fetchedProperties.append(element) }
            case "uniquenessConstraints":
                for constraint in child.children(named: "uniquenessConstraint") {
                    let properties = constraint.children(named: "constraint").compactMap { $0.attributes["value"] }
                    if !properties.isEmpty { entity.uniqueness.append(properties) }
                }
            case "fetchIndex":
                if let index = convertFetchIndex(child, entity: name) { entity.indexes.append(index) }
            case "compoundIndexes":
                // Xcode 8's form of multi-property indexes.
                for compound in child.children(named: "compoundIndex") {
                    let properties = compound.children(named: "index").compactMap { $0.attributes["value"] }
                    if !properties.isEmpty {
                        entity.indexes.append(
                            ConvertedIndex(
                                name: nil, elements: properties.map { .init(property: $0, descending: false) },
                                isCompound: true,
                                position: position(of: compound)))
                    }
                }
            case "userInfo":
                entity.xcode.userInfo = userInfo(child)
            default:
                warnings.add("unknown element <\(child.name)>", at: name)
            }
        }
        return entity
    }

    private mutating func convertFetchIndex(_ node: XMLElementNode, entity: String) -> ConvertedIndex? {
        let indexName = node.attributes["name"]
        let place = "\(entity).\(indexName ?? "?")"
        var elements: [ConvertedIndex.Element] = []
        for element in node.children(named: "fetchIndexElement") {
            if let kind = element.attributes["type"], kind != "Binary" {
                warnings.add("\(kind) fetch indexes (imported as ordinary indexes)", at: place)
            }
            let descending = element.attributes["order"] == "descending"
            if let property = element.attributes["property"] {
                elements.append(.init(property: property, descending: descending))
            } else if let expression = element.attributes["expression"] {
                // Kept as written; the store indexes it only where it has an SQL form
                // (a key path of a stored attribute), Docs/Xcode.md.
                elements.append(
                    .init(
                        property: "", descending: descending, expression: expression,
                        expressionType: element.attributes["expressionType"]))
            } else {
                warnings.add("fetch index elements with neither a property nor an expression (skipped)", at: place)
            }
        }
        guard !elements.isEmpty else {
            warnings.add("fetch indexes without a property (skipped)", at: place)
            return nil
        }
        var name = indexName
        if let given = name, !NameRules.isIndexName(given) {
            warnings.add("fetch index names the format refuses (a name is generated)", at: place)
            name = nil
        }
        return ConvertedIndex(name: name, elements: elements, position: position(of: node))
    }

    // MARK: Composites

    /// Xcode 15's `<composite name="Address">` with its `<attribute>`s (which may be
    /// composites themselves): kept whole; Docs/Xcode.md says what is and is not
    /// known of how Core Data stores them.
    private mutating func convertComposite(_ node: XMLElementNode) -> ConvertedComposite? {
        guard let name = node.attributes["name"] else {
            errors.append("\(at(node)): <composite> without a name")
            return nil
        }
        if !NameRules.isEntityName(name) {
            errors.append(
                """
                \(at(node)): composite '\(name)': not a valid composite name (ASCII letters, digits and '_', starting \
                with an uppercase letter)
                """
            )
        }
        var composite = ConvertedComposite(name: name)
        composite.position = position(of: node)
        composite.xcode = keep(node, except: ["name"])
        for child in node.children {
            switch child.name {
            case "attribute":
                if let attribute = convertAttribute(child, entity: name) { composite.attributes.append(attribute) }
            case "userInfo":
                composite.xcode.userInfo = userInfo(child)
            default:
                warnings.add("unknown element <\(child.name)>", at: name)
            }
        }
        return composite
    }

    // MARK: Attributes

    private mutating func convertAttribute(_ node: XMLElementNode, entity: String) -> ConvertedAttribute? {
        guard let name = node.attributes["name"] else {
            errors.append("\(at(node)): entity '\(entity)': <attribute> without a name")
            return nil
        }
        let subject = "attribute '\(entity).\(name)'"
        checkPropertyName(name, subject: subject, node: node)
        let transient = flag(node.attributes["transient"])
        let typeName = node.attributes["attributeType"] ?? "Undefined"
        guard let type = attributeType(typeName, transient: transient, node, subject: subject) else { return nil }
        let place = "\(entity).\(name)"
        var attribute = ConvertedAttribute(name: name, type: type)
        attribute.position = position(of: node)
        attribute.xcode = keep(node, except: Self.attributeKeys)
        keepFalseFlags(node, ["optional", "transient", "indexed", "preserveAfterDeletion"], into: &attribute.xcode)
        keepRenamingIdentifier(node, name: name, into: &attribute.xcode)
        // An untyped transient, written `attributeType="Undefined"` or with no type at all
        // (older Xcode): kept as written ("" for none) for export.
        if typeName == "Undefined" { attribute.xcode["attributeType"] = node.attributes["attributeType"] ?? "" }
        attribute.isOptional = flag(node.attributes["optional"])
        attribute.isTransient = transient
        attribute.isIndexed = flag(node.attributes["indexed"])
        attribute.renamedFrom = renamingIdentifier(node, name: name)
        attribute.hashModifier = nonEmpty(node.attributes["versionHashModifier"])
        attribute.preservesValueOnDeletion = flag(node.attributes["preserveAfterDeletion"])
        if type == .composite {
            guard let composite = node.attributes["composite"] else {
                errors.append(
                    """
                    \(at(node)): \(subject): a Composite attribute without composite=\"…\" (Xcode writes the \
                    composite's name)
                    """
                )
                return nil
            }
            attribute.composite = composite
        } else if let text = node.attributes["composite"] {
            attribute.xcode["composite"] = text
        }
        if let text = node.attributes["allowsExternalBinaryDataStorage"] {
            // Xcode leaves the flag on an attribute whose type changed from Binary; Core
            // Data ignores it there: kept for Xcode only.
            if type == .binary, flag(text) {
                attribute.allowsExternalStorage = true
            } else {
                attribute.xcode["allowsExternalBinaryDataStorage"] = text
            }
        }
        if let text = node.attributes["valueTransformerName"] {
            if type == .transformable, !text.isEmpty {
                attribute.transformer = text
            } else {
                attribute.xcode["valueTransformerName"] = text
            }
        }
        if flag(node.attributes["derived"]) {
            warnings.add(
                "derivations (derived attributes are stored as written by the app; the toolkit does not compute them)",
                at: place)
        }
        for child in node.children {
            if child.name == "userInfo" {
                attribute.xcode.userInfo = userInfo(child)
            } else {
                warnings.add("unknown element <\(child.name)>", at: place)
            }
        }
        convertValues(node, type: type, subject: subject, place: place, into: &attribute)
        return attribute
    }

    /// The type an `attributeType` names, or nil (with the error noted) for one the format has not.
    private mutating func attributeType(_ typeName: String, transient: Bool, _ node: XMLElementNode, subject: String)
        -> AttributeType?
    {
        if let known = Self.types[typeName] { return known }
        if typeName == "Undefined", transient {
            // An untyped transient holds any object and is never stored: the opaque
            // transformable type says the same, and transients are in no hash.
            return .transformable
        }
        if typeName == "Undefined" {
            errors.append(
                """
                \(at(node)): \(subject): type Undefined is allowed only for transient attributes (Xcode refuses it too)
                """
            )
        } else {
            errors.append("\(at(node)): \(subject): attribute type '\(typeName)' is not supported by the model format")
        }
        return nil
    }

    /// An attribute's default and limits, with the text Xcode wrote kept where export would write it differently.
    private mutating func convertValues(
        _ node: XMLElementNode, type: AttributeType, subject: String, place: String,
        into attribute: inout ConvertedAttribute
    ) {
        // Defaults and limits, parsed per type as the format's decoder will parse them.
        if type == .date {
            let line = node.line
            attribute.defaultValue = dateValue(
                node.attributes["defaultDateTimeInterval"], subject: "\(subject): defaultDateTimeInterval", line: line)
            if attribute.defaultValue == nil, let text = node.attributes["defaultValueString"], !text.isEmpty {
                warnings.add(
                    "date defaults other than a fixed date (e.g. \"now\"; kept for Xcode, no default here)",
                    at: "\(place) (\(text))")
            }
            attribute.minimum = dateValue(
                node.attributes["minDateTimeInterval"], subject: "\(subject): minDateTimeInterval", line: line)
            attribute.maximum = dateValue(
                node.attributes["maxDateTimeInterval"], subject: "\(subject): maxDateTimeInterval", line: line)
            keepText(node, "defaultValueString", nil, type: type, into: &attribute.xcode)
        } else {
            if let text = node.attributes["defaultValueString"] {
                attribute.defaultValue = defaultValue(text, type: type, subject: subject, place: place, line: node.line)
            }
            attribute.minimum = limit(
                node.attributes["minValueString"], key: "minValueString", type: type, subject: subject, place: place,
                line: node.line)
            attribute.maximum = limit(
                node.attributes["maxValueString"], key: "maxValueString", type: type, subject: subject, place: place,
                line: node.line)
        }
        // Where the format states a value in its own words, the text Xcode wrote is kept
        // beside it when export would write it differently ("1.50" for 1.5, "NO" on an
        // integer): export writes that text back while it still means the same value.
        for (key, value) in [
            ("defaultValueString", attribute.defaultValue), ("minValueString", attribute.minimum),
            ("maxValueString", attribute.maximum), ("defaultDateTimeInterval", attribute.defaultValue),
            ("minDateTimeInterval", attribute.minimum), ("maxDateTimeInterval", attribute.maximum),
        ]
        where (type == .date) == key.hasSuffix("TimeInterval") {
            keepText(node, key, value, type: type, into: &attribute.xcode)
        }
    }

    // MARK: Relationships

    private mutating func convertRelationship(_ node: XMLElementNode, entity: String) -> ConvertedRelationship? {
        guard let name = node.attributes["name"] else {
            errors.append("\(at(node)): entity '\(entity)': <relationship> without a name")
            return nil
        }
        let subject = "relationship '\(entity).\(name)'"
        checkPropertyName(name, subject: subject, node: node)
        guard let destination = node.attributes["destinationEntity"] else {
            errors.append("\(at(node)): \(subject): no destinationEntity")
            return nil
        }
        let place = "\(entity).\(name)"
        var relationship = ConvertedRelationship(name: name, destination: destination)
        relationship.position = position(of: node)
        relationship.xcode = keep(node, except: Self.relationshipKeys)
        keepFalseFlags(node, ["optional", "transient", "toMany", "ordered"], into: &relationship.xcode)
        keepRenamingIdentifier(node, name: name, into: &relationship.xcode)
        relationship.isToMany = flag(node.attributes["toMany"])
        // Kept on a to-one too: Xcode leaves it when a to-many becomes to-one, and
        // Core Data hashes it (Docs/Xcode.md).
        relationship.isOrdered = flag(node.attributes["ordered"])
        // Xcode writes `optional="YES"` and leaves it out for a required relationship.
        relationship.isOptional = flag(node.attributes["optional"])
        relationship.isTransient = flag(node.attributes["transient"])
        relationship.inverse = nonEmpty(node.attributes["inverseName"])
        relationship.renamedFrom = renamingIdentifier(node, name: name)
        relationship.hashModifier = nonEmpty(node.attributes["versionHashModifier"])
        if let text = node.attributes["deletionRule"] {
            if let rule = Self.deleteRules[text] {
                relationship.deleteRule = rule
            } else {
                errors.append(
                    "\(at(node)): \(subject): unknown deletionRule '\(text)' (Nullify, Cascade, Deny or No Action)")
            }
        }
        for key in ["minCount", "maxCount"] {
            guard let text = node.attributes[key] else { continue }
            guard let count = UInt64(text) else {
                errors.append("\(at(node)): \(subject): \(key) '\(text)' is not a count")
                continue
            }
            // To-one is always max 1 (Xcode writes it); a zero count means "no limit".
            guard count > 0, relationship.isToMany || key == "minCount" else {
                if !(key == "maxCount" && text == "1" && !relationship.isToMany) { relationship.xcode[key] = text }
                continue
            }
            if key == "minCount" { relationship.minCount = count } else { relationship.maxCount = count }
        }
        for child in node.children {
            if child.name == "userInfo" {
                relationship.xcode.userInfo = userInfo(child)
            } else {
                warnings.add("unknown element <\(child.name)>", at: place)
            }
        }
        return relationship
    }

    // MARK: Helpers

    private mutating func checkPropertyName(_ name: String, subject: String, node: XMLElementNode) {
        if !NameRules.isPropertyName(name) {
            errors.append("\(at(node)): \(subject): \(NameRules.propertyNameRule)")
        } else if ModelValidator.reservedPropertyNames.contains(name) {
            errors.append(
                "\(at(node)): \(subject): the name '\(name)' is reserved (it clashes with an NSManagedObject member)")
        }
    }

    /// `path:line:column` of an element, for messages.
    private func at(_ node: XMLElementNode) -> String {
        let place = position(of: node)
        return "\(path):\(place.line):\(place.column)"
    }

    /// Where an element is written: the column of its `name="…"` (else of its tag) on
    /// the line the parser reports or the lines before it (a start tag may span lines).
    func position(of node: XMLElementNode) -> XMLPosition {
        let line = max(1, node.line)
        let needles = (node.attributes["name"].map { ["name=\"\(XMLText.escape($0))\""] } ?? []) + ["<\(node.name)"]
        for needle in needles {
            for candidate in stride(from: line, through: max(1, line - 4), by: -1) where candidate <= lines.count {
                let text = lines[candidate - 1]
                if let range = text.range(of: needle) {
                    return XMLPosition(
                        line: candidate,
                        column: text.unicodeScalars.distance(from: text.startIndex, to: range.lowerBound) + 1)
                }
            }
        }
        return XMLPosition(line: line, column: max(1, node.column))
    }

    /// The element's XML attributes other than `known`, for its `xcode` settings;
    /// `syncable="YES"` becomes the settings' flag.
    private func keep(_ node: XMLElementNode, except known: Set<String>) -> XcodeSettings {
        var settings = XcodeSettings()
        for key in node.attributes.keys.sorted() where !known.contains(key) {
            settings[key] = node.attributes[key]
        }
        if let text = node.attributes["syncable"] {
            if text == "YES" { settings.syncable = true } else { settings["syncable"] = text }
        }
        return settings
    }

    /// An `elementID` equal to the element's own name renames nothing (Core Data drops
    /// it), but Xcode wrote it: kept for export. So is the older `renamingIdentifier`
    /// spelling when `elementID` is also there.
    private func keepRenamingIdentifier(_ node: XMLElementNode, name: String, into settings: inout XcodeSettings) {
        if let identifier = node.attributes["elementID"] {
            if identifier == name || identifier.isEmpty { settings["elementID"] = identifier }
            if let older = node.attributes["renamingIdentifier"] { settings["renamingIdentifier"] = older }
        } else if let older = node.attributes["renamingIdentifier"], older == name || older.isEmpty {
            settings["renamingIdentifier"] = older
        }
    }

    /// A flag written as something other than `YES` that reads as false (`optional="NO"`):
    /// export writes nothing for false, so the text is kept.
    private func keepFalseFlags(_ node: XMLElementNode, _ keys: [String], into settings: inout XcodeSettings) {
        for key in keys {
            if let text = node.attributes[key], !flag(text) { settings[key] = text }
        }
    }

    /// `<userInfo><entry key="k" value="v"/></userInfo>`, in order.
    private func userInfo(_ node: XMLElementNode) -> [XcodeSettings.Entry] {
        node.children(named: "entry").compactMap { entry in
            entry.attributes["key"].map { XcodeSettings.Entry($0, entry.attributes["value"] ?? "") }
        }
    }

    /// A fetched property, fetch request or configuration, kept as written.
    private mutating func keptElement(_ node: XMLElementNode, place: String) -> XcodeElement? {
        guard let name = node.attributes["name"] else {
            warnings.add("<\(node.name)> without a name (skipped)", at: place)
            return nil
        }
        let written = position(of: node)
        var element = XcodeElement(
            name: name, settings: keep(node, except: ["name"]),
            location: SourceLocation(file: path, line: written.line, column: written.column))
        element.settings.syncable = nil  // kept verbatim among its attributes
        for child in node.children {
            if child.name == "userInfo" {
                element.settings.userInfo = userInfo(child)
            } else {
                element.children.append(
                    .init(
                        tag: child.name,
                        attributes: child.attributes.keys.sorted().map { .init($0, child.attributes[$0]!) }))
                if !child.children.isEmpty {
                    warnings.add("elements inside <\(child.name)> (not kept)", at: "\(place).\(name)")
                }
            }
        }
        return element
    }

    /// `elementID` (Xcode 9 and later) or `renamingIdentifier` (older files); the
    /// identifier equal to the element's own name says nothing.
    private func renamingIdentifier(_ node: XMLElementNode, name: String) -> String? {
        guard let identifier = nonEmpty(node.attributes["elementID"] ?? node.attributes["renamingIdentifier"]),
            identifier != name
        else { return nil }
        return identifier
    }

    private func flag(_ text: String?) -> Bool { text == "YES" || text == "true" || text == "1" }

    private func nonEmpty(_ text: String?) -> String? { text.flatMap { $0.isEmpty ? nil : $0 } }
}
