import ModelMigration
import TestSupport
import Testing

/// `plan`'s rows to write and `apply`'s rows written mean the same rows: those the
/// steps copy, rewrite, update or hand to policies (bookkeeping and index builds
/// write none), whether SQLite counts them (a rebuild's INSERT … SELECT) or not (a
/// DROP COLUMN, which SQLite rewrites inside its schema change).
@Suite struct RowsWrittenTests {
    func counts(_ s: MigrationScenario) throws -> (planned: Int64, written: Int64, steps: [Int64], rows: Int64) {
        let plan = try s.plan()
        let rows = try s.rows("SELECT count(*) FROM ZPERSON")[0][0]
        guard case .integer(let people) = rows else { throw Unexpected() }
        var steps: [Int64] = []
        let result = try Migrator().apply(plan) { event in
            if case .stepFinished(_, _, let rows) = event { steps.append(rows) }
        }
        let planned = plan.allSteps.reduce(Int64(0)) { $0 + $1.cost.rowsWritten }
        return (planned, result.rowsTouched, steps, people)
    }

    struct Unexpected: Error {}

    @Test func aDropColumnCountsTheRowsSQLiteRewrites() throws {
        let s = try MigrationScenario.pets(try edit(Pets.v1, "      age: integer16?\n", ""))
        defer { s.remove() }
        let plan = try s.plan()
        #expect(plan.allSteps.contains { $0.kind == .dropColumn })
        #expect(plan.allSteps.filter { $0.kind == .dropColumn }.allSatisfy { !$0.reportsRowsDone })
        let (planned, written, steps, people) = try counts(s)
        #expect(people > 0)
        #expect(planned == people)
        #expect(written == people)
        #expect(steps.reduce(0, +) == written)
    }

    @Test func aRebuildCountsTheRowsItCopies() throws {
        let s = try MigrationScenario.pets(MigratorTests.ageDouble)
        defer { s.remove() }
        let plan = try s.plan()
        #expect(plan.allSteps.contains { $0.kind == .rebuildTable && $0.reportsRowsDone })
        let (planned, written, _, people) = try counts(s)
        #expect(planned == people)
        #expect(written == people)
    }
}
