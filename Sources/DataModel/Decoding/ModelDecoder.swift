/// Turns the YAML tree of one version file into a `ModelVersionDescription`, with a
/// diagnostic for every problem the file shows on its own (cross-entity checks are
/// the validator's).
struct ModelDecoder {
    static let versionKeys = [
        "model", "version", "identifier", "entities", "xcode", "syncable", "userInfo", "fetchRequests",
        "configurations",
        "composites", "xcodeVersion", "mappedFrom",
    ]
    static let entityKeys = [
        "parent", "abstract", "attributes", "relationships", "uniqueness", "indexes", "renamedFrom", "hashModifier",
        "className", "codeGeneration", "syncable", "userInfo", "xcode", "fetchedProperties",
    ]
    static let attributeKeys = [
        "type", "optional", "default", "transient", "indexed", "renamedFrom", "hashModifier",
        "externalStorage", "preserveAfterDeletion", "transformer", "min", "max",
        "scalar", "className", "syncable", "userInfo", "xcode", "composite",
    ]
    static let relationshipKeys = [
        "destination", "toMany", "ordered", "inverse", "deleteRule", "optional", "transient",
        "minCount", "maxCount", "renamedFrom", "hashModifier", "syncable", "userInfo", "xcode", "noInverse",
    ]
    static let compositeKeys = ["attributes", "userInfo", "xcode"]
    static let indexKeys = ["name", "properties", "compound"]
    static let indexElementKeys = ["property", "order", "expression", "expressionType"]

    var reader: NodeReader

    init(file: String) {
        reader = NodeReader(file: file)
    }

    /// Decodes a version; `nil` only when the root is unusable (diagnostics say why).
    mutating func decode(_ root: YAMLNode) -> ModelVersionDescription? {
        guard let pairs = reader.mapping(root, subject: "model file", allowed: Self.versionKeys) else { return nil }
        var model: String?
        var version: Int?
        var identifier: String?
        var entities: [EntityDescription] = []
        var modelLocation: SourceLocation?
        var versionLocation: SourceLocation?
        var xcode: XcodeSettings?
        var syncable: SyncableDefault?
        var fetchRequests: [XcodeElement] = []
        var configurations: [XcodeElement] = []
        var composites: [CompositeDescription] = []
        var xcodeVersion: (name: String?, current: Bool) = (nil, false)
        var mappedFrom: [(Int, YAMLNode)] = []
        for (key, _, value) in pairs {
            switch key {
            case "model":
                modelLocation = value.location
                model = decodeModelName(value)
            case "version":
                versionLocation = value.location
                version = decodeVersionNumber(value)
            case "identifier":
                identifier = reader.string(value, subject: "identifier")
            case "entities":
                entities = decodeEntities(value)
            case "xcode":
                var settings = xcode ?? XcodeSettings()
                decodeXcodeAttributes(value, subject: "xcode", into: &settings)
                xcode = settings
            case "userInfo":
                var settings = xcode ?? XcodeSettings()
                settings.userInfo = decodeUserInfo(value, subject: "userInfo")
                xcode = settings
            case "syncable":
                syncable = decodeSyncable(value)
            case "fetchRequests":
                fetchRequests = decodeXcodeElements(value, subject: "fetchRequests")
            case "configurations":
                configurations = decodeXcodeElements(value, subject: "configurations")
            case "composites":
                composites = decodeComposites(value)
            case "xcodeVersion":
                xcodeVersion = decodeXcodeVersion(value)
            case "mappedFrom":
                mappedFrom = (reader.sequence(value, subject: "mappedFrom") ?? []).compactMap { node in
                    reader.integer(node, subject: "mappedFrom").map { ($0, node) }
                }
            default: break
            }
        }
        for key in ["model", "version", "entities"] where !pairs.contains(where: { $0.key == key }) {
            reader.error("model file: missing required key '\(key)'", at: root)
        }
        var description = ModelVersionDescription(
            model: model ?? "", version: version ?? 0, identifier: identifier,
            entities: entities, file: reader.file,
            modelLocation: modelLocation, versionLocation: versionLocation)
        description.xcode = xcode
        description.syncable = syncable
        description.fetchRequests = fetchRequests
        description.configurations = configurations
        description.composites = composites
        (description.xcodeVersionName, description.xcodeIsCurrent) = xcodeVersion
        if let version {
            for (number, node) in mappedFrom where number < 1 || number >= version {
                reader.error("mappedFrom: \(number) is not an earlier version (this is version \(version))", at: node)
            }
        }
        description.mappedFrom = Array(Set(mappedFrom.map(\.0))).sorted()
        return description
    }

    /// `model:`: a model name (letters, digits, `_` and `-`, starting with a letter).
    private mutating func decodeModelName(_ value: YAMLNode) -> String? {
        guard let name = reader.string(value, subject: "model") else { return nil }
        guard Identifier.isModelName(name) else {
            reader.error(
                "model: '\(name)' is not a valid model name (letters, digits, '_' and '-', starting with a letter)",
                at: value)
            return nil
        }
        return name
    }

    /// `version:`: 1 or more.
    private mutating func decodeVersionNumber(_ value: YAMLNode) -> Int? {
        guard let number = reader.integer(value, subject: "version") else { return nil }
        guard number >= 1 else {
            reader.error("version: must be 1 or more, found \(number)", at: value)
            return nil
        }
        return number
    }

    /// `syncable:`: all, entities or none (nil).
    private mutating func decodeSyncable(_ value: YAMLNode) -> SyncableDefault? {
        guard let text = reader.string(value, subject: "syncable"), text != "none" else { return nil }
        guard let parsed = SyncableDefault(rawValue: text) else {
            reader.error("syncable: expected all, entities or none, found '\(text)'", at: value)
            return nil
        }
        return parsed
    }

    /// `xcodeVersion: { name: "Model v2", current: true }`: the version's place in
    /// the Xcode bundle it came from (Docs/Xcode.md).
    private mutating func decodeXcodeVersion(_ node: YAMLNode) -> (name: String?, current: Bool) {
        var result: (name: String?, current: Bool) = (nil, false)
        guard let pairs = reader.mapping(node, subject: "xcodeVersion", allowed: ["name", "current"]) else {
            return result
        }
        for (key, _, value) in pairs {
            if key == "name", let name = reader.string(value, subject: "xcodeVersion: name") {
                if name.isEmpty || name.contains("/") || name.hasPrefix(".") {
                    reader.error(
                        "xcodeVersion: name: '\(name)' cannot name a folder (no '/', not empty, not starting with '.')",
                        at: value)
                } else {
                    result.name = name
                }
            }
            if key == "current" { result.current = reader.bool(value, subject: "xcodeVersion: current") ?? false }
        }
        return result
    }

    /// `composites: { Address: { attributes: { city: string?, … } } }`.
    private mutating func decodeComposites(_ node: YAMLNode) -> [CompositeDescription] {
        guard let pairs = reader.mapping(node, subject: "composites", allowed: []) else { return [] }
        var result: [CompositeDescription] = []
        for (name, keyNode, body) in pairs {
            let subject = "composite '\(name)'"
            if !Identifier.isEntityName(name) {
                reader.error(
                    """
                    \(subject): not a valid composite name (ASCII letters, digits and '_', starting with an uppercase \
                    letter)
                    """,
                    at: keyNode)
            }
            var composite = CompositeDescription(name: name, location: keyNode.location)
            if body.isNull {
                result.append(composite)
                continue
            }
            guard let fields = reader.mapping(body, subject: subject, allowed: Self.compositeKeys) else { continue }
            for (key, _, value) in fields {
                switch key {
                case "attributes":
                    guard let attributes = reader.mapping(value, subject: "\(subject): attributes", allowed: []) else {
                        break
                    }
                    composite.attributes = attributes.compactMap {
                        decodeAttribute(entity: name, name: $0.key, keyNode: $0.keyNode, value: $0.value)
                    }
                case "userInfo": composite.xcode.userInfo = decodeUserInfo(value, subject: "\(subject): userInfo")
                case "xcode": decodeXcodeAttributes(value, subject: "\(subject): xcode", into: &composite.xcode)
                default: break
                }
            }
            result.append(composite)
        }
        return result
    }

    private mutating func decodeEntities(_ node: YAMLNode) -> [EntityDescription] {
        guard let pairs = reader.mapping(node, subject: "entities", allowed: []) else { return [] }
        if pairs.isEmpty {
            reader.error("entities: a model version needs at least one entity", at: node)
        }
        return pairs.compactMap { decodeEntity(name: $0.key, keyNode: $0.keyNode, body: $0.value) }
    }

    private mutating func decodeEntity(name: String, keyNode: YAMLNode, body: YAMLNode) -> EntityDescription? {
        let subject = "entity '\(name)'"
        if !Identifier.isEntityName(name) {
            reader.error(
                """
                \(subject): not a valid entity name (ASCII letters, digits and '_', starting with an uppercase letter)
                """,
                at: keyNode)
        }
        var entity = EntityDescription(name: name, location: keyNode.location)
        guard let pairs = reader.mapping(body, subject: subject, allowed: Self.entityKeys) else { return entity }
        for (key, _, value) in pairs {
            switch key {
            case "parent":
                entity.parent = reader.string(value, subject: "\(subject): parent")
            case "abstract":
                entity.isAbstract = reader.bool(value, subject: "\(subject): abstract") ?? false
            case "attributes":
                guard let attributes = reader.mapping(value, subject: "\(subject): attributes", allowed: []) else {
                    break
                }
                entity.attributes = attributes.compactMap {
                    decodeAttribute(entity: name, name: $0.key, keyNode: $0.keyNode, value: $0.value)
                }
            case "relationships":
                guard let relationships = reader.mapping(value, subject: "\(subject): relationships", allowed: [])
                else { break }
                entity.relationships = relationships.compactMap {
                    decodeRelationship(entity: name, name: $0.key, keyNode: $0.keyNode, value: $0.value)
                }
            case "uniqueness":
                entity.uniqueness = decodeUniqueness(value, subject: "\(subject): uniqueness")
            case "indexes":
                entity.indexes = decodeIndexes(value, entity: name, subject: "\(subject): indexes")
            case "renamedFrom":
                entity.renamedFrom = reader.string(value, subject: "\(subject): renamedFrom")
            case "hashModifier":
                entity.hashModifier = reader.string(value, subject: "\(subject): hashModifier")
            case "className":
                entity.xcode["representedClassName"] = reader.text(value, subject: "\(subject): className")
            case "codeGeneration":
                entity.xcode["codeGenerationType"] = reader.text(value, subject: "\(subject): codeGeneration")
            case "syncable":
                entity.xcode.syncable = reader.bool(value, subject: "\(subject): syncable")
            case "userInfo":
                entity.xcode.userInfo = decodeUserInfo(value, subject: "\(subject): userInfo")
            case "xcode":
                decodeXcodeAttributes(value, subject: "\(subject): xcode", into: &entity.xcode)
            case "fetchedProperties":
                entity.fetchedProperties = decodeXcodeElements(value, subject: "\(subject): fetchedProperties")
            default: break
            }
        }
        return entity
    }

    // MARK: What only Xcode reads

    /// `xcode: { representedClassName: "App.Photo", … }`: XML attributes by Xcode's names.
    mutating func decodeXcodeAttributes(_ node: YAMLNode, subject: String, into settings: inout XcodeSettings) {
        guard let pairs = reader.mapping(node, subject: subject, allowed: []) else { return }
        for (key, _, value) in pairs {
            if let text = reader.text(value, subject: "\(subject): \(key)") { settings[key] = text }
        }
    }

    /// `userInfo: { key: value }`, in order.
    mutating func decodeUserInfo(_ node: YAMLNode, subject: String) -> [XcodeSettings.Entry] {
        guard let pairs = reader.mapping(node, subject: subject, allowed: []) else { return [] }
        return pairs.compactMap { key, _, value in
            reader.text(value, subject: "\(subject): \(key)").map { XcodeSettings.Entry(key, $0) }
        }
    }

    /// Fetched properties, fetch requests, configurations: `name: { attribute: text,
    /// userInfo: {…}, child: {…}, entities: [A, B] }`.
    private mutating func decodeXcodeElements(_ node: YAMLNode, subject: String) -> [XcodeElement] {
        guard let pairs = reader.mapping(node, subject: subject, allowed: []) else { return [] }
        var result: [XcodeElement] = []
        for (name, keyNode, body) in pairs {
            var element = XcodeElement(name: name, location: keyNode.location)
            guard let fields = reader.mapping(body, subject: "\(subject): \(name)", allowed: []) else { continue }
            for (key, _, value) in fields {
                let place = "\(subject): \(name): \(key)"
                switch value.content {
                case _ where key == "userInfo":
                    element.settings.userInfo = decodeUserInfo(value, subject: place)
                case .mapping:
                    let attributes = decodeUserInfo(value, subject: place)
                    element.children.append(.init(tag: key, attributes: attributes))
                case .sequence:
                    // `entities: [A, B]`: a configuration's `<memberEntity name="A"/>`s.
                    let tag = key == "entities" ? "memberEntity" : key
                    for item in reader.sequence(value, subject: place) ?? [] {
                        if let member = reader.string(item, subject: place) {
                            element.children.append(.init(tag: tag, attributes: [.init("name", member)]))
                        }
                    }
                case .scalar:
                    if let text = reader.text(value, subject: place) { element.settings[key] = text }
                }
            }
            result.append(element)
        }
        return result
    }

    /// Property names: an ASCII letter, then letters, digits and '_'. Core Data
    /// accepts a first uppercase letter (apps ship `Box` for years; Xcode's editor
    /// only warns), and its column is the same `Z<NAME>`: a warning, not an error.
    mutating func checkPropertyName(_ name: String, subject: String, at keyNode: YAMLNode) {
        if !Identifier.isPropertyName(name) {
            reader.error("\(subject): \(Identifier.propertyNameRule)", at: keyNode)
        } else if Identifier.startsUppercase(name) {
            reader.warning(
                """
                \(subject): the name starts with an uppercase letter; Core Data accepts it, \
                but Swift and Objective-C accessors expect a lowercase one
                """,
                at: keyNode.location,
                hint: """
                    keep it if the app shipped it (renaming changes the version hash); \
                    otherwise prefer '\(name.prefix(1).lowercased() + name.dropFirst())'
                    """)
        }
    }

    /// `name: string` or `name: string?`: a type and nothing else.
    private mutating func decodeShortAttribute(name: String, subject: String, keyNode: YAMLNode, value: YAMLNode)
        -> AttributeDescription?
    {
        guard let (type, optional) = parseType(value, subject: subject) else { return nil }
        if type == .composite {
            reader.error(
                "\(subject): a composite attribute names its composite", at: value,
                hint: "write `\(name): { type: composite, composite: Address }`")
            return nil
        }
        return AttributeDescription(name: name, type: type, isOptional: optional, location: keyNode.location)
    }

    private mutating func decodeAttribute(entity: String, name: String, keyNode: YAMLNode, value: YAMLNode)
        -> AttributeDescription?
    {
        let subject = "attribute '\(entity).\(name)'"
        checkPropertyName(name, subject: subject, at: keyNode)
        // Short form: `name: string` or `name: string?`.
        if case .scalar = value.content, !value.isNull {
            return decodeShortAttribute(name: name, subject: subject, keyNode: keyNode, value: value)
        }
        guard let pairs = reader.mapping(value, subject: subject, allowed: Self.attributeKeys) else { return nil }
        guard let typePair = pairs.first(where: { $0.key == "type" }) else {
            reader.error(
                "\(subject): missing required key 'type'", at: value.isNull ? keyNode : value,
                hint: "write `\(name): string` or `\(name): { type: string, … }`")
            return nil
        }
        guard let (type, optionalFromType) = parseType(typePair.value, subject: subject) else { return nil }
        var attribute = AttributeDescription(
            name: name, type: type, isOptional: optionalFromType, location: keyNode.location)
        var defaultNode: YAMLNode?
        var limitNodes: [(String, YAMLNode)] = []
        for (key, keyNode, node) in pairs {
            switch key {
            case "optional":
                if let flag = reader.bool(node, subject: "\(subject): optional") {
                    if optionalFromType, !flag {
                        reader.error(
                            "\(subject): 'optional: false' contradicts the type '\(type.rawValue)?'", at: keyNode)
                    }
                    attribute.isOptional = flag || optionalFromType
                }
            case "default": defaultNode = node
            case "transient": attribute.isTransient = reader.bool(node, subject: "\(subject): transient") ?? false
            case "indexed": attribute.isIndexed = reader.bool(node, subject: "\(subject): indexed") ?? false
            case "renamedFrom": attribute.renamedFrom = reader.string(node, subject: "\(subject): renamedFrom")
            case "hashModifier": attribute.hashModifier = reader.string(node, subject: "\(subject): hashModifier")
            case "min", "max": limitNodes.append((key, node))
            default: decodeAttributeDetail(key, node, keyNode: keyNode, subject: subject, into: &attribute)
            }
        }
        if type == .composite, attribute.composite == nil, !pairs.contains(where: { $0.key == "composite" }) {
            reader.error(
                "\(subject): a composite attribute names its composite", at: keyNode,
                hint: "write `\(name): { type: composite, composite: Address }`")
        }
        if let node = defaultNode, !node.isNull {
            attribute.defaultValue = parseValue(node, type: type, subject: "\(subject): default")
        }
        for (key, node) in limitNodes {
            let limit = parseLimit(node, type: type, subject: "\(subject): \(key)")
            if key == "min" { attribute.minimum = limit } else { attribute.maximum = limit }
        }
        checkLimits(attribute, subject: subject, defaultNode: defaultNode)
        return attribute
    }

    /// An attribute's keys beyond its type, optionality, default, limits and
    /// the ones every property has: storage, history, transformer, composite, and
    /// what only Xcode reads.
    private mutating func decodeAttributeDetail(
        _ key: String, _ node: YAMLNode, keyNode: YAMLNode, subject: String, into attribute: inout AttributeDescription
    ) {
        let type = attribute.type
        switch key {
        case "externalStorage":
            attribute.allowsExternalStorage = reader.bool(node, subject: "\(subject): externalStorage") ?? false
            if attribute.allowsExternalStorage, type != .binary {
                reader.error(
                    "\(subject): externalStorage applies to binary attributes only, not \(type.rawValue)",
                    at: keyNode)
            }
        case "preserveAfterDeletion":
            attribute.preservesValueInHistoryOnDeletion =
                reader.bool(node, subject: "\(subject): preserveAfterDeletion") ?? false
        case "transformer":
            attribute.transformer = reader.string(node, subject: "\(subject): transformer")
            if type != .transformable {
                reader.error(
                    "\(subject): transformer applies to transformable attributes only, not \(type.rawValue)",
                    at: keyNode)
            }
        case "scalar":
            attribute.xcode["usesScalarValueType"] = reader.bool(node, subject: "\(subject): scalar").map {
                $0 ? "YES" : "NO"
            }
        case "className": attribute.xcode["customClassName"] = reader.text(node, subject: "\(subject): className")
        case "syncable": attribute.xcode.syncable = reader.bool(node, subject: "\(subject): syncable")
        case "userInfo": attribute.xcode.userInfo = decodeUserInfo(node, subject: "\(subject): userInfo")
        case "xcode": decodeXcodeAttributes(node, subject: "\(subject): xcode", into: &attribute.xcode)
        case "composite":
            attribute.composite = reader.string(node, subject: "\(subject): composite")
            if type != .composite {
                reader.error(
                    "\(subject): composite applies to composite attributes only, not \(type.rawValue)", at: keyNode)
            }
        default: break
        }
    }

    private mutating func parseType(_ node: YAMLNode, subject: String) -> (AttributeType, Bool)? {
        guard let text = reader.string(node, subject: "\(subject): type") else { return nil }
        let optional = text.hasSuffix("?")
        let bare = optional ? String(text.dropLast()) : text
        if let type = AttributeType(rawValue: bare) { return (type, optional) }
        let names = AttributeType.allCases.map(\.rawValue)
        reader.error(
            "\(subject): unknown type '\(bare)'", at: node,
            hint: Suggestions.hint(for: bare, in: names) ?? "types are: \(names.joined(separator: ", "))")
        return nil
    }

    private mutating func parseValue(_ node: YAMLNode, type: AttributeType, subject: String) -> AttributeValue? {
        guard case .scalar(let text, let style) = node.content else {
            reader.error("\(subject): expected a \(type.rawValue) value, found \(reader.describe(node))", at: node)
            return nil
        }
        // A quoted "true" for a boolean is a string someone meant as text; accept it
        // anyway, the parse per type decides.
        _ = style
        switch DefaultValueParser.parse(text, as: type) {
        case .success(let value): return value
        case .failure(let failure):
            reader.error("\(subject): \(failure.message)", at: node)
            return nil
        }
    }

    private mutating func parseLimit(_ node: YAMLNode, type: AttributeType, subject: String) -> AttributeValue? {
        switch type {
        case .string, .binary, .uri:
            guard let length = reader.unsignedInteger(node, subject: "\(subject) (a length)") else { return nil }
            return .integer(Int64(clamping: length))
        case .integer16, .integer32, .integer64, .decimal, .double, .float, .date:
            return parseValue(node, type: type, subject: subject)
        case .boolean, .uuid, .transformable, .composite:
            reader.error("\(subject): \(type.rawValue) attributes have no limits", at: node)
            return nil
        }
    }

    private mutating func checkLimits(_ attribute: AttributeDescription, subject: String, defaultNode: YAMLNode?) {
        if let lower = attribute.minimum, let upper = attribute.maximum,
            let order = AttributeDescription.compare(lower, with: upper), order > 0
        {
            reader.error("\(subject): min is greater than max", at: attribute.location)
        }
        guard let node = defaultNode, let value = attribute.defaultValue else { return }
        // The rules mapping-file values are held to as well (`violations(of:)`).
        for problem in attribute.violations(of: value) {
            reader.error("\(subject): default \(problem)", at: node)
        }
    }
}
