/// Uniqueness constraints and indexes of an entity.
extension ModelDecoder {
    mutating func decodeUniqueness(_ node: YAMLNode, subject: String) -> [UniquenessConstraint] {
        guard let items = reader.sequence(node, subject: subject) else { return [] }
        var result: [UniquenessConstraint] = []
        for item in items {
            // `[[email]]` or the shorthand `[email]` for single-property constraints.
            if case .scalar = item.content, let name = reader.string(item, subject: subject) {
                result.append(UniquenessConstraint(properties: [name], location: item.location))
                continue
            }
            guard let names = reader.sequence(item, subject: subject) else { continue }
            let properties = names.compactMap { reader.string($0, subject: subject) }
            if properties.isEmpty {
                reader.error("\(subject): a constraint needs at least one property", at: item)
            } else if properties.count == names.count {
                result.append(UniquenessConstraint(properties: properties, location: item.location))
            }
        }
        return result
    }

    mutating func decodeIndexes(_ node: YAMLNode, entity: String, subject: String) -> [IndexDescription] {
        guard let items = reader.sequence(node, subject: subject) else { return [] }
        var result: [IndexDescription] = []
        for item in items {
            var name: String?
            var compound = false
            var elementNodes: [YAMLNode] = []
            switch item.content {
            case .scalar:
                elementNodes = [item]
            case .sequence(let nodes):
                elementNodes = nodes
            case .mapping:
                guard let pairs = reader.mapping(item, subject: subject, allowed: Self.indexKeys) else { continue }
                for (key, _, value) in pairs {
                    if key == "name" { name = reader.string(value, subject: "\(subject): name") }
                    if key == "properties" {
                        elementNodes = reader.sequence(value, subject: "\(subject): properties") ?? []
                    }
                    if key == "compound" { compound = reader.bool(value, subject: "\(subject): compound") ?? false }
                }
                if !pairs.contains(where: { $0.key == "properties" }) {
                    reader.error("\(subject): missing required key 'properties'", at: item)
                    continue
                }
            }
            var elements: [IndexDescription.Element] = []
            for elementNode in elementNodes {
                if case .mapping = elementNode.content {
                    if let element = decodeIndexElement(elementNode, subject: subject) { elements.append(element) }
                } else if let property = reader.string(elementNode, subject: subject) {
                    elements.append(.init(property: property, isDescending: false, location: elementNode.location))
                }
            }
            guard !elements.isEmpty else {
                if elementNodes.isEmpty { reader.error("\(subject): an index needs at least one property", at: item) }
                continue
            }
            let generated =
                "by" + elements.map { $0.property.prefix(1).uppercased() + $0.property.dropFirst() }.joined()
                + (elements.contains { $0.expression != nil && $0.property.isEmpty } ? "Expression" : "")
            if let name, !Identifier.isIndexName(name) {
                reader.error(
                    "\(subject): '\(name)' is not a valid index name (ASCII letters, digits and '_')", at: item)
            }
            result.append(
                IndexDescription(
                    name: name ?? generated, isCompound: compound, elements: elements, location: item.location))
        }
        return result
    }

    /// One index element written as a mapping: `{ property: p, order: descending }` or
    /// `{ expression: "…", expressionType: … }`.
    private mutating func decodeIndexElement(_ elementNode: YAMLNode, subject: String) -> IndexDescription.Element? {
        guard let pairs = reader.mapping(elementNode, subject: subject, allowed: Self.indexElementKeys)
        else { return nil }
        var property: String?
        var expression: String?
        var expressionType: String?
        var descending = false
        for (key, _, value) in pairs {
            if key == "property" { property = reader.string(value, subject: "\(subject): property") }
            if key == "expression" { expression = reader.string(value, subject: "\(subject): expression") }
            if key == "expressionType" {
                expressionType = reader.string(value, subject: "\(subject): expressionType")
            }
            if key == "order", let order = reader.string(value, subject: "\(subject): order") {
                switch order {
                case "ascending": descending = false
                case "descending": descending = true
                default:
                    reader.error(
                        "\(subject): order must be ascending or descending, found '\(order)'", at: value)
                }
            }
        }
        if property != nil, expression != nil {
            reader.error(
                "\(subject): an index element has a property or an expression, not both", at: elementNode)
        } else if let property {
            return .init(property: property, isDescending: descending, location: elementNode.location)
        } else if let expression {
            return .init(
                property: IndexDescription.Element.keyPath(of: expression) ?? "", isDescending: descending,
                location: elementNode.location, expression: expression, expressionType: expressionType)
        } else if !pairs.isEmpty {
            reader.error("\(subject): an index element needs a property or an expression", at: elementNode)
        }
        return nil
    }
}
