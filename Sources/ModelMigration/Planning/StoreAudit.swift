import DataModel
import Foundation
import SQLiteStore

/// What a migration relies on in the store it reads, before any step runs.
///
/// The planner turns the store's rows into steps by entity number: a rebuild copies
/// `WHERE Z_ENT = n`, a join table is read through the numbers of its two ends. A
/// store whose `Z_PRIMARYKEY` names its entities wrongly, or whose rows carry a
/// `Z_ENT` of no entity of their table, passes `PRAGMA integrity_check` and would
/// still lose or misfile rows. The audit checks exactly what the plan relies on:
///
/// - `Z_PRIMARYKEY` numbers are ones a store can use (`keyTableProblems`);
/// - every row of an entity table has a `Z_ENT` of that table's hierarchy, and
///   holds values only in the columns of its own entity and its ancestors;
/// - every stored reference into a table shared by a hierarchy that points at an
///   existing row points at a row of the right entity.
///
/// References that point at no row at all (dangling) are not a reason to refuse:
/// real Core Data stores carry some, and a migration carries them as they are
/// (`danglingChecks`).
struct StoreAudit {
    let version: CompiledVersion
    let layout: StorageLayout
    /// Values in another entity's columns refuse the store (`columnOwnership`). Not
    /// for stores Core Data wrote: Core Data leaves values behind in a shared table
    /// when a property moves within a hierarchy (Wire's ZMESSAGE: ClientMessage rows
    /// holding `ZDECRYPTIONERRORCODE` of SystemMessage), and reads no object's value
    /// from them; for those the planner warns instead (`strayValueWarnings`).
    var refusesStrayValues = true

    typealias Table = StorageLayout.Table

    /// The largest entity number a store may give a model entity: Core Data's are
    /// small, and numbers beyond this would overflow the next new entity's.
    static let largestEntityNumber = Int(Int32.max)

    /// Problems with `Z_PRIMARYKEY` itself: entity numbers no store could use.
    ///
    /// A missing or duplicated name is not refused by itself: Core Data's own
    /// lightweight migrations leave `Z_PRIMARYKEY` under the old entity names (a
    /// store of CoreDataPlus's SampleModel 2 still lists `ExpensiveSportCar` for
    /// `LuxuryCar`), and the layout then numbers such entities as Core Data does.
    /// What matters is whether the rows agree with the numbers the plan uses, which
    /// the row-level preconditions check.
    func keyTableProblems(_ rows: [EntityKeyRow]) -> [String] {
        var problems: [String] = []
        for row in rows
        where version.entity(named: row.name) != nil && !(1...Self.largestEntityNumber).contains(row.number) {
            problems.append(
                "Z_PRIMARYKEY numbers entity \(row.name) \(row.number), outside 1…\(Self.largestEntityNumber)")
        }
        return problems
    }

    /// Row-level preconditions, one check per table (entity numbers) and per
    /// reference into a shared table (the right entity).
    /// `tables`: only the entity tables whose rows the plan moves (nil: all).
    /// `skipping`: tables not to read now (each check reads one table).
    func preconditions(tables: Set<String>? = nil, skipping: Set<String> = []) -> [MigrationCheck] {
        var checks: [MigrationCheck] = []
        for table in layout.tables
        where table.joinRelationship == nil && tables?.contains(table.name) != false && !skipping.contains(table.name) {
            if let check = entityNumberCheck(table) { checks.append(check) }
        }
        for table in layout.tables
        where table.joinRelationship == nil && tables?.contains(table.name) != false && refusesStrayValues
            && !skipping.contains(table.name)
        {
            if let check = columnOwnership(table) { checks.append(check) }
        }
        for table in layout.tables where !skipping.contains(table.name) {
            checks += referenceChecks(from: table).map(\.check)
        }
        return checks
    }

    /// Per reference column of `table` into a table shared by a hierarchy: the check
    /// that it points at rows of the right entity, and the same condition for one
    /// row of `table` read under the alias `s` (an `EXISTS` over the one row it
    /// points at), for a copy that checks it in its own scan.
    func referenceChecks(from table: Table) -> [(check: MigrationCheck, row: String)] {
        var checks: [(check: MigrationCheck, row: String)] = []
        for column in table.columns {
            guard let target = referencedEntity(column.role), let targetTable = layout.table(forEntity: target.root)
            else { continue }
            let targets = numbers(of: version.subtree(of: target.name))
            let sharing = numbers(of: version.entities.filter { $0.root == target.root }.map(\.name))
            // A reference into a table that holds only the target's hierarchy
            // cannot point at a row of another entity (the table check covers it).
            guard Set(sharing) != Set(targets), !targets.isEmpty else { continue }
            let c = SQLText.q(column.name)
            let wrong = """
                FROM \(SQLText.q(table.name)) AS a JOIN \(SQLText.q(targetTable.name)) AS d ON d.Z_PK = a.\(c) \
                WHERE d.Z_ENT NOT IN (\(SQLText.list(targets)))
                """
            let rowLabel = table.joinRelationship == nil ? "'Z_PK ' || a.Z_PK || ' points to '" : "'a pair points to '"
            let check = MigrationCheck(
                summary: "\(table.name).\(column.name) points at rows that are not \(target.name) objects",
                sql: "SELECT count(*) \(wrong)",
                rowsSQL: """
                    SELECT \(rowLabel) || '\(targetTable.name) Z_PK ' || d.Z_PK || ', Z_ENT ' || d.Z_ENT || \
                    \(entityLabel("d.Z_ENT")) \(wrong) LIMIT 5
                    """)
            let row = """
                EXISTS (SELECT 1 FROM \(SQLText.q(targetTable.name)) AS d WHERE d.Z_PK = s.\(c) AND d.Z_ENT NOT IN \
                (\(SQLText.list(targets))))
                """
            checks.append((check, row))
        }
        return checks
    }

    /// Every row of an entity table has a `Z_ENT` of the table's hierarchy (nil
    /// when the layout numbers none of its entities).
    func entityNumberCheck(_ table: Table) -> MigrationCheck? {
        let members = numbers(of: version.entities.filter { $0.root == table.entity }.map(\.name))
        guard !members.isEmpty else { return nil }
        let outside = "Z_ENT IS NULL OR Z_ENT NOT IN (\(SQLText.list(members)))"
        return MigrationCheck(
            summary: """
                \(table.name) holds rows whose Z_ENT is no entity of \(table.entity)'s hierarchy \
                (Z_ENT \(SQLText.list(members)), as Z_PRIMARYKEY numbers them)
                """,
            sql: "SELECT count(*) FROM \(SQLText.q(table.name)) WHERE \(outside)",
            rowsSQL: """
                SELECT 'Z_PK ' || Z_PK || ' has Z_ENT ' || coalesce(Z_ENT, 'NULL') || \(entityLabel("Z_ENT")) \
                FROM \(SQLText.q(table.name)) WHERE \(outside) ORDER BY Z_PK LIMIT 5
                """)
    }

    /// In a table shared by a hierarchy, a column of one entity holds nil in the rows
    /// of every other entity (Core Data writes nothing there). A value there means
    /// the row's `Z_ENT` is not the entity that wrote it — `Z_PRIMARYKEY` names of
    /// sibling entities swapped, a row of an abstract parent — and a rebuild, which
    /// copies each row's own columns, would drop it.
    func columnOwnership(_ table: Table, only columns: Set<String>? = nil) -> MigrationCheck? {
        columnOwnershipWithRow(table, only: columns)?.check
    }

    /// `columnOwnership`, with its condition for one row (its columns unqualified,
    /// as in a copy reading only the table).
    func columnOwnershipWithRow(_ table: Table, only columns: Set<String>? = nil) -> (
        check: MigrationCheck, row: String
    )? {
        var conditions: [(condition: String, label: String)] = []
        for column in table.columns where columns?.contains(column.name) != false {
            let owner: String
            switch column.role {
            case .attribute(let entity, _), .toOne(let entity, _): owner = entity
            default: continue
            }
            guard let entity = version.entity(named: owner), entity.parent != nil else { continue }
            let members = numbers(of: version.subtree(of: owner))
            guard !members.isEmpty else { continue }
            conditions.append(
                (
                    "(Z_ENT NOT IN (\(SQLText.list(members))) AND \(SQLText.q(column.name)) IS NOT NULL)",
                    "\(column.name) of \(owner)".replacingOccurrences(of: "'", with: "''")
                ))
        }
        guard !conditions.isEmpty else { return nil }
        let filter = conditions.map(\.condition).joined(separator: " OR ")
        let which =
            "CASE " + conditions.map { "WHEN \($0.condition) THEN '\($0.label)'" }.joined(separator: " ") + " END"
        let check = MigrationCheck(
            summary:
                """
                \(table.name) holds values in columns of another entity than the row's (the rows' Z_ENT do not fit \
                what they hold)
                """,
            sql: "SELECT count(*) FROM \(SQLText.q(table.name)) WHERE \(filter)",
            rowsSQL: """
                SELECT 'Z_PK ' || Z_PK || ' has Z_ENT ' || Z_ENT || \(entityLabel("Z_ENT")) || ' and a value in ' || \
                \(which) FROM \(SQLText.q(table.name)) WHERE \(filter) ORDER BY Z_PK LIMIT 5
                """)
        return (check, filter)
    }

    /// Values a store from Core Data holds in columns the row's entity does not have,
    /// as warnings: no object has them, and a rebuild of their table does not carry them.
    ///
    /// Values in a column whose name differs from a column of the row's own entity
    /// only by its suffix (`ZTEXT` and `ZTEXT1`) are not a leftover but a sign the
    /// two are bound the wrong way round: those refuse the store (`refusals`).
    func strayValues(tables: Set<String>?, on connection: Connection) throws -> (
        refusals: [String], warnings: [MigrationWarning]
    ) {
        var warnings: [MigrationWarning] = []
        var refusals: [String] = []
        for table in layout.tables where table.joinRelationship == nil && tables?.contains(table.name) != false {
            var stems: [Substring: Set<String>] = [:]  // stem → the entities owning a column of it
            for column in table.columns {
                if case .attribute(let entity, _) = column.role {
                    stems[StorageLayout.stem(column.name), default: []].insert(entity)
                }
            }
            let shared = Set(table.columns.map(\.name).filter { (stems[StorageLayout.stem($0)]?.count ?? 0) > 1 })
            if !shared.isEmpty, let check = columnOwnership(table, only: shared) {
                refusals += try Self.violations(
                    of: [
                        MigrationCheck(
                            summary:
                                "\(table.name) holds values in the column of a sibling entity whose name differs from "
                                + "the row's own column only by "
                                + "its suffix (are the two bound the wrong way round?)", statement: check.sql,
                            rows: check.rowsSQL)
                    ], on: connection)
            }
            guard let check = columnOwnership(table) else { continue }
            for problem in try Self.violations(of: [check], on: connection) {
                let detail = problem.replacingOccurrences(of: check.summary + ": ", with: "")
                warnings.append(
                    MigrationWarning(
                        message:
                            "\(table.name) holds values in columns the row's entity does not have, left there by an "
                            + "earlier version "
                            + "(no object has them; a rebuild of \(table.name) does not carry them): \(detail)",
                        isDestructive: false))
            }
        }
        return (refusals, warnings)
    }

    /// The entity whose rows a reference column holds keys of.
    func referencedEntity(_ role: StorageLayout.Role) -> CompiledEntity? {
        switch role {
        case .toOne(let owner, let name):
            return version.entity(named: owner)?.relationship(named: name).flatMap {
                version.entity(named: $0.declaration.destination)
            }
        case .toManyKey(let owner, _), .joinKey(let owner, _):
            return version.entity(named: owner)
        default:
            return nil
        }
    }

    func numbers(of names: [String]) -> [Int] { names.compactMap { layout.entityNumbers[$0] }.sorted() }

    /// SQL text ` (Name)` for an entity number expression, `''` when unknown.
    func entityLabel(_ expression: String) -> String {
        let cases = layout.entityNumbers.sorted { $0.value < $1.value }
            .map { "WHEN \($0.value) THEN ' (\($0.key.replacingOccurrences(of: "'", with: "''")))'" }
        guard !cases.isEmpty else { return "''" }
        return "CASE \(expression) \(cases.joined(separator: " ")) ELSE ' (no entity of this table)' END"
    }
}

extension StoreAudit {
    /// Runs `checks` on `connection`; the violations, each with a few rows named.
    static func violations(of checks: [MigrationCheck], on connection: Connection) throws -> [String] {
        var found: [String] = []
        for check in checks {
            let count = try connection.scalarInt64(check.sql) ?? 0
            guard count > 0 else { continue }
            var rows: [String] = []
            if let rowsSQL = check.rowsSQL {
                let statement = try connection.prepare(rowsSQL)
                while try statement.step() { rows.append(statement.string(at: 0)) }
            }
            let sample =
                rows.isEmpty ? "" : ": " + rows.joined(separator: "; ") + (count > Int64(rows.count) ? "; …" : "")
            found.append(
                "\(check.summary): \(count) row\(count == 1 ? "" : "s")\(sample)"
                    + (check.remedy.map { "\n    remedy: \($0)" } ?? ""))
        }
        return found
    }

    /// The message refusing a store that violates preconditions.
    static func refusal(path: String, version: CompiledVersion, problems: [String]) -> String {
        "\(path): the store is inconsistent with \(version.model) version \(version.version), and migrating it would "
            + "lose or misfile rows; "
            + "nothing was changed. Repair the store (or restore a backup) first:\n"
            + problems.prefix(12).map { "  - " + $0 }.joined(separator: "\n")
            + (problems.count > 12 ? "\n  - … and \(problems.count - 12) more" : "")
    }
}
