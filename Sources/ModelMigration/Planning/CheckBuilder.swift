import DataModel
import SQLiteStore

/// Builds the checks a migration runs after its steps, over one version and its
/// layout: required values present, references resolving to objects of the right
/// entity, entity-type columns agreeing with their rows. The planner asks it for
/// the tables a hop builds; the migrator and `--verify` for every table.
struct CheckBuilder {
    let version: CompiledVersion
    let layout: StorageLayout

    typealias Table = StorageLayout.Table
    typealias Column = StorageLayout.Column

    func numbers(_ names: [String]) -> [Int] { names.compactMap { layout.entityNumbers[$0] }.sorted() }

    /// Every relationship of a version: to-one targets and join table keys exist,
    /// required values are present, entity columns name the right entities.
    static func relationshipChecks(_ version: CompiledVersion, layout: StorageLayout) -> [MigrationCheck] {
        let builder = CheckBuilder(version: version, layout: layout)
        var checks: [MigrationCheck] = []
        for table in layout.tables {
            for check in builder.checks(for: table) where !checks.contains(check) { checks.append(check) }
        }
        return checks
    }

    /// A table's checks: every required attribute and to-one has a value (unless
    /// `skippingRequired(entity, property)`), every reference resolves to an object
    /// of its destination entity, every entity-type column agrees with its row.
    func checks(for table: Table, skippingRequired: (String, String) -> Bool = { _, _ in false }) -> [MigrationCheck] {
        var checks: [MigrationCheck] = []
        var scans: [(check: Int, column: String, condition: String)] = []
        for column in table.columns {
            switch column.role {
            case .attribute(let owner, let property):
                guard let entity = version.entity(named: owner), let a = entity.attribute(named: property)?.declaration,
                    !a.isOptional,
                    !skippingRequired(owner, property)
                else { continue }
                scans.append((checks.count, column.name, missing(owner: owner, column: column)))
                checks.append(required("\(owner).\(property) has a value", owner: owner, table: table, column: column))
            case .toOne(let owner, let name):
                guard let r = version.entity(named: owner)?.relationship(named: name)?.declaration,
                    let target = version.entity(named: r.destination)
                else { continue }
                let entityColumn = table.column(for: .toOneEntity(entity: owner, relationship: name))
                if let check = reference(
                    from: table, column, to: target, clearing: [column, entityColumn].compactMap { $0 },
                    summary: "\(owner).\(name) points to existing \(target.name) objects",
                    key: ReferenceKey(entity: owner, relationship: name, towardOwner: false))
                {
                    checks.append(check)
                }
                if !r.isOptional {
                    scans.append((checks.count, column.name, missing(owner: owner, column: column)))
                    checks.append(required("\(owner).\(name) is set", owner: owner, table: table, column: column))
                }
            case .toOneEntity:
                if let check = entityTypeCheck(table, column), !checks.contains(check) { checks.append(check) }
            case .toManyKey(let owner, let name):
                guard let ownerEntity = version.entity(named: owner), ownerEntity.relationship(named: name) != nil
                else { continue }
                let order = table.column(for: .order(entity: owner, relationship: name))
                if let check = reference(
                    from: table, column, to: ownerEntity, clearing: [column, order].compactMap { $0 },
                    summary: "\(table.name).\(column.name) points to existing \(owner) objects",
                    key: ReferenceKey(entity: owner, relationship: name, towardOwner: true))
                {
                    checks.append(check)
                }
            case .joinKey(let entityName, _):
                guard let target = version.entity(named: entityName) else { continue }
                if let check = reference(
                    from: table, column, to: target, clearing: nil,
                    summary: "\(table.name).\(column.name) points to existing \(target.name) objects",
                    key: joinReference(table, column))
                {
                    checks.append(check)
                }
            default: continue
            }
        }
        return sharingOneScan(checks, scans: scans, in: table)
    }

    /// Gives the required-value checks of a table that would each read every row one
    /// probe, so that a table with several required attributes is read once, not once
    /// per attribute (0.1 s a column at a million rows): when the probe finds
    /// nothing, every one of them passes; when it finds something, each runs its own
    /// count to say which failed. A check whose column leads an index keeps its own
    /// query: it reads the index's nulls, not the table.
    func sharingOneScan(
        _ checks: [MigrationCheck], scans: [(check: Int, column: String, condition: String)],
        in table: Table
    ) -> [MigrationCheck] {
        let indexed = Set(
            layout.indexes.filter { $0.table == table.name && $0.condition == nil }.compactMap {
                $0.columns.first?.name
            })
        let scanning = scans.filter { !indexed.contains($0.column) }
        guard scanning.count > 1 else { return checks }
        let probe =
            "SELECT count(*) FROM \(SQLText.q(table.name)) WHERE "
            + scanning.map { "(\($0.condition))" }.joined(separator: " OR ")
        var shared = checks
        for scan in scanning { shared[scan.check].probeSQL = SQLFragment(probe) }
        return shared
    }

    /// `required … in every row`: the rows of `owner` and its subentities hold a value in `column`.
    func required(_ what: String, owner: String, table: Table, column: Column) -> MigrationCheck {
        MigrationCheck(
            summary: "required \(what) in every row",
            sql: "SELECT count(*) FROM \(SQLText.q(table.name)) WHERE \(missing(owner: owner, column: column))")
    }

    /// The rows of `owner` and its subentities without a value in `column`, as a condition.
    func missing(owner: String, column: Column) -> String {
        let scope = numbers(version.entities.filter { version.lineage(of: $0.name).contains(owner) }.map(\.name))
        return "Z_ENT IN (\(SQLText.list(scope))) AND \(SQLText.q(column.name)) IS NULL"
    }

    /// References in `column` resolve to rows of `target` (or its subentities). The
    /// repair removes those that do not: it sets `clearing` to nil, or, for a join
    /// table (`clearing` nil), deletes the pair.
    func reference(
        from table: Table, _ column: Column, to target: CompiledEntity, clearing: [Column]?,
        summary: String, key: ReferenceKey?
    ) -> MigrationCheck? {
        guard let targetTable = layout.table(forEntity: target.root) else { return nil }
        let c = SQLText.q(column.name)
        let targets = SQLText.list(numbers(version.subtree(of: target.name)))
        var dangling =
            """
            NOT EXISTS (SELECT 1 FROM \(SQLText.q(targetTable.name)) AS d WHERE d.Z_PK = a.\(c) AND d.Z_ENT IN \
            (\(targets)))
            """
        let q = SQLText.q(table.name)
        let repair: MigrationCheck.Repair
        if let clearing {
            dangling = "a.\(c) IS NOT NULL AND " + dangling
            let cleared = clearing.map { "\(SQLText.q($0.name)) = NULL" }.joined(separator: ", ")
            repair = .init(
                table: table.name, sql: SQLFragment("UPDATE \(q) AS a SET \(cleared) WHERE \(dangling)"),
                deletesRows: false)
        } else {
            repair = .init(
                table: table.name, sql: SQLFragment("DELETE FROM \(q) AS a WHERE \(dangling)"), deletesRows: true)
        }
        var check = MigrationCheck(
            summary: summary, sql: "SELECT count(*) FROM \(q) AS a WHERE \(dangling)", reference: key, repair: repair)
        // Each distinct key once (from the column's index when it has one): a
        // million rows pointing at a hundred thousand objects look up a hundred thousand.
        check.probeSQL = SQLFragment(
            "SELECT count(*) FROM (SELECT DISTINCT \(c) AS k FROM \(q) WHERE \(c) IS NOT NULL) AS a WHERE NOT EXISTS "
                + "(SELECT 1 FROM \(SQLText.q(targetTable.name)) AS d WHERE d.Z_PK = a.k AND d.Z_ENT IN (\(targets)))")
        return check
    }

    /// The relationship direction a join table's key column stores: the first
    /// column holds the keys of the objects owning the relationship the table is
    /// named after, the second those of its destinations.
    func joinReference(_ table: Table, _ column: Column) -> ReferenceKey? {
        guard let owner = table.joinRelationship, let dot = owner.firstIndex(of: ".") else { return nil }
        return ReferenceKey(
            entity: String(owner[..<dot]), relationship: String(owner[owner.index(after: dot)...]),
            towardOwner: table.columns.first?.name == column.name)
    }

    /// Rows were deleted from `table`: references into it must still resolve.
    func referenceChecks(into table: String) -> [MigrationCheck] {
        var checks: [MigrationCheck] = []
        for other in layout.tables {
            for column in other.columns {
                guard case .toOne(let owner, let name) = column.role,
                    let r = version.entity(named: owner)?.relationship(named: name)?.declaration,
                    let target = version.entity(named: r.destination),
                    layout.table(forEntity: target.root)?.name == table
                else { continue }
                let targets = numbers(version.subtree(of: target.name))
                let c = SQLText.q(column.name)
                checks.append(
                    MigrationCheck(
                        summary: "\(owner).\(name) still points to existing \(target.name) objects",
                        sql:
                            "SELECT count(*) FROM \(SQLText.q(other.name)) AS a WHERE a.\(c) IS NOT NULL AND NOT "
                            + "EXISTS "
                                + """
                                (SELECT 1 FROM \(SQLText.q(table)) AS d WHERE d.Z_PK = a.\(c) AND d.Z_ENT IN \
                                (\(SQLText.list(targets))))
                                """,
                        reference: ReferenceKey(entity: owner, relationship: name, towardOwner: false)))
            }
            for column in other.columns {
                guard case .joinKey(let entityName, _) = column.role, let target = version.entity(named: entityName),
                    layout.table(forEntity: target.root)?.name == table
                else { continue }
                let targets = numbers(version.subtree(of: target.name))
                let c = SQLText.q(column.name)
                checks.append(
                    MigrationCheck(
                        summary: "\(other.name).\(column.name) still points to existing \(target.name) objects",
                        sql: "SELECT count(*) FROM \(SQLText.q(other.name)) AS a WHERE NOT EXISTS "
                            + """
                            (SELECT 1 FROM \(SQLText.q(table)) AS d WHERE d.Z_PK = a.\(c) AND d.Z_ENT IN \
                            (\(SQLText.list(targets))))
                            """,
                        reference: joinReference(other, column)))
            }
        }
        return checks
    }

    /// Objects were removed from `table`: every to-many relationship into it with a
    /// minimum count must still hold it (Core Data's validation stage,
    /// `NSValidationRelationshipLacksMinimumCountError`; an optional one may be
    /// empty, Docs/Objects.md).
    func memberCountChecks(into table: String) -> [MigrationCheck] {
        countChecks { relationship, target in
            relationship.declaration.minCount.map { $0 > 0 } == true
                && layout.table(forEntity: target.root)?.name == table
        }
    }

    /// Pairs were written into `table` (a join table, or the key columns of a
    /// to-many's members): every to-many stored there holds its `minCount` and
    /// `maxCount` (`NSValidationRelationshipExceedsMaximumCountError`). Pairs merged
    /// from several source relationships (a to-one moved up from two siblings
    /// whose inverses become one) are judged only here.
    func storedCountChecks(in table: String) -> [MigrationCheck] {
        countChecks { relationship, target in
            let r = relationship.declaration
            guard (r.minCount ?? 0) > 0 || (r.maxCount ?? 0) > 0 else { return false }
            if !relationship.isManyToMany,
                let (other, _, _) = layout.reverseColumn(for: relationship, destinationRoot: target.root)
            {
                return other.name == table
            }
            return layout.joinTable(for: relationship)?.table.name == table
        }
    }

    /// The count checks of every to-many `selected` picks, given its destination.
    func countChecks(_ selected: (CompiledRelationship, CompiledEntity) -> Bool) -> [MigrationCheck] {
        var checks: [MigrationCheck] = []
        for entity in version.entities {
            for relationship in entity.relationships where relationship.declaredIn == entity.name {
                let r = relationship.declaration
                guard r.isToMany, let target = version.entity(named: r.destination), selected(relationship, target),
                    let ownerTable = layout.table(forEntity: entity.root)
                else { continue }
                let count: String
                if !relationship.isManyToMany,
                    let (other, column, _) = layout.reverseColumn(for: relationship, destinationRoot: target.root)
                {
                    count = "(SELECT count(*) FROM \(SQLText.q(other.name)) AS d WHERE d.\(SQLText.q(column)) = t.Z_PK)"
                } else if let (join, mine, _) = layout.joinTable(for: relationship) {
                    count = "(SELECT count(*) FROM \(SQLText.q(join.name)) AS j WHERE j.\(SQLText.q(mine)) = t.Z_PK)"
                } else {
                    continue
                }
                let owners = "t.Z_ENT IN (\(SQLText.list(numbers(version.subtree(of: entity.name)))))"
                var rules: [(filter: String, summary: String)] = []
                if let minimum = r.minCount, minimum > 0 {
                    rules.append(
                        (
                            "\(count) < \(minimum)\(r.isOptional ? " AND \(count) > 0" : "")",
                            "still holds at least \(minimum) objects"
                        ))
                }
                if let maximum = r.maxCount, maximum > 0 {
                    rules.append(("\(count) > \(maximum)", "holds at most \(maximum) object\(maximum == 1 ? "" : "s")"))
                }
                for rule in rules {
                    let filter = "\(owners) AND \(rule.filter)"
                    checks.append(
                        MigrationCheck(
                            summary: "\(entity.name).\(r.name) \(rule.summary)",
                            sql: "SELECT count(*) FROM \(SQLText.q(ownerTable.name)) AS t WHERE \(filter)",
                            rowsSQL:
                                "SELECT 'Z_PK ' || t.Z_PK || ': ' || \(count) || ' objects' FROM "
                                + "\(SQLText.q(ownerTable.name)) AS t "
                                + "WHERE \(filter) ORDER BY t.Z_PK LIMIT 5"))
                }
            }
        }
        return checks
    }

    /// For an entity-type column (`Z<n>_<NAME>`): its key column, the destination
    /// entity and the destination's table.
    func entityColumnSource(_ table: Table, _ column: Column) -> (
        key: Column, target: String, targetTable: String, label: String
    )? {
        guard case .toOneEntity(let owner, let name) = column.role,
            let relationship = version.entity(named: owner)?.relationship(named: name),
            let key = table.column(for: .toOne(entity: owner, relationship: name)),
            let target = version.entity(named: relationship.declaration.destination),
            let targetTable = layout.table(forEntity: target.root)
        else { return nil }
        return (key, target.name, targetTable.name, "\(owner).\(name)")
    }

    /// Every row's entity-type column holds the entity number of its destination row.
    func entityTypeCheck(_ table: Table, _ column: Column) -> MigrationCheck? {
        guard let (key, _, targetTable, label) = entityColumnSource(table, column) else { return nil }
        return MigrationCheck(
            summary: "\(table.name).\(column.name) holds the entity of each \(label) destination",
            sql: "SELECT count(*) FROM \(SQLText.q(table.name)) AS a JOIN \(SQLText.q(targetTable)) AS d "
                + "ON d.Z_PK = a.\(SQLText.q(key.name)) WHERE a.\(SQLText.q(column.name)) IS NOT d.Z_ENT")
    }
}
