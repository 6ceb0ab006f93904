import DataModel

/// Writes a `ConvertedVersion` in the model format (Docs/ModelFormat.md): short forms
/// where they say everything, flow mappings otherwise, strings double-quoted.
enum YAMLEmitter {
    static func emit(_ version: ConvertedVersion, model: String, version number: Int, header: [String], warnings: [String],
                     conversions: [String] = []) -> String {
        var lines = header.map { "# " + $0 }
        if !conversions.isEmpty {
            lines.append("# Read as Foundation reads them (Xcode accepted these values; they are not well formed for their type):")
            lines += conversions.map { "#   - " + $0 }
        }
        if !warnings.isEmpty {
            lines.append("# Not imported (no place in the model format):")
            lines += warnings.map { "#   - " + $0 }
        }
        lines.append("model: \(model)")
        lines.append("version: \(number)")
        if let identifier = version.identifier { lines.append("identifier: \(quote(identifier))") }
        lines.append("entities:")
        for entity in version.entities {
            let body = entityBody(entity)
            if body.isEmpty {
                lines.append("  \(key(entity.name)): {}")
            } else {
                lines.append("  \(key(entity.name)):")
                lines += body.map { "    " + $0 }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func entityBody(_ entity: ConvertedEntity) -> [String] {
        var lines: [String] = []
        if let parent = entity.parent { lines.append("parent: \(key(parent))") }
        if entity.isAbstract { lines.append("abstract: true") }
        if let renamed = entity.renamedFrom { lines.append("renamedFrom: \(quote(renamed))") }
        if let modifier = entity.hashModifier { lines.append("hashModifier: \(quote(modifier))") }
        if !entity.attributes.isEmpty {
            lines.append("attributes:")
            lines += entity.attributes.map { "  \(key($0.name)): \(attribute($0))" }
        }
        if !entity.relationships.isEmpty {
            lines.append("relationships:")
            lines += entity.relationships.map { "  \(key($0.name)): \(relationship($0))" }
        }
        if !entity.uniqueness.isEmpty {
            lines.append("uniqueness: [" + entity.uniqueness.map { "[" + $0.map(key).joined(separator: ", ") + "]" }.joined(separator: ", ") + "]")
        }
        if !entity.indexes.isEmpty {
            lines.append("indexes:")
            for index in entity.indexes {
                let properties = index.elements.map { $0.descending ? "{ property: \(key($0.property)), order: descending }" : key($0.property) }
                let list = "[" + properties.joined(separator: ", ") + "]"
                lines.append(index.name.map { "  - { name: \($0), properties: \(list) }" } ?? "  - \(list)")
            }
        }
        return lines
    }

    private static func attribute(_ a: ConvertedAttribute) -> String {
        var pairs: [String] = ["type: \(a.type.rawValue)"]
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
        if pairs.count == 1 { return a.type.rawValue }
        if pairs.count == 2, a.isOptional { return a.type.rawValue + "?" }
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
        let simple = !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
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
                    || scalar.value == 0x2028 || scalar.value == 0x2029 || scalar.value == 0xFEFF {
                    result += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
