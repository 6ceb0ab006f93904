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
    /// Entity names in order, for did-you-mean hints (sorted once, not per problem).
    private let sortedEntityNames: [String]
    private let hierarchy: EntityHierarchy
    private let visibility: PropertyVisibility
    /// Did-you-mean hints per unknown entity name: renaming an entity breaks every
    /// reference to it, and each hint compares the name with every entity's.
    private var entityHints: [String: String?] = [:]

    /// Validates `version` and returns its diagnostics (errors and warnings).
    public static func validate(_ version: ModelVersionDescription) -> [Diagnostic] {
        validate(version, inheritance: Inheritance(version))
    }

    /// Validates with inheritance facts the caller made (and compiles with).
    static func validate(_ version: ModelVersionDescription, inheritance: Inheritance) -> [Diagnostic] {
        var validator = ModelValidator(version: version, inheritance: inheritance)
        validator.run()
        return validator.diagnostics
    }

    private init(version: ModelVersionDescription, inheritance: Inheritance) {
        self.version = version
        sortedEntityNames = Set(version.entities.map(\.name)).sorted()
        hierarchy = inheritance.hierarchy
        visibility = inheritance.visibility
    }

    private mutating func error(_ message: String, at location: SourceLocation?, hint: String? = nil) {
        diagnostics.append(Diagnostic(.error, message, at: location, hint: hint))
    }

    private mutating func warning(_ message: String, at location: SourceLocation?, hint: String? = nil) {
        diagnostics.append(Diagnostic(.warning, message, at: location, hint: hint))
    }

    private mutating func entityHint(for name: String) -> String? {
        if let known = entityHints[name] { return known }
        let hint = Suggestions.hint(for: name, in: sortedEntityNames)
        entityHints[name] = hint
        return hint
    }

    private mutating func run() {
        checkComposites()
        checkEntityNames()
        checkInheritance()
        for i in version.entities.indices {
            checkProperties(of: i)
        }
        let claims = inverseClaims()
        for i in version.entities.indices {
            for (position, relationship) in version.entities[i].relationships.enumerated() {
                checkRelationship(relationship, of: i, claim: claims[RelationshipKey(entity: i, position: position)])
            }
            checkConstraintsAndIndexes(of: i)
        }
    }

    /// Composite attributes name a composite of the version; composites do not
    /// contain themselves (Core Data flattens them to their leaves); names are unique.
    private mutating func checkComposites() {
        var byName: [String: CompositeDescription] = [:]
        for composite in version.composites {
            if byName[composite.name] != nil {
                error("composite '\(composite.name)': declared twice", at: composite.location)
            } else {
                byName[composite.name] = composite
            }
        }
        let known = byName.keys.sorted()
        func check(_ attribute: AttributeDescription, in owner: String) {
            guard attribute.type == .composite, let name = attribute.composite, byName[name] == nil else { return }
            let listed =
                known.isEmpty ? "declare it under `composites:`" : "composites: \(known.joined(separator: ", "))"
            error(
                "attribute '\(owner).\(attribute.name)': unknown composite '\(name)'", at: attribute.location,
                hint: Suggestions.hint(for: name, in: known) ?? listed)
        }
        for entity in version.entities { for attribute in entity.attributes { check(attribute, in: entity.name) } }
        for composite in version.composites {
            for attribute in composite.attributes { check(attribute, in: composite.name) }
        }
        // A composite reached again while its own elements are being visited contains itself.
        var state: [String: Bool] = [:]  // false: being visited, true: done
        func visit(_ name: String, path: [String]) {
            if state[name] == true { return }
            if state[name] == false {
                let cycle = path.drop(while: { $0 != name }) + [name]
                if let composite = byName[name] {
                    error(
                        "composite '\(name)': contains itself (\(cycle.joined(separator: " → ")))",
                        at: composite.location)
                }
                return
            }
            guard let composite = byName[name] else { return }
            state[name] = false
            for attribute in composite.attributes where attribute.type == .composite {
                if let inner = attribute.composite { visit(inner, path: path + [name]) }
            }
            state[name] = true
        }
        for composite in version.composites { visit(composite.name, path: []) }
    }

    private mutating func checkEntityNames() {
        var tables: [String: EntityDescription] = [:]
        for entity in version.entities {
            let table = entity.name.uppercased()
            if let other = tables[table] {
                error(
                    """
                    entity '\(entity.name)': its table Z\(table) collides with entity '\(other.name)' (names may not \
                    differ only in case)
                    """,
                    at: entity.location)
            } else {
                tables[table] = entity
            }
        }
    }

    /// Reports unknown parents and cycles (each cycle once, at its member written
    /// first); later checks skip entities whose parent chain is not well formed.
    private mutating func checkInheritance() {
        var cycleStartingAt: [Int: [Int]] = [:]
        for cycle in hierarchy.cycles { cycleStartingAt[cycle[0]] = cycle }
        for (i, entity) in version.entities.enumerated() {
            switch hierarchy.chain[i] {
            case .unknownParent:
                error(
                    "entity '\(entity.name)': unknown parent entity '\(entity.parent ?? "")'", at: entity.location,
                    hint: entityHint(for: entity.parent ?? ""))
            case .cycle:
                if let cycle = cycleStartingAt[i] {
                    let names = (cycle + [cycle[0]]).map { hierarchy.names[$0] }
                    error(
                        "entity '\(entity.name)': inheritance cycle \(names.joined(separator: " → "))",
                        at: entity.location)
                }
            case .wellFormed, .broken:
                break
            }
        }
    }

    /// A property as the entity that declares it wrote it.
    private struct Visible {
        var entity: String
        var attribute: AttributeDescription?
        var relationship: RelationshipDescription?
    }

    /// The property `name` as entity `i` sees it, own or inherited.
    private func property(_ name: String, seenFrom i: Int) -> Visible? {
        guard let found = visibility.declaration(of: name, seenFrom: i) else { return nil }
        let owner = version.entities[found.entity]
        return found.isRelationship
            ? Visible(entity: owner.name, relationship: owner.relationships[found.position])
            : Visible(entity: owner.name, attribute: owner.attributes[found.position])
    }

    /// Every property name entity `i` sees, for did-you-mean hints: only built for
    /// a problem, so its cost (the length of the lineage) is paid per problem.
    private func propertyNames(seenFrom i: Int, relationshipsOnly: Bool = false) -> [String] {
        var names: Set<String> = []
        for owner in hierarchy.lineage(i) {
            let entity = version.entities[owner]
            if !relationshipsOnly { names.formUnion(entity.attributes.map(\.name)) }
            names.formUnion(entity.relationships.map(\.name))
        }
        return names.sorted()
    }

    /// A relationship by its entity's index and its position there.
    private struct RelationshipKey: Hashable {
        var entity: Int
        var position: Int
    }

    /// For each relationship without an inverse, a relationship of its destination
    /// (own or inherited) that names it as its inverse and points back to its
    /// entity's lineage, if any. Answered in one depth-first walk that keeps the
    /// relationships on the path by the inverse they name, so no destination's
    /// lineage is walked per question.
    private func inverseClaims() -> [RelationshipKey: (entity: String, relationship: RelationshipDescription)] {
        var questions: [Int: [RelationshipKey]] = [:]
        for (i, entity) in version.entities.enumerated() where hierarchy.isWellFormed(i) {
            for (position, relationship) in entity.relationships.enumerated() where relationship.inverse == nil {
                if let destination = hierarchy.index[relationship.destination], hierarchy.isWellFormed(destination) {
                    questions[destination, default: []].append(RelationshipKey(entity: i, position: position))
                }
            }
        }
        guard !questions.isEmpty else { return [:] }
        var answers: [RelationshipKey: (entity: String, relationship: RelationshipDescription)] = [:]
        var byInverse: [String: [(entity: Int, relationship: RelationshipDescription)]] = [:]
        let entities = version.entities
        let visibility = self.visibility
        let hierarchy = self.hierarchy
        hierarchy.walk(
            enter: { d in
                // Only the relationships a table of the destination's properties would
                // keep (the topmost of each name) can claim.
                for (position, r) in entities[d].relationships.enumerated() {
                    guard let inverse = r.inverse,
                        visibility.declaration(of: r.name, seenFrom: d)
                            == .init(entity: d, isRelationship: true, position: position)
                    else { continue }
                    byInverse[inverse, default: []].append((d, r))
                }
                for question in questions[d] ?? [] {
                    let asker = entities[question.entity].relationships[question.position]
                    for candidate in (byInverse[asker.name] ?? []).reversed() {
                        if let target = hierarchy.index[candidate.relationship.destination],
                            hierarchy.isAncestorOrSelf(target, of: question.entity)
                        {
                            answers[question] = (entities[candidate.entity].name, candidate.relationship)
                            break
                        }
                    }
                }
            },
            leave: { d in
                for (position, r) in entities[d].relationships.enumerated() {
                    guard let inverse = r.inverse,
                        visibility.declaration(of: r.name, seenFrom: d)
                            == .init(entity: d, isRelationship: true, position: position)
                    else { continue }
                    byInverse[inverse]?.removeLast()
                }
            })
        return answers
    }

    private mutating func checkProperties(of i: Int) {
        let entity = version.entities[i]
        var seen: [String: SourceLocation] = [:]
        let clashes = visibility.inheritedClashes[i]
        let declared: [(String, SourceLocation, String)] =
            entity.attributes.map { ($0.name, $0.location, "attribute") }
            + entity.relationships.map { ($0.name, $0.location, "relationship") }
        for (name, location, kind) in declared {
            if let first = seen[name] {
                error(
                    """
                    \(kind) '\(entity.name).\(name)': duplicate property name (first declared at line \(first.line), \
                    column \(first.column))
                    """,
                    at: location)
                continue
            }
            seen[name] = location
            if Self.reservedPropertyNames.contains(name) {
                error(
                    """
                    \(kind) '\(entity.name).\(name)': the name '\(name)' is reserved (it clashes with an \
                    NSManagedObject member)
                    """,
                    at: location)
            }
            if let ancestor = clashes[name] {
                error(
                    """
                    \(kind) '\(entity.name).\(name)': clashes with the property '\(name)' inherited from \
                    '\(hierarchy.names[ancestor])'
                    """,
                    at: location,
                    hint: "a subentity inherits every property of its parent; rename one of them")
            }
        }
        for attribute in entity.attributes {
            if attribute.isTransient, attribute.isIndexed {
                error(
                    """
                    attribute '\(entity.name).\(attribute.name)': a transient attribute is not stored and cannot be \
                    indexed
                    """,
                    at: attribute.location)
            }
        }
    }

    private mutating func checkRelationship(
        _ relationship: RelationshipDescription, of i: Int,
        claim: (entity: String, relationship: RelationshipDescription)?
    ) {
        let entity = version.entities[i]
        let subject = "relationship '\(entity.name).\(relationship.name)'"
        guard let d = hierarchy.index[relationship.destination] else {
            error(
                "\(subject): unknown destination entity '\(relationship.destination)'", at: relationship.location,
                hint: entityHint(for: relationship.destination))
            return
        }
        let destination = version.entities[d]
        guard hierarchy.isWellFormed(d), hierarchy.isWellFormed(i) else { return }
        /// Whether an entity name is this entity or one of its ancestors.
        func inLineage(_ name: String) -> Bool {
            hierarchy.index[name].map { hierarchy.isAncestorOrSelf($0, of: i) } ?? false
        }
        guard let inverseName = relationship.inverse else {
            checkNoInverse(relationship, subject: subject, destination: destination.name, claim: claim)
            return
        }
        guard let found = property(inverseName, seenFrom: d) else {
            error(
                "\(subject): inverse '\(inverseName)' does not exist on '\(destination.name)'",
                at: relationship.location,
                hint: Suggestions.hint(for: inverseName, in: propertyNames(seenFrom: d, relationshipsOnly: true)))
            return
        }
        guard let inverse = found.relationship else {
            error(
                "\(subject): inverse '\(destination.name).\(inverseName)' is an attribute, not a relationship",
                at: relationship.location)
            return
        }
        // The inverse must lead back to this entity or one of its ancestors.
        if !inLineage(inverse.destination) {
            error(
                """
                \(subject): inverse '\(found.entity).\(inverseName)' points to '\(inverse.destination)', not back to \
                '\(entity.name)'
                """,
                at: relationship.location)
            return
        }
        if inverse.inverse != relationship.name {
            // Xcode saves such models and Core Data opens them: each side hashes the
            // inverse name it gives, and each to-one keeps its own column. Xcode warns.
            let what = inverse.inverse.map { "names '\($0)' as its inverse" } ?? "names no inverse"
            warning(
                "\(subject): inverse '\(found.entity).\(inverseName)' \(what); Core Data keeps each side as written, "
                    + "but changes to one side do not update the other", at: relationship.location,
                hint:
                    """
                    write `inverse: \(relationship.name)` on '\(found.entity).\(inverseName)' unless the app relies on \
                    it
                    """
            )
        }
        if inverse.isTransient != relationship.isTransient {
            error(
                """
                \(subject): its inverse '\(found.entity).\(inverseName)' differs in transient; both sides must be \
                stored or neither
                """,
                at: relationship.location)
        }
    }

    /// A relationship without an inverse: an error when another names it as its inverse,
    /// else a warning unless it is one-way on purpose (`noInverse: true`) or transient.
    private mutating func checkNoInverse(
        _ relationship: RelationshipDescription, subject: String, destination: String,
        claim: (entity: String, relationship: RelationshipDescription)?
    ) {
        if let claim {
            error(
                """
                \(subject): has no inverse, but '\(destination).\(claim.relationship.name)' names it as its inverse
                """,
                at: relationship.location,
                hint: "add `inverse: \(claim.relationship.name)`")
        } else if !relationship.isTransient, !relationship.isOneWay {
            warning(
                "\(subject): has no inverse; Core Data cannot keep both sides consistent",
                at: relationship.location,
                hint:
                    """
                    add a relationship on '\(destination)' and name it with `inverse:`, or `noInverse: true` when it \
                    is one-way on purpose
                    """
            )
        }
    }

    private mutating func checkConstraintsAndIndexes(of i: Int) {
        guard hierarchy.isWellFormed(i) else { return }
        let entity = version.entities[i]
        func check(_ name: String, at location: SourceLocation, what: String) {
            guard let property = property(name, seenFrom: i) else {
                error(
                    "entity '\(entity.name)': \(what) names unknown property '\(name)'", at: location,
                    hint: Suggestions.hint(for: name, in: propertyNames(seenFrom: i)))
                return
            }
            if let attribute = property.attribute, attribute.isTransient {
                error(
                    "entity '\(entity.name)': \(what) names transient attribute '\(name)', which is not stored",
                    at: location)
            }
            if let relationship = property.relationship, relationship.isToMany || relationship.isTransient {
                let message = "entity '\(entity.name)': \(what) names relationship '\(name)', which has no column"
                if what.hasPrefix("index") {
                    // Xcode accepts it and apps ship it; an index has no column to cover for
                    // it, so the store's index leaves it out (Docs/Xcode.md).
                    warning(message + "; the index leaves it out", at: location)
                } else {
                    error(message + " (only stored to-one relationships can be used)", at: location)
                }
            }
        }
        for constraint in entity.uniqueness {
            if Set(constraint.properties).count != constraint.properties.count {
                error(
                    """
                    entity '\(entity.name)': uniqueness constraint [\(constraint.properties.joined(separator: ", "))] \
                    repeats a property
                    """,
                    at: constraint.location)
            }
            for name in constraint.properties { check(name, at: constraint.location, what: "uniqueness constraint") }
        }
        if Set(entity.uniqueness.map(\.properties)).count != entity.uniqueness.count {
            warning("entity '\(entity.name)': the same uniqueness constraint is written twice", at: entity.location)
        }
        // SQLite compares identifiers without regard to ASCII case: `byName` and
        // `ByName` would be one index.
        var indexNames: [String: IndexDescription] = [:]
        for index in entity.indexes {
            if let first = indexNames[index.name.lowercased()] {
                if first.name == index.name {
                    error(
                        """
                        entity '\(entity.name)': duplicate index name '\(index.name)' (first at line \
                        \(first.location.line))
                        """,
                        at: index.location)
                } else {
                    error(
                        "entity '\(entity.name)': index name '\(index.name)' differs from '\(first.name)' (line "
                            + "\(first.location.line)) only in case, "
                            + "and SQLite does not tell them apart", at: index.location)
                }
            } else {
                indexNames[index.name.lowercased()] = index
            }
            for element in index.elements {
                if let expression = element.expression, element.property.isEmpty {
                    warning(
                        """
                        entity '\(entity.name)': index '\(index.name)': the expression '\(expression)' is kept for \
                        Xcode but not indexed here: only an expression that is a key path has a known SQL form (its \
                        column)
                        """, at: element.location)
                    continue
                }
                check(element.property, at: element.location, what: "index '\(index.name)'")
            }
        }
    }
}
