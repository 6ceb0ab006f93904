/// The inheritance facts of one version: made once by the loader and shared by
/// the validator and the compiler, which both need them.
struct Inheritance {
    /// The parent links, chains, cycles and depth-first numbers.
    let hierarchy: EntityHierarchy
    /// Which declaration of a property each entity sees.
    let visibility: PropertyVisibility

    init(_ version: ModelVersionDescription) {
        hierarchy = EntityHierarchy(version.entities.map { ($0.name, $0.parent) })
        visibility = PropertyVisibility(hierarchy: hierarchy, entities: version.entities)
    }
}
