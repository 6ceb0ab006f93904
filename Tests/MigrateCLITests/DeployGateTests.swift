import Foundation
import TestSupport
import Testing

/// `apply --create-if-missing` and `--fail-on-destructive`: what a deploy script
/// needs on a fresh server and before losing data.
@Suite struct DeployGateTests {
    @Test func createIfMissingCreatesTheStoreAtTheTarget() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let dry = try f.migrate(["apply"] + f.models + ["new.sqlite", "--create-if-missing", "--dry-run"])
        #expect(dry.status == 0)
        #expect(
            dry.stdout
                == "dry run: would create new.sqlite: no store was there (--create-if-missing); model Stock version 2\n"
        )
        #expect(!FileManager.default.fileExists(atPath: f.path("new.sqlite")))
        let result = try f.migrate(
            ["apply"] + f.models + ["new.sqlite", "--create-if-missing", "--backup-dir", "backups"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == "created new.sqlite: no store was there (--create-if-missing); model Stock version 2\n")
        #expect(try f.migrate(["status"] + f.models + ["new.sqlite"]).status == 0)
        let json = try f.migrate(["apply", "--json"] + f.models + ["v1.sqlite", "--create-if-missing", "--to", "1"])
        #expect(
            json.stdout
                == """
                {\"dryRun\":false,\"event\":\"created\",\"model\":\"Stock\",\"store\":\"v1.sqlite\",\"version\":1}\n
                """
        )
        // An existing store is migrated as usual; without the flag a missing one is an error.
        #expect(
            try f.migrate(["apply"] + f.models + ["v1.sqlite", "--create-if-missing"]).stdout.hasPrefix(
                "migrated v1.sqlite from version 1 to 2"))
        #expect(try f.migrate(["apply"] + f.models + ["none.sqlite"]).status == 1)
    }

    /// Replicas of one deploy script starting at once on a fresh server: exactly one
    /// creates the store, the others find it there and carry on (exit 0). A loser
    /// used to remove the file it had begun at the store's path, leaving no store.
    @Test(.ownThread) func concurrentCreatesLeaveOneStore() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let runs = try (0..<6).map { _ in
            try BackgroundMigrate(["apply"] + f.models + ["new.sqlite", "--create-if-missing"], in: f.directory.path)
        }
        let outcomes = runs.map { $0.finish() }
        #expect(outcomes.allSatisfy { $0.status == 0 }, "\(outcomes)")
        #expect(outcomes.filter { $0.stdout.hasPrefix("created new.sqlite") }.count == 1, "\(outcomes)")
        #expect(try f.migrate(["status"] + f.models + ["new.sqlite"]).status == 0)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: f.directory.path).filter {
            $0.contains(".mm-scratch.")
        }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test func failOnDestructiveRefusesWithExit6() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        let before = f.snapshot(store)
        let message = """
            error: stock.sqlite: the plan from version 1 to 2 has 1 destructive step (--fail-on-destructive); nothing \
            was changed:
              Item.note is dropped: 200 non-nil values will be lost (accept with --accept Item.note)

            """
        let plan = try f.migrate(["plan"] + f.models + [store, "--fail-on-destructive"])
        #expect(plan.status == 6)
        #expect(plan.stdout.hasPrefix("stock.sqlite: Stock version 1 → 2"))
        #expect(plan.stderr == message)
        let apply = try f.migrate(["apply"] + f.models + [store, "--fail-on-destructive", "--backup-dir", "backups"])
        #expect(apply.status == 6)
        #expect(apply.stdout == "")
        #expect(apply.stderr == message)
        let json = try f.migrate(["apply", "--json"] + f.models + [store, "--fail-on-destructive"])
        #expect(json.status == 6)
        let event = try CLIFixture.object(json.stdout)
        #expect(event["event"] as? String == "failed")
        #expect(event["exitCode"] as? Int == 6)
        #expect(event["destructive"] as? [String] == ["Item.note is dropped: 200 non-nil values will be lost"])
        let planJSON = try CLIFixture.object(
            try f.migrate(["plan", "--json"] + f.models + [store, "--fail-on-destructive"]).stdout)
        #expect((planJSON["error"] as? [String: Any])?["exitCode"] as? Int == 6)
        #expect(f.snapshot(store) == before)
        #expect(!FileManager.default.fileExists(atPath: f.path("backups")))
        // Without the flag the same plan applies; a plan losing nothing passes the gate.
        #expect(try f.migrate(["apply"] + f.models + [store]).status == 0)
        #expect(try f.migrate(["apply"] + f.models + [store, "--fail-on-destructive"]).status == 0)
    }
}
