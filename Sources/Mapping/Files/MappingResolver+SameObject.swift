import DataModel
import Predicates

/// A relationship to the object another entity mapping made of the same source object,
/// as Core Data's mapping models write it when one source entity feeds two destination
/// entities (`AlbumToAlbum` and `AlbumToListeningSession`, each session pointing at its
/// album): `FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:',
/// 'AlbumToAlbum', $source)`. Both mappings copy set-based and keep the source row's key,
/// so the related object's key is the row's own (`SegmentPlanner.computedToOne`).
extension MappingResolver {
    /// The value recorded for such a relationship (`PropertySource.expression`).
    package static let sameSourceObject = "$source"

    /// Checks `$source` as the source instances of `name` and returns the recorded value.
    static func sameObject(
        selector: String, name: String, nameAt: Int, at: Int, for relationship: CompiledRelationship, in owner: String,
        sourceEntity: CompiledEntity, destination: CompiledVersion,
        mapping: MappingModel, file: MappingFile?
    ) throws(RelationshipValueError) -> RelationshipValue {
        guard selector.hasPrefix("destinationInstancesForEntityMappingNamed:") else {
            throw RelationshipValueError(
                detail: "'\(selector)' takes a source relationship ($source.<relationship>), not $source",
                column: at + 1)
        }
        // Every entity mapping of the file exists at once, as in Core Data: one written
        // further down (`source:` re-pairs it there) is found by its name too.
        let later = file?.entities.first { entry in entry.source.map { "\($0)To\(entry.name)" } == name }.map { entry in
            EntityMapping(
                name: name, kind: entry.policy != nil && !entry.isSetBased ? .custom : .transform, source: entry.source,
                destination: entry.name, policy: entry.policy)
        }
        guard let carrier = mapping.entityMappings.first(where: { $0.name == name }) ?? later else {
            let names = mapping.entityMappings.filter { $0.destination != nil }.map(\.name)
            throw RelationshipValueError(
                detail: "no entity mapping of this hop is named '\(name)' (\(names.joined(separator: ", ")))",
                column: nameAt + 1)
        }
        let target = relationship.declaration.destination
        guard carrier.source == sourceEntity.name, let made = carrier.destination,
            destination.subtree(of: target).contains(made)
        else {
            // Another source entity's mapping: Core Data answers with the objects it made
            // from this very object, known only where they are made (a policy's stages).
            throw RelationshipValueError(
                detail: """
                    $source: the objects '\(name)' makes from this \(sourceEntity.name) object; which destination \
                    objects those are is known only to the code that makes them, not from the store: fill \
                    \(relationship.name) in a policy
                    """, column: at + 1)
        }
        guard carrier.kind != .custom else {
            throw RelationshipValueError(
                detail:
                    "'\(name)' makes its objects in policy \(carrier.policy ?? "?"): set \(relationship.name) there",
                column: nameAt + 1)
        }
        // Stored as a key on this entity's rows (a to-one), or on the other's rows (a
        // to-many whose inverse is a to-one); the other side of a one-to-one or of a
        // to-many is filled below, as the same source object's.
        let inverse = relationship.declaration.inverse.flatMap {
            destination.entity(named: target)?.relationship(named: $0)
        }
        let stored = relationship.declaration.isToMany ? inverse.map { !$0.declaration.isToMany } ?? false : true
        guard stored else {
            throw RelationshipValueError(
                detail: """
                    \(relationship.name) to the object '\(name)' makes of the same source object is filled set-based \
                    when it is a to-one, or a to-many with a to-one inverse; fill this one in a policy
                    """, column: at + 1)
        }
        // A one-to-one's other side points back at every object of this mapping: one
        // the filter leaves out would leave it pointing at nothing. The filter is the
        // mapping's own (a subentity's, when the relationship is inherited).
        if let inverse, !inverse.declaration.isToMany, !relationship.declaration.isToMany,
            file?.entities.first(where: { $0.name == owner })?.filter != nil
        {
            throw RelationshipValueError(
                detail: """
                    \(relationship.name) and its inverse \(target).\(inverse.name) are a one-to-one between the \
                    objects of one source object, and \(owner)'s filter makes some of them alone: fill both in a policy
                    """, column: at + 1)
        }
        return .path(sameSourceObject)
    }

    /// A to-many filled with `$source` is stored by its to-one inverse on the other
    /// entity's rows: that inverse, when the file leaves it as inferred (nil), is the
    /// object of the same source object too.
    static func fillSameObjectInverses(_ mapping: inout MappingModel, destination: CompiledVersion) {
        for entityMapping in mapping.entityMappings {
            guard let owner = entityMapping.destination.flatMap({ destination.entity(named: $0) }) else { continue }
            for property in entityMapping.properties
            where property.isRelationship && property.source == .expression(sameSourceObject, nilOnFailure: false) {
                // A to-many (stored by its to-one inverse), or one side of a one-to-one.
                guard let relationship = owner.relationship(named: property.name),
                    let inverse = relationship.declaration.inverse, let other = relationship.inverseEntity,
                    relationship.declaration.isToMany
                        || destination.entity(named: other)?.relationship(named: inverse)?.declaration.isToMany
                            == false,
                    let index = mapping.entityMappings.firstIndex(where: {
                        $0.destination == other && $0.source == entityMapping.source
                    }),
                    let p = mapping.entityMappings[index].properties.firstIndex(where: { $0.name == inverse }),
                    mapping.entityMappings[index].properties[p].source == .defaultValue(nil)
                else { continue }
                mapping.entityMappings[index].properties[p].source = .expression(sameSourceObject, nilOnFailure: false)
            }
        }
    }
}
