import DataModel
import Foundation

/// Converts one `contents` XML document into a `ConvertedVersion`, collecting errors
/// (names or values the format refuses) and warnings (what it has no place for).
struct VersionConverter {
    let path: String
    private(set) var errors: [String] = []
    private(set) var warnings = WarningCollector()
    /// Values Xcode accepted that are not well-formed values of their type, with what
    /// they were read as (`Conversation.mutedStatus: defaultValueString "NO" → 0`):
    /// the YAML file's header names each one.
    private(set) var conversions: [String] = []

    init(path: String) { self.path = path }

    // XML attributes that say nothing about the model: editor bookkeeping, Core Data's
    // long-obsolete `syncable`, and Swift code generation of scalar accessors.
    private static let silentModelKeys: Set<String> = ["type", "documentVersion", "lastSavedToolsVersion", "systemVersion",
                                                        "minimumToolsVersion", "sourceLanguage", "macOSVersion", "iOSVersion",
                                                        "userDefinedModelVersionIdentifier"]
    private static let entityKeys: Set<String> = ["name", "parentEntity", "isAbstract", "versionHashModifier", "elementID",
                                                  "renamingIdentifier", "syncable"]
    private static let attributeKeys: Set<String> = ["name", "optional", "transient", "indexed", "attributeType", "defaultValueString",
                                                     "defaultDateTimeInterval", "minValueString", "maxValueString",
                                                     "minDateTimeInterval", "maxDateTimeInterval", "valueTransformerName",
                                                     "versionHashModifier", "elementID", "renamingIdentifier",
                                                     "allowsExternalBinaryDataStorage", "preserveAfterDeletion", "syncable",
                                                     "usesScalarValueType"]
    private static let relationshipKeys: Set<String> = ["name", "optional", "transient", "toMany", "ordered", "deletionRule",
                                                        "destinationEntity", "inverseName", "inverseEntity", "minCount", "maxCount",
                                                        "versionHashModifier", "elementID", "renamingIdentifier", "syncable"]

    private static let types = XcodeVocabulary.typesByName
    private static let deleteRules = XcodeVocabulary.deleteRulesByName

    mutating func convert(_ data: Data) -> ConvertedVersion? {
        let root: XMLElementNode
        do { root = try XMLTreeBuilder.parse(data) } catch {
            errors.append("\(path):\(error.line): not well-formed XML: \(error.message)")
            return nil
        }
        guard root.name == "model" else {
            errors.append("\(path):\(root.line): not a Core Data model (the root element is <\(root.name)>, expected <model>)")
            return nil
        }
        var version = ConvertedVersion()
        version.identifier = root.attributes["userDefinedModelVersionIdentifier"].flatMap { $0.isEmpty ? nil : $0 }
        version.toolsVersion = root.attributes["lastSavedToolsVersion"]
        version.systemVersion = root.attributes["systemVersion"]
        unknownAttributes(of: root, known: Self.silentModelKeys, place: "model")
        for child in root.children {
            switch child.name {
            case "entity":
                if let entity = convertEntity(child) { version.entities.append(entity) }
            case "configuration":
                let members = child.children(named: "memberEntity").compactMap { $0.attributes["name"] }
                warnings.add("configurations (the format has one store per model)",
                             at: "\(child.attributes["name"] ?? "?") [\(members.joined(separator: ", "))]")
            case "fetchRequest":
                warnings.add("fetch requests (write them in code)", at: child.attributes["name"] ?? "?")
            case "elements":
                // Diagram positions of Xcode's graph editor: layout, not model.
                break
            case "userInfo":
                warnings.add("user info", at: "model")
            default:
                warnings.add("unknown element <\(child.name)>", at: "model")
            }
        }
        if version.entities.isEmpty, errors.isEmpty {
            errors.append("\(path):\(root.line): the model has no entities; the format needs at least one")
        }
        return version
    }

    // MARK: Entities

    private mutating func convertEntity(_ node: XMLElementNode) -> ConvertedEntity? {
        guard let name = node.attributes["name"] else {
            errors.append("\(path):\(node.line): <entity> without a name")
            return nil
        }
        if !NameRules.isEntityName(name) {
            errors.append("\(path):\(node.line): entity '\(name)': not a valid entity name (ASCII letters, digits and '_', starting with an uppercase letter)")
        }
        var entity = ConvertedEntity(name: name)
        entity.parent = node.attributes["parentEntity"]
        entity.isAbstract = flag(node.attributes["isAbstract"])
        entity.renamedFrom = renamingIdentifier(node, name: name)
        entity.hashModifier = nonEmpty(node.attributes["versionHashModifier"])
        if let className = node.attributes["representedClassName"] {
            let place = className == name ? name : "\(name) (\(className))"
            warnings.add("class names (representedClassName; code generation, not model)", at: place)
        }
        if let codegen = node.attributes["codeGenerationType"] {
            warnings.add("code generation settings (codeGenerationType)", at: "\(name) (\(codegen))")
        }
        unknownAttributes(of: node, known: Self.entityKeys.union(["representedClassName", "codeGenerationType"]), place: name)
        for child in node.children {
            switch child.name {
            case "attribute":
                if let attribute = convertAttribute(child, entity: name) { entity.attributes.append(attribute) }
            case "relationship":
                if let relationship = convertRelationship(child, entity: name) { entity.relationships.append(relationship) }
            case "fetchedProperty":
                warnings.add("fetched properties (write the fetch in code)", at: "\(name).\(child.attributes["name"] ?? "?")")
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
                    if !properties.isEmpty { entity.indexes.append(ConvertedIndex(name: nil, elements: properties.map { ($0, false) })) }
                }
            case "userInfo":
                warnings.add("user info", at: name)
            default:
                warnings.add("unknown element <\(child.name)>", at: name)
            }
        }
        return entity
    }

    private mutating func convertFetchIndex(_ node: XMLElementNode, entity: String) -> ConvertedIndex? {
        let indexName = node.attributes["name"]
        let place = "\(entity).\(indexName ?? "?")"
        var elements: [(property: String, descending: Bool)] = []
        for element in node.children(named: "fetchIndexElement") {
            guard let property = element.attributes["property"] else {
                warnings.add("fetch index elements on expressions (only properties are indexed)", at: place)
                continue
            }
            if let kind = element.attributes["type"], kind != "Binary" {
                warnings.add("\(kind) fetch indexes (imported as ordinary indexes)", at: place)
            }
            elements.append((property, element.attributes["order"] == "descending"))
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
        return ConvertedIndex(name: name, elements: elements)
    }

    // MARK: Attributes

    private mutating func convertAttribute(_ node: XMLElementNode, entity: String) -> ConvertedAttribute? {
        guard let name = node.attributes["name"] else {
            errors.append("\(path):\(node.line): entity '\(entity)': <attribute> without a name")
            return nil
        }
        let subject = "attribute '\(entity).\(name)'"
        checkPropertyName(name, subject: subject, line: node.line)
        let transient = flag(node.attributes["transient"])
        let typeName = node.attributes["attributeType"] ?? "Undefined"
        let type: AttributeType
        if let known = Self.types[typeName] {
            type = known
        } else if typeName == "Undefined", transient {
            // An untyped transient holds any object and is never stored: the opaque
            // transformable type says the same, and transients are in no hash.
            type = .transformable
        } else if typeName == "Undefined" {
            errors.append("\(path):\(node.line): \(subject): type Undefined is allowed only for transient attributes (Xcode refuses it too)")
            return nil
        } else {
            errors.append("\(path):\(node.line): \(subject): attribute type '\(typeName)' is not supported by the model format")
            return nil
        }
        let place = "\(entity).\(name)"
        var attribute = ConvertedAttribute(name: name, type: type)
        attribute.isOptional = flag(node.attributes["optional"])
        attribute.isTransient = transient
        attribute.isIndexed = flag(node.attributes["indexed"])
        attribute.renamedFrom = renamingIdentifier(node, name: name)
        attribute.hashModifier = nonEmpty(node.attributes["versionHashModifier"])
        attribute.preservesValueOnDeletion = flag(node.attributes["preserveAfterDeletion"])
        if flag(node.attributes["allowsExternalBinaryDataStorage"]) {
            if type == .binary { attribute.allowsExternalStorage = true } else {
                warnings.add("external storage on non-binary attributes", at: place)
            }
        }
        if let transformer = nonEmpty(node.attributes["valueTransformerName"]) {
            if type == .transformable { attribute.transformer = transformer } else {
                warnings.add("value transformers on non-transformable attributes", at: place)
            }
        }
        if let className = node.attributes["customClassName"] {
            warnings.add("custom class names (customClassName; code generation, not model)", at: "\(place) (\(className))")
        }
        if flag(node.attributes["derived"]) {
            warnings.add("derivations (derived attributes are imported as plain stored attributes)", at: place)
        }
        unknownAttributes(of: node, known: Self.attributeKeys.union(["customClassName", "derived", "derivationExpression"]), place: place)
        for child in node.children {
            warnings.add(child.name == "userInfo" ? "user info" : "unknown element <\(child.name)>", at: place)
        }
        // Defaults and limits, parsed per type as the format's decoder will parse them.
        if type == .date {
            attribute.defaultValue = dateValue(node.attributes["defaultDateTimeInterval"], subject: "\(subject): defaultDateTimeInterval", line: node.line)
            if attribute.defaultValue == nil, let text = node.attributes["defaultValueString"], !text.isEmpty {
                warnings.add("date defaults other than a fixed date (e.g. \"now\"; skipped)", at: "\(place) (\(text))")
            }
            attribute.minimum = dateValue(node.attributes["minDateTimeInterval"], subject: "\(subject): minDateTimeInterval", line: node.line)
            attribute.maximum = dateValue(node.attributes["maxDateTimeInterval"], subject: "\(subject): maxDateTimeInterval", line: node.line)
        } else {
            if let text = node.attributes["defaultValueString"] {
                attribute.defaultValue = defaultValue(text, type: type, subject: subject, place: place, line: node.line)
            }
            attribute.minimum = limit(node.attributes["minValueString"], key: "minValueString", type: type, subject: subject, place: place, line: node.line)
            attribute.maximum = limit(node.attributes["maxValueString"], key: "maxValueString", type: type, subject: subject, place: place, line: node.line)
        }
        return attribute
    }

    private mutating func defaultValue(_ text: String, type: AttributeType, subject: String, place: String, line: Int) -> Scalar? {
        switch type {
        case .string:
            return .quoted(text)
        case .transformable, .binary:
            warnings.add("defaults of \(type.rawValue) attributes (the format has none; skipped)", at: place)
            return nil
        case .boolean:
            switch text {
            case "YES", "1", "true": return .plain("true")
            case "NO", "0", "false": return .plain("false")
            default: break
            }
        default:
            // Xcode writes an empty default for a UUID or URI field left blank: no default.
            if text.isEmpty { return nil }
        }
        if let scalar = wellFormed(text, type: type) { return scalar }
        return foundationReading(text, type: type, attribute: "defaultValueString", place: place, subject: subject, line: line)
    }

    /// `text` as the model format writes it, when it is a well-formed value of `type`.
    private func wellFormed(_ text: String, type: AttributeType) -> Scalar? {
        guard case .success = DefaultValueParser.parse(text, as: type) else { return nil }
        switch type {
        case .integer16, .integer32, .integer64, .double, .float, .boolean: return .plain(text)
        default: return .quoted(text)
        }
    }

    /// A value Xcode saved that is not well formed for its type, read as Foundation
    /// reads it when the model is compiled (`NSString`'s `integerValue`, `doubleValue`,
    /// `boolValue`), and recorded for the file's header. A UUID or URI that does not
    /// parse is no value at all for Core Data: the default is left out, also recorded.
    private mutating func foundationReading(_ text: String, type: AttributeType, attribute key: String,
                                            place: String, subject: String, line: Int) -> Scalar? {
        let shown = "\(place): \(key) \"\(text.debugDescription.dropFirst().dropLast())\""
        func converted(_ scalar: Scalar, _ rule: String) -> Scalar {
            let value = switch scalar { case .plain(let v), .quoted(let v): v }
            conversions.append("\(shown) → \(value) (\(rule))")
            return scalar
        }
        switch type {
        case .integer16, .integer32, .integer64:
            let read = FoundationScalarText.integerValue(text)
            let range = type.integerRange ?? Int64.min...Int64.max
            let value = min(max(read, range.lowerBound), range.upperBound)
            return converted(.plain(String(value)), value == read ? "NSString.integerValue" : "NSString.integerValue, clamped to \(type.rawValue)")
        case .double, .float:
            return converted(.plain(FoundationScalarText.numericPrefix(text)), "NSString.doubleValue")
        case .decimal:
            let prefix = FoundationScalarText.numericPrefix(text)
            if case .success = DefaultValueParser.parse(prefix, as: .decimal) {
                return converted(.quoted(prefix), "its numeric prefix, as NSDecimalNumber reads it")
            }
        case .boolean:
            return converted(.plain(FoundationScalarText.boolValue(text) ? "true" : "false"), "NSString.boolValue")
        case .uuid, .uri:
            conversions.append("\(shown) left out (not a \(type == .uuid ? "UUID" : "URI"): Core Data has no value for it)")
            return nil
        default:
            break
        }
        if case .failure(let failure) = DefaultValueParser.parse(text, as: type) {
            errors.append("\(path):\(line): \(subject): \(key) \(failure.message)")
        }
        return nil
    }

    private mutating func limit(_ text: String?, key: String, type: AttributeType, subject: String, place: String, line: Int) -> Scalar? {
        guard let text, !text.isEmpty else { return nil }
        switch type {
        case .string, .binary, .uri:
            if let length = UInt64(text) { return .plain(String(length)) }
            let length = max(FoundationScalarText.integerValue(text), 0)
            conversions.append("\(place): \(key) \"\(text.debugDescription.dropFirst().dropLast())\" → \(length) (NSString.integerValue)")
            return .plain(String(length))
        case .integer16, .integer32, .integer64, .double, .float, .decimal:
            if let scalar = wellFormed(text, type: type) { return scalar }
            return foundationReading(text, type: type, attribute: key, place: place, subject: subject, line: line)
        case .boolean, .uuid, .transformable, .date:
            warnings.add("limits on \(type.rawValue) attributes (skipped)", at: place)
            return nil
        }
    }

    /// Xcode writes dates as seconds since 2001-01-01 (`defaultDateTimeInterval="0"`);
    /// the format writes ISO 8601, which `ISO8601.format` renders exactly (microseconds).
    private mutating func dateValue(_ text: String?, subject: String, line: Int) -> Scalar? {
        guard let text, !text.isEmpty else { return nil }
        guard let seconds = Double(text), seconds.isFinite else {
            errors.append("\(path):\(line): \(subject): '\(text)' is not a number of seconds since 2001-01-01")
            return nil
        }
        return .quoted(ISO8601.format(secondsSinceReferenceDate: seconds))
    }

    // MARK: Relationships

    private mutating func convertRelationship(_ node: XMLElementNode, entity: String) -> ConvertedRelationship? {
        guard let name = node.attributes["name"] else {
            errors.append("\(path):\(node.line): entity '\(entity)': <relationship> without a name")
            return nil
        }
        let subject = "relationship '\(entity).\(name)'"
        checkPropertyName(name, subject: subject, line: node.line)
        guard let destination = node.attributes["destinationEntity"] else {
            errors.append("\(path):\(node.line): \(subject): no destinationEntity")
            return nil
        }
        let place = "\(entity).\(name)"
        var relationship = ConvertedRelationship(name: name, destination: destination)
        relationship.isToMany = flag(node.attributes["toMany"])
        relationship.isOrdered = relationship.isToMany && flag(node.attributes["ordered"])
        // Xcode writes `optional="YES"` and leaves it out for a required relationship.
        relationship.isOptional = flag(node.attributes["optional"])
        relationship.isTransient = flag(node.attributes["transient"])
        relationship.inverse = nonEmpty(node.attributes["inverseName"])
        relationship.renamedFrom = renamingIdentifier(node, name: name)
        relationship.hashModifier = nonEmpty(node.attributes["versionHashModifier"])
        if let text = node.attributes["deletionRule"] {
            if let rule = Self.deleteRules[text] { relationship.deleteRule = rule } else {
                errors.append("\(path):\(node.line): \(subject): unknown deletionRule '\(text)' (Nullify, Cascade, Deny or No Action)")
            }
        }
        for key in ["minCount", "maxCount"] {
            guard let text = node.attributes[key] else { continue }
            guard let count = UInt64(text) else {
                errors.append("\(path):\(node.line): \(subject): \(key) '\(text)' is not a count")
                continue
            }
            // To-one is always max 1 (Xcode writes it); a zero count means "no limit".
            guard count > 0, relationship.isToMany || key == "minCount" else { continue }
            if key == "minCount" { relationship.minCount = count } else { relationship.maxCount = count }
        }
        unknownAttributes(of: node, known: Self.relationshipKeys, place: place)
        for child in node.children {
            warnings.add(child.name == "userInfo" ? "user info" : "unknown element <\(child.name)>", at: place)
        }
        return relationship
    }

    // MARK: Helpers

    private mutating func checkPropertyName(_ name: String, subject: String, line: Int) {
        if !NameRules.isPropertyName(name) {
            errors.append("\(path):\(line): \(subject): \(NameRules.propertyNameRule)")
        } else if ModelValidator.reservedPropertyNames.contains(name) {
            errors.append("\(path):\(line): \(subject): the name '\(name)' is reserved (it clashes with an NSManagedObject member)")
        }
    }

    /// `elementID` (Xcode 9 and later) or `renamingIdentifier` (older files); the
    /// identifier equal to the element's own name says nothing.
    private func renamingIdentifier(_ node: XMLElementNode, name: String) -> String? {
        guard let identifier = nonEmpty(node.attributes["elementID"] ?? node.attributes["renamingIdentifier"]),
              identifier != name else { return nil }
        return identifier
    }

    private mutating func unknownAttributes(of node: XMLElementNode, known: Set<String>, place: String) {
        for key in node.attributes.keys.sorted() where !known.contains(key) {
            warnings.add("\(key) on <\(node.name)> (not in the model format)", at: place)
        }
    }

    private func flag(_ text: String?) -> Bool { text == "YES" || text == "true" || text == "1" }

    private func nonEmpty(_ text: String?) -> String? { text.flatMap { $0.isEmpty ? nil : $0 } }
}
