import DataModel

/// A further entity mapping into one destination entity: a mapping file's entry
/// keyed by the mapping's name, with `destination:` and `source:`
/// (`PersistedDiscussionOneToOneLockedToPersistedDiscussionOneToOne: { destination:
/// PersistedOneToOneDiscussion, source: PersistedDiscussionOneToOneLocked }`). As in a
/// Core Data mapping model with two entity mappings into one entity, each makes
/// destination objects of its own source objects: the entity's objects are the
/// union (a merge). The further mapping pairs the source entity's properties as
/// inference pairs the entity's own (renaming identifiers, widening, nil → default);
/// its `properties:` and `filter:` override that, as for any entity.
extension MappingMerge {
    mutating func mergeFurther(_ override: MappingFile.EntityOverride) {
        guard let (entity, sourceEntity) = furtherEnds(of: override) else { return }
        var only = settled
        only.entities[entity.name] = sourceEntity.name
        only.properties[entity.name] = Set(override.properties.keys)
        let (alternative, alternativeRefusals) = MappingInference.inferWithRefusals(
            from: source, to: destination, through: chain.count >= 2 ? chain : nil, settled: only)
        guard var further = alternative.mapping(forDestination: entity.name), further.source == sourceEntity.name else {
            diagnostics.append(
                Diagnostic(
                    .error,
                    """
                    entity '\(override.name)': \(sourceEntity.name) cannot be paired with \(entity.name) of version \
                    \(to)
                    """,
                    at: override.location))
            return
        }
        further.name = override.name
        let last = mapping.entityMappings.lastIndex { $0.destination == entity.name }!
        // Its refusals are its own: filed under its name, answered by its overrides; those
        // about relationships are judged again once every entry is in (`checkFurtherSources`).
        // Two hierarchies sharing a table is what a merge asks for (the planner gives the
        // merged objects keys of their own there), not an inferred merge of hierarchies.
        for var refusal in alternativeRefusals
        where refusal.entity == entity.name && !refusal.kind.isPolicyCode && refusal.kind != .mergedHierarchies {
            refusal.entity = override.name
            refusals.append(refusal)
        }
        mapping.entityMappings.insert(further, at: last + 1)
        // The source entity is read now: its objects are not dropped.
        mapping.entityMappings.removeAll { $0.kind == .remove && $0.source == sourceEntity.name }
        applyOverrides(override, entity, at: last + 1)
    }

    /// The destination entity and the source entity of a further mapping, or nil with
    /// the problem noted: both must be entities of their versions, the mapping's name
    /// must not be a destination entity's, it runs set-based (no policy), and no other
    /// mapping into the entity reads the same source entity (its objects would be made twice).
    private mutating func furtherEnds(of override: MappingFile.EntityOverride) -> (CompiledEntity, CompiledEntity)? {
        let subject = "entity mapping '\(override.name)'"
        guard let name = override.destination, let entity = destination.entity(named: name) else {
            diagnostics.append(
                Diagnostic(
                    .error,
                    """
                    \(subject): destination '\(override.destination ?? "")' is not an entity of \(destination.model) \
                    version \(to)
                    """,
                    at: override.location,
                    hint: Suggestions.hint(for: override.destination ?? "", in: destination.entities.map(\.name))))
            return nil
        }
        if entity.isAbstract {
            diagnostics.append(
                Diagnostic(
                    .error,
                    """
                    \(subject): \(name) is abstract in version \(to): it has no objects of its own, \
                    so none can be made of \(override.source ?? "another entity")
                    """,
                    at: override.location, hint: "merge into one of \(name)'s concrete subentities"))
            return nil
        }
        if destination.entity(named: override.name) != nil {
            diagnostics.append(
                Diagnostic(
                    .error,
                    """
                    \(subject): '\(override.name)' is an entity of version \(to); a further mapping into \(name) needs \
                    a name of its own
                    """,
                    at: override.location, hint: "name it as Core Data names entity mappings: `<Source>To\(name)`"))
            return nil
        }
        guard let sourceName = override.source else {
            diagnostics.append(
                Diagnostic(
                    .error,
                    """
                    \(subject): a further mapping into \(name) needs `source:` (the entity of version \(from) it makes \
                    \(name)s of)
                    """,
                    at: override.location))
            return nil
        }
        guard let sourceEntity = source.entity(named: sourceName) else {
            diagnostics.append(
                Diagnostic(
                    .error, "\(subject): source '\(sourceName)' is not an entity of version \(from)",
                    at: override.location,
                    hint: Suggestions.hint(for: sourceName, in: source.entities.map(\.name))))
            return nil
        }
        if let policy = override.policy {
            diagnostics.append(
                Diagnostic(
                    .error,
                    """
                    \(subject): policy \(policy): a further mapping into \(name) runs set-based; a policy on it is not \
                    supported
                    """,
                    at: override.location,
                    hint: "compute its values with `value:` expressions, or make both sources' objects in one policy"))
            return nil
        }
        if mapping.entityMappings.contains(where: { $0.destination == name && $0.source == sourceName }) {
            diagnostics.append(
                Diagnostic(
                    .error,
                    """
                    \(subject): another mapping already makes \(name)s of \(sourceName): each \(sourceName) would \
                    become two \(name)s
                    """,
                    at: override.location))
            return nil
        }
        return (entity, sourceEntity)
    }

    /// Once every entry is merged: a further mapping's source entity must be read by no
    /// other mapping (a merge of objects that also continue, or that another mapping
    /// also makes into something, would make each of them twice).
    mutating func checkFurtherSources() {
        settleRelationshipsBetweenMergedSources()
        for override in file.entities where override.destination != nil && !troubled.contains(override.name) {
            guard let sourceName = override.source else { continue }
            let others = mapping.mappings(fromSource: sourceName).map(\.name).filter { $0 != override.name }
            guard !others.isEmpty else { continue }
            diagnostics.append(
                Diagnostic(
                    .error,
                    """
                    entity mapping '\(override.name)': \(others.joined(separator: " and ")) also \
                    make\(others.count == 1 ? "s" : "") objects of \(sourceName): a merge takes a source entity no \
                    other mapping reads
                    """,
                    at: override.location,
                    hint: "give the other mapping `filter: \"FALSEPREDICATE\"`, or make these objects in one mapping"))
        }
    }

    /// A further mapping's relationship that its own inference refused as pointing at
    /// new objects: that inference made the entity of another source, so a relationship
    /// into the entity's old objects (or into objects a later entry merges: Guest.rc into
    /// Reader, both merged into Comment) looked like one into new ones. Judged once every
    /// entry is in, with the mappings that make those objects, so that the file's order of
    /// entries decides nothing: copied as across any renamed entity, or as the entity's
    /// own mapping carries a relationship both sources inherit.
    private mutating func settleRelationshipsBetweenMergedSources() {
        let further = Set(file.entities.filter { $0.destination != nil }.map(\.name))
        var kept: [Refusal] = []
        for refusal in refusals {
            if refusal.kind == .destinationChanged, further.contains(refusal.entity), settle(refusal) { continue }
            kept.append(refusal)
        }
        refusals = kept
    }

    /// A further mapping's refusal judged with every entry merged: true when its
    /// relationship is then carried.
    private mutating func settle(_ refusal: Refusal) -> Bool {
        guard let index = mapping.entityMappings.firstIndex(where: { $0.name == refusal.entity }),
            let name = mapping.entityMappings[index].destination,
            let first = mapping.entityMappings.firstIndex(where: { $0.destination == name })
        else { return false }
        var trial = mapping
        trial.entityMappings.swapAt(first, index)
        var asEntity = refusal
        asEntity.entity = name
        if MappingResolver.copiesAcrossRenamedEntity(
            asEntity, mapping: &trial, source: source, destination: destination)
        {
            mapping.entityMappings[index] = trial.entityMappings[first]
            return true
        }
        var further = mapping.entityMappings[index]
        guard takesOwnMappingsRelationship(asEntity, into: &further) else { return false }
        mapping.entityMappings[index] = further
        return true
    }

    /// A relationship both sources inherit from one declaration (a parent's, in one
    /// source hierarchy): the further mapping carries it as the entity's own mapping
    /// does (converted the same way), which the inference that made the entity of the
    /// further source could not see. True when it was so.
    private func takesOwnMappingsRelationship(_ refusal: Refusal, into further: inout EntityMapping) -> Bool {
        guard refusal.kind == .destinationChanged, let property = refusal.property, let name = further.destination,
            let own = mapping.mapping(forDestination: name), own.name != further.name,
            let ownProperty = own.property(property),
            let from = MappingResolver.mappingSourceName(ownProperty.source),
            let ownSource = own.source.flatMap({ source.entity(named: $0) }),
            let furtherSource = further.source.flatMap({ source.entity(named: $0) }),
            let declared = ownSource.relationship(named: from)?.declaredIn,
            furtherSource.relationship(named: from)?.declaredIn == declared,
            let p = further.properties.firstIndex(where: { $0.name == property })
        else { return false }
        further.properties[p].source = ownProperty.source
        further.droppedProperties.removeAll { $0 == from }
        return true
    }
}

extension MappingMerge {
    /// Two entity mappings of the hop under one name (a `mappingName:`, a further
    /// mapping's key, or Core Data's `<Source>To<Destination>`): a policy or a `$manager`
    /// expression asking for objects by it could not say which.
    mutating func checkMappingNames() {
        for entry in file.entities {
            // A further mapping is named by its key (an apply would fail on the clash in SQLite).
            guard let name = entry.destination == nil ? entry.mappingName : entry.name,
                mapping.entityMappings.filter({ $0.kind != .remove && $0.name == name }).count > 1
            else { continue }
            let what = entry.destination == nil ? ": mappingName '\(name)'" : ""
            diagnostics.append(
                Diagnostic(
                    .error, "\(entry.subject)\(what): another entity mapping of this hop has that name",
                    at: entry.location, hint: "give it a name of its own (a further mapping's name is its key)"))
        }
    }
}
