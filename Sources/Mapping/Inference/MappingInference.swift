public import DataModel

/// Derives the lightweight mapping between two versions of a model, as Core Data's
/// `NSMappingModel.inferredMappingModel` does, or says exactly why it cannot:
/// every refusal names the entity, the property, the change and the remedy.
public enum MappingInference {
    /// Infers the mapping from version `from` to version `to` of `model`, following
    /// renames through every version in between.
    public static func infer(_ model: CompiledModel, from: Int, to: Int) throws(InferenceFailure) -> MappingModel {
        guard let source = model.version(from), let destination = model.version(to) else {
            throw InferenceFailure(
                model: model.name, sourceVersion: from, destinationVersion: to,
                refusals: [
                    Refusal(
                        kind: .typeChange, entity: model.name, property: nil,
                        change: "model \(model.name) has no version \(model.version(from) == nil ? from : to)",
                        remedy: "use versions 1 to \(model.current.version)")
                ])
        }
        let chain =
            from <= to
            ? Array(model.versions.filter { $0.version >= from && $0.version <= to })
            : [source, destination]
        return try infer(from: source, to: destination, through: chain)
    }

    /// Infers the mapping between two compiled versions; `chain` lists every version
    /// from `source` to `destination` inclusive (for chained renames), or just the two.
    public static func infer(
        from source: CompiledVersion, to destination: CompiledVersion,
        through chain: [CompiledVersion]? = nil
    ) throws(InferenceFailure) -> MappingModel {
        let (mapping, refusals) = inferWithRefusals(from: source, to: destination, through: chain)
        if !refusals.isEmpty {
            throw InferenceFailure(
                model: destination.model, sourceVersion: source.version,
                destinationVersion: destination.version, refusals: refusals)
        }
        return mapping
    }

    /// The inferred mapping (refused properties left as `.policy`) and every refusal,
    /// so that a mapping file can cover some of them.
    /// `settled`: what a mapping file into `destination` decides itself.
    static func inferWithRefusals(
        from source: CompiledVersion, to destination: CompiledVersion,
        through chain: [CompiledVersion]? = nil, settled: Renames.Settled = Renames.Settled()
    ) -> (MappingModel, [Refusal]) {
        let steps = (chain?.count ?? 0) >= 2 ? chain! : [source, destination]
        let last = steps.count - 2
        var renames = Renames.hop(from: steps[0], to: steps[1], settled: last == 0 ? settled : Renames.Settled())
        for i in 1..<(steps.count - 1) {
            renames = Renames.compose(
                renames, Renames.hop(from: steps[i], to: steps[i + 1], settled: i == last ? settled : Renames.Settled())
            )
        }
        var inference = Inference(source: source, destination: destination, renames: renames)
        var mapping = inference.run()
        if !inference.requirements.isEmpty { mapping.requirements = inference.requirements }
        let refusals = (renames.refusals + inference.refusals).sorted {
            ($0.entity, $0.property ?? "", $0.change) < ($1.entity, $1.property ?? "", $1.change)
        }
        return (mapping, dedupe(refusals))
    }

    private static func dedupe(_ refusals: [Refusal]) -> [Refusal] {
        var seen: Set<Refusal> = []
        return refusals.filter { seen.insert($0).inserted }
    }

    /// Whether `from` converts to `to` without loss of range (Core Data's widening).
    public static func isWidening(_ from: AttributeType, to: AttributeType) -> Bool {
        switch (from, to) {
        case (.integer16, .integer32), (.integer16, .integer64), (.integer32, .integer64): true
        case (.integer16, .double), (.integer32, .double), (.integer64, .double): true
        case (.integer16, .decimal), (.integer32, .decimal), (.integer64, .decimal): true
        case (.integer16, .float): true
        case (.float, .double): true
        default: false
        }
    }

    private struct Inference {
        let source: CompiledVersion
        let destination: CompiledVersion
        let renames: Renames
        var refusals: [Refusal] = []

        init(source: CompiledVersion, destination: CompiledVersion, renames: Renames) {
            self.source = source
            self.destination = destination
            self.renames = renames
        }

        var fileHint: String {
            destination.version == source.version + 1
                ? "Migrations/\(destination.model)/\(source.version)-to-\(destination.version).yaml"
                : """
                Migrations/\(destination.model)/\(source.version)-to-\(destination.version).yaml (a span) \
                or a mapping file Migrations/\(destination.model)/<A>-to-<A+1>.yaml for the hop that makes this change
                """
        }

        /// Changes whose success the stored data decides.
        var requirements: [DataRequirement] = []

        mutating func refuse(
            _ kind: Refusal.Kind, _ entity: String, _ property: String?, _ change: String, _ remedy: String
        ) {
            refusals.append(Refusal(kind: kind, entity: entity, property: property, change: change, remedy: remedy))
        }

        /// Whether source entity `ancestor` is a (transitive) parent of source entity `name`.
        func isAncestor(_ ancestor: String, of name: String) -> Bool {
            var parent = source.entity(named: name)?.parent
            while let current = parent {
                if current == ancestor { return true }
                parent = source.entity(named: current)?.parent
            }
            return false
        }

        /// Whether some entity mapping makes objects of `destination`'s hierarchy (the
        /// entity or below it, in the destination version) from objects of the old
        /// destination `oldDestination` or of an entity below it: a parent added above
        /// it (Apple's "create a new parent entity and move properties up"), or an old
        /// destination that is gone while its subentities now sit under the new one
        /// (fuzzer seed 1101 trial 67). Old targets made into an entity outside the new
        /// hierarchy are gone, as with widening and narrowing (fuzzer seed 1902 trial
        /// 227: C renamed to G with its renamedFrom dropped later, F leaving the
        /// hierarchy; Docs/Reference.md, "Relationships across a hierarchy").
        func widensToNewAncestor(_ destination: String, from oldDestination: String) -> Bool {
            func under(_ old: String) -> Bool {
                guard let became = renames.entities.first(where: { $0.value == old })?.key else { return false }
                var current: String? = became
                while let name = current {
                    if name == destination { return true }
                    current = self.destination.entity(named: name)?.parent
                }
                return false
            }
            return source.entities.contains {
                ($0.name == oldDestination || isAncestor(oldDestination, of: $0.name)) && under($0.name)
            }
        }

        mutating func run() -> MappingModel {
            checkHierarchies()
            var mappings: [EntityMapping] = []
            let mappedSources = Set(renames.entities.values)
            for entity in destination.entities {
                mappings.append(map(entity))
            }
            for entity in source.entities where !mappedSources.contains(entity.name) {
                mappings.append(
                    EntityMapping(
                        name: "\(entity.name)ToNothing", kind: .remove, source: entity.name, destination: nil,
                        droppedProperties: Renames.storedProperties(of: entity).map(\.name).sorted()))
            }
            return MappingModel(
                model: destination.model, sourceVersion: source.version,
                destinationVersion: destination.version, entityMappings: mappings)
        }

        /// Two source hierarchies may not end up in one destination table.
        mutating func checkHierarchies() {
            var roots: [String: Set<String>] = [:]
            for entity in destination.entities {
                guard let sourceName = renames.entities[entity.name],
                    let sourceEntity = source.entity(named: sourceName)
                else { continue }
                roots[entity.root, default: []].insert(sourceEntity.root)
            }
            for (root, sourceRoots) in roots.sorted(by: { $0.key < $1.key }) where sourceRoots.count > 1 {
                let names = sourceRoots.sorted()
                refuse(
                    .mergedHierarchies, root, nil,
                    """
                    merges the hierarchies of \(names.joined(separator: " and ")) into one (their rows would share \
                    table Z\(root.uppercased()))
                    """,
                    """
                    keep them in separate hierarchies, or write \(fileHint) with a policy that copies one into the other
                    """
                )
            }
        }

        mutating func map(_ entity: CompiledEntity) -> EntityMapping {
            guard let sourceName = renames.entities[entity.name], let sourceEntity = source.entity(named: sourceName)
            else {
                // A new entity: no rows to carry; required relationships from existing
                // entities to it are checked on their side.
                return EntityMapping(
                    name: "NothingTo\(entity.name)", kind: .add, source: nil, destination: entity.name,
                    properties: Renames.storedProperties(of: entity).map { property in
                        let attribute = entity.attribute(named: property.name)
                        return PropertyMapping(
                            name: property.name, source: .defaultValue(attribute?.declaration.defaultValue),
                            isRelationship: attribute == nil)
                    }.sorted { $0.name < $1.name })
            }
            let propertyMap = renames.properties[entity.name] ?? [:]
            var properties: [PropertyMapping] = []
            for attribute in entity.attributes where !attribute.declaration.isTransient {
                properties.append(
                    mapAttribute(attribute, of: entity, from: sourceEntity, sourceName: propertyMap[attribute.name]))
            }
            for relationship in entity.relationships where !relationship.declaration.isTransient {
                properties.append(
                    mapRelationship(
                        relationship, of: entity, from: sourceEntity, sourceName: propertyMap[relationship.name]))
            }
            properties.sort { $0.name < $1.name }
            let used = Set(propertyMap.values)
            let dropped = Renames.storedProperties(of: sourceEntity).map(\.name).filter { !used.contains($0) }.sorted()
            let unchanged =
                sourceEntity.name == entity.name && dropped.isEmpty
                && sourceEntity.versionHash == entity.versionHash
                && properties.allSatisfy { if case .copy(let from) = $0.source { from == $0.name } else { false } }
            return EntityMapping(
                name: "\(sourceEntity.name)To\(entity.name)", kind: unchanged ? .copy : .transform,
                source: sourceEntity.name, destination: entity.name, properties: properties,
                droppedProperties: dropped,
                layoutChanges: layoutChanges(from: sourceEntity, to: entity, renames: propertyMap))
        }

        mutating func mapAttribute(
            _ attribute: CompiledAttribute, of entity: CompiledEntity, from sourceEntity: CompiledEntity,
            sourceName: String?
        ) -> PropertyMapping {
            let a = attribute.declaration
            func added() -> PropertyMapping {
                // An abstract entity that was abstract before has no rows of its own to fill
                // (a property moving up from its children into it).
                if !a.isOptional, a.defaultValue == nil, !(entity.isAbstract && sourceEntity.isAbstract) {
                    refuse(
                        .requiredWithoutDefault, entity.name, a.name,
                        "new required attribute without a default or source",
                        """
                        add a default (`\(a.name): { type: \(a.type.rawValue), default: … }`), make it optional, \
                        or write \(fileHint) with a policy for \(entity.name)
                        """)
                    return PropertyMapping(name: a.name, source: .policy, isRelationship: false)
                }
                return PropertyMapping(name: a.name, source: .defaultValue(a.defaultValue), isRelationship: false)
            }
            guard let sourceName else { return added() }
            guard let old = sourceEntity.attribute(named: sourceName)?.declaration else {
                refuse(
                    .attributeRelationshipSwap, entity.name, a.name,
                    "relationship '\(sourceEntity.name).\(sourceName)' became an attribute",
                    """
                    write \(fileHint) with a policy for \(entity.name), or split the change across an intermediate \
                    version (remove, then add)
                    """
                )
                return PropertyMapping(name: a.name, source: .policy, isRelationship: false)
            }
            var conversion: Conversion?
            var refused = false
            if old.type != a.type {
                if MappingInference.isWidening(old.type, to: a.type) {
                    conversion = .widen
                } else {
                    let what = MappingInference.isWidening(a.type, to: old.type) ? "narrowing" : "unrelated"
                    refused = true
                    refuse(
                        .typeChange, entity.name, a.name,
                        "type change \(old.type.rawValue) → \(a.type.rawValue) is \(what), not a widening",
                        """
                        write \(fileHint) with a policy for \(entity.name), or split the change across an intermediate \
                        version (add the new attribute, copy in a policy, remove the old one)
                        """)
                }
            }
            if old.isOptional, !a.isOptional {
                if a.defaultValue == nil {
                    // As in Core Data, the mapping exists; the stored data decides
                    // whether it migrates (the planner counts the nils).
                    requirements.append(
                        DataRequirement(
                            kind: .noNil, entity: entity.name, property: a.name,
                            sourceEntity: sourceEntity.name, sourceProperty: sourceName))
                } else if conversion == nil {
                    conversion = .fillDefault
                }
            }
            // Refused values are left to a policy (a mapping file may lift the refusal).
            if refused { return PropertyMapping(name: a.name, source: .policy, isRelationship: false) }
            if let conversion {
                return PropertyMapping(
                    name: a.name, source: .convert(from: sourceName, conversion: conversion), isRelationship: false)
            }
            return PropertyMapping(name: a.name, source: .copy(from: sourceName), isRelationship: false)
        }

        mutating func mapRelationship(
            _ relationship: CompiledRelationship, of entity: CompiledEntity, from sourceEntity: CompiledEntity,
            sourceName: String?
        ) -> PropertyMapping {
            let r = relationship.declaration
            guard let sourceName else {
                if !r.isOptional, !r.isToMany, !(entity.isAbstract && sourceEntity.isAbstract) {
                    // As in Core Data, the mapping exists; existing objects would have no
                    // destination, so the stored data decides: none, it migrates.
                    requirements.append(
                        DataRequirement(
                            kind: .noObjects, entity: entity.name, property: r.name, sourceEntity: sourceEntity.name,
                            sourceProperty: ""))
                }
                return PropertyMapping(name: r.name, source: .defaultValue(nil), isRelationship: true)
            }
            guard let old = sourceEntity.relationship(named: sourceName) else {
                refuse(
                    .attributeRelationshipSwap, entity.name, r.name,
                    "attribute '\(sourceEntity.name).\(sourceName)' became a relationship",
                    """
                    write \(fileHint) with a policy for \(entity.name), or split the change across an intermediate \
                    version
                    """
                )
                return PropertyMapping(name: r.name, source: .policy, isRelationship: true)
            }
            let o = old.declaration
            // The old targets stay valid when the destination is the old one (renamed or
            // not), one of its ancestors or one of its subentities; never a sibling.
            let mappedDestination = renames.entities[r.destination]
            let related =
                mappedDestination.map {
                    $0 == o.destination || isAncestor($0, of: o.destination) || isAncestor(o.destination, of: $0)
                } ?? false
            if !related && !widensToNewAncestor(r.destination, from: o.destination) {
                refuse(
                    .destinationChanged, entity.name, r.name,
                    r.destination == o.destination
                        ? """
                        destination \(r.destination) is a new entity here (it pairs with no entity of the source: \
                        check its renamedFrom), not the \(o.destination) it pointed to
                        """
                        : "destination changed from \(o.destination) to \(r.destination), an unrelated entity",
                    """
                    write \(fileHint) with a policy for \(entity.name) that sets the new relationship, or add a new \
                    relationship and remove the old one
                    """
                )
                return PropertyMapping(name: r.name, source: .policy, isRelationship: true)
            }
            var conversion: Conversion?
            if o.isToMany != r.isToMany || old.isManyToMany != relationship.isManyToMany {
                conversion = .reshape
            } else if o.keepsOrder != r.keepsOrder {
                conversion = .reorder
            }
            if let conversion {
                return PropertyMapping(
                    name: r.name, source: .convert(from: sourceName, conversion: conversion), isRelationship: true)
            }
            return PropertyMapping(name: r.name, source: .copy(from: sourceName), isRelationship: true)
        }

        func layoutChanges(from old: CompiledEntity, to new: CompiledEntity, renames: [String: String]) -> [String] {
            var changes: [String] = []
            for attribute in new.attributes where !attribute.declaration.isTransient {
                guard let sourceName = renames[attribute.name],
                    let before = old.attribute(named: sourceName)?.declaration
                else { continue }
                let a = attribute.declaration
                if before.isIndexed != a.isIndexed {
                    changes.append("\(a.name): \(a.isIndexed ? "index added" : "index removed")")
                }
                if before.defaultValue != a.defaultValue {
                    changes.append(
                        """
                        \(a.name): default \(before.defaultValue.map(\.displayText) ?? "none") → \
                        \(a.defaultValue.map(\.displayText) ?? "none")
                        """
                    )
                }
                if before.minimum != a.minimum || before.maximum != a.maximum {
                    changes.append("\(a.name): limits changed")
                }
                if before.transformer != a.transformer {
                    changes.append(
                        "\(a.name): transformer \(before.transformer ?? "none") → \(a.transformer ?? "none")")
                }
            }
            for relationship in new.relationships {
                guard let sourceName = renames[relationship.name],
                    let before = old.relationship(named: sourceName)?.declaration
                else { continue }
                if before.deleteRule != relationship.declaration.deleteRule {
                    changes.append(
                        """
                        \(relationship.name): delete rule \(before.deleteRule.rawValue) → \
                        \(relationship.declaration.deleteRule.rawValue)
                        """
                    )
                }
            }
            let beforeIndexes = Set(
                old.indexes.map {
                    $0.name + ":"
                        + $0.elements.map { $0.property + ($0.isDescending ? " desc" : "") }.joined(separator: ",")
                })
            let afterIndexes = Set(
                new.indexes.map {
                    $0.name + ":"
                        + $0.elements.map { $0.property + ($0.isDescending ? " desc" : "") }.joined(separator: ",")
                })
            for index in new.indexes
            where !beforeIndexes.contains(
                index.name + ":"
                    + index.elements.map { $0.property + ($0.isDescending ? " desc" : "") }.joined(separator: ","))
            {
                changes.append("index \(index.name) added")
            }
            for index in old.indexes
            where !afterIndexes.contains(
                index.name + ":"
                    + index.elements.map { $0.property + ($0.isDescending ? " desc" : "") }.joined(separator: ","))
            {
                changes.append("index \(index.name) removed")
            }
            if Set(old.uniqueness) != Set(new.uniqueness) { changes.append("uniqueness constraints changed") }
            return changes
        }
    }
}
