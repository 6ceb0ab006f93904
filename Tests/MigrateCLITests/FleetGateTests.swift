import Foundation
import TestSupport
import Testing

/// `fleet plan|apply --fail-on-destructive` (exit 6, no store changed, every
/// destructive store named) and `fleet status` with a mapping file naming a policy
/// this `migrate` lacks (answered as `status` answers it).
@Suite struct FleetGateTests {
    static let refusal = """
        the plan from version 1 to 2 has 1 destructive step (--fail-on-destructive); nothing was changed:
          Item.note is dropped: 200 non-nil values will be lost (accept with --accept Item.note)
        """

    /// Two version 1 stores whose plans drop notes, one at version 2.
    static func fleet(_ f: StockFixture) throws -> [String] {
        try f.store("fleet/a.sqlite")
        try f.store("fleet/b.sqlite")
        try f.store("fleet/c.sqlite")
        #expect(try f.migrate(["apply"] + f.models + ["fleet/c.sqlite"]).status == 0)
        return ["fleet/a.sqlite", "fleet/b.sqlite", "fleet/c.sqlite"]
    }

    @Test func fleetPlanListsTheDestructiveStoresAndExits6() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let stores = try Self.fleet(f)
        let before = stores.map { f.snapshot($0) }
        let text = try f.migrate(["fleet", "plan", "--jobs", "1", "--fail-on-destructive"] + f.models + stores)
        #expect(text.status == 6)
        #expect(text.stderr == "error: 2 of 3 stores have a destructive plan (--fail-on-destructive)\n")
        #expect(
            text.stdout.hasSuffix(
                """
                destructive plans (--fail-on-destructive) (2):
                  fleet/a.sqlite: \(Self.refusal.replacingOccurrences(of: "\n", with: "\n  "))
                  fleet/b.sqlite: \(Self.refusal.replacingOccurrences(of: "\n", with: "\n  "))

                """))
        #expect(text.stdout.contains("== Stock 1 → 2: 2 stores (plan of fleet/a.sqlite)"))
        let json = try f.migrate(
            ["fleet", "plan", "--json", "--jobs", "1", "--fail-on-destructive"] + f.models + stores)
        #expect(json.status == 6)
        #expect(
            try FleetCommandTests.statuses(json.stdout) == [
                "fleet/a.sqlite": "destructive", "fleet/b.sqlite": "destructive",
                "fleet/c.sqlite": "current",
            ])
        let record = try #require(try FleetCommandTests.records(json.stdout, event: "store").first)
        #expect(record["message"] as? String == Self.refusal)
        let summary = try #require(try FleetCommandTests.records(json.stdout, event: "summary").first)
        #expect(summary["exitCode"] as? Int == 6)
        #expect((summary["tally"] as? [String: Any])?["destructive"] as? Int == 2)
        #expect(stores.map { f.snapshot($0) } == before)
        // Without the gate the same fleet plans with exit 0, the stores needing a migration.
        let open = try f.migrate(["fleet", "plan", "--json"] + f.models + stores)
        #expect(open.status == 0)
        #expect(try FleetCommandTests.statuses(open.stdout)["fleet/a.sqlite"] == "migration-needed")
    }

    /// An accepted loss migrates; its warning, alike on every store but for the
    /// count, is said once for the stores that had it, not once per store.
    @Test func anAcceptedLossIsWarnedOnceForTheFleet() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let stores = try Self.fleet(f)
        let apply = try f.migrate(
            ["fleet", "apply", "--jobs", "2", "--fail-on-destructive", "--accept", "Item.note"] + f.models + stores)
        #expect(apply.status == 0, "\(apply.stderr)")
        let warnings = apply.stderr.split(separator: "\n").filter { $0.hasPrefix("warning: ") }
        #expect(warnings.count == 1, "\(apply.stderr)")
        #expect(
            warnings.first?.hasPrefix(
                "warning: 2 stores: destructive (accepted): Item.note is dropped: 200 non-nil values") == true,
            "\(warnings)")
        #expect(apply.stdout.contains("2 migrated, 1 already current"), "\(apply.stdout)")
    }

    /// Every store is planned before any is migrated: one destructive store stops
    /// the whole fleet, the others included, and no backup is made.
    @Test func fleetApplyChangesNoStoreWhenOnePlanIsDestructive() throws {
        let f = try StockFixture()
        defer { f.remove() }
        // A store whose notes are all nil: its plan drops the column and loses nothing.
        try f.store("fleet/empty.sqlite", items: 3)
        try SQLiteFile.execute(f.path("fleet/empty.sqlite"), "UPDATE ZITEM SET ZNOTE = NULL")
        let stores = ["fleet/empty.sqlite"] + (try Self.fleet(f))
        let before = stores.map { f.snapshot($0) }
        let text = try f.migrate(
            ["fleet", "apply", "--jobs", "1", "--fail-on-destructive", "--backup-dir", "backups"] + f.models + stores)
        #expect(text.status == 6)
        #expect(
            text.stderr
                == "error: 2 of 4 stores have a destructive plan (--fail-on-destructive); no store was changed\n")
        #expect(
            text.stdout == """
                4 stores planned, none changed
                destructive plans (--fail-on-destructive) (2):
                  fleet/a.sqlite: \(Self.refusal.replacingOccurrences(of: "\n", with: "\n  "))
                  fleet/b.sqlite: \(Self.refusal.replacingOccurrences(of: "\n", with: "\n  "))

                """)
        let json = try f.migrate(
            ["fleet", "apply", "--json", "--jobs", "1", "--fail-on-destructive"] + f.models + stores)
        #expect(json.status == 6)
        #expect(
            try FleetCommandTests.statuses(json.stdout) == [
                "fleet/a.sqlite": "destructive", "fleet/b.sqlite": "destructive",
            ])
        let summary = try #require(try FleetCommandTests.records(json.stdout, event: "summary").first)
        #expect(summary["exitCode"] as? Int == 6)
        let tally = try #require(summary["tally"] as? [String: Any])
        #expect(
            [tally["stores"], tally["destructive"], tally["migrationNeeded"], tally["current"], tally["migrated"]].map {
                $0 as? Int
            }
                == [4, 2, 1, 1, 0])
        #expect(stores.map { f.snapshot($0) } == before)
        #expect(!FileManager.default.fileExists(atPath: f.path("backups")))

        // The list is read twice: standard input cannot be.
        let piped = try f.migrate(["fleet", "apply", "--fail-on-destructive", "--stores-from", "-"] + f.models)
        #expect(piped.status == 64)
        #expect(
            piped.stderr.hasPrefix(
                """
                Error: --fail-on-destructive plans every store before migrating any, so it reads the list twice, and \
                standard input (--stores-from -) can be read once: write the list to a file
                """))
        // A fleet whose plans lose nothing passes the gate and migrates.
        let passing = try f.migrate(
            ["fleet", "apply", "--json", "--fail-on-destructive"] + f.models + ["fleet/empty.sqlite", "fleet/c.sqlite"])
        #expect(passing.status == 0, "\(passing.stdout)")
        #expect(
            try FleetCommandTests.statuses(passing.stdout) == [
                "fleet/empty.sqlite": "migrated", "fleet/c.sqlite": "current",
            ])
    }

    /// `fleet status` never needs a policy: a mapping file naming one this migrate
    /// lacks still gets "migration needed" (3), with the policy named, as `status` does.
    @Test func fleetStatusAnswersWhateverTheMappingFilesName() throws {
        let f = try PolicyCommandTests.fixture(policy: "SplitNames")
        defer { f.remove() }
        let before = f.snapshot("contacts.sqlite")
        let options = ["--migrations", "Migrations"] + f.models
        let text = try f.migrate(["fleet", "status"] + options + ["contacts.sqlite"])
        #expect(text.status == 3)
        #expect(text.stdout.hasSuffix("1 to migrate\n"))
        #expect(text.stderr == PolicyCommandTests.warning)
        let json = try f.migrate(["fleet", "status", "--json"] + options + ["contacts.sqlite"])
        #expect(json.status == 3)
        let record = try #require(try FleetCommandTests.records(json.stdout, event: "store").first)
        #expect(record["status"] as? String == "migration-needed")
        #expect(record["missingPolicies"] as? [String] == ["SplitNames"])
        #expect(f.snapshot("contacts.sqlite") == before)
        // Planning and applying that hop still need the policy (exit 4).
        let plan = try f.migrate(["fleet", "plan", "--json"] + options + ["contacts.sqlite"])
        #expect(plan.status == 4)
        #expect(try FleetCommandTests.statuses(plan.stdout) == ["contacts.sqlite": "no-path"])
        // The store without a path is still placed: its record and the version table.
        let refused = try #require(try FleetCommandTests.records(plan.stdout, event: "store").first)
        let version = try #require(refused["version"] as? Int), target = try #require(refused["target"] as? Int)
        #expect(refused["model"] as? String != nil && version < target, "\(refused)")
        let summary = try #require(try FleetCommandTests.records(plan.stdout, event: "summary").first)
        let versions = try #require(summary["versions"] as? [[String: Any]])
        #expect(versions.map { $0["status"] as? String } == ["no-path"], "\(versions)")
        #expect((summary["tally"] as? [String: Any])?["seconds"] as? Double ?? 0 > 0)
        let table = try f.migrate(["fleet", "plan"] + options + ["contacts.sqlite"])
        #expect(
            table.stdout.contains("Contacts  \(version)        1       no migration path to \(target)\n"),
            "\(table.stdout)")
    }
}
