import Foundation
import TestSupport
import Testing

/// One outcome vocabulary: `status`, `plan`, `apply` and `fleet` give a store the
/// same word and exit code (Docs/JSON.md, "Outcomes"), and the `error` object says it too.
@Suite struct OutcomeWordTests {
    /// `status`'s report, `apply`'s last event and `fleet status`'s store record for one store.
    static func words(_ f: StockFixture, _ store: String, _ extra: [String] = []) throws -> (
        status: [String: Any], apply: [String: Any],
        fleet: [String: Any], codes: [Int32]
    ) {
        let status = try f.migrate(["status", "--json"] + f.models + extra + [store])
        let apply = try f.migrate(["apply", "--json"] + f.models + extra + [store])
        let fleet = try f.migrate(["fleet", "status", "--json"] + f.models + [store])
        let lastEvent = try #require(apply.stdout.split(separator: "\n").last.map(String.init))
        let record = try #require(try FleetCommandTests.records(fleet.stdout, event: "store").first)
        return (
            try StockFixture.object(status.stdout), try StockFixture.object(lastEvent), record,
            [status.status, apply.status, fleet.status]
        )
    }

    /// A flat JSON object equals `expected` (values compared as their text).
    static func same(_ object: Any?, _ expected: [String: Any]) -> Bool {
        func text(_ value: [String: Any]) -> [String] { value.keys.sorted().map { "\($0)=\(value[$0]!)" } }
        return (object as? [String: Any]).map(text) == text(expected)
    }

    @Test func anUnreadableStoreIsFailedEverywhere() throws {
        let f = try StockFixture()
        defer { f.remove() }
        try f.directory.write("garbage.sqlite", "this is not a database\n")
        let before = f.snapshot("garbage.sqlite")
        let (status, apply, fleet, codes) = try Self.words(f, "garbage.sqlite")
        #expect(codes == [1, 1, 1])
        let message = "garbage.sqlite: not an SQLite database (the file does not start with SQLite's header)"
        #expect(status["status"] as? String == "failed")
        #expect(status["message"] as? String == message)
        #expect(Self.same(status["error"], ["status": "failed", "exitCode": 1, "message": message]))
        #expect(apply["event"] as? String == "failed")
        #expect(apply["status"] as? String == "failed")
        #expect(Self.same(apply["error"], ["status": "failed", "exitCode": 1, "message": message]))
        #expect(fleet["status"] as? String == "failed")
        #expect(fleet["message"] as? String == "not an SQLite database (the file does not start with SQLite's header)")
        let plan = try f.migrate(["plan", "--json"] + f.models + ["garbage.sqlite"])
        #expect(plan.status == 1)
        #expect(
            Self.same(
                try StockFixture.object(plan.stdout)["error"], ["status": "failed", "exitCode": 1, "message": message]))
        let fleetApply = try f.migrate(["fleet", "apply", "--json"] + f.models + ["garbage.sqlite"])
        #expect(fleetApply.status == 1)
        #expect(try FleetCommandTests.statuses(fleetApply.stdout) == ["garbage.sqlite": "failed"])
        #expect(f.snapshot("garbage.sqlite") == before)
    }

    /// A store of another model: its version is among no models given (exit 5).
    @Test func aForeignStoreIsUnknownVersionEverywhere() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let created = try f.migrate([
            "create", "--models", TestModels.modelsFolder, "--model", "Contacts", "--version", "1", "contacts.sqlite",
        ])
        #expect(created.status == 0)
        let before = f.snapshot("contacts.sqlite")
        let (status, apply, fleet, codes) = try Self.words(f, "contacts.sqlite")
        #expect(codes == [5, 5, 5])
        let message = """
            contacts.sqlite: this store is a Contacts store, and the models given hold models: Stock (is --models the \
            folder holding Contacts/?)
            """
        for report in [status, apply] {
            #expect(report["status"] as? String == "unknown-version")
            #expect(Self.same(report["error"], ["status": "unknown-version", "exitCode": 5, "message": message]))
        }
        #expect(fleet["status"] as? String == "unknown-version")
        #expect(f.snapshot("contacts.sqlite") == before)
    }

    @Test func noPathAndUsageHaveTheirWords() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        try f.directory.write(
            "Models/Stock/2.yaml",
            StockStore.v1.replacingOccurrences(of: "version: 1", with: "version: 2")
                .replacingOccurrences(of: "      note: string?\n", with: "      note: integer16?\n"))
        let before = f.snapshot(store)
        let (status, apply, fleet, codes) = try Self.words(f, store)
        #expect(codes == [4, 4, 4])
        for report in [status, apply] {
            #expect(report["status"] as? String == "no-path")
            #expect((report["error"] as? [String: Any])?["status"] as? String == "no-path")
            #expect((report["error"] as? [String: Any])?["exitCode"] as? Int == 4)
        }
        #expect(fleet["status"] as? String == "no-path")
        #expect(
            fleet["message"] as? String == """
                no lightweight mapping from Stock version 1 to 2 (1 change inference cannot cover):
                  Item.note: type change string → integer16 is unrelated, not a widening
                    remedy: \(try #require((status["message"] as? String)?.components(separatedBy: "remedy: ").last))
                """)
        #expect(f.snapshot(store) == before)

        let usage = try f.migrate(["status", "--json"] + f.models + [store, "--to", "9"])
        #expect(usage.status == 64)
        let report = try StockFixture.object(usage.stdout)
        #expect(report["status"] as? String == "usage")
        #expect(
            Self.same(
                report["error"],
                [
                    "status": "usage", "exitCode": 64,
                    "message": "model Stock has no version 9 (versions 1 to 2)",
                ]))
        let plan = try f.migrate(["plan", "--json"] + f.models + [store, "--to", "9"])
        #expect(plan.status == 64)
        #expect(
            Self.same(try StockFixture.object(plan.stdout)["error"], try #require(report["error"] as? [String: Any])))
    }
}
