import DataModel
import Foundation
import SQLiteStore

/// Running one step of a plan: its SQL, its copy with the policy functions it calls,
/// or its policies' stages.
extension Migrator {
    /// Runs one step of a hop; returns the rows it wrote. That is SQLite's count of
    /// the rows its statements inserted, updated or deleted (`sqlite3_total_changes`),
    /// except for a `DROP COLUMN`, which rewrites every row of its table inside
    /// SQLite's schema change without counting them: its rows are the plan's count of
    /// the table (exact up to `RowCounter.exactCountLimit` rows, the highest row id
    /// above; the store is proven unchanged since the plan, and counting again would
    /// cost a scan of the table). Steps
    /// the plan counts no rows for (O(1) steps, index builds, `Z_PRIMARYKEY`
    /// bookkeeping) write none, so that `apply`'s count means what `plan`'s estimate does.
    @discardableResult
    func runStep(
        _ step: MigrationStep, index: Int, of total: Int, hop: MigrationHop, store: Store,
        emptied: inout [EmptiedProperty], rowProgress: Bool, progress: (MigrationEvent) -> Void
    ) throws -> Int64 {
        let connection = store.connection
        progress(.stepStarted(index: index, of: total, summary: step.summary, cost: step.cost))
        let stepStart = Date()
        let changesBefore = connection.totalChanges
        let report = StepReport(
            index: index, summary: step.summary, rows: step.cost.rows, rowProgress: rowProgress && step.reportsRowsDone)
        var written: Int64
        switch step {
        case .policy(let stage):
            emptied += try runPolicies(stage, report: report, hop: hop, store: store, progress: progress)
            written = Int64(connection.totalChanges - changesBefore)
        case .rebuildTable(let copy), .fillJoinTable(let copy):
            try runCopy(copy, report: report, hop: hop, on: connection, progress: progress)
            written = copy.cost.rowsWritten > 0 ? Int64(connection.totalChanges - changesBefore) : 0
        case .dropColumn(let change):
            // `ALTER TABLE … DROP COLUMN` rewrites every row but counts no change; the
            // plan's figure may be an estimate (the highest key of a large table), so
            // the rows are counted (cheap beside the rewrite just done).
            try runStatements(change.statements, report: report, on: connection, progress: progress)
            written =
                change.cost.rowsWritten > 0
                ? try connection.scalarInt64("SELECT count(*) FROM \(SQLText.q(change.table))") ?? 0 : 0
        case .createIndex(let change):
            do {
                try runStatements(change.statements, report: report, on: connection, progress: progress)
            } catch {
                // A unique index SQLite refuses: the data's refusal, naming the objects.
                guard let duplicates = change.duplicates,
                    let found = try? StoreAudit.violations(of: [duplicates], on: connection),
                    !found.isEmpty
                else { throw error }
                throw MigrationError(
                    kind: .dataRefused,
                    message: "hop \(hop.from) → \(hop.to) cannot migrate this store's data:\n"
                        + found.map { "  " + $0 }.joined(separator: "\n") + "; nothing was changed")
            }
            written = 0
        case .addColumn(let change), .renameColumn(let change), .renameTable(let change), .dropTable(let change),
            .dropIndex(let change), .updateRows(let change), .deleteRows(let change), .entityNumbers(let change):
            try runStatements(change.statements, report: report, on: connection, progress: progress)
            written = change.cost.rowsWritten > 0 ? Int64(connection.totalChanges - changesBefore) : 0
        case .createTable(let build):
            try runStatements(build.statements, report: report, on: connection, progress: progress)
            written = 0
        }
        progress(.stepFinished(index: index, seconds: Date().timeIntervalSince(stepStart), rows: written))
        return written
    }

    /// What a step's failure names, and whether its rows are reported as they go.
    struct StepReport {
        let index: Int
        let summary: String
        /// The rows the plan counts for it.
        let rows: Int64
        /// Report rows done (the step scans rows by a statement of its own, and
        /// `apply` was not asked to keep quiet).
        let rowProgress: Bool

        /// A step's failure, in words, the store unchanged.
        func failure(_ error: any Error) -> any Error {
            if error is MigrationError { return error }
            return MigrationError(
                kind: .stepFailed,
                message: "step \(index) (\(summary)) failed: \(Migrator.words(for: error)); nothing was changed",
                statement: (error as? SQLiteError)?.sql)
        }
    }

    /// The policy step: every invocation, stage by stage, by the policy runner.
    func runPolicies(
        _ stage: MigrationStep.PolicyStage, report: StepReport, hop: MigrationHop, store: Store,
        progress: (MigrationEvent) -> Void
    ) throws -> [EmptiedProperty] {
        guard let runner = policyRunner else {
            throw MigrationError(
                kind: .stepFailed,
                message: """
                    step \(report.index) (\(report.summary)) needs policy '\(stage.policies[0].policy)', \
                    and no policies are available to this migrator; nothing was changed
                    """)
        }
        return try runner.run(stage.policies, hop: hop, store: store, progress: progress).emptied
    }

    /// A table built anew: its policy functions registered for the step only, the
    /// rows it must hold counted before the copy, the copy, then its count checked.
    func runCopy(
        _ copy: MigrationStep.TableCopy, report: StepReport, hop: MigrationHop, on connection: Connection,
        progress: (MigrationEvent) -> Void
    ) throws {
        let bindings = try PolicyFunctionBinding.bindings(for: copy.policyFunctions, hop: hop, runner: policyRunner)
        defer { for binding in bindings { binding.remove(from: connection) } }
        do {
            for binding in bindings { try binding.register(on: connection) }
            let expected = try copy.expectedRows.map {
                try connection.scalarInt64($0.sql, arguments: $0.arguments) ?? 0
            }
            try runStatements(copy.statements, report: report, on: connection, progress: progress)
            if let expected {
                let actual = try connection.scalarInt64("SELECT count(*) FROM \(SQLText.q(copy.buildTable))") ?? 0
                if actual != expected {
                    throw MigrationError(
                        kind: .checkFailed,
                        message:
                            """
                            \(copy.table): the rebuilt table holds \(actual) rows, \(expected) expected; nothing was \
                            changed
                            """
                    )
                }
            }
        } catch {
            throw report.failure(error)
        }
    }

    /// Runs statements, each with its own bound values. Rows done of a long copy,
    /// update or index build are reported from SQLite's own count of the rows its
    /// scan visited, at most ten times a second, on top of the rows the step's
    /// earlier statements wrote (a shared table is copied one entity at a time, each
    /// through the `Z_ENT` index, which no full-scan count sees).
    func runStatements(
        _ statements: [SQLFragment], report: StepReport, on connection: Connection, progress: (MigrationEvent) -> Void
    ) throws {
        var written: Int64 = 0
        func run() throws {
            for statement in statements {
                let before = connection.totalChanges
                defer { written += Int64(connection.totalChanges - before) }
                try connection.execute(statement)
            }
        }
        do {
            let total = report.rows
            guard total >= 10_000, report.rowProgress else { return try run() }
            var last = Date.distantPast
            try withoutActuallyEscaping(progress) { progress in
                connection.setProgressHandler { scanned in
                    let now = Date()
                    guard now.timeIntervalSince(last) >= 0.1 else { return }
                    last = now
                    progress(.rows(done: min(written + scanned, total), total: total))
                }
                defer { connection.setProgressHandler(nil) }
                try run()
            }
            progress(.rows(done: total, total: total))
        } catch {
            throw report.failure(error)
        }
    }
}
