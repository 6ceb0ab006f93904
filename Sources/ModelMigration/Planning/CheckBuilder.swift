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

    /// A table's checks: every required attribute and to-one has a value (unless
    /// `skippingRequired(entity, property)`), every reference resolves to an object
    /// of its destination entity, every entity-type column agrees with its row.
    func checks(for table: Table, skippingRequired: (String, String) -> Bool = { _, _ in false }) -> [MigrationCheck] {
        var checks: [MigrationCheck] = []
        for column in table.columns {
            switch column.role {
            case .attribute(let owner, let property):
                guard let entity = version.entity(named: owner), let a = entity.attribute(named: property)?.declaration, !a.isOptional else { continue }
                if skippingRequired(owner, property) { continue }
                let scope = numbers(version.entities.filter { version.lineage(of: $0.name).contains(owner) }.map(\.name))
                checks.append(MigrationCheck(summary: "required \(owner).\(property) has a value in every row",
                                             sql: "SELECT count(*) FROM \(SQLText.q(table.name)) WHERE Z_ENT IN (\(SQLText.list(scope))) AND \(SQLText.q(column.name)) IS NULL"))
            case .toOne(let owner, let name):
                guard let entity = version.entity(named: owner), let r = entity.relationship(named: name)?.declaration,
                      let target = version.entity(named: r.destination), let targetTable = layout.table(forEntity: target.root) else { continue }
                let targets = numbers(version.subtree(of: target.name))
                let c = SQLText.q(column.name)
                let dangling = "a.\(c) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(SQLText.q(targetTable.name)) AS d WHERE d.Z_PK = a.\(c) AND d.Z_ENT IN (\(SQLText.list(targets))))"
                let cleared = ([column.name] + [table.column(for: .toOneEntity(entity: owner, relationship: name))?.name].compactMap { $0 })
                    .map { "\(SQLText.q($0)) = NULL" }.joined(separator: ", ")
                checks.append(MigrationCheck(summary: "\(owner).\(name) points to existing \(target.name) objects",
                                             sql: "SELECT count(*) FROM \(SQLText.q(table.name)) AS a WHERE \(dangling)",
                                             reference: ReferenceKey(entity: owner, relationship: name, towardOwner: false),
                                             repair: .init(table: table.name, sql: "UPDATE \(SQLText.q(table.name)) AS a SET \(cleared) WHERE \(dangling)", deletesRows: false)))
                if !r.isOptional {
                    let scope = numbers(version.entities.filter { version.lineage(of: $0.name).contains(owner) }.map(\.name))
                    checks.append(MigrationCheck(summary: "required \(owner).\(name) is set in every row",
                                                 sql: "SELECT count(*) FROM \(SQLText.q(table.name)) WHERE Z_ENT IN (\(SQLText.list(scope))) AND \(SQLText.q(column.name)) IS NULL"))
                }
            case .toOneEntity:
                if let check = entityTypeCheck(table, column), !checks.contains(check) { checks.append(check) }
            case .toManyKey(let owner, let name):
                guard let ownerEntity = version.entity(named: owner), ownerEntity.relationship(named: name) != nil,
                      let ownerTable = layout.table(forEntity: ownerEntity.root) else { continue }
                let owners = numbers(version.subtree(of: owner))
                let c = SQLText.q(column.name)
                let dangling = "a.\(c) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(SQLText.q(ownerTable.name)) AS d WHERE d.Z_PK = a.\(c) AND d.Z_ENT IN (\(SQLText.list(owners))))"
                let cleared = ([column.name] + [table.column(for: .order(entity: owner, relationship: name))?.name].compactMap { $0 })
                    .map { "\(SQLText.q($0)) = NULL" }.joined(separator: ", ")
                checks.append(MigrationCheck(summary: "\(table.name).\(column.name) points to existing \(owner) objects",
                                             sql: "SELECT count(*) FROM \(SQLText.q(table.name)) AS a WHERE \(dangling)",
                                             reference: ReferenceKey(entity: owner, relationship: name, towardOwner: true),
                                             repair: .init(table: table.name, sql: "UPDATE \(SQLText.q(table.name)) AS a SET \(cleared) WHERE \(dangling)", deletesRows: false)))
            case .joinKey(let entityName, _):
                guard let target = version.entity(named: entityName), let targetTable = layout.table(forEntity: target.root) else { continue }
                let targets = numbers(version.subtree(of: target.name))
                let dangling = "NOT EXISTS (SELECT 1 FROM \(SQLText.q(targetTable.name)) AS d WHERE d.Z_PK = a.\(SQLText.q(column.name)) AND d.Z_ENT IN (\(SQLText.list(targets))))"
                checks.append(MigrationCheck(summary: "\(table.name).\(column.name) points to existing \(target.name) objects",
                                             sql: "SELECT count(*) FROM \(SQLText.q(table.name)) AS a WHERE \(dangling)",
                                             reference: joinReference(table, column),
                                             repair: .init(table: table.name, sql: "DELETE FROM \(SQLText.q(table.name)) AS a WHERE \(dangling)", deletesRows: true)))
            default: continue
            }
        }
        return checks
    }

    /// The relationship direction a join table's key column stores: the first
    /// column holds the keys of the objects owning the relationship the table is
    /// named after, the second those of its destinations.
    func joinReference(_ table: Table, _ column: Column) -> ReferenceKey? {
        guard let owner = table.joinRelationship, let dot = owner.firstIndex(of: ".") else { return nil }
        return ReferenceKey(entity: String(owner[..<dot]), relationship: String(owner[owner.index(after: dot)...]),
                            towardOwner: table.columns.first?.name == column.name)
    }

    /// Rows were deleted from `table`: references into it must still resolve.
    func referenceChecks(into table: String) -> [MigrationCheck] {
        var checks: [MigrationCheck] = []
        for other in layout.tables {
            for column in other.columns {
                guard case .toOne(let owner, let name) = column.role, let r = version.entity(named: owner)?.relationship(named: name)?.declaration,
                      let target = version.entity(named: r.destination), layout.table(forEntity: target.root)?.name == table else { continue }
                let targets = numbers(version.subtree(of: target.name))
                let c = SQLText.q(column.name)
                checks.append(MigrationCheck(
                    summary: "\(owner).\(name) still points to existing \(target.name) objects",
                    sql: "SELECT count(*) FROM \(SQLText.q(other.name)) AS a WHERE a.\(c) IS NOT NULL AND NOT EXISTS "
                        + "(SELECT 1 FROM \(SQLText.q(table)) AS d WHERE d.Z_PK = a.\(c) AND d.Z_ENT IN (\(SQLText.list(targets))))",
                    reference: ReferenceKey(entity: owner, relationship: name, towardOwner: false)))
            }
        }
        return checks
    }

    /// For an entity-type column (`Z<n>_<NAME>`): its key column, the destination
    /// entity and the destination's table.
    func entityColumnSource(_ table: Table, _ column: Column) -> (key: Column, target: String, targetTable: String, label: String)? {
        guard case .toOneEntity(let owner, let name) = column.role,
              let relationship = version.entity(named: owner)?.relationship(named: name),
              let key = table.column(for: .toOne(entity: owner, relationship: name)),
              let target = version.entity(named: relationship.declaration.destination),
              let targetTable = layout.table(forEntity: target.root) else { return nil }
        return (key, target.name, targetTable.name, "\(owner).\(name)")
    }

    /// Every row's entity-type column holds the entity number of its destination row.
    func entityTypeCheck(_ table: Table, _ column: Column) -> MigrationCheck? {
        guard let (key, _, targetTable, label) = entityColumnSource(table, column) else { return nil }
        return MigrationCheck(summary: "\(table.name).\(column.name) holds the entity of each \(label) destination",
                              sql: "SELECT count(*) FROM \(SQLText.q(table.name)) AS a JOIN \(SQLText.q(targetTable)) AS d ON d.Z_PK = a.\(SQLText.q(key.name)) "
                                  + "WHERE a.\(SQLText.q(column.name)) IS NOT d.Z_ENT")
    }
}
