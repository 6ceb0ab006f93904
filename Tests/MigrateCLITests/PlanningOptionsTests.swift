import Foundation
import ModelMigration
import TestSupport
import Testing

@testable import MigrateCommands

/// `plan`, `apply` and `status` build one `PlanningOptions` from the same flags, so
/// that `apply` executes exactly the plan `plan` shows.
@Suite struct PlanningOptionsTests {
    /// Every planning flag, on the stock store (a rebuild of 300 rows).
    static func arguments(_ f: StockFixture, _ store: String) -> [String] {
        [
            "--models", f.path("Models"), f.path(store),
            "--to", "2", "--path", "chain", "--exact-counts", "--verify", "--remove-dangling-references",
        ]
    }

    /// The plan value as JSON, keys sorted: equal plans encode to equal bytes.
    static func encoded(_ plan: MigrationPlan) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(plan), as: UTF8.self)
    }

    @Test func planAndApplyMakeTheSamePlanFromTheSameFlags() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        let plan = try Plan.parse(Self.arguments(f, store))
        let apply = try Apply.parse(Self.arguments(f, store) + ["--timeout", "7", "--dry-run"])
        let status = try Status.parse(Self.arguments(f, store))
        #expect(
            plan.planningOptions
                == PlanningOptions(
                    target: 2, path: .chain, removesDanglingReferences: true,
                    exactCounts: true, verify: true))
        #expect(apply.planningOptions == plan.planningOptions)
        #expect(status.planningOptions == plan.planningOptions)

        // The one store run both commands build from their flags plans the same value.
        let planned = try Self.encoded(
            plan.global.storeRun(plan.planningOptions, gate: plan.gate).plan(f.path(store), timeout: 5).plan)
        let applied = try Self.encoded(
            apply.global.storeRun(apply.planningOptions, gate: apply.gate).plan(
                f.path(store), timeout: apply.timeout
            ).plan)
        #expect(planned == applied)
        #expect(planned.contains(#""verify":true"#))
        #expect(planned.contains(#""integrity":{}"#))
    }

    /// `plan --verify` lists the checks `apply --verify` runs, after the hops.
    @Test func planShowsTheVerifyStepsApplyRuns() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        let text = try f.migrate(["plan", "--verify"] + f.models + [store])
        #expect(text.status == 0)
        let lines = text.stdout.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "--verify before commit:"))
        #expect(
            Array(lines[start...].prefix(3)) == [
                "--verify before commit:",
                "  - PRAGMA integrity_check says ok (every page of the store)",
                "  - every relationship of the target version (5 checks)",
            ])
        let json = try StockFixture.object(try f.migrate(["plan", "--verify", "--json"] + f.models + [store]).stdout)
        let steps = try #require(json["verification"] as? [[String: Any]])
        #expect(steps.map { $0["kind"] as? String } == ["verifyIntegrity", "verifyRelationships"])
        #expect(steps.map { $0["cost"] as? String } == ["O(1)", "O(1)"])
        // Without --verify the report is as before: no `verification` key.
        let plain = try StockFixture.object(try f.migrate(["plan", "--json"] + f.models + [store]).stdout)
        #expect(plain["verification"] == nil)

        // The hop's 3 checks (Z_PRIMARYKEY's among them), then --verify's 5 relationship checks.
        let plainApply = try f.migrate(["apply", "--dry-run"] + f.models + [store])
        #expect(plainApply.stdout.contains(": 300 rows written, 3 checks passed, "), "\(plainApply.stdout)")
        let applied = try f.migrate(["apply", "--verify"] + f.models + [store])
        #expect(applied.status == 0)
        #expect(
            applied.stdout.hasPrefix("migrated stock.sqlite from version 1 to 2: 300 rows written, 8 checks passed, "),
            "\(applied.stdout)")
    }

    /// On a store already at its target, `plan --verify` says what `apply --verify` checks.
    @Test func planOfACurrentStoreShowsItsVerification() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        #expect(try f.migrate(["apply"] + f.models + [store]).status == 0)
        let text = try f.migrate(["plan", "--verify"] + f.models + [store])
        #expect(
            text.stdout.components(separatedBy: "\n") == [
                "stock.sqlite: Stock version 2 is current; nothing to do",
                "",
                "--verify (apply runs these on the store as it is):",
                "  - PRAGMA integrity_check says ok (every page of the store)",
                "  - the store's entity numbers, and 2 checks of its rows",
                "  - every relationship (5 checks)",
                "",
            ])
    }
}
