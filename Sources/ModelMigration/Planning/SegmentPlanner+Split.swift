import DataModel
import Mapping
import SQLiteStore

/// One source entity feeding several destination entities (Core Data's "a third split
/// into two"): the keeper mapping (`MappingModel.keeper(ofSource:)`) keeps the source
/// rows and their entity number; every additional mapping gets a table of its own,
/// built set-based from the source rows before the source table changes, under a
/// new entity number. Its rows take the keys of the source rows they come from, so a
/// relationship to "the object the other mapping made of the same source object"
/// (`$manager … sourceInstances: $source`) is that key.
extension SegmentPlanner {
    /// True when an additional mapping feeds `table`: it is built anew from its source
    /// table (never altered or renamed from it, which the keeper does). Two mappings of
    /// one source entity into one table would give two rows the same key: refused.
    func additionalMappingsFeeding(_ table: Table) throws -> Bool {
        let hierarchy = destination.entities.filter { $0.root == table.entity }
        let mappings = hierarchy.compactMap { mapping.mapping(forDestination: $0.name) }
        guard mappings.contains(where: mapping.isAdditional) else { return false }
        let bySource = Dictionary(grouping: mappings.filter { $0.source != nil }, by: { $0.source! })
        if let (name, shared) = bySource.first(where: { $0.value.count > 1 }) {
            let destinations = shared.compactMap(\.destination).sorted()
            throw PlanningError(
                .noPath,
                """
                \(destinations.joined(separator: " and ")) are all made from each \(name) and share table \
                \(table.name): their objects would take the same keys; give each its own entity hierarchy, or make one \
                of them in a policy
                """)
        }
        return true
    }

    /// True when a mapping of `entity` other than the one that drops `property` reads it:
    /// the column goes with the keeper's table, but its values live on in the other's.
    func readByAnotherMapping(_ entity: String, _ property: String) -> Bool {
        let sources = source.entities.filter { lineageNames(source, $0.name).contains(entity) }.map(\.name)
        return sources.contains { name in
            mapping.mappings(fromSource: name).count > 1
                && !mapping.droppedProperties(ofSource: name).contains(property)
        }
    }

    /// Checks that `Z_PRIMARYKEY` agrees with the rows after the hop: each destination
    /// entity has its row under its planned number and name, and the key counter of
    /// each root entity is at least the highest key of its table (a new object must
    /// never take the key of one already stored). A store failing them is rolled back.
    mutating func addKeyCounterChecks() {
        let numbers = destinationLayout.entityNumbers
        let planned = destination.entities.compactMap { entity in numbers[entity.name].map { (entity.name, $0) } }
            .sorted { $0.1 < $1.1 }
        guard !planned.isEmpty else { return }
        let rows = planned.map { "SELECT \($0.1) AS e, '\($0.0)' AS n" }.joined(separator: " UNION ALL ")
        var parts = [
            """
            (SELECT count(*) FROM (\(rows)) AS p WHERE NOT EXISTS (SELECT 1 FROM Z_PRIMARYKEY k WHERE k.Z_ENT = p.e \
            AND k.Z_NAME = p.n))
            """
        ]
        for table in destinationLayout.tables where table.joinRelationship == nil {
            guard let number = numbers[table.entity] else { continue }
            parts.append(
                """
                (SELECT count(*) FROM (SELECT max(Z_PK) AS top FROM \(SQLText.q(table.name))) \
                WHERE top > coalesce((SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = \(number)), 0))
                """)
        }
        let names = planned.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
        checks.append(
            MigrationCheck(
                summary: """
                    Z_PRIMARYKEY agrees with the rows (each entity under its planned number: \(names); \
                    Z_MAX of each root entity at least the highest key of its table)
                    """,
                sql: "SELECT " + parts.joined(separator: " + ")))
    }
}

extension SegmentPlanner {
    /// The summary of a table an additional mapping fills: which objects it makes of which.
    func additionalBuildSummary(_ table: Table, from sourceTable: String) -> String? {
        let made = destination.entities.filter { $0.root == table.entity }.compactMap {
            mapping.mapping(forDestination: $0.name)
        }
        .filter(mapping.isAdditional)
        guard !made.isEmpty else { return nil }
        let each = made.map { "a \($0.destination ?? "?") for each \($0.source ?? "?") (entity mapping \($0.name))" }
        return "create \(table.name) from \(sourceTable): " + each.joined(separator: "; ")
    }
}
