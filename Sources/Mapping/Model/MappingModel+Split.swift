import Foundation

/// One source entity feeding several destination entities: Core Data's "a third split
/// into two" (Core Data Model Versioning and Data Migration Programming Guide, Mapping
/// Overview). Each entity mapping makes destination objects of its own entity from the
/// objects of its source entity, independently of the others.
extension MappingModel {
    /// The entity mappings reading a source entity's objects (removals left out), in
    /// the mapping model's order. A mapping filtered with `FALSEPREDICATE` makes no
    /// objects and feeds nothing: `A: { filter: "FALSEPREDICATE" }` beside
    /// `C: { source: A }` moves every A to C (one mapping reads A), as it did before
    /// one source could feed several entities.
    package func mappings(fromSource name: String) -> [EntityMapping] {
        entityMappings.filter { mapping in
            mapping.source == name && mapping.kind != .remove && mapping.destination != nil
                && mapping.filter?.trimmingCharacters(in: .whitespacesAndNewlines).uppercased() != "FALSEPREDICATE"
        }
    }

    /// The entity mapping whose destination objects keep the source objects' entity
    /// number and rows: the one whose destination has the source entity's name (the
    /// entity continues in the destination version), else the first mapping that
    /// copies set-based, else the first. The others make new objects in tables of
    /// their own.
    package func keeper(ofSource name: String) -> EntityMapping? {
        let all = mappings(fromSource: name)
        return all.first { $0.destination == name } ?? all.first { $0.kind != .custom } ?? all.first
    }

    /// True when `mapping` reads a source entity that another entity mapping keeps:
    /// its destination objects are new rows, built from the source rows.
    package func isAdditional(_ mapping: EntityMapping) -> Bool {
        guard let source = mapping.source else { return false }
        let feeding = mappings(fromSource: source)
        guard feeding.contains(where: { $0.name == mapping.name }) else { return false }
        return keeper(ofSource: source)?.name != mapping.name
    }

    /// True when the destination entity's objects come from an additional mapping
    /// (`isAdditional`).
    package func isAdditional(destination name: String) -> Bool {
        mapping(forDestination: name).map(isAdditional) ?? false
    }

    /// The source properties no mapping of `source` reads: what the hop really drops
    /// of its objects (each mapping's own `droppedProperties` is what that mapping leaves).
    package func droppedProperties(ofSource source: String) -> [String] {
        let all = mappings(fromSource: source)
        guard var dropped = all.first.map({ Set($0.droppedProperties) }) else { return [] }
        for mapping in all.dropFirst() where mapping.kind != .custom {
            dropped.formIntersection(mapping.droppedProperties)
        }
        return dropped.sorted()
    }
}
