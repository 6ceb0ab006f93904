/// One relationship of an entity in a version file.
extension ModelDecoder {
    mutating func decodeRelationship(entity: String, name: String, keyNode: YAMLNode, value: YAMLNode)
        -> RelationshipDescription?
    {
        let subject = "relationship '\(entity).\(name)'"
        checkPropertyName(name, subject: subject, at: keyNode)
        guard let pairs = reader.mapping(value, subject: subject, allowed: Self.relationshipKeys) else { return nil }
        guard let destinationPair = pairs.first(where: { $0.key == "destination" }),
            let destination = reader.string(destinationPair.value, subject: "\(subject): destination")
        else {
            if !pairs.contains(where: { $0.key == "destination" }) {
                reader.error("\(subject): missing required key 'destination'", at: value.isNull ? keyNode : value)
            }
            return nil
        }
        var relationship = RelationshipDescription(name: name, destination: destination, location: keyNode.location)
        var orderedNode: YAMLNode?
        var maxCountNode: YAMLNode?
        var noInverseNode: YAMLNode?
        for (key, keyNode, node) in pairs {
            switch key {
            case "toMany": relationship.isToMany = reader.bool(node, subject: "\(subject): toMany") ?? false
            case "ordered":
                relationship.isOrdered = reader.bool(node, subject: "\(subject): ordered") ?? false
                orderedNode = keyNode
            case "inverse": relationship.inverse = reader.string(node, subject: "\(subject): inverse")
            case "noInverse":
                relationship.isOneWay = reader.bool(node, subject: "\(subject): noInverse") ?? false
                noInverseNode = keyNode
            case "deleteRule":
                guard let text = reader.string(node, subject: "\(subject): deleteRule") else { break }
                if let rule = DeleteRule(rawValue: text) {
                    relationship.deleteRule = rule
                } else {
                    let names = DeleteRule.allCases.map(\.rawValue)
                    reader.error(
                        "\(subject): unknown delete rule '\(text)'", at: node,
                        hint: Suggestions.hint(for: text, in: names)
                            ?? "delete rules are: \(names.joined(separator: ", "))")
                }
            case "optional": relationship.isOptional = reader.bool(node, subject: "\(subject): optional") ?? true
            case "transient": relationship.isTransient = reader.bool(node, subject: "\(subject): transient") ?? false
            case "minCount": relationship.minCount = reader.unsignedInteger(node, subject: "\(subject): minCount")
            case "maxCount":
                relationship.maxCount = reader.unsignedInteger(node, subject: "\(subject): maxCount")
                maxCountNode = node
            case "renamedFrom": relationship.renamedFrom = reader.string(node, subject: "\(subject): renamedFrom")
            case "hashModifier": relationship.hashModifier = reader.string(node, subject: "\(subject): hashModifier")
            case "syncable": relationship.xcode.syncable = reader.bool(node, subject: "\(subject): syncable")
            case "userInfo": relationship.xcode.userInfo = decodeUserInfo(node, subject: "\(subject): userInfo")
            case "xcode": decodeXcodeAttributes(node, subject: "\(subject): xcode", into: &relationship.xcode)
            default: break
            }
        }
        // `ordered` on a to-one: Xcode keeps the flag when a to-many becomes to-one and
        // Core Data hashes it (Docs/Xcode.md); it orders nothing, so it is kept as written.
        _ = orderedNode
        if !relationship.isToMany, let maxCount = relationship.maxCount, maxCount != 1, let maxCountNode {
            reader.error(
                "\(subject): a to-one relationship has maxCount 1, found \(maxCount)", at: maxCountNode,
                hint: "add `toMany: true`")
        }
        if relationship.isOneWay, let inverse = relationship.inverse, let noInverseNode {
            reader.error(
                "\(subject): noInverse: true, and it names the inverse '\(inverse)'", at: noInverseNode,
                hint: "keep one of the two")
        }
        if let minCount = relationship.minCount, let maxCount = relationship.maxCount, maxCount > 0, minCount > maxCount
        {
            reader.error(
                "\(subject): minCount \(minCount) is greater than maxCount \(maxCount)", at: maxCountNode ?? keyNode)
        }
        return relationship
    }
}
