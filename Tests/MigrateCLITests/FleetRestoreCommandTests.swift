import Foundation
import TestSupport
import Testing

/// `migrate fleet restore`: a fleet run undone from its JSON log (by run id) or by
/// version; each store restored as `restore` restores one, a rerun picks up.
@Suite struct FleetRestoreCommandTests {
    /// A fleet of `count` version 1 stores migrated by `fleet apply --json`, its log in
    /// `run.jsonl`; returns the stores and the run's id.
    static func deployed(_ f: StockFixture, count: Int) throws -> (stores: [String], run: String) {
        let (stores, _) = try FleetCommandTests.makeFleet(f, v1: count, v2: 0)
        let apply = try f.migrate(
            ["fleet", "apply", "--json", "--jobs", "2"] + f.models + ["fleet", "--backup-dir", "backups"])
        #expect(apply.status == 0, "\(apply.stderr)")
        try f.directory.write("run.jsonl", apply.stdout)
        let summary = try #require(try FleetCommandTests.records(apply.stdout, event: "summary").first)
        let run = try #require(summary["run"] as? String)
        // Every record names the run.
        #expect(try FleetCommandTests.records(apply.stdout, event: "store").allSatisfy { $0["run"] as? String == run })
        return (stores.sorted(), run)
    }

    static func versions(_ f: StockFixture, _ stores: [String]) throws -> [Int] {
        try stores.map { store in
            let status = try f.migrate(["status", "--json"] + f.models + [store])
            return try #require(try CLIFixture.object(status.stdout)["version"] as? Int)
        }
    }

    @Test func aRunIsUndoneFromItsLogAndARerunHasNothingToDo() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (stores, run) = try Self.deployed(f, count: 6)
        let migrated = try Dictionary(
            uniqueKeysWithValues: stores.map { ($0, try #require(FileSnapshot(f.path($0)).bytes)) })
        let restore = try f.migrate(["fleet", "restore", "--json", "--jobs", "3"] + f.models + ["--log", "run.jsonl"])
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(
            try FleetCommandTests.statuses(restore.stdout)
                == Dictionary(uniqueKeysWithValues: stores.map { ($0, "restored") }))
        let summary = try #require(try FleetCommandTests.records(restore.stdout, event: "summary").first)
        #expect(summary["undoes"] as? String == run)
        #expect(summary["command"] as? String == "restore")
        #expect(summary["exitCode"] as? Int == 0)
        #expect((summary["tally"] as? [String: Any])?["restored"] as? Int == 6)
        #expect(try Self.versions(f, stores) == [Int](repeating: 1, count: 6))
        for record in try FleetCommandTests.records(restore.stdout, event: "store") {
            let store = try #require(record["store"] as? String)
            // Each store is the backup its run took, byte for byte; the replaced one is kept in .replaced/.
            let backup = try #require(record["backup"] as? String)
            #expect(FileSnapshot(f.path(store)).bytes == FileSnapshot(f.path(backup)).bytes)
            let replaced = try #require(record["replaced"] as? String)
            #expect(replaced.hasPrefix((store as NSString).deletingLastPathComponent + "/.replaced/"), "\(replaced)")
            #expect(FileSnapshot(f.path(replaced)).bytes == migrated[store])
            #expect(record["version"] as? Int == 2 && record["target"] as? Int == 1)
        }
        // A rerun (after an interruption, say) finds every store back already.
        let again = try f.migrate(["fleet", "restore"] + f.models + ["--log", "run.jsonl"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.hasSuffix(" s: 6 already at the backup's version\n"), "\(again.stdout)")
        // The kept copies are never taken for stores: the fleet is 6 stores at version 1.
        let status = try f.migrate(["fleet", "status", "--json"] + f.models + ["fleet"])
        #expect(
            try FleetCommandTests.statuses(status.stdout)
                == Dictionary(uniqueKeysWithValues: stores.map { ($0, "migration-needed") }))
    }

    /// Each store is checked as `restore` checks it: a store replaced since the run by
    /// another store (another UUID) is refused and left as it is, one moved on is
    /// refused naming why, and the others are restored; exit 1 names them.
    @Test func storesThatChangedSinceTheRunAreRefusedAndTheOthersRestored() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (stores, _) = try Self.deployed(f, count: 4)
        // stores[0]: now another store at version 2 (a new store: another UUID).
        try FileManager.default.removeItem(atPath: f.path(stores[0]))
        #expect(try f.migrate(["create"] + f.models + [stores[0]]).status == 0)
        // stores[1]: removed since the run.
        try FileManager.default.removeItem(atPath: f.path(stores[1]))
        let before = f.snapshot(stores[0])
        let restore = try f.migrate(["fleet", "restore"] + f.models + ["--log", "run.jsonl", "--jobs", "1"])
        #expect(restore.status == 1)
        #expect(
            restore.stdout.contains(
                " s: 2 restored (each replaced store kept in .replaced/ beside it), 2 failed\nfailed (2):\n"),
            "\(restore.stdout)")
        #expect(
            restore.stderr.contains("error: \(stores[0]): the backup is of another store (store UUID "),
            "\(restore.stderr)")
        #expect(
            restore.stderr.contains(
                "error: \(stores[1]): no store at the path; nothing was changed (a store removed since the run stays "
                    + "removed: "
                    + "to put its backup there, restore it alone with migrate restore)"), "\(restore.stderr)")
        #expect(f.snapshot(stores[0]) == before)
        #expect(!FileManager.default.fileExists(atPath: f.path(stores[1])))
        #expect(try Self.versions(f, Array(stores[2...])) == [1, 1])
    }

    @Test func byVersionEveryStoreGoesBackToItsNewestBackupOfThatVersion() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (stores, _) = try Self.deployed(f, count: 3)
        // A store created at version 2 since has no backup to go back to.
        try FileManager.default.createDirectory(atPath: f.path("fleet/new"), withIntermediateDirectories: true)
        #expect(try f.migrate(["create"] + f.models + ["fleet/new/stock.sqlite"]).status == 0)
        let restore = try f.migrate(
            ["fleet", "restore", "--json"] + f.models + ["fleet", "--backup-dir", "backups", "--version", "1"])
        #expect(restore.status == 1, "\(restore.stdout)")
        var expected = Dictionary(uniqueKeysWithValues: stores.map { ($0, "restored") })
        expected["fleet/new/stock.sqlite"] = "failed"
        #expect(try FleetCommandTests.statuses(restore.stdout) == expected)
        let failed = try #require(
            try FleetCommandTests.records(restore.stdout, event: "store").first { $0["status"] as? String == "failed" })
        #expect(
            failed["message"] as? String == "backups: no backup of stock.sqlite taken at version 1; nothing was changed"
        )
        #expect(try Self.versions(f, stores) == [1, 1, 1])
    }

    @Test func aLogOfSeveralRunsNeedsTheRunId() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (_, first) = try Self.deployed(f, count: 2)
        var log = try String(contentsOfFile: f.path("run.jsonl"), encoding: .utf8)
        #expect(try f.migrate(["fleet", "restore"] + f.models + ["--log", "run.jsonl"]).status == 0)
        let second = try f.migrate(["fleet", "apply", "--json"] + f.models + ["fleet", "--backup-dir", "backups"])
        log += second.stdout
        try f.directory.write("runs.jsonl", log)
        let secondRun = try #require(
            try FleetCommandTests.records(second.stdout, event: "summary").first?["run"] as? String)
        let refused = try f.migrate(["fleet", "restore"] + f.models + ["--log", "runs.jsonl"])
        #expect(refused.status == 64)
        #expect(
            refused.stderr == """
                error: runs.jsonl: the log holds 2 runs: \(first) (2 stores migrated), \(secondRun) (2 stores \
                migrated); give --run ID

                """)
        let unknown = try f.migrate(["fleet", "restore"] + f.models + ["--log", "runs.jsonl", "--run", "nope"])
        #expect(unknown.status == 64)
        try f.directory.write("empty.jsonl", "")
        let empty = try f.migrate(["fleet", "restore"] + f.models + ["--log", "empty.jsonl"])
        #expect(empty.status == 1)
        #expect(empty.stderr == "error: empty.jsonl: the log holds no fleet apply --json run; nothing was changed\n")
        let chosen = try f.migrate(["fleet", "restore"] + f.models + ["--log", "runs.jsonl", "--run", secondRun])
        #expect(chosen.status == 0, "\(chosen.stderr)")
        #expect(
            chosen.stdout.hasSuffix(" s: 2 restored (each replaced store kept in .replaced/ beside it)\n"),
            "\(chosen.stdout)")
    }

    @Test(arguments: [
        (
            ["--log", "run.jsonl", "fleet"],
            "--log names the stores and their backups: give no stores, --backup-dir or --version with it"
        ),
        (
            ["fleet", "--version", "1"],
            "give --log FILE (a fleet apply --json run), or the stores with --backup-dir DIR and --version N"
        ),
        (
            ["--run", "x", "fleet", "--backup-dir", "b", "--version", "1"],
            "--run picks a run of --log's file: give --log"
        ),
    ])
    func usage(arguments: [String], message: String) throws {
        let f = try StockFixture()
        defer { f.remove() }
        let result = try f.migrate(["fleet", "restore"] + f.models + arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains("Error: \(message)"), "\(result.stderr)")
    }
}
