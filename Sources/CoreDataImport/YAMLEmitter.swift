import DataModel

/// Writes a `ConvertedVersion` in the model format (Docs/ModelFormat.md): short forms
/// where they say everything, flow mappings otherwise, strings double-quoted.
enum YAMLEmitter {
    /// The YAML text, and for each of its lines that states an element (1-based), where
    /// that element is written in the `contents` file: diagnostics of the imported
    /// version point there.
    struct Output {
        var text: String
        var sources: [Int: XMLPosition]
    }

    static func emit(
        _ version: ConvertedVersion, model: String, version number: Int, header: [String], warnings: [String],
        conversions: [String] = []
    ) -> String {
        emitMapped(version, model: model, version: number, header: header, warnings: warnings, conversions: conversions)
            .text
    }

    static func emitMapped(
        _ version: ConvertedVersion, model: String, version number: Int, header: [String], warnings: [String],
        conversions: [String] = []
    ) -> Output {
        var lines = header.map { "# " + $0 }
        if !conversions.isEmpty {
            lines.append(
                """
                # Read as Foundation reads them (Xcode accepted these values; they are not well formed for their type):
                """
            )
            lines += conversions.map { "#   - " + $0 }
        }
        if !warnings.isEmpty {
            lines.append("# Not imported, or kept for Xcode only:")
            lines += warnings.map { "#   - " + $0 }
        }
        lines.append("model: \(model)")
        lines.append("version: \(number)")
        if let identifier = version.identifier { lines.append("identifier: \(quote(identifier))") }
        // Present on every imported version, empty or not: it says the version is kept
        // for Xcode, so export writes exactly what it says (Docs/Xcode.md).
        lines.append("xcode: " + flow(version.xcode.attributes))
        var placement: [String] = []
        if let name = version.bundleName { placement.append("name: \(quote(name))") }
        if version.isCurrentBeforeLast { placement.append("current: true") }
        if !placement.isEmpty { lines.append("xcodeVersion: { \(placement.joined(separator: ", ")) }") }
        if let syncable = version.syncable { lines.append("syncable: \(syncable.rawValue)") }
        if !version.xcode.userInfo.isEmpty { lines.append("userInfo: " + flow(version.xcode.userInfo)) }
        var sources: [Int: XMLPosition] = [:]
        for (title, elements) in [("fetchRequests", version.fetchRequests), ("configurations", version.configurations)]
        where !elements.isEmpty {
            lines.append("\(title):")
            for element in elements {
                sources[lines.count + 1] = XMLPosition(line: element.location.line, column: element.location.column)
                lines.append("  \(key(element.name)): \(kept(element))")
            }
        }
        if !version.composites.isEmpty {
            lines.append("composites:")
            for composite in version.composites {
                sources[lines.count + 1] = composite.position
                var pairs: [String] = []
                if !composite.xcode.userInfo.isEmpty { pairs.append("    userInfo: " + flow(composite.xcode.userInfo)) }
                if !composite.xcode.attributes.isEmpty {
                    pairs.append("    xcode: " + flow(composite.xcode.attributes))
                }
                if composite.attributes.isEmpty, pairs.isEmpty {
                    lines.append("  \(key(composite.name)): {}")
                    continue
                }
                lines.append("  \(key(composite.name)):")
                lines += pairs
                if composite.attributes.isEmpty { continue }
                lines.append("    attributes:")
                for a in composite.attributes {
                    sources[lines.count + 1] = a.position
                    lines.append("      \(key(a.name)): \(attribute(a))")
                }
            }
        }
        lines.append("entities:")
        for entity in version.entities {
            sources[lines.count + 1] = entity.position
            let body = entityBody(entity)
            if body.isEmpty {
                lines.append("  \(key(entity.name)): {}")
            } else {
                lines.append("  \(key(entity.name)):")
                for (line, position) in body {
                    if let position { sources[lines.count + 1] = position }
                    lines.append("    " + line)
                }
            }
        }
        return Output(text: lines.joined(separator: "\n") + "\n", sources: sources)
    }

    private static func entityBody(_ entity: ConvertedEntity) -> [(String, XMLPosition?)] {
        var lines: [(String, XMLPosition?)] = []
        func add(_ line: String, _ position: XMLPosition? = nil) { lines.append((line, position)) }
        if let parent = entity.parent { add("parent: \(key(parent))", entity.position) }
        if entity.isAbstract { add("abstract: true", entity.position) }
        if let renamed = entity.renamedFrom { add("renamedFrom: \(quote(renamed))", entity.position) }
        if let modifier = entity.hashModifier { add("hashModifier: \(quote(modifier))", entity.position) }
        var xcode = entity.xcode
        if let className = xcode["representedClassName"] {
            add("className: \(quote(className))")
            xcode["representedClassName"] = nil
        }
        if let codegen = xcode["codeGenerationType"] {
            add("codeGeneration: \(quote(codegen))")
            xcode["codeGenerationType"] = nil
        }
        if let syncable = xcode.syncable { add("syncable: \(syncable)") }
        if !xcode.userInfo.isEmpty { add("userInfo: " + flow(xcode.userInfo)) }
        if !xcode.attributes.isEmpty { add("xcode: " + flow(xcode.attributes)) }
        if !entity.attributes.isEmpty {
            add("attributes:")
            for a in entity.attributes { add("  \(key(a.name)): \(attribute(a))", a.position) }
        }
        if !entity.relationships.isEmpty {
            add("relationships:")
            for r in entity.relationships { add("  \(key(r.name)): \(relationship(r))", r.position) }
        }
        if !entity.fetchedProperties.isEmpty {
            add("fetchedProperties:")
            for f in entity.fetchedProperties {
                add("  \(key(f.name)): \(kept(f))", XMLPosition(line: f.location.line, column: f.location.column))
            }
        }
        if !entity.uniqueness.isEmpty {
            add(
                "uniqueness: ["
                    + entity.uniqueness.map { "[" + $0.map(key).joined(separator: ", ") + "]" }.joined(separator: ", ")
                    + "]", entity.position)
        }
        if !entity.indexes.isEmpty {
            add("indexes:")
            for index in entity.indexes {
                let properties = index.elements.map(indexElement)
                let list = "[" + properties.joined(separator: ", ") + "]"
                if index.isCompound {
                    add("  - { properties: \(list), compound: true }", index.position)
                } else {
                    add(index.name.map { "  - { name: \($0), properties: \(list) }" } ?? "  - \(list)", index.position)
                }
            }
        }
        return lines
    }

    /// An index element: its property's name, or a mapping for an expression or a
    /// descending order.
    private static func indexElement(_ element: ConvertedIndex.Element) -> String {
        guard let expression = element.expression else {
            return element.descending
                ? "{ property: \(key(element.property)), order: descending }" : key(element.property)
        }
        var pairs = ["expression: \(quote(expression))"]
        if let type = element.expressionType { pairs.append("expressionType: \(quote(type))") }
        if element.descending { pairs.append("order: descending") }
        return "{ " + pairs.joined(separator: ", ") + " }"
    }

    /// `{ key: "text", … }`.
    static func flow(_ entries: [XcodeSettings.Entry]) -> String {
        entries.isEmpty
            ? "{}" : "{ " + entries.map { "\(key($0.key)): \(quote($0.value))" }.joined(separator: ", ") + " }"
    }

    /// A fetched property, fetch request or configuration: its attributes, its
    /// children by tag (a configuration's members as `entities: [A, B]`), its user info.
    static func kept(_ element: XcodeElement) -> String {
        var pairs = element.settings.attributes.map { "\(key($0.key)): \(quote($0.value))" }
        if let syncable = element.settings.syncable, syncable { pairs.append("syncable: \"YES\"") }
        let members = element.children.filter { $0.tag == "memberEntity" }.compactMap {
            $0.attributes.first { $0.key == "name" }?.value
        }
        if !members.isEmpty { pairs.append("entities: [" + members.map(key).joined(separator: ", ") + "]") }
        for child in element.children where child.tag != "memberEntity" {
            pairs.append("\(key(child.tag)): \(flow(child.attributes))")
        }
        if !element.settings.userInfo.isEmpty { pairs.append("userInfo: \(flow(element.settings.userInfo))") }
        return pairs.isEmpty ? "{}" : "{ " + pairs.joined(separator: ", ") + " }"
    }

    /// The named keys for what Xcode says of a property, then its other settings.
    private static func xcodePairs(_ settings: XcodeSettings, className classKey: String?) -> [String] {
        var settings = settings
        var pairs: [String] = []
        if let scalar = settings["usesScalarValueType"], scalar == "YES" || scalar == "NO" {
            pairs.append("scalar: \(scalar == "YES")")
            settings["usesScalarValueType"] = nil
        }
        if let classKey, let className = settings[classKey] {
            pairs.append("className: \(quote(className))")
            settings[classKey] = nil
        }
        if let syncable = settings.syncable { pairs.append("syncable: \(syncable)") }
        if !settings.userInfo.isEmpty { pairs.append("userInfo: " + flow(settings.userInfo)) }
        if !settings.attributes.isEmpty { pairs.append("xcode: " + flow(settings.attributes)) }
        return pairs
    }

    private static func attribute(_ a: ConvertedAttribute) -> String {
        var pairs: [String] = ["type: \(a.type.rawValue)"]
        if let composite = a.composite { pairs.append("composite: \(key(composite))") }
        if a.isOptional { pairs.append("optional: true") }
        if a.isTransient { pairs.append("transient: true") }
        if let value = a.defaultValue { pairs.append("default: \(scalar(value))") }
        if let value = a.minimum { pairs.append("min: \(scalar(value))") }
        if let value = a.maximum { pairs.append("max: \(scalar(value))") }
        if a.isIndexed { pairs.append("indexed: true") }
        if a.allowsExternalStorage { pairs.append("externalStorage: true") }
        if a.preservesValueOnDeletion { pairs.append("preserveAfterDeletion: true") }
        if let transformer = a.transformer { pairs.append("transformer: \(quote(transformer))") }
        if let renamed = a.renamedFrom { pairs.append("renamedFrom: \(quote(renamed))") }
        if let modifier = a.hashModifier { pairs.append("hashModifier: \(quote(modifier))") }
        pairs += xcodePairs(a.xcode, className: "customClassName")
        if pairs.count == 1, a.composite == nil { return a.type.rawValue }
        if pairs.count == 2, a.isOptional, a.composite == nil { return a.type.rawValue + "?" }
        return "{ " + pairs.joined(separator: ", ") + " }"
    }

    private static func relationship(_ r: ConvertedRelationship) -> String {
        var pairs: [String] = ["destination: \(key(r.destination))"]
        if r.isToMany { pairs.append("toMany: true") }
        if r.isOrdered { pairs.append("ordered: true") }
        if !r.isOptional { pairs.append("optional: false") }
        if r.isTransient { pairs.append("transient: true") }
        if let count = r.minCount { pairs.append("minCount: \(count)") }
        if let count = r.maxCount { pairs.append("maxCount: \(count)") }
        if let inverse = r.inverse { pairs.append("inverse: \(key(inverse))") }
        if r.deleteRule != .nullify { pairs.append("deleteRule: \(r.deleteRule.rawValue)") }
        if let renamed = r.renamedFrom { pairs.append("renamedFrom: \(quote(renamed))") }
        if let modifier = r.hashModifier { pairs.append("hashModifier: \(quote(modifier))") }
        pairs += xcodePairs(r.xcode, className: nil)
        return "{ " + pairs.joined(separator: ", ") + " }"
    }

    private static func scalar(_ value: Scalar) -> String {
        switch value {
        case .plain(let text): text
        case .quoted(let text): quote(text)
        }
    }

    /// Words YAML reads as something other than a string, plain.
    private static let special: Set<String> = ["null", "~", "true", "false", "yes", "no", "on", "off", "y", "n"]

    /// A name plain when it is a simple word YAML reads as a string, else quoted.
    static func key(_ name: String) -> String {
        let simple =
            !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
            && !(name.first!.isNumber) && !special.contains(name.lowercased())
        return simple ? name : quote(name)
    }

    /// A double-quoted YAML scalar with `\`, `"` and control characters escaped.
    static func quote(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
                    || scalar.value == 0x2028 || scalar.value == 0x2029 || scalar.value == 0xFEFF
                {
                    result +=
                        "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                        + String(scalar.value, radix: 16)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
