extension CompiledVersion {
    /// The layout of this version in a store whose entities carry the given numbers
    /// (stores keep their numbers for life; new entities get new numbers). Entities
    /// missing from `entityNumbers` are numbered after the highest one, in Core
    /// Data's default order.
    /// - Parameter reserved: numbers up to this one are taken even when no entity of
    ///   this version has them (entities removed earlier), so new entities never reuse them.
    /// - Parameter existingTables: the tables (with their columns) of the store, when
    ///   it exists: where Core Data's naming is not known for sure (which side of a
    ///   many-to-many pair names its join table, which to-ones keep an entity
    ///   column), the store's own naming is kept.
    /// - Parameter asStored: the layout describes the existing tables as they are
    ///   (reading), rather than the layout to migrate to.
    /// - Parameter coreDataTypes: declare column types as Core Data does (`DECIMAL`
    ///   for decimals), for stores that came from Core Data.
    package func layout(
        entityNumbers: [String: Int], reserved: Int = 0, existingTables: [String: Set<String>]? = nil,
        asStored: Bool = false, coreDataTypes: Bool = false
    ) -> StorageLayout {
        var numbers = entityNumbers.filter { name, _ in entities.contains { $0.name == name } }
        // Core Data keeps an entity's old name in Z_PRIMARYKEY after a rename: follow
        // `renamedFrom` so that a renamed entity keeps its number and its rows.
        for entity in entities where numbers[entity.name] == nil {
            if let old = entity.renamedFrom, let number = entityNumbers[old], !numbers.values.contains(number) {
                numbers[entity.name] = number
            }
        }
        var next = max(entityNumbers.values.max() ?? 0, reserved) + 1
        for name in ModelCompiler.defaultEntityOrder(entities.map { ($0.name, $0.parent) }) where numbers[name] == nil {
            numbers[name] = next
            next += 1
        }
        var builder = LayoutBuilder(entities: entities, entityNumbers: numbers, existing: existingTables)
        builder.omitsMissingEntityColumns = asStored
        builder.coreDataTypes = coreDataTypes
        return builder.build()
    }
}
