import DataModel
import Foundation
import SQLiteStore
import TestSupport
import Testing

@testable import ModelMigration

/// `--verify`'s checks are steps of the plan (``MigrationPlan/verification``):
/// the planner builds them, `Migrator.apply` runs exactly those and nothing else.
@Suite struct PlannedVerificationTests {
    /// Boxes (one with a nil required name the hop does not touch) and Others,
    /// whose `size` widens from integer16 to double (a rebuild of ZOTHER).
    static func boxes() throws -> MigrationScenario {
        let v1 = """
            entities:
              Box:
                attributes:
                  height: integer32
                  name: string
              Other:
                attributes:
                  size: integer16?

            """
        let s = try MigrationScenario(
            "Boxes", versions: [v1, v1.replacingOccurrences(of: "size: integer16?", with: "size: double?")])
        try s.withObjects { o in
            try o.insert("Box", values: ["height": .integer(1), "name": .string("a")])
            try o.insert("Box", values: ["height": .integer(2), "name": .string("b")])
            try o.insert("Other", values: ["size": .integer(7)])
        }
        let connection = try Connection(path: s.storePath)
        try connection.execute(#"UPDATE ZBOX SET ZNAME = NULL WHERE Z_PK = 2"#)
        try connection.close()
        return s
    }

    @Test func theVerifyStepsArePlannedAfterTheHops() throws {
        let s = try Self.boxes()
        defer { s.remove() }
        #expect(try s.plan().verification == [])
        let plan = try s.plan(verify: true)
        #expect(plan.options.verify)
        #expect(plan.verification.map(\.kind) == [.verifyIntegrity, .verifyRelationships])
        guard case .relationships(let checks) = plan.verification[1] else {
            Issue.record("no relationship checks: \(plan.verification)")
            return
        }
        #expect(
            checks.map(\.check.summary) == [
                "required Box.height has a value in every row", "required Box.name has a value in every row",
            ])
        #expect(checks.map(\.before) == [nil, nil])
        // The hop's own steps are those of the plan without --verify.
        #expect(plan.allSteps == (try s.plan()).allSteps)
    }

    /// The migrator runs the planned checks: planned, the nil name fails; left
    /// out of the plan, nothing checks it and the migration commits.
    @Test func applyRunsExactlyThePlannedChecks() throws {
        let s = try Self.boxes()
        defer { s.remove() }
        try expectFailure(
            s, try s.plan(verify: true), .verifyFailed,
            "--verify: required Box.name has a value in every row: 1 row violates it; nothing was changed")
        var planned = try s.plan(verify: true)
        planned.verification.removeAll { $0.kind == .verifyRelationships }
        let result = try Migrator().apply(planned)
        #expect(result.to == 2)
        // The hop's own check of Z_PRIMARYKEY only.
        #expect(result.checksPassed == 1)
        #expect(try s.rows(#"SELECT "ZSIZE" FROM "ZOTHER""#) == [[.real(7)]])
    }

    /// On a store already at its target, the plan's steps check the store as it is:
    /// pages, entity numbers and rows, relationships.
    @Test func aCurrentStoreIsVerifiedByItsPlannedSteps() throws {
        let s = try Self.boxes()
        defer { s.remove() }
        let connection = try Connection(path: s.storePath)
        try connection.execute(#"UPDATE ZBOX SET ZNAME = 'b' WHERE Z_PK = 2"#)
        try connection.close()
        try s.migrate()
        let plan = try s.plan(verify: true)
        #expect(plan.isEmpty)
        #expect(plan.verification.map(\.kind) == [.verifyIntegrity, .verifyStore, .verifyRelationships])
        let result = try Migrator().apply(plan)
        #expect(result.checksPassed == 1 + 2 + 2)
        #expect(try Migrator().apply(try s.plan()).checksPassed == 0)
    }
}
