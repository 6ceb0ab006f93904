/// Checks one model version as a whole: references between entities, inheritance,
/// inverses, constraints and storage-layout collisions. Reports every problem.
public struct ModelValidator {
    /// Property names that clash with `NSManagedObject` members, which Xcode refuses too.
    public static let reservedPropertyNames: Set<String> = [
        "class", "description", "entity", "objectID", "managedObjectContext", "isDeleted", "isInserted",
        "isUpdated", "isFault", "hasChanges", "changedValues", "hash", "self", "superclass", "faultingState",
    ]

    private var diagnostics: [Diagnostic] = []
    private let version: ModelVersionDescription
    private let entitiesByName: [String: EntityDescription]

    /// Validates `version` and returns its diagnostics (errors and warnings).
    public static func validate(_ version: ModelVersionDescription) -> [Diagnostic] {
        var validator = ModelValidator(version: version)
        validator.run()
        return validator.diagnostics
    }

    private init(version: ModelVersionDescription) {
        self.version = version
        var byName: [String: EntityDescription] = [:]
        for entity in version.entities where byName[entity.name] == nil { byName[entity.name] = entity }
        entitiesByName = byName
    }

    private mutating func error(_ message: String, at location: SourceLocation?, hint: String? = nil) {
        diagnostics.append(Diagnostic(.error, message, at: location, hint: hint))
    }

    private mutating func warning(_ message: String, at location: SourceLocation?, hint: String? = nil) {
        diagnostics.append(Diagnostic(.warning, message, at: location, hint: hint))
    }

    private mutating func run() {
        checkEntityNames()
        let acyclic = checkInheritance()
        for entity in version.entities {
            checkProperties(of: entity, acyclic: acyclic)
        }
        for entity in version.entities {
            for relationship in entity.relationships {
                checkRelationship(relationship, of: entity, acyclic: acyclic)
            }
            checkConstraintsAndIndexes(of: entity, acyclic: acyclic)
        }
    }

    private mutating func checkEntityNames() {
        var tables: [String: EntityDescription] = [:]
        for entity in version.entities {
            let table = entity.name.uppercased()
            if let other = tables[table] {
                error("entity '\(entity.name)': its table Z\(table) collides with entity '\(other.name)' (names may not differ only in case)",
                      at: entity.location)
            } else {
                tables[table] = entity
            }
        }
    }

    /// Reports unknown parents and cycles; returns the names of entities whose
    /// ancestor chain is well-formed (the others are skipped by later checks).
    private mutating func checkInheritance() -> Set<String> {
        var good: Set<String> = []
        var reportedCycles: Set<String> = []
        for entity in version.entities {
            guard let parent = entity.parent else { good.insert(entity.name); continue }
            if entitiesByName[parent] == nil {
                error("entity '\(entity.name)': unknown parent entity '\(parent)'", at: entity.location,
                      hint: Suggestions.hint(for: parent, in: entitiesByName.keys.sorted()))
                continue
            }
            var seen: [String] = [entity.name]
            var current = parent
            var ok = true
            while true {
                if seen.contains(current) {
                    if current == entity.name, !reportedCycles.contains(entity.name) {
                        let cycle = seen + [current]
                        reportedCycles.formUnion(cycle)
                        error("entity '\(entity.name)': inheritance cycle \(cycle.joined(separator: " → "))", at: entity.location)
                    }
                    ok = false
                    break
                }
                seen.append(current)
                guard let next = entitiesByName[current]?.parent else { break }
                guard entitiesByName[next] != nil else { ok = false; break }
                current = next
            }
            if ok { good.insert(entity.name) }
        }
        return good
    }

    private func ancestors(of entity: EntityDescription) -> [EntityDescription] {
        var result: [EntityDescription] = []
        var current = entity.parent
        while let name = current, let parent = entitiesByName[name], !result.contains(where: { $0.name == name }), name != entity.name {
            result.append(parent)
            current = parent.parent
        }
        return result
    }

    /// Own and inherited properties by name: (declaring entity, is relationship).
    private func allProperties(of entity: EntityDescription) -> [String: (entity: String, attribute: AttributeDescription?, relationship: RelationshipDescription?)] {
        var result: [String: (String, AttributeDescription?, RelationshipDescription?)] = [:]
        for owner in ([entity] + ancestors(of: entity)).reversed() {
            for a in owner.attributes where result[a.name] == nil { result[a.name] = (owner.name, a, nil) }
            for r in owner.relationships where result[r.name] == nil { result[r.name] = (owner.name, nil, r) }
        }
        return result
    }

    private mutating func checkProperties(of entity: EntityDescription, acyclic: Set<String>) {
        var seen: [String: SourceLocation] = [:]
        let inherited = acyclic.contains(entity.name) ? ancestors(of: entity) : []
        let declared: [(String, SourceLocation, String)] =
            entity.attributes.map { ($0.name, $0.location, "attribute") } + entity.relationships.map { ($0.name, $0.location, "relationship") }
        for (name, location, kind) in declared {
            if let first = seen[name] {
                error("\(kind) '\(entity.name).\(name)': duplicate property name (first declared at line \(first.line), column \(first.column))",
                      at: location)
                continue
            }
            seen[name] = location
            if Self.reservedPropertyNames.contains(name) {
                error("\(kind) '\(entity.name).\(name)': the name '\(name)' is reserved (it clashes with an NSManagedObject member)", at: location)
            }
            if let ancestor = inherited.first(where: { $0.location(ofProperty: name) != nil }) {
                error("\(kind) '\(entity.name).\(name)': clashes with the property '\(name)' inherited from '\(ancestor.name)'", at: location,
                      hint: "a subentity inherits every property of its parent; rename one of them")
            }
        }
        for attribute in entity.attributes {
            if attribute.isTransient, attribute.isIndexed {
                error("attribute '\(entity.name).\(attribute.name)': a transient attribute is not stored and cannot be indexed", at: attribute.location)
            }
            if !attribute.isOptional, !attribute.isTransient, attribute.defaultValue == nil, attribute.type == .boolean {
                // Legal, but Core Data users are often surprised: nothing to say.
            }
        }
    }

    private mutating func checkRelationship(_ relationship: RelationshipDescription, of entity: EntityDescription, acyclic: Set<String>) {
        let subject = "relationship '\(entity.name).\(relationship.name)'"
        guard let destination = entitiesByName[relationship.destination] else {
            error("\(subject): unknown destination entity '\(relationship.destination)'", at: relationship.location,
                  hint: Suggestions.hint(for: relationship.destination, in: entitiesByName.keys.sorted()))
            return
        }
        guard acyclic.contains(destination.name), acyclic.contains(entity.name) else { return }
        let lineage = Set(([entity] + ancestors(of: entity)).map(\.name))
        guard let inverseName = relationship.inverse else {
            // Does something claim this relationship as its inverse?
            let claims = allProperties(of: destination).values.compactMap(\.relationship)
                .filter { $0.inverse == relationship.name && lineage.contains($0.destination) }
            if let claim = claims.first {
                error("\(subject): has no inverse, but '\(destination.name).\(claim.name)' names it as its inverse", at: relationship.location,
                      hint: "add `inverse: \(claim.name)`")
            } else if !relationship.isTransient {
                warning("\(subject): has no inverse; Core Data cannot keep both sides consistent", at: relationship.location,
                        hint: "add a relationship on '\(destination.name)' and name it with `inverse:`")
            }
            return
        }
        let candidates = allProperties(of: destination)
        guard let found = candidates[inverseName] else {
            let names = candidates.values.compactMap(\.relationship).map(\.name)
            error("\(subject): inverse '\(inverseName)' does not exist on '\(destination.name)'", at: relationship.location,
                  hint: Suggestions.hint(for: inverseName, in: names))
            return
        }
        guard let inverse = found.relationship else {
            error("\(subject): inverse '\(destination.name).\(inverseName)' is an attribute, not a relationship", at: relationship.location)
            return
        }
        // The inverse must lead back to this entity or one of its ancestors.
        if !lineage.contains(inverse.destination) {
            error("\(subject): inverse '\(found.entity).\(inverseName)' points to '\(inverse.destination)', not back to '\(entity.name)'",
                  at: relationship.location)
            return
        }
        if inverse.inverse != relationship.name {
            let what = inverse.inverse.map { "names '\($0)' as its inverse" } ?? "names no inverse"
            error("\(subject): inverse '\(found.entity).\(inverseName)' \(what); inverses must name each other",
                  at: relationship.location, hint: "write `inverse: \(relationship.name)` on '\(found.entity).\(inverseName)'")
        }
        if inverse.isTransient != relationship.isTransient {
            error("\(subject): its inverse '\(found.entity).\(inverseName)' differs in transient; both sides must be stored or neither",
                  at: relationship.location)
        }
    }

    private mutating func checkConstraintsAndIndexes(of entity: EntityDescription, acyclic: Set<String>) {
        guard acyclic.contains(entity.name) else { return }
        let properties = allProperties(of: entity)
        func check(_ name: String, at location: SourceLocation, what: String) {
            guard let property = properties[name] else {
                error("entity '\(entity.name)': \(what) names unknown property '\(name)'", at: location,
                      hint: Suggestions.hint(for: name, in: properties.keys.sorted()))
                return
            }
            if let attribute = property.attribute, attribute.isTransient {
                error("entity '\(entity.name)': \(what) names transient attribute '\(name)', which is not stored", at: location)
            }
            if let relationship = property.relationship, relationship.isToMany || relationship.isTransient {
                error("entity '\(entity.name)': \(what) names relationship '\(name)', which has no column (only stored to-one relationships can be used)",
                      at: location)
            }
        }
        for constraint in entity.uniqueness {
            if Set(constraint.properties).count != constraint.properties.count {
                error("entity '\(entity.name)': uniqueness constraint [\(constraint.properties.joined(separator: ", "))] repeats a property", at: constraint.location)
            }
            for name in constraint.properties { check(name, at: constraint.location, what: "uniqueness constraint") }
        }
        if Set(entity.uniqueness.map(\.properties)).count != entity.uniqueness.count {
            warning("entity '\(entity.name)': the same uniqueness constraint is written twice", at: entity.location)
        }
        var indexNames: [String: SourceLocation] = [:]
        for index in entity.indexes {
            if let first = indexNames[index.name] {
                error("entity '\(entity.name)': duplicate index name '\(index.name)' (first at line \(first.line))", at: index.location)
            }
            indexNames[index.name] = index.location
            for element in index.elements { check(element.property, at: element.location, what: "index '\(index.name)'") }
        }
    }
}
