import DataModel
import Mapping
import SQLiteStore

/// A property moved down a hierarchy (P.x → C.x, C one subentity of P) on a table
/// changed in place keeps its column, which now belongs to C alone: the values the
/// other entities' rows hold in it (P's own, a sibling D's) are dropped, as Core
/// Data's entity mappings for P and D have no property mapping for x. A rebuild
/// copies each entity's own columns and loses them already (with `warnDropped`'s
/// warning); in place they are set to nil here, with the same warning.
extension SegmentPlanner {
    /// Clears, before any other step, the values of in-place columns held by rows of
    /// source entities whose destination entity no longer has the property.
    mutating func clearMovedDownValues(_ tables: TablePlan) throws {
        for table in tables.fastPath {
            let oldName = tableRenamedFrom(table) ?? table.name
            guard let old = sourceLayout.table(named: oldName) else { continue }
            for column in table.columns {
                let owner: String
                switch column.role {
                case .attribute(let entity, _): owner = entity
                case .toOne(let entity, _): owner = entity
                default: continue
                }
                let oldColumnName: String
                switch inPlace(column, of: table) {
                case .same(let name)?, .fill(let name, _)?: oldColumnName = name
                default: continue
                }
                guard let oldColumn = old.columns.first(where: { $0.name == oldColumnName }) else { continue }
                try clearValues(in: oldColumn, of: old, keptFor: owner)
            }
        }
    }

    /// The rows of `old` whose entity maps outside `owner`'s subtree lose their values in `column`.
    mutating func clearValues(in column: Column, of old: Table, keptFor owner: String) throws {
        let (declaredIn, property): (String, String)
        switch column.role {
        case .attribute(let e, let p), .toOne(let e, let p): (declaredIn, property) = (e, p)
        default: return
        }
        let holders = Set(subtree(destination, owner))
        var losing: [CompiledEntity] = []
        // Only rows of the entities that had the property hold values in its column.
        for entity in subtree(source, declaredIn).compactMap({ source.entity(named: $0) }) {
            let made = mapping.mappings(fromSource: entity.name).filter { $0.kind != .remove }
            // Removed entities' rows are deleted; a policy reads its rows itself.
            guard !made.isEmpty, !made.contains(where: { $0.kind == .custom }),
                !made.contains(where: { holders.contains($0.destination ?? "") })
            else { continue }
            // Another destination property reading the same source column keeps it.
            if made.contains(where: { m in m.properties.contains { readsColumn($0.source, column, of: entity) } }) {
                return
            }
            losing.append(entity)
        }
        let numbers = numbers(sourceLayout, losing.map(\.name))
        guard !numbers.isEmpty else { return }
        for entity in losing {
            guard let number = sourceLayout.entityNumbers[entity.name] else { continue }
            let values = try countValues(old.name, column.name, [number])
            if let warning = Self.droppedWarning("\(entity.name).\(property)", values: values) {
                warnings.append(warning)
            }
        }
        let cleared = companions(old.name, column.name).map { "\(SQLText.q($0)) = NULL" }.joined(separator: ", ")
        steps.append(
            .updateRows(
                .init(
                    summary:
                        """
                        clear \(column.name) of \(losing.map(\.name).joined(separator: ", ")) rows (\(property) moved \
                        down to \(owner))
                        """,
                    sql: [
                        """
                        UPDATE \(SQLText.q(old.name)) SET \(cleared) \
                        WHERE Z_ENT IN (\(SQLText.list(numbers))) AND \(SQLText.q(column.name)) IS NOT NULL
                        """
                    ],
                    cost: .update(rows: (try? count(old.name, numbers)) ?? 0), table: old.name)))
        // A to-one cleared on those rows takes them out of its inverse to-many: its
        // minCount must still hold after the hop.
        if case .toOne = column.role, let root = destination.entity(named: owner)?.root,
            let table = destinationLayout.table(forEntity: root)
        {
            for check in checkBuilder.memberCountChecks(into: table.name) where !checks.contains(check) {
                checks.append(check)
            }
        }
    }

    /// Whether a property mapping reads a source column (copied, converted).
    func readsColumn(_ source: PropertySource?, _ column: Column, of entity: CompiledEntity) -> Bool {
        switch source {
        case .copy(let from)?, .convert(let from, _)?: sourceColumn(entity, from)?.name == column.name
        default: false
        }
    }
}
