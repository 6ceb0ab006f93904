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
    func settleDanglingReferences(in plan: inout MigrationPlan, store: Store, source: CompiledVersion, counter: inout RowCounter) throws {
        var dangling: [(references: DanglingReferences, check: MigrationCheck)] = []
        if options.removesDanglingReferences || plan.allSteps.contains(where: \.cost.movesRows), let first = plan.hops.first {
            dangling = try danglingReferences(
                store: store, version: source, layout: first.sourceLayout, counter: &counter,
                exact: options.removesDanglingReferences || options.exactCounts)
        }
        guard options.removesDanglingReferences, !dangling.isEmpty else {
            plan.danglingReferences = dangling.map(\.references)
            plan.warnings += plan.danglingReferences.map { MigrationWarning(message: $0.description, isDestructive: false) }
            return
        }
        // Setting a required to-one to nil breaks the model: the data decides.
        let required = dangling.filter { found in
            let key = found.references.reference
            guard !key.towardOwner, let r = source.entity(named: key.entity)?.relationship(named: key.relationship)?.declaration else { return false }
            return !r.isToMany && !r.isOptional
        }
        if !required.isEmpty {
            throw PlanningError(
                .noPath,
                "\(store.path): --remove-dangling-references would leave required relationships empty: "
                    + required.map { "\($0.references.reference) (\($0.references.rows) row\($0.references.rows == 1 ? "" : "s"))" }.joined(separator: ", ")
                    + "; point those rows at existing objects or delete them first; nothing was changed")
        }
        let repairs = dangling.compactMap { found -> MigrationStep? in
            guard let repair = found.check.repair else { return nil }
            let rows = found.references.rows
            let change = MigrationStep.TableChange(
                summary: """
                    remove \(rows) reference\(rows == 1 ? "" : "s") of \(found.references.reference) to objects the store does not have
                    """, sql: [repair.sql], cost: .update(rows: rows), table: repair.table)
            return repair.deletesRows ? .deleteRows(change) : .updateRows(change)
        }
        plan.hops[0].steps.insert(contentsOf: repairs, at: 0)
        plan.removedDanglingReferences = dangling.map(\.references)
    }

    /// For a plan that moves rows: the store's entity numbers and references in
    /// the tables it moves, audited now or (tables too large to scan) by `apply`
    /// under its lock, and, for a store this toolkit wrote, stray values.
    func auditRowsToMove(for plan: inout MigrationPlan, audit: StoreAudit, store: Store, counter: inout RowCounter) throws {
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
        let checkedNow = large.isEmpty ? preconditions : audit.preconditions(tables: moving, skipping: Set(large.map(\.name)))
        let problems = try StoreAudit.violations(of: checkedNow, on: store.connection)
        if !problems.isEmpty {
            throw PlanningError(.storeMismatch, StoreAudit.refusal(path: store.path, version: source, problems: problems))
        }
        plan.preconditions = preconditions
        let deferred = large.filter { audit.preconditions(tables: moving, skipping: [$0.name]).count < preconditions.count }
        if !deferred.isEmpty {
            let tables = deferred.map { "\($0.name) (about \($0.rows) rows)" }.joined(separator: ", ")
            plan.warnings.append(
                MigrationWarning(
                    message: """
                        \(tables): not audited while planning; `apply` checks \(deferred.count == 1 ? "its" : "their") rows' entity numbers \
                        and references under its lock before any step (`migrate plan --exact-counts` checks them now)
                        """, isDestructive: false))
        }
        if !audit.refusesStrayValues {
            // Every moving table, large or not: for a store Core Data wrote this
            // scan is the only one refusing sibling columns bound the wrong way
            // round (no precondition of `apply` repeats it), and it reads only
            // tables with such columns.
            let stray = try audit.strayValues(tables: moving, on: store.connection)
            if !stray.refusals.isEmpty {
                throw PlanningError(.storeMismatch, StoreAudit.refusal(path: store.path, version: source, problems: stray.refusals))
            }
            plan.warnings += stray.warnings
        }
    }

    /// The store holds the first hop's source: the data decides now.
    func checkFirstHopRequirements(of plan: MigrationPlan, store: Store) throws {
        guard let first = plan.hops.first else { return }
        let refused = try StoreAudit.violations(of: first.requirements, on: store.connection)
        if !refused.isEmpty {
            throw PlanningError(
                .noPath,
                "\(store.path): hop \(first.from) → \(first.to) of \(plan.model) cannot migrate this store's data:\n"
                    + refused.map { "  " + $0 }.joined(separator: "\n"))
        }
    }

    /// Columns the store has beyond its layout (written by another tool or a Core
    /// Data feature the model format does not describe) do not survive a rebuild:
    /// say so when they hold values.
    func unknownColumnWarnings(store: Store, layout: StorageLayout, steps: [MigrationStep]) throws -> [MigrationWarning] {
        var warnings: [MigrationWarning] = []
        for case .dropTable(let drop) in steps {
            let name = drop.table
            guard let table = layout.table(named: name) else { continue }
            let known = Set(table.columns.map(\.name))
            for column in try store.connection.columns(of: name) where !known.contains(column.name) && !column.isHidden {
                let values = try store.connection.scalarInt64("SELECT count(*) FROM \(SQLText.q(name)) WHERE \(SQLText.q(column.name)) IS NOT NULL") ?? 0
                if values > 0 {
                    warnings.append(
                        MigrationWarning(
                            message: """
                                \(name).\(column.name) is not in the layout of the store's version: \
                                its \(values) non-nil value\(values == 1 ? "" : "s") will be lost when \(name) is rebuilt
                                """, isDestructive: true, subject: "\(name).\(column.name)", count: values))
                }
            }
        }
        return warnings
    }
}
