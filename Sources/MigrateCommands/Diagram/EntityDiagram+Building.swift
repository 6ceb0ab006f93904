import DataModel
import Mapping
import ModelMigration

extension EntityDiagram {
    /// The entities, relationships and parents of one version.
    init(version: CompiledVersion) {
        var builder = DiagramBuilder(destination: version, source: nil, mapping: nil)
        self.init(
            model: version.model,
            title: "\(version.model) version \(version.version)" + (version.identifier.map { " (\($0))" } ?? ""),
            subtitle: nil, entities: [], relationships: [], inheritances: [])
        builder.build(into: &self)
    }

    /// Version B of a mapping, each element marked with its change as `migrate diff`
    /// lists it; A's removed entities and properties are drawn too, marked removed.
    /// Reading the mapping (not comparing the versions again) keeps both commands in
    /// agreement, renames through intermediate versions and mapping files included.
    init(mapping: MappingModel, source: CompiledVersion, destination: CompiledVersion) {
        var builder = DiagramBuilder(destination: destination, source: source, mapping: mapping)
        self.init(
            model: mapping.model,
            title: "\(mapping.model) \(mapping.sourceVersion) → \(mapping.destinationVersion): "
                + (mapping.mappingFile.map { "mapping file \($0) merged over inference" } ?? "inferred (lightweight)"),
            subtitle: """
                drawn on version \(destination.version)'s entities; \
                what version \(source.version) has and \(destination.version) drops is drawn too, marked removed
                """,
            entities: [], relationships: [], inheritances: [])
        builder.build(into: &self)
    }
}

/// Walks version B (and, for a diff, the mapping from A) once, in the order the
/// diagram is drawn.
private struct DiagramBuilder {
    let destination: CompiledVersion
    let source: CompiledVersion?
    let mapping: MappingModel?
    /// Version A's entity names → the id drawn: their version-B entity, or their
    /// own name (suffixed when B took it) for removed entities.
    private var drawnNames: [String: String] = [:]
    /// Relationship sides in drawing order, paired up at the end.
    private var sides: [PendingSide] = []

    /// Identifies a relationship in one of the two versions.
    private struct SideKey: Hashable {
        var inSource: Bool
        var entity: String
        var name: String
    }

    private struct PendingSide {
        var key: SideKey
        /// Nil without an inverse; equal to `key` for a relationship that is its own inverse.
        var inverseKey: SideKey?
        var entity: String
        var destination: String
        var side: EntityDiagram.Side
        var cardinality: EntityDiagram.Cardinality
        var inverseCardinality: EntityDiagram.Cardinality?
    }

    init(destination: CompiledVersion, source: CompiledVersion?, mapping: MappingModel?) {
        self.destination = destination
        self.source = source
        self.mapping = mapping
        guard let mapping else { return }
        for entityMapping in mapping.entityMappings where entityMapping.kind != .remove {
            if let name = entityMapping.source, let drawn = entityMapping.destination, drawnNames[name] == nil {
                drawnNames[name] = drawn
            }
        }
        var taken = Set(destination.entities.map(\.name))
        for entityMapping in mapping.entityMappings where entityMapping.kind == .remove {
            guard let name = entityMapping.source, drawnNames[name] == nil else { continue }
            var drawn = name
            while taken.contains(drawn) { drawn += "_removed" }
            taken.insert(drawn)
            drawnNames[name] = drawn
        }
    }

    mutating func build(into diagram: inout EntityDiagram) {
        for entity in destination.entities {
            diagram.entities.append(current(entity))
            diagram.inheritances += currentParents(of: entity)
        }
        for entityMapping in mapping?.entityMappings ?? [] where entityMapping.kind == .remove {
            guard let name = entityMapping.source, let entity = source?.entity(named: name) else { continue }
            diagram.entities.append(removed(entity))
            if let parent = entity.parent {
                diagram.inheritances.append(
                    .init(child: drawnName(ofSource: name), parent: drawnName(ofSource: parent), change: .removed))
            }
        }
        diagram.relationships = pairSides()
    }

    // MARK: Entities

    /// A version-B entity: its own attributes with their changes, then the ones it lost.
    private mutating func current(_ entity: CompiledEntity) -> EntityDiagram.Entity {
        let entityMapping = mapping?.mapping(forDestination: entity.name)
        var attributes: [EntityDiagram.Attribute] = []
        for attribute in Self.declared(entity.attributes, by: entity) {
            var (change, text) =
                entityMapping.flatMap { self.change(of: $0.property(attribute.name), in: $0) } ?? (
                    EntityDiagram.Change.none, nil
                )
            let layout = entityMapping.map { Self.layoutChanges(of: attribute.name, in: $0) } ?? []
            if !layout.isEmpty {
                text = ([text].compactMap { $0 } + layout).joined(separator: ", ")
                if change == .none { change = .changed }
            }
            attributes.append(Self.attribute(attribute.declaration, in: entity, change: change, changeText: text))
        }
        for relationship in Self.declared(entity.relationships, by: entity) {
            var (change, text) =
                entityMapping.flatMap { self.change(of: $0.property(relationship.name), in: $0) } ?? (
                    EntityDiagram.Change.none, nil
                )
            let layout = entityMapping.map { Self.layoutChanges(of: relationship.name, in: $0) } ?? []
            if !layout.isEmpty {
                text = ([text].compactMap { $0 } + layout).joined(separator: ", ")
                if change == .none { change = .changed }
            }
            sides.append(
                side(relationship, in: entity, of: destination, inSource: false, change: change, changeText: text))
        }
        if let entityMapping, let name = entityMapping.source, let sourceEntity = source?.entity(named: name) {
            for dropped in entityMapping.droppedProperties where !isDroppedByAncestor(dropped, of: entity.name) {
                if let attribute = sourceEntity.attribute(named: dropped) {
                    attributes.append(
                        Self.attribute(attribute.declaration, in: sourceEntity, change: .removed, changeText: "removed")
                    )
                } else if let relationship = sourceEntity.relationship(named: dropped), let source {
                    var pending = side(
                        relationship, in: sourceEntity, of: source, inSource: true, change: .removed,
                        changeText: "removed")
                    pending.entity = entity.name
                    sides.append(pending)
                }
            }
        }
        let change: EntityDiagram.Change =
            switch entityMapping?.kind {
            case .add: .added
            case .transform, .custom: .changed
            case .remove: .removed
            case .copy, nil: .none
            }
        let entityLayout =
            entityMapping?.layoutChanges.filter { text in
                !entity.attributes.contains { text.hasPrefix("\($0.name): ") }
                    && !entity.relationships.contains { text.hasPrefix("\($0.name): ") }
            } ?? []
        var text = change == .none ? nil : entityMapping?.change
        if !entityLayout.isEmpty { text = ([text].compactMap { $0 } + entityLayout).joined(separator: ", ") }
        return EntityDiagram.Entity(
            id: entity.name, name: entity.name, isAbstract: entity.isAbstract, attributes: attributes,
            change: change == .none && !entityLayout.isEmpty ? .changed : change, changeText: text)
    }

    /// A version-A entity the mapping removes, with the properties it declared.
    private mutating func removed(_ entity: CompiledEntity) -> EntityDiagram.Entity {
        let attributes = Self.declared(entity.attributes, by: entity).filter { !$0.declaration.isTransient }
            .map { Self.attribute($0.declaration, in: entity, change: .removed, changeText: "removed") }
        for relationship in Self.declared(entity.relationships, by: entity) where !relationship.declaration.isTransient
        {
            sides.append(
                side(relationship, in: entity, of: source!, inSource: true, change: .removed, changeText: "removed"))
        }
        return EntityDiagram.Entity(
            id: drawnName(ofSource: entity.name), name: entity.name, isAbstract: entity.isAbstract,
            attributes: attributes,
            change: .removed,
            changeText: mapping?.entityMappings.first { $0.kind == .remove && $0.source == entity.name }?.change)
    }

    /// A dropped property is drawn where it was lost: not on a subentity whose
    /// version-B parent lost it too (the parent shows it, the subentity inherits the picture).
    private func isDroppedByAncestor(_ property: String, of entity: String) -> Bool {
        destination.lineage(of: entity).dropFirst().contains { ancestor in
            mapping?.mapping(forDestination: ancestor)?.droppedProperties.contains(property) == true
        }
    }

    /// The version-B parent link, and the version-A one it replaced.
    private func currentParents(of entity: CompiledEntity) -> [EntityDiagram.Inheritance] {
        guard let mapping else {
            return entity.parent.map { [.init(child: entity.name, parent: $0, change: .none)] } ?? []
        }
        let entityMapping = mapping.mapping(forDestination: entity.name)
        let oldParent = entityMapping?.source.flatMap { source?.entity(named: $0)?.parent }.map {
            drawnName(ofSource: $0)
        }
        var links: [EntityDiagram.Inheritance] = []
        if let parent = entity.parent {
            links.append(.init(child: entity.name, parent: parent, change: oldParent == parent ? .none : .added))
        }
        if let oldParent, oldParent != entity.parent {
            links.append(.init(child: entity.name, parent: oldParent, change: .removed))
        }
        return links
    }

    private func drawnName(ofSource name: String) -> String { drawnNames[name] ?? name }

    /// The properties an entity declares itself, in the model file's order (the
    /// compiled entity sorts them by name and includes inherited ones).
    private static func declared<Property: DeclaredProperty>(_ properties: [Property], by entity: CompiledEntity)
        -> [Property]
    {
        properties.filter { $0.declaredIn == entity.name }
            .sorted { ($0.location.line, $0.location.column) < ($1.location.line, $1.location.column) }
    }

    // MARK: Properties

    private static func attribute(
        _ a: AttributeDescription, in entity: CompiledEntity, change: EntityDiagram.Change,
        changeText: String?
    ) -> EntityDiagram.Attribute {
        var notes: [String] = []
        if a.isOptional { notes.append("optional") }
        if a.isTransient { notes.append("transient") }
        for constraint in entity.uniqueness where constraint.count > 1 && constraint.contains(a.name) {
            notes.append("unique with " + constraint.filter { $0 != a.name }.joined(separator: ", "))
        }
        if let changeText { notes.append(changeText) }
        return EntityDiagram.Attribute(
            name: a.name, type: a.type.rawValue, isUnique: entity.uniqueness.contains([a.name]),
            notes: notes, change: change)
    }

    private func side(
        _ relationship: CompiledRelationship, in entity: CompiledEntity, of version: CompiledVersion, inSource: Bool,
        change: EntityDiagram.Change, changeText: String?
    ) -> PendingSide {
        let r = relationship.declaration
        let inverseKey = relationship.inverseEntity.flatMap { inverseEntity in
            r.inverse.map { SideKey(inSource: inSource, entity: inverseEntity, name: $0) }
        }
        let inverse = inverseKey.flatMap { version.entity(named: $0.entity)?.relationship(named: $0.name) }
        let drawn = { (name: String) in inSource ? self.drawnName(ofSource: name) : name }
        return PendingSide(
            key: SideKey(inSource: inSource, entity: entity.name, name: r.name), inverseKey: inverseKey,
            entity: drawn(entity.name), destination: drawn(inverseKey?.entity ?? r.destination),
            side: EntityDiagram.Side(
                name: r.name,
                notes: (r.isOrdered ? ["ordered"] : []) + (r.isTransient ? ["transient"] : [])
                    + (changeText.map { [$0] } ?? []), change: change),
            cardinality: Self.cardinality(r), inverseCardinality: inverse.map { Self.cardinality($0.declaration) })
    }

    /// A required relationship must hold an object (to-one) or at least one (to-many),
    /// as `load` and the migration checks read `optional: false`.
    private static func cardinality(_ r: RelationshipDescription) -> EntityDiagram.Cardinality {
        r.isToMany ? (r.isOptional ? .zeroOrMore : .oneOrMore) : (r.isOptional ? .zeroOrOne : .exactlyOne)
    }

    /// One line per relationship and its inverse, from the side drawn first.
    private func pairSides() -> [EntityDiagram.Relationship] {
        let index = Dictionary(sides.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { first, _ in first })
        var used = Set<Int>()
        var lines: [EntityDiagram.Relationship] = []
        for (i, pending) in sides.enumerated() where !used.contains(i) {
            used.insert(i)
            var inverse: PendingSide?
            if let key = pending.inverseKey, key != pending.key, let j = index[key], !used.contains(j) {
                used.insert(j)
                inverse = sides[j]
            }
            // Without an inverse the store decides: a to-many keeps one owner per
            // destination, and any number of objects may point to one destination.
            let isToMany = pending.cardinality == .zeroOrMore || pending.cardinality == .oneOrMore
            let fromCardinality = pending.inverseCardinality ?? (isToMany ? .zeroOrOne : .zeroOrMore)
            let changes = Set([pending.side.change] + (inverse.map { [$0.side.change] } ?? []))
            lines.append(
                EntityDiagram.Relationship(
                    from: pending.entity, to: inverse?.entity ?? pending.destination, side: pending.side,
                    inverse: inverse?.side,
                    toCardinality: pending.cardinality, fromCardinality: fromCardinality,
                    change: changes.count == 1 ? changes.first! : .changed))
        }
        return lines
    }

    // MARK: Changes

    /// A destination property's change as `migrate diff` words it; nil when kept.
    /// A property's change, in the words `migrate diff` uses.
    private func change(of property: PropertyMapping?, in entityMapping: EntityMapping) -> (
        EntityDiagram.Change, String?
    )? {
        guard let property else { return nil }
        let text = Diff.change(property, of: entityMapping, source: source, destination: destination)
        switch property.source {
        case .copy(let from) where from == property.name: return nil
        case .copy, .convert, .policy, .expression: return (.changed, text)
        case .defaultValue: return (.added, text)
        }
    }

    /// Layout-only changes of one property (`index added`, `delete rule nullify → cascade`).
    private static func layoutChanges(of property: String, in entityMapping: EntityMapping) -> [String] {
        entityMapping.layoutChanges.filter { $0.hasPrefix("\(property): ") }.map {
            String($0.dropFirst(property.count + 2))
        }
    }
}

/// A compiled attribute or relationship: both know the entity that declares them and where.
private protocol DeclaredProperty {
    var declaredIn: String { get }
    var location: SourceLocation { get }
}

extension CompiledAttribute: DeclaredProperty {
    var location: SourceLocation { declaration.location }
}

extension CompiledRelationship: DeclaredProperty {
    var location: SourceLocation { declaration.location }
}
