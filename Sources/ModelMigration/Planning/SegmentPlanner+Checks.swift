import DataModel
import Mapping
import SQLiteStore

/// Bookkeeping (`Z_PRIMARYKEY`), the checks run before commit, and the warnings a
/// plan gives.
extension SegmentPlanner {
    // MARK: Bookkeeping, checks, warnings

    /// Core Data's persistent history names each changed object's entity by number
    /// (`ACHANGE.ZENTITY`): it follows the renumbering of a store from Core Data.
    mutating func historyStep() {
        guard let historyRows else { return }
        var moves: [(Int, Int)] = []
        for entityMapping in mapping.entityMappings {
            guard let s = entityMapping.source, let d = entityMapping.destination,
                let old = sourceLayout.entityNumbers[s], let new = destinationLayout.entityNumbers[d], old != new
            else { continue }
            moves.append((old, new))
        }
        guard !moves.isEmpty else { return }
        let cases = moves.sorted { $0.0 < $1.0 }.map { "WHEN \($0.0) THEN \($0.1)" }.joined(separator: " ")
        steps.append(
            .updateRows(
                .init(
                    summary: "renumber the entities of Core Data's persistent history (ACHANGE.ZENTITY)",
                    sql: [
                        """
                        UPDATE ACHANGE SET ZENTITY = CASE ZENTITY \(cases) END WHERE ZENTITY IN \
                        (\(SQLText.list(moves.map(\.0))))
                        """
                    ],
                    cost: .update(rows: historyRows), table: "ACHANGE")))
    }

    mutating func entityNumberStep() {
        var sql: [String] = []
        let old = sourceLayout.entityNumbers
        let new = destinationLayout.entityNumbers
        let renumbered = destination.entities.contains { entity in
            // An additional mapping's objects are new: their number is new, not changed.
            !mapping.isAdditional(destination: entity.name)
                && sourceEntity(for: entity.name).flatMap { old[$0.name] }.map { $0 != new[entity.name] } ?? false
        }
        if renumbered {
            // Numbers move between entities: rewrite the table, each entity keeping
            // its own key counter (`Z_MAX`) under its new number.
            sql.append("CREATE TEMP TABLE MM_OLD_PRIMARYKEY AS SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY")
            // Only the model's rows: Core Data's own entities (persistent history,
            // CloudKit mirroring) keep theirs.
            let modelNumbers = Set(old.values).union(new.values).sorted()
            sql.append("DELETE FROM Z_PRIMARYKEY WHERE Z_ENT IN (\(SQLText.list(modelNumbers)))")
            for entity in destination.entities.sorted(by: { (new[$0.name] ?? 0) < (new[$1.name] ?? 0) }) {
                guard let number = new[entity.name] else { continue }
                let parent = entity.parent.flatMap { new[$0] } ?? 0
                let counter =
                    sourceEntity(for: entity.name).flatMap { old[$0.name] }
                    .map { "coalesce((SELECT Z_MAX FROM MM_OLD_PRIMARYKEY WHERE Z_ENT = \($0)), 0)" } ?? "0"
                sql.append(
                    """
                    INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (\(number), '\(entity.name)', \
                    \(parent), \(counter))
                    """
                )
            }
            sql.append("DROP TABLE MM_OLD_PRIMARYKEY")
        } else {
            for (name, number) in old.sorted(by: { $0.value < $1.value }) where !new.values.contains(number) {
                sql.append("DELETE FROM Z_PRIMARYKEY WHERE Z_ENT = \(number) -- \(name) removed")
            }
            for entity in destination.entities {
                guard let number = new[entity.name] else { continue }
                let parent = entity.parent.flatMap { new[$0] } ?? 0
                if old.values.contains(number) {
                    // The store may lack the row (Core Data's own migrations leave old
                    // names; a damaged store none): write it with the number used.
                    if let stored = storedKeyNumbers, !stored.contains(number) {
                        sql.append(
                            """
                            INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) SELECT \(number), \
                            '\(entity.name)', \(parent), 0 WHERE NOT EXISTS (SELECT 1 FROM Z_PRIMARYKEY WHERE Z_ENT = \
                            \(number))
                            """)
                    }
                    sql.append(
                        "UPDATE Z_PRIMARYKEY SET Z_NAME = '\(entity.name)', Z_SUPER = \(parent) WHERE Z_ENT = \(number)"
                    )
                } else {
                    sql.append(
                        """
                        INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (\(number), '\(entity.name)', \
                        \(parent), 0)
                        """
                    )
                }
            }
        }
        for table in destinationLayout.tables where table.joinRelationship == nil {
            guard let number = new[table.entity] else { continue }
            sql.append(
                """
                UPDATE Z_PRIMARYKEY SET Z_MAX = max(Z_MAX, coalesce((SELECT max(Z_PK) FROM \(SQLText.q(table.name))), \
                0)) WHERE Z_ENT = \(number)
                """
            )
        }
        steps.append(
            .entityNumbers(
                .init(
                    summary: renumbered
                        ? "update Z_PRIMARYKEY (the numbers Core Data gives the new model's entities)"
                        : "update Z_PRIMARYKEY (entity numbers stay; new entities get new ones)",
                    sql: sql, cost: .constant, table: "Z_PRIMARYKEY")))
    }

    /// The checks of a table built anew: required values present, references
    /// resolving (`CheckBuilder`); required attributes copied from required ones
    /// were checked when they were written.
    mutating func addRebuildChecks(_ table: Table) {
        for check in checkBuilder.checks(
            for: table, skippingRequired: { copiedFromRequired($0, $1) || computedRequired($0, $1) })
        where !checks.contains(check) { checks.append(check) }
        // A rebuild may leave rows out (entities removed or moved out of the
        // hierarchy): the to-manys into the table must still hold their minCount.
        for check in checkBuilder.memberCountChecks(into: table.name) where !checks.contains(check) {
            checks.append(check)
        }
        // The pairs written into it hold the counts of the to-manys they make up.
        for check in checkBuilder.storedCountChecks(in: table.name) where !checks.contains(check) {
            checks.append(check)
        }
    }

    /// True when every entity storing this attribute computes it with a mapping
    /// file's expression: the copy itself refuses a nil (`mm_required`).
    func computedRequired(_ owner: String, _ property: String) -> Bool {
        let storing = destination.entities.filter { lineageNames(destination, $0.name).contains(owner) }
        guard !storing.isEmpty else { return false }
        return storing.allSatisfy { entity in
            guard let mapping = mapping.mapping(forDestination: entity.name), mapping.kind != .custom,
                sourceEntity(for: entity.name) != nil,
                case .expression? = mapping.property(property)?.source
            else { return false }
            return true
        }
    }

    /// Builds checks over the destination version and layout.
    var checkBuilder: CheckBuilder { CheckBuilder(version: destination, layout: destinationLayout) }

    /// True when every entity storing this attribute copies it from a required
    /// attribute: its values were already checked when they were written.
    func copiedFromRequired(_ owner: String, _ property: String) -> Bool {
        let storing = destination.entities.filter { lineageNames(destination, $0.name).contains(owner) }
        guard !storing.isEmpty else { return false }
        return storing.allSatisfy { entity in
            guard let mapping = mapping.mapping(forDestination: entity.name), mapping.kind != .custom,
                let sourceEntity = sourceEntity(for: entity.name)
            else { return false }
            switch mapping.property(property)?.source {
            case .copy(let from)?, .convert(let from, .widen)?:
                return sourceEntity.attribute(named: from)?.declaration.isOptional == false
            default:
                return false
            }
        }
    }

    /// Rows were deleted from `table`: references into it must still resolve.
    mutating func addReferenceChecks(into table: String) {
        checks += checkBuilder.referenceChecks(into: table)
    }

    mutating func warnDropped(
        _ mapping: EntityMapping?, sourceEntity: CompiledEntity, numbers: [Int], policy: Bool = false
    ) throws {
        guard let mapping, let table = sourceLayout.table(forEntity: sourceEntity.root) else { return }
        // What another mapping of the same source entity reads is not dropped.
        for property in mapping.droppedProperties
        where self.mapping.droppedProperties(ofSource: sourceEntity.name).contains(property) {
            // A policy reads every source property; what it keeps is its business.
            if policy { break }
            if let column = sourceColumn(sourceEntity, property), !pairsCountedElsewhere(sourceEntity.name, property) {
                let values = try countValues(table.name, column.name, numbers)
                if let warning = Self.droppedWarning("\(sourceEntity.name).\(property)", values: values) {
                    warnings.append(warning)
                }
            }
        }
        for property in mapping.properties {
            if case .convert(let from, .widen) = property.source, let old = sourceEntity.attribute(named: from),
                old.declaration.type == .integer64,
                destination.entity(named: mapping.destination ?? "")?.attribute(named: property.name)?.declaration.type
                    == .double,
                let column = sourceColumn(sourceEntity, from)
            {
                try warnPrecisionLoss(
                    "\(sourceEntity.name).\(from)", table: table.name, column: column.name, numbers: numbers)
            }
        }
    }

    /// Integer 64 → Double: values beyond 2^53 that no double holds change (2^53 + 1
    /// becomes 2^53). Counted exactly (SQLite compares an integer with a real
    /// exactly), a destructive warning when there are some; unknown counts (a later hop,
    /// a table too large to scan) say "may".
    mutating func warnPrecisionLoss(_ property: String, table: String, column: String, numbers: [Int]) throws {
        let condition = """
            f.Z_ENT IN (\(SQLText.list(numbers))) AND f.\(SQLText.q(column)) IS NOT NULL \
            AND CAST(f.\(SQLText.q(column)) AS REAL) <> f.\(SQLText.q(column))
            """
        let lost = try countWhere(table, condition, [])
        if let lost, lost == 0 { return }
        warnings.append(
            MigrationWarning(
                message: lost.map {
                    """
                    \(property): integer64 → double changes \($0) value\($0 == 1 ? "" : "s") beyond 2^53, which no \
                    double holds exactly
                    """
                }
                    ?? """
                    \(property): integer64 → double changes any value beyond 2^53, which no double holds exactly (not \
                    counted here)
                    """,
                isDestructive: true, subject: property, count: lost))
    }

    /// A dropped relationship whose pairs are not lost, or are counted on its other
    /// side: the pairs of a relationship and its inverse are one set (Core Data's
    /// inverse maintenance sets one side from the other), so when a mapping of the
    /// hop reads the inverse (`items: $source.books` carrying `Book.playlist`'s pairs)
    /// nothing is lost, and when both sides of a one-to-one are dropped the pairs are
    /// counted once, on the side whose entity (then name) sorts first.
    func pairsCountedElsewhere(_ entity: String, _ property: String) -> Bool {
        guard let relationship = source.entity(named: entity)?.relationship(named: property),
            let inverse = relationship.declaration.inverse,
            let owner = relationship.inverseEntity,
            let other = source.entity(named: owner)?.relationship(named: inverse)
        else { return false }
        // The inverse's pairs are carried by a destination relationship whose
        // destination entity still holds this entity's objects.
        let becomes = mapping.mappings(fromSource: entity).compactMap(\.destination)
        for reader in subtree(source, owner) {
            for readerMapping in mapping.mappings(fromSource: reader) where readerMapping.kind != .custom {
                for property in readerMapping.properties where property.isRelationship {
                    let from: String? =
                        switch property.source {
                        case .copy(let name), .convert(let name, _): name
                        default: nil
                        }
                    guard from == inverse, let made = readerMapping.destination,
                        let target = destination.entity(named: made)?.relationship(named: property.name)?.declaration
                            .destination
                    else { continue }
                    if !becomes.isEmpty, becomes.allSatisfy({ subtree(destination, target).contains($0) }) {
                        return true
                    }
                }
            }
        }
        let oneToOne = !relationship.declaration.isToMany && !other.declaration.isToMany
        return oneToOne && (owner, inverse) < (relationship.declaredIn, property)
    }

    /// The warning for a dropped property holding `values` non-nil values
    /// (`RowCounter.notCounted` when it holds some that were not counted).
    static func droppedWarning(_ property: String, values: Int64) -> MigrationWarning? {
        if values == RowCounter.notYetWritten {
            return MigrationWarning(
                message: """
                    \(property) is dropped: the values an earlier hop of this run writes into it will be lost \
                    (not counted: they are not in the store before the apply)
                    """, isDestructive: true, subject: property)
        }
        if values == RowCounter.notCounted {
            return MigrationWarning(
                message: """
                    \(property) is dropped: it holds non-nil values, which will be lost \
                    (not counted in a table this large; `migrate plan --exact-counts` counts them)
                    """, isDestructive: true, subject: property)
        }
        guard values > 0 else { return nil }
        return MigrationWarning(
            message: "\(property) is dropped: \(values) non-nil value\(values == 1 ? "" : "s") will be lost",
            isDestructive: true, subject: property,
            count: values)
    }

    /// Destructive warnings for columns dropped in place.
    mutating func warnDroppedColumns(_ columns: [Column], in table: Table) throws {
        for column in columns {
            let (entity, property): (String, String)
            let rowsOf: String
            switch column.role {
            case .attribute(let e, let p), .toOne(let e, let p): (entity, property, rowsOf) = (e, p, e)
            case .toManyKey(let e, let p):
                // The key sits on the destination's rows.
                guard let destination = source.entity(named: e)?.relationship(named: p)?.declaration.destination else {
                    continue
                }
                (entity, property, rowsOf) = (e, p, destination)
            default: continue
            }
            if readByAnotherMapping(entity, property) || pairsCountedElsewhere(entity, property) { continue }
            let scope = numbers(sourceLayout, subtree(source, rowsOf))
            let values = try countValues(table.name, column.name, scope)
            if let warning = Self.droppedWarning("\(entity).\(property)", values: values) { warnings.append(warning) }
        }
    }

    mutating func warnDroppedTable(_ table: Table) throws {
        if try tableMadeByEarlierHop(table.name) {
            // Renamed or made by an earlier hop of this run: its rows are not in the
            // store yet to count, and a loss must not pass the gate as 0.
            warnings.append(
                MigrationWarning(
                    message: """
                        table \(table.name) is dropped with its rows (entity \(table.entity) removed; an earlier hop \
                        of this run makes it, so its rows are not counted before the apply)
                        """, isDestructive: true, subject: table.entity))
            return
        }
        // Objects a further mapping merges into another table are not lost with it
        // (those its filter leaves out are warned of with the filter).
        let merged = numbers(
            sourceLayout,
            mapping.furtherMappings.compactMap(\.source).filter { name in
                source.entity(named: name).map { sourceLayout.table(forEntity: $0.root)?.name == table.name } ?? false
            })
        let rows = try count(table.name, nil) - (merged.isEmpty ? 0 : try count(table.name, merged))
        if rows > 0 {
            warnings.append(
                MigrationWarning(
                    message: """
                        table \(table.name) is dropped with its \(rows) row\(rows == 1 ? "" : "s") (entity \
                        \(table.entity) removed)
                        """, isDestructive: true, subject: table.entity, count: rows))
        }
    }
}
