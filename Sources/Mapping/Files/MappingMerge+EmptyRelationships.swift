import DataModel

extension MappingMerge {
    /// A relationship a mapping file leaves empty (`{ default: null }`) whose inverse
    /// carries the stored pairs: Core Data sets an inverse whenever either side is set,
    /// so its migration keeps the pairs that this line means to drop. Refused, naming
    /// both sides, rather than run with either meaning.
    mutating func checkEmptiedInverses() {
        for override in file.entities {
            guard let entity = destination.entity(named: override.name),
                let entityMapping = mapping.mapping(forDestination: entity.name)
            else { continue }
            for (property, _) in override.properties.sorted(by: { $0.key < $1.key }) {
                guard let relationship = entity.relationship(named: property),
                    entityMapping.property(property)?.source == .defaultValue(nil),
                    let inverseName = relationship.declaration.inverse, let declaredIn = relationship.inverseEntity
                else { continue }
                // The mapping into the inverse's entity or a subentity (the inverse declared
                // on a new parent is carried by its subentities) that carries it; a policy that
                // sets the inverse decides for itself.
                let carrier = destination.subtree(of: declaredIn).first { name in
                    guard let carried = mapping.mapping(forDestination: name)?.property(inverseName)?.source else {
                        return false
                    }
                    return carried != .defaultValue(nil) && carried != .policy
                }
                guard let inverseEntity = carrier else { continue }
                let location = override.propertyLocations[property] ?? override.location
                diagnostics.append(
                    Diagnostic(
                        .error,
                        """
                        relationship '\(entity.name).\(property)': left empty, but its inverse \
                        \(inverseEntity).\(inverseName) is mapped, and Core Data sets an inverse whenever either side \
                        is set: the pairs would stay
                        """,
                        at: location,
                        hint:
                            "leave \(inverseEntity).\(inverseName) empty too (`\(inverseName): { default: null }` "
                            + "under \(inverseEntity)), "
                            + "or remove this line"))
            }
        }
    }
}
