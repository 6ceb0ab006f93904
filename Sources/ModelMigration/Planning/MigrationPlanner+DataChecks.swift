import DataModel
import Foundation
import SQLiteStore

/// What a plan relies on in the store's data, checked while planning: references
/// that already dangle, the rows a plan moves, and the first hop's requirements.
extension MigrationPlanner {
    /// Rows copied, updated or deleted by entity number need the store's numbers
    /// to agree with its rows. A plan of O(1) steps and index builds moves no row,
    /// and stays O(1): no scan. References that already dangle are carried
    /// (counted when the plan moves rows), or removed first when asked.
    func settleDanglingReferences(
        in plan: inout MigrationPlan, store: Store, source: CompiledVersion, counter: inout RowCounter
    ) throws {
        var dangling: [(references: DanglingReferences, check: MigrationCheck)] = []
        if options.removesDanglingReferences || plan.allSteps.contains(where: \.cost.movesRows),
            let first = plan.hops.first
        {
            dangling = try danglingReferences(
                store: store, version: source, layout: first.sourceLayout, counter: &counter,
                exact: options.removesDanglingReferences || options.exactCounts)
        }
        guard options.removesDanglingReferences, !dangling.isEmpty else {
            plan.danglingReferences = dangling.map(\.references)
            plan.warnings += plan.danglingReferences.map {
                MigrationWarning(message: $0.description, isDestructive: false)
            }
            return
        }
        // Setting a required to-one to nil breaks the model: the data decides.
        let required = dangling.filter { found in
            let key = found.references.reference
            guard !key.towardOwner,
                let r = source.entity(named: key.entity)?.relationship(named: key.relationship)?.declaration
            else { return false }
            return !r.isToMany && !r.isOptional
        }
        if !required.isEmpty {
            throw PlanningError(
                .noPath,
                "\(store.path): --remove-dangling-references would leave required relationships empty: "
                    + required.map {
                        "\($0.references.reference) (\($0.references.rows) row\($0.references.rows == 1 ? "" : "s"))"
                    }.joined(separator: ", ")
                    + "; point those rows at existing objects or delete them first; nothing was changed")
        }
        let repairs = dangling.compactMap { found -> MigrationStep? in
            guard let repair = found.check.repair else { return nil }
            let rows = found.references.rows
            let change = MigrationStep.TableChange(
                summary: """
                    remove \(rows) reference\(rows == 1 ? "" : "s") of \(found.references.reference) to objects the \
                    store does not have
                    """, statements: [repair.sql], cost: .update(rows: rows), table: repair.table)
            return repair.deletesRows ? .deleteRows(change) : .updateRows(change)
        }
        plan.hops[0].steps.insert(contentsOf: repairs, at: 0)
        plan.removedDanglingReferences = dangling.map(\.references)
    }

    /// For a plan that moves rows: the store's entity numbers and references in
    /// the tables it moves, audited now or (tables too large to scan) by `apply`
    /// under its lock, and, for a store this toolkit wrote, stray values.
    func auditRowsToMove(for plan: inout MigrationPlan, audit: StoreAudit, store: Store, counter: inout RowCounter)
        throws
    {
        let source = audit.version
        let moving = rowMovingSourceTables(plan)
        let preconditions = audit.preconditions(tables: moving)
        // Tables too large to scan while planning (as for counts) are audited by
        // `apply`, under its lock, before any step: the plan says so.
        var large: [(name: String, rows: Int64)] = []
        for table in audit.layout.tables {
            // A table without a rowid has no cheap estimate: it is scanned.
            if let rows = (try? counter.tooLargeToScan(table.name)) ?? nil { large.append((table.name, rows)) }
        }
        let checkedNow =
            large.isEmpty ? preconditions : audit.preconditions(tables: moving, skipping: Set(large.map(\.name)))
        let problems = try StoreAudit.violations(of: checkedNow, on: store.connection)
        if !problems.isEmpty {
            throw PlanningError(
                .storeMismatch, StoreAudit.refusal(path: store.path, version: source, problems: problems))
        }
        let deferred = large.filter {
            audit.preconditions(tables: moving, skipping: [$0.name]).count < preconditions.count
        }
        plan.preconditions = preconditions
        let fused = fusesPreconditions ? fuseChecks(in: &plan, tables: deferred.map(\.name), audit: audit) : []
        let separate = deferred.filter { !fused.contains($0.name) }
        if !separate.isEmpty {
            let tables = separate.map { "\($0.name) (about \($0.rows) rows)" }.joined(separator: ", ")
            plan.warnings.append(
                MigrationWarning(
                    message: """
                        \(tables): not audited while planning; `apply` checks \(separate.count == 1 ? "its" : "their") \
                        rows' entity numbers and references under its lock before any step (`migrate plan \
                        --exact-counts` checks them now)
                        """, isDestructive: false))
        }
        let inRebuilds = deferred.filter { fused.contains($0.name) }
        if !inRebuilds.isEmpty {
            let tables = inRebuilds.map { "\($0.name) (about \($0.rows) rows)" }.joined(separator: ", ")
            let its = inRebuilds.count == 1 ? "its" : "their"
            plan.warnings.append(
                MigrationWarning(
                    message: """
                        \(tables): not audited while planning; `apply` checks \(its) rows' entity numbers (and, where \
                        it can, their values and references) within the step that rebuilds \
                        \(inRebuilds.count == 1 ? "it" : "each"), which reads every row (a failure rolls back and \
                        refuses the store as a scan before any step would), and the rest under its lock before any \
                        step (`migrate plan --exact-counts` checks them now)
                        """, isDestructive: false))
        }
        if !audit.refusesStrayValues {
            // Every moving table, large or not: for a store Core Data wrote this
            // scan is the only one refusing sibling columns bound the wrong way
            // round (no precondition of `apply` repeats it), and it reads only
            // tables with such columns.
            let stray = try audit.strayValues(tables: moving, on: store.connection)
            if !stray.refusals.isEmpty {
                throw PlanningError(
                    .storeMismatch, StoreAudit.refusal(path: store.path, version: source, problems: stray.refusals))
            }
            plan.warnings += stray.warnings
        }
    }

    /// Leaves the preconditions of each of `tables` that a rebuild of the first hop
    /// reads in full (``MigrationStep/TableCopy/readsEveryRowOf``) to that rebuild
    /// (``MigrationCheck/checkedByRebuildOf``), when no step before it may write the
    /// store: it reads the rows the audit would have read. Its entity numbers: a row
    /// of no entity of the hierarchy is copied by none of the copies and fails the
    /// step's count. Its values in another entity's columns and its references to
    /// rows of the wrong entity: each copy fails at such a row (`mm_audit`, on the
    /// check's own condition for that row). `apply` then runs the preconditions on
    /// the store as it was. Returns the tables.
    func fuseChecks(in plan: inout MigrationPlan, tables: [String], audit: StoreAudit) -> Set<String> {
        var fused: Set<String> = []
        for name in tables {
            guard let steps = plan.hops.first?.steps, let table = audit.layout.table(named: name),
                let check = audit.entityNumberCheck(table),
                let index = plan.preconditions.firstIndex(of: check),
                let rebuild = Self.rebuildReadingUntouched(name, steps: steps),
                case .rebuildTable(var copy) = steps[rebuild]
            else { continue }
            plan.preconditions[index].checkedByRebuildOf = name
            fused.insert(name)
            let ownership = audit.refusesStrayValues ? audit.columnOwnershipWithRow(table).map { [$0] } ?? [] : []
            let others = (ownership + audit.referenceChecks(from: table)).compactMap { other in
                plan.preconditions.firstIndex(of: other.check).map { (index: $0, row: other.row) }
            }
            guard !others.isEmpty,
                let audited = Self.auditing(
                    copy.statements, condition: others.map { "(\($0.row))" }.joined(separator: " OR "))
            else { continue }
            copy.statements = audited
            plan.hops[0].steps[rebuild] = .rebuildTable(copy)
            for other in others { plan.preconditions[other.index].checkedByRebuildOf = name }
        }
        return fused
    }

    /// A rebuild's statements with `condition` checked on every row its copies read:
    /// each copy's `WHERE s.Z_ENT = n` (the whole of its filter: the rebuild reads
    /// every row) gains `AND mm_audit(condition, s.Z_PK)`. Nil when a statement
    /// after the `CREATE TABLE` is not such a copy.
    static func auditing(_ statements: [SQLFragment], condition: String) -> [SQLFragment]? {
        var audited = statements
        for i in audited.indices.dropFirst() {
            let sql = audited[i].sql
            guard sql.hasPrefix("INSERT INTO "),
                let filter = sql.range(of: " AS s WHERE s.Z_ENT = ", options: .backwards),
                !sql[filter.upperBound...].isEmpty, sql[filter.upperBound...].allSatisfy(\.isASCIIDigit)
            else { return nil }
            audited[i].sql += " AND mm_audit(\(condition), s.Z_PK)"
        }
        return audited.count > 1 ? audited : nil
    }

    /// The index of the rebuild among `steps` that reads every row of `table`,
    /// when no step before it may write the store: only steps that write nothing
    /// but a table of their own (new tables, build tables, indexes) may come first
    /// (an update or delete of another table may fire a trigger that writes this
    /// one, or the table a reference points into).
    static func rebuildReadingUntouched(_ table: String, steps: [MigrationStep]) -> Int? {
        for (index, step) in steps.enumerated() {
            switch step {
            case .rebuildTable(let copy) where copy.readsEveryRowOf == table:
                return index
            case .rebuildTable(let copy), .fillJoinTable(let copy):
                if copy.table == table || copy.buildTable == table { return nil }
            case .createTable(let build):
                if build.table == table || build.buildTable == table { return nil }
            case .createIndex, .dropIndex:
                continue
            case .addColumn, .renameColumn, .renameTable, .dropColumn, .dropTable, .updateRows, .deleteRows,
                .entityNumbers, .policy:
                return nil
            }
        }
        return nil
    }

    /// The store holds the first hop's source, and the source of each hop after
    /// hops that leave every table, column and row as they were (entity numbers and
    /// indexes only: a tightened limit, then a tighter one): the data decides now for
    /// those hops, as `apply` will. A later hop's requirements read what the hops
    /// before it write; `apply` checks them when those hops have run.
    func checkRequirementsTheStoreDecides(of plan: MigrationPlan, store: Store) throws {
        for hop in plan.hops {
            let refused = try StoreAudit.violations(of: hop.requirements, on: store.connection)
            if !refused.isEmpty {
                throw PlanningError(
                    .noPath,
                    "\(store.path): hop \(hop.from) → \(hop.to) of \(plan.model) cannot migrate this store's data:\n"
                        + refused.map { "  " + $0 }.joined(separator: "\n"))
            }
            let leavesTheDataAsItWas = hop.steps.allSatisfy { step in
                switch step {
                case .entityNumbers, .createIndex, .dropIndex: true
                default: false
                }
            }
            guard leavesTheDataAsItWas else { return }
        }
    }

    /// Columns the store has beyond its layout (written by another tool or a Core
    /// Data feature the model format does not describe) do not survive a rebuild:
    /// say so when they hold values.
    func unknownColumnWarnings(store: Store, layout: StorageLayout, steps: [MigrationStep]) throws -> [MigrationWarning]
    {
        var warnings: [MigrationWarning] = []
        for case .dropTable(let drop) in steps {
            let name = drop.table
            guard let table = layout.table(named: name) else { continue }
            let known = Set(table.columns.map(\.name))
            for column in try store.connection.columns(of: name) where !known.contains(column.name) && !column.isHidden
            {
                let values =
                    try store.connection.scalarInt64(
                        "SELECT count(*) FROM \(SQLText.q(name)) WHERE \(SQLText.q(column.name)) IS NOT NULL") ?? 0
                if values > 0 {
                    warnings.append(
                        MigrationWarning(
                            message: """
                                \(name).\(column.name) is not in the layout of the store's version: its \(values) \
                                non-nil value\(values == 1 ? "" : "s") will be lost when \(name) is rebuilt
                                """, isDestructive: true, subject: "\(name).\(column.name)", count: values))
                }
            }
        }
        return warnings
    }
}
