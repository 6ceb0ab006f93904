import Foundation
import TestSupport
import Testing

/// `migrate fleet status|plan|apply` over folders of Stock stores (TestSupport's
/// `StockStore`): mixed versions, broken stores, shards run at once, a runner killed.
@Suite struct FleetCommandTests {
    static let items = StockFixture.smallItems

    /// JSON Lines records of one kind (`store` or `summary`).
    static func records(_ text: String, event: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").compactMap { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return object["event"] as? String == event ? object : nil
        }
    }

    /// `store → status` of every store record.
    static func statuses(_ text: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for record in try records(text, event: "store") {
            let store = try #require(record["store"] as? String)
            #expect(result[store] == nil, "\(store) reported twice")
            result[store] = record["status"] as? String
        }
        return result
    }

    /// A fleet folder: `v1` stores of version 1 and `v2` of version 2 spread over
    /// tenant folders, by relative path.
    static func makeFleet(_ f: StockFixture, v1: Int, v2: Int) throws -> (old: [String], new: [String]) {
        var old: [String] = [], new: [String] = []
        try f.store("template-v2.sqlite")
        let migrated = try f.migrate(["apply"] + f.models + ["template-v2.sqlite"])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        let v2Bytes = try #require(FileManager.default.contents(atPath: f.path("template-v2.sqlite")))
        for i in 0..<(v1 + v2) {
            let name = "fleet/tenant\(i % 7)/store\(i).sqlite"
            if i < v1 {
                try f.store(name)
                old.append(name)
            } else {
                try f.directory.write(name, bytes: [UInt8](v2Bytes))
                new.append(name)
            }
        }
        return (old, new)
    }

    @Test(.ownThread) func aFleetMigratesEveryGoodStoreAndNamesEveryBadOneLeavingItUnchanged() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (old, new) = try Self.makeFleet(f, v1: 150, v2: 40)

        // Broken stores: not SQLite, cut short, of a model this deployment does not
        // have, data the migration's checks refuse, and one another process holds.
        try f.directory.write("fleet/broken/garbage.sqlite", "this is not a database\n")
        let v1Bytes = try StockTemplates.shared.bytes(items: Self.items)
        try f.directory.write("fleet/broken/truncated.sqlite", bytes: Array(v1Bytes.prefix(4096)))
        let foreign = try f.migrate([
            "create", "--models", TestModels.modelsFolder, "--model", "Contacts", "--version", "1",
            "fleet/broken/contacts.sqlite",
        ])
        #expect(foreign.status == 0, "\(foreign.stderr)")
        try f.store("fleet/broken/badentity.sqlite")
        try SQLiteFile.execute(f.path("fleet/broken/badentity.sqlite"), "UPDATE ZITEM SET Z_ENT = 9 WHERE Z_PK = 5")
        try f.store("fleet/broken/locked.sqlite")
        let broken = [
            "fleet/broken/garbage.sqlite", "fleet/broken/truncated.sqlite", "fleet/broken/contacts.sqlite",
            "fleet/broken/badentity.sqlite", "fleet/broken/locked.sqlite",
        ]
        let before = Dictionary(uniqueKeysWithValues: broken.map { ($0, f.snapshot($0).fingerprint) })

        let status = try f.migrate(["fleet", "status"] + f.models + ["fleet", "--json"])
        #expect(status.status == 1, "\(status.stderr)")
        let summary = try #require(try Self.records(status.stdout, event: "summary").first)
        let tally = try #require(summary["tally"] as? [String: Any])
        #expect(tally["stores"] as? Int == 195)
        #expect(tally["migrationNeeded"] as? Int == 151)  // the locked store's too
        #expect(tally["current"] as? Int == 40)
        #expect(tally["unknownVersion"] as? Int == 1)
        #expect(tally["failed"] as? Int == 3)
        let versions = try #require(summary["versions"] as? [[String: Any]])
        #expect(
            versions.map { "\($0["model"]!) \($0["version"]!) \($0["stores"]!) \($0["status"]!)" }
                == [
                    """
                    Stock 1 151 migration-needed
                    """, "Stock 1 1 failed", "Stock 2 40 current",
                ])  // badentity: version 1, unplannable

        let lock = try WriteLock(path: f.path("fleet/broken/locked.sqlite"))
        let apply = try f.migrate(
            ["fleet", "apply"] + f.models + ["fleet", "--jobs", "3", "--json", "--timeout", "0.2"])
        try lock.release()
        #expect(apply.status == 1, "\(apply.stderr)")
        let outcome = try Self.statuses(apply.stdout)
        #expect(outcome.count == 195)
        for name in old { #expect(outcome[name] == "migrated", "\(name)") }
        for name in new { #expect(outcome[name] == "current", "\(name)") }
        #expect(outcome["fleet/broken/garbage.sqlite"] == "failed")
        #expect(outcome["fleet/broken/truncated.sqlite"] == "failed")
        #expect(outcome["fleet/broken/contacts.sqlite"] == "unknown-version")
        #expect(outcome["fleet/broken/badentity.sqlite"] == "failed")
        #expect(outcome["fleet/broken/locked.sqlite"] == "failed")
        let messages = Dictionary(
            uniqueKeysWithValues: try Self.records(apply.stdout, event: "store").map {
                ($0["store"] as! String, $0["message"] as? String ?? "")
            })
        #expect(
            messages["fleet/broken/badentity.sqlite"]!.contains("Z_ENT"),
            "\(messages["fleet/broken/badentity.sqlite"]!)")
        #expect(messages["fleet/broken/garbage.sqlite"]!.contains("not an SQLite database"))
        #expect(messages["fleet/broken/locked.sqlite"]!.contains("holds the store"))
        #expect(messages["fleet/broken/contacts.sqlite"]!.contains("Contacts"))

        // Every good store holds exactly its data at version 2, every bad one its bytes.
        let expected = StockStore.expected(version: 2, items: Self.items)
        for name in old + new { #expect(try f.summary(name) == expected, "\(name)") }
        for name in broken { #expect(f.snapshot(name).fingerprint == before[name], "\(name) changed") }

        // Released, the locked store is migrated by a rerun; the text form names
        // each problem once, in the closing report.
        let again = try f.migrate(["fleet", "apply"] + f.models + ["fleet"])
        #expect(again.status == 1)
        #expect(again.stdout.hasPrefix("195 stores in "))
        #expect(
            again.stdout.contains("1 migrated, 190 already current, 1 of an unknown version, 3 failed\n"),
            "\(again.stdout)")
        #expect(again.stdout.contains("failed (3):\n"))
        let garbage =
            "fleet/broken/garbage.sqlite: not an SQLite database (the file does not start with SQLite's header)"
        #expect(again.stdout.contains("\n  \(garbage); nothing was changed\n"))
        #expect(
            again.stdout.contains(
                "unknown version (1):\n  fleet/broken/contacts.sqlite: this store is a Contacts store"))
        #expect(again.stderr.contains("error: fleet/broken/truncated.sqlite: the file is truncated"))
        #expect(try f.summary("fleet/broken/locked.sqlite") == expected)
    }

    /// A policy hop that fails on one store's data fails that store alone, which is
    /// left as it was; every other store of the fleet is migrated.
    @Test func aPolicyFailingOnOneStoresDataFailsThatStoreAlone() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        // SplitFullName in its stages (object graph), which check every required value it writes.
        try f.directory.write(
            "Migrations/Contacts/1-to-2.yaml",
            """
            entities:\n  Person:\n    policy: SplitFullName\n    properties:\n      firstName: policy\n      lastName: \
            policy\n
            """
        )
        let migrations = ["--migrations", f.path("Migrations")]
        var stores: [String] = []
        for i in 0..<12 {
            stores.append(try f.createContacts("fleet/c\(i).sqlite", version: 1))
            try SQLiteFile.execute(
                f.path(stores[i]),
                """
                INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZFULLNAME, ZEMAIL, ZAGE, ZCREATEDAT) \
                VALUES (1, 1, 1, 'Joana da Silva', 'j\(i)@example.com', 30, 0); \
                UPDATE Z_PRIMARYKEY SET Z_MAX = 2 WHERE Z_NAME = 'Person'
                """)
        }
        try SQLiteFile.execute(
            f.path(stores[7]),
            """
            INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZFULLNAME, ZEMAIL, ZAGE, ZCREATEDAT) VALUES (2, 1, 1, 'No Mail', \
            NULL, 40, 0)
            """
        )
        let before = f.snapshot(stores[7]).fingerprint
        let apply = try f.migrate(["fleet", "apply"] + f.models + migrations + ["fleet", "--json", "--jobs", "4"])
        #expect(apply.status == 1, "\(apply.stderr)")
        let statuses = try Self.statuses(apply.stdout)
        for (index, store) in stores.enumerated() {
            #expect(statuses[store] == (index == 7 ? "failed" : "migrated"), "\(store)")
        }
        #expect(
            apply.stdout.contains("policy SplitFullName: Person 2 has no value for required Person.email"),
            "\(apply.stdout)")
        #expect(f.snapshot(stores[7]).fingerprint == before)
        let person = try f.migrate(["dump"] + f.models + [stores[3], "Person"])
        #expect(
            person.stdout.contains("\"firstName\":\"Joana\"") && person.stdout.contains("\"lastName\":\"da Silva\""),
            "\(person.stdout)")
    }

    @Test func planShowsEachChainOnceWithItsStoreCount() throws {
        let f = try StockFixture()
        defer { f.remove() }
        _ = try Self.makeFleet(f, v1: 12, v2: 5)
        let plan = try f.migrate(["fleet", "plan"] + f.models + ["fleet"])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.components(separatedBy: "== Stock 1 → 2: 12 stores").count == 2)
        #expect(plan.stdout.contains("rebuild ZITEM"))
        #expect(plan.stdout.contains("17 stores"))
        let json = try f.migrate(["fleet", "plan"] + f.models + ["fleet", "--json"])
        let summary = try #require(try Self.records(json.stdout, event: "summary").first)
        let chains = try #require(summary["chains"] as? [[String: Any]])
        #expect(chains.count == 1)
        #expect(chains.first?["stores"] as? Int == 12)
        #expect(chains.first?["from"] as? Int == 1 && chains.first?["to"] as? Int == 2)
    }

    @Test(.ownThread, .slowTrial) func shardsRunningAtOnceMigrateEachStoreExactlyOnce() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (old, _) = try Self.makeFleet(f, v1: 80, v2: 0)
        let shards = (0..<4).map { index in
            try! BackgroundMigrate(
                ["fleet", "apply"] + f.models + ["fleet", "--shard", "\(index)/4", "--json", "--jobs", "2"],
                in: f.directory.path)
        }
        var owner: [String: Int] = [:]
        for (index, shard) in shards.enumerated() {
            let result = shard.finish()
            #expect(result.status == 0, "shard \(index): \(result)")
            for (store, status) in try Self.statuses(result.stdout) {
                #expect(status == "migrated", "\(store) in shard \(index)")
                #expect(owner[store] == nil, "\(store) handled by shards \(owner[store]!) and \(index)")
                owner[store] = index
            }
        }
        #expect(Set(owner.keys) == Set(old))
        #expect(Set(owner.values).count == 4, "every shard took some of 80 stores")
        let expected = StockStore.expected(version: 2, items: Self.items)
        for name in old {
            #expect(try f.summary(name) == expected)
            #expect(try StockStore.history(path: f.path(name)) == [[1, 2]], "\(name) migrated more than once")
        }
    }

    @Test(.ownThread, .slowTrial) func aRunnerKilledMidFleetIsFinishedByARerun() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (old, _) = try Self.makeFleet(f, v1: 120, v2: 0)
        let runner = try BackgroundMigrate(
            ["fleet", "apply"] + f.models + ["fleet", "--jobs", "2", "--json"], in: f.directory.path)
        // Kill it once some stores are done and others are not.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let done =
                (try? String(contentsOfFile: runner.directory.file("stdout"), encoding: .utf8))?.components(
                    separatedBy: "\"migrated\""
                ).count ?? 0
            if done > 20 { break }
            usleep(5_000)
        }
        kill(runner.pid, SIGKILL)
        let killed = runner.finish()
        #expect(killed.status == 128 + SIGKILL, "\(killed)")

        let v1 = StockStore.expected(version: 1, items: Self.items),
            v2 = StockStore.expected(version: 2, items: Self.items)
        var migrated = 0
        for name in old {
            let summary = try f.summary(name)
            #expect(summary == v1 || summary == v2, "\(name) is neither version 1 nor 2: \(summary)")
            if summary == v2 { migrated += 1 }
        }
        #expect(migrated > 0 && migrated < old.count, "killed after \(migrated) of \(old.count)")

        let rerun = try f.migrate(["fleet", "apply"] + f.models + ["fleet", "--json"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let statuses = try Self.statuses(rerun.stdout)
        #expect(statuses.values.filter { $0 == "current" }.count >= migrated)
        #expect(statuses.values.filter { $0 == "migrated" }.count <= old.count - migrated)
        for name in old {
            #expect(try f.summary(name) == v2)
            #expect(try StockStore.history(path: f.path(name)) == [[1, 2]])
        }
    }

    /// SIGTERM (a deploy job stopped): the stores under way roll back, none starts
    /// after it, the summary says so, exit 143; every store has its record (rolled
    /// back or not started: `interrupted`, never `failed`); a rerun finishes.
    @Test(.ownThread, .slowTrial) func aStoppedRunRollsBackWhatIsUnderWayAndSaysSo() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (old, _) = try Self.makeFleet(f, v1: 100, v2: 0)
        let runner = try BackgroundMigrate(
            ["fleet", "apply"] + f.models + ["fleet", "--jobs", "2", "--json"], in: f.directory.path)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let done =
                (try? String(contentsOfFile: runner.directory.file("stdout"), encoding: .utf8))?.components(
                    separatedBy: "\"migrated\""
                ).count ?? 0
            if done > 10 { break }
            usleep(5_000)
        }
        kill(runner.pid, SIGTERM)
        let stopped = runner.finish()
        #expect(stopped.status == 143, "\(stopped)")
        let summary = try #require(try Self.records(stopped.stdout, event: "summary").first)
        #expect(summary["exitCode"] as? Int == 143)
        let reported = try Self.statuses(stopped.stdout)
        #expect(reported.count == old.count, "a record for every store")
        #expect(Set(reported.values).isSubset(of: ["migrated", "interrupted"]), "\(Set(reported.values))")
        let unstarted = try Self.records(stopped.stdout, event: "store").filter { $0["started"] as? Bool == false }
        #expect(!unstarted.isEmpty, "stopped before the end")
        #expect(unstarted.allSatisfy { $0["status"] as? String == "interrupted" })
        let tally = try #require(summary["tally"] as? [String: Any])
        #expect(tally["notStarted"] as? Int == unstarted.count)
        #expect(tally["failed"] as? Int == 0)
        #expect((tally["seconds"] as? Double ?? 0) > 0)
        let v1 = StockStore.expected(version: 1, items: Self.items),
            v2 = StockStore.expected(version: 2, items: Self.items)
        for name in old {
            let summary = try f.summary(name)
            // A store reported migrated is new; one not reported (or rolled back) is old.
            #expect(summary == (reported[name] == "migrated" ? v2 : v1), "\(name): \(reported[name] ?? "not reported")")
        }
        let rerun = try f.migrate(["fleet", "apply"] + f.models + ["fleet"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        for name in old { #expect(try f.summary(name) == v2) }
    }

    @Test func storesComeFromListsAndShardsFromTheJobIndex() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (old, _) = try Self.makeFleet(f, v1: 6, v2: 0)
        let list = "# the tenants of this host\n\n\(old[0])\n\(old[1])\nfleet/missing.sqlite\n"
        let fromStdin = try InProcess.migrate(
            ["fleet", "apply"] + f.models + ["--stores-from", "-", "--json"], in: f.directory.path, stdin: list)
        #expect(fromStdin.status == 1)
        #expect(
            try Self.statuses(fromStdin.stdout) == [
                old[0]: "migrated", old[1]: "migrated", "fleet/missing.sqlite": "failed",
            ])
        #expect(
            fromStdin.stdout.contains("fleet/missing.sqlite: no such store file")
                || fromStdin.stdout.contains("no such store file"))
        #expect(
            FileManager.default.fileExists(atPath: f.path("fleet/missing.sqlite")) == false,
            "a missing store is never created")

        // --shards N takes its index from JOB_COMPLETION_INDEX; together the shards cover the rest.
        var seen: Set<String> = []
        for index in 0..<3 {
            let shard = try InProcess.migrate(
                ["fleet", "status"] + f.models + ["fleet", "--shards", "3", "--json"], in: f.directory.path,
                environment: ["JOB_COMPLETION_INDEX": String(index)])
            #expect([0, 3].contains(shard.status), "\(shard.stderr)")
            let stores = Set(try Self.statuses(shard.stdout).keys)
            #expect(seen.isDisjoint(with: stores))
            seen.formUnion(stores)
        }
        #expect(seen == Set(old))

        let usage = [
            (["--shard", "4/4"], "--shard 4/4: expected I/N with 0 ≤ I < N"),
            (["--shards", "2"], "JOB_COMPLETION_INDEX is not set"),
            (["--shard", "0/2", "--shards", "2"], "give one of them"),
        ]
        for (arguments, message) in usage {
            let result = try f.migrate(["fleet", "status"] + f.models + ["fleet"] + arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let none = try f.migrate(["fleet", "status"] + f.models)
        #expect(none.status == 64)
        let empty = try f.migrate(["fleet", "status"] + f.models + ["Models"])
        #expect(empty.status == 64 || empty.status == 1)
        #expect(empty.stderr.contains("no stores found"))
    }

    @Test func aDryRunChangesNothingAndBackupsAreNeverMigrated() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (old, _) = try Self.makeFleet(f, v1: 5, v2: 0)
        let before = old.map { f.snapshot($0) }
        let dry = try f.migrate(["fleet", "apply"] + f.models + ["fleet", "--dry-run", "--json"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(Set(try Self.statuses(dry.stdout).values) == ["would-migrate"])
        #expect(old.map { f.snapshot($0) } == before)

        // Backups written inside the fleet's own folder are old versions: a later
        // run, even without --backup-dir, never takes them for stores.
        let apply = try f.migrate(["fleet", "apply"] + f.models + ["fleet", "--backup-dir", "fleet/backups"])
        #expect(apply.status == 0, "\(apply.stderr)")
        #expect(apply.stdout.contains("5 stores in"))
        let backups = try FileManager.default.subpathsOfDirectory(atPath: f.path("fleet/backups")).filter {
            $0.hasSuffix(".sqlite")
        }
        #expect(backups.count == 5)
        for backup in backups {
            #expect(try f.summary("fleet/backups/" + backup) == StockStore.expected(version: 1, items: Self.items))
        }
        let rerun = try f.migrate(["fleet", "status"] + f.models + ["fleet"])
        #expect(rerun.status == 0, "\(rerun.stdout)")
        #expect(rerun.stdout.hasPrefix("5 stores\n"))
    }
}
