import DataModel
import Foundation

extension MappingModelConverter {
    /// Relationships that no relationship mapping sets, on either side: Core Data's
    /// `createRelationshipsForDestinationInstance` sets only the mapped ones, and an
    /// inverse only when its other side is set. A relationship whose inverse is mapped
    /// keeps its pairs (Core Data sets the inverse), as inference carries them: nothing
    /// is written. Otherwise, on an entity mapping with a policy (`policySets`), one that
    /// has no relationship mapping at all, or that the source lacks, is the policy's to
    /// set (`r: policy`: its code, or it stays empty); else it starts empty, where
    /// inference would carry the stored pairs of the source relationship it pairs with,
    /// so it is written `{ default: null }`.
    func leaveUnsetRelationships(
        of entityMapping: XcodeMappingModel.EntityMapping, in mappingModel: XcodeMappingModel, policySets: Bool,
        _ entry: inout EntityEntry, mapping: inout ImportedMapping
    ) {
        for relationship in entry.entity.relationships where !relationship.declaration.isTransient {
            guard !Self.sets(relationship.name, of: [entry.entity.name], in: mappingModel, source: entry.source) else {
                continue
            }
            if let inverse = relationship.declaration.inverse, let inverseEntity = relationship.inverseEntity,
                Self.sets(
                    inverse, of: Set(entry.destination.subtree(of: inverseEntity)), in: mappingModel,
                    source: entry.source)
            {
                continue
            }
            let inferred = entry.inferred[relationship.name] != nil
            if policySets, !inferred || !entityMapping.relationships.contains(where: { $0.name == relationship.name }) {
                entry.properties.append(Self.policyLine(relationship.name))
            } else if inferred {
                entry.properties.append(
                    "      \(YAMLEmitter.key(relationship.name)): { default: null }   # no relationship mapping sets it"
                )
                mapping.carried.append(
                    """
                    \(entry.entity.name).\(relationship.name) left empty (no relationship mapping sets it, nor its \
                    inverse)
                    """
                )
            }
        }
    }

    /// Whether an entity mapping into one of `entities` (an entity and its
    /// subentities, which inherit the relationship) sets the relationship `name`: a
    /// relationship mapping with a value expression, or one Xcode generates from a source
    /// relationship the entity mapping's source has (where it has none, Core Data writes
    /// no expression: BookPlayer 7 → 8's `item`, olvid's new `contactGroups`).
    static func sets(
        _ name: String, of entities: Set<String>, in mappingModel: XcodeMappingModel, source: CompiledVersion
    ) -> Bool {
        mappingModel.entityMappings.contains { entityMapping in
            guard entityMapping.destination.map(entities.contains) == true,
                let mapping = entityMapping.relationships.first(where: { $0.name == name })
            else { return false }
            if mapping.valueExpression != nil { return true }
            guard mapping.autogenerates, let sourceEntity = entityMapping.source.flatMap(source.entity(named:)) else {
                return false
            }
            let start = (mapping.sourceKeyPath ?? name).replacingOccurrences(of: "$source.", with: "").split(
                separator: "."
            ).first
            return start.map { sourceEntity.relationship(named: String($0)) != nil } ?? false
        }
    }
}
