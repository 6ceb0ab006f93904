import DataModel
import Mapping

/// Which inferred hops a fused run may take together: a run ends after a hop that
/// changes stored values, gives values a later version would not keep, or whose
/// rules a later version relaxes (Docs/Migrations.md, "Fused hops").
extension MigrationPlanner {
    /// True when the inferred hop `from` → `to` changes stored values rather than
    /// only moving them: nil values filled with a default, a to-many made to-one
    /// (or the reverse), an order added or dropped, a pair made one-to-one, or a
    /// to-many without an inverse that keeps one owner per destination.
    static func normalizesData(_ mapping: MappingModel, from source: CompiledVersion, to destination: CompiledVersion)
        -> Bool
    {
        for entityMapping in mapping.entityMappings {
            guard let destinationName = entityMapping.destination,
                let entity = destination.entity(named: destinationName),
                let sourceEntity = entityMapping.source.flatMap({ source.entity(named: $0) })
            else { continue }
            for property in entityMapping.properties {
                switch property.source {
                case .convert(_, .fillDefault), .convert(_, .reshape), .convert(_, .reorder):
                    return true
                case .convert(let from, .widen):
                    let old = sourceEntity.attribute(named: from)?.declaration,
                        new = entity.attribute(named: property.name)?.declaration
                    if old?.isOptional == true, new?.isOptional == false { return true }
                case .copy(let from):
                    if let new = entity.relationship(named: property.name),
                        let old = sourceEntity.relationship(named: from),
                        changesOwnership(old, in: source, to: new, in: destination)
                            || losesTargets(old, in: source, to: new, in: destination, mapping)
                    {
                        return true
                    }
                default:
                    continue
                }
            }
        }
        return false
    }

    /// Whether `next` gives a relationship of `version` another destination: the one
    /// change after which a run may not be mappable as a whole (checked then only,
    /// so that planning stays one inference per hop on long histories).
    /// Entities and relationships pair through their renames, as inference pairs them:
    /// a relationship renamed in the same hop as its destination changes is one too.
    static func changesDestinations(from version: CompiledVersion, to next: CompiledVersion) -> Bool {
        let renames = Renames.hop(from: version, to: next)
        return next.entities.contains { entity in
            guard let old = renames.entities[entity.name], let before = version.entity(named: old) else { return false }
            return entity.relationships.contains { relationship in
                guard let was = renames.properties[entity.name]?[relationship.name],
                    let previous = before.relationship(named: was)
                else {
                    return false
                }
                // A destination only renamed is the same entity.
                return renames.entities[relationship.declaration.destination] != previous.declaration.destination
            }
        }
    }

    /// Whether a relationship copied by the hop loses pairs: objects of its old
    /// destination (or of a subentity) that the hop does not make objects of its new
    /// destination (a destination narrowed, an entity leaving the hierarchy or
    /// removed). Hop by hop those pairs are gone; a run fused past the hop could
    /// give them back when a later version widens the destination again (fuzzer
    /// seed 1002 trial 134), so it ends here.
    static func losesTargets(
        _ old: CompiledRelationship, in source: CompiledVersion, to new: CompiledRelationship,
        in destination: CompiledVersion,
        _ mapping: MappingModel
    ) -> Bool {
        let allowed = Set(destination.subtree(of: new.declaration.destination))
        return source.subtree(of: old.declaration.destination).contains { name in
            source.entity(named: name)?.isAbstract != true
                && !mapping.mappings(fromSource: name).contains {
                    $0.kind != .remove && allowed.contains($0.destination ?? "")
                }
        }
    }

    /// Whether a hop gives properties values a later hop could hide: a new attribute
    /// with a default (every object gets it) that `next` does not keep as it is (same
    /// name, type and default: a later version that drops the default or the attribute
    /// would, fused, never have given it), or a computed value.
    static func givesValues(_ mapping: MappingModel, to destination: CompiledVersion, keptBy next: CompiledVersion)
        -> Bool
    {
        return mapping.entityMappings.contains { entityMapping in
            guard entityMapping.source != nil, let name = entityMapping.destination else { return false }
            return entityMapping.properties.contains { property in
                switch property.source {
                case .defaultValue(let value):
                    // A value given here, nil included: a later default fills only
                    // objects made after it, so these must not take it.
                    guard let given = destination.entity(named: name)?.attribute(named: property.name)?.declaration
                    else { return value != nil }
                    // The entity renamed or removed later: ended here, whatever it keeps.
                    guard let laterEntity = next.entity(named: name) else { return true }
                    guard let kept = laterEntity.attribute(named: property.name)?.declaration else {
                        // Dropped, or renamed later (a `renamedFrom`: the fused mapping would
                        // take the renamed attribute for a new one, default and all).
                        return value != nil || laterEntity.attributes.contains { $0.declaration.renamedFrom != nil }
                    }
                    return kept.type != given.type || kept.defaultValue != value || kept.isTransient
                case .expression, .policy: return true
                default: return false
                }
            }
        }
    }

    /// Whether `next` checks less than `version` does: an entity, an attribute or a
    /// relationship with a rule in `version` (required, `min`/`max`, `minCount`/
    /// `maxCount`, a uniqueness constraint) that `next` drops, renames or relaxes.
    /// Hop by hop, `version`'s rules refuse a store (Core Data's validation stage); a
    /// run fused past `version` checks only its last version's, so it must end here.
    static func relaxesRules(of version: CompiledVersion, in next: CompiledVersion) -> Bool {
        for entity in version.entities {
            let hasRules =
                !entity.uniqueness.isEmpty
                || entity.attributes.contains { !$0.declaration.isTransient && Self.hasRule($0.declaration) }
                || entity.relationships.contains { !$0.declaration.isTransient && Self.hasRule($0.declaration) }
            guard hasRules else { continue }
            guard let later = next.entity(named: entity.name) else { return true }
            if Set(entity.uniqueness.map { $0.sorted() }) != Set(later.uniqueness.map { $0.sorted() }) { return true }
            for attribute in entity.attributes
            where !attribute.declaration.isTransient && Self.hasRule(attribute.declaration) {
                guard let other = later.attribute(named: attribute.name), !other.declaration.isTransient else {
                    return true
                }
                let (a, b) = (attribute.declaration, other.declaration)
                // A type change between two versions is a widening (inference refuses the
                // others), whose wider range checks what the narrower one did: the values
                // came from a version no wider than `version`.
                if (!a.isOptional && b.isOptional) || a.minimum != b.minimum || a.maximum != b.maximum { return true }
            }
            for relationship in entity.relationships
            where !relationship.declaration.isTransient && Self.hasRule(relationship.declaration) {
                guard let other = later.relationship(named: relationship.name), !other.declaration.isTransient else {
                    return true
                }
                let (a, b) = (relationship.declaration, other.declaration)
                if (!a.isOptional && b.isOptional) || a.minCount != b.minCount || a.maxCount != b.maxCount
                    || a.isToMany != b.isToMany
                {
                    return true
                }
            }
        }
        return false
    }

    static func hasRule(_ attribute: AttributeDescription) -> Bool {
        !attribute.isOptional || attribute.minimum != nil || attribute.maximum != nil
    }

    static func hasRule(_ relationship: RelationshipDescription) -> Bool {
        !relationship.isOptional || relationship.minCount != nil || relationship.maxCount != nil
    }

    /// A relationship copied as it is whose storage keeps fewer pairs: a to-many
    /// losing its inverse (one owner per destination), or a to-one becoming one
    /// side of a one-to-one.
    static func changesOwnership(
        _ old: CompiledRelationship, in source: CompiledVersion,
        to new: CompiledRelationship, in destination: CompiledVersion
    ) -> Bool {
        func isOneToOne(_ r: CompiledRelationship, _ version: CompiledVersion) -> Bool {
            guard !r.declaration.isToMany, let inverse = r.declaration.inverse, let owner = r.inverseEntity,
                let other = version.entity(named: owner)?.relationship(named: inverse)
            else { return false }
            return !other.declaration.isToMany
        }
        if new.declaration.isToMany, new.declaration.inverse == nil, old.declaration.inverse != nil { return true }
        return isOneToOne(new, destination) && !isOneToOne(old, source)
    }
}
