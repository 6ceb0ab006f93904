import Foundation
import TestSupport
import Testing

/// `--keep N` on `apply --backup-dir` and `fleet apply --backup-dir`, and `migrate
/// backups prune`: the newest N backups of each store stay, never the one just taken.
@Suite struct BackupRetentionCommandTests {
    /// A store migrated 1 → 2 with a backup, restored to 1, `times` over: each
    /// release leaves a backup of the store under `backups/`. Returns their names.
    static func releases(_ f: StockFixture, store: String, times: Int, extra: [String] = []) throws -> [String] {
        for _ in 0..<times {
            let apply = try f.migrate(["apply"] + f.models + [store, "--backup-dir", "backups"] + extra)
            #expect(apply.status == 0, "\(apply.stderr)")
            #expect(try f.migrate(["restore"] + f.models + [store, "--backup-dir", "backups"]).status == 0)
        }
        return chronological(BackupCommandTests.files(under: f.path("backups")))
    }

    /// Backup paths oldest first, as their names say (`T…Z-2` after `T…Z`).
    static func chronological(_ paths: [String]) -> [String] {
        func key(_ path: String) -> (String, Int) {
            let name = (path as NSString).lastPathComponent.replacingOccurrences(of: ".sqlite", with: "")
            let stamp = name.split(separator: ".").last.map(String.init) ?? ""
            let parts = stamp.split(separator: "-")
            return (String(parts.first ?? ""), parts.count > 1 ? Int(parts[1]) ?? 1 : 1)
        }
        return paths.sorted { key($0) < key($1) }
    }

    @Test func applyKeepsTheNewestAndRemovesTheOlderBackupsOfTheStore() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        let older = try Self.releases(f, store: store, times: 2)
        #expect(older.count == 2, "\(older)")
        let apply = try f.migrate(["apply"] + f.models + [store, "--backup-dir", "backups", "--keep", "2"])
        #expect(apply.status == 0, "\(apply.stderr)")
        let now = BackupCommandTests.files(under: f.path("backups"))
        #expect(now.count == 2)
        let taken = try #require(now.first { !older.contains($0) })
        // The oldest went, the newest older one and the one just taken stay.
        #expect(Set(now) == [older[1], taken])
        let lines = apply.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(apply.stdout)")
        #expect(lines.last == "removed 1 older backup of the store (--keep 2): backups/\(older[0])")
    }

    @Test func applyJSONListsThePrunedBackups() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        let older = try Self.releases(f, store: store, times: 1)
        let apply = try f.migrate(["apply", "--json"] + f.models + [store, "--backup-dir", "backups", "--keep", "1"])
        #expect(apply.status == 0, "\(apply.stderr)")
        let done = try #require(try FleetCommandTests.records(apply.stdout, event: "done").first)
        #expect(done["prunedBackups"] as? [String] == ["backups/" + older[0]])
        #expect(
            BackupCommandTests.files(under: f.path("backups")) == [
                String((done["backup"] as? String ?? "").dropFirst(8))
            ])
        // Without --keep the key is absent.
        #expect(try f.migrate(["restore"] + f.models + [store, "--backup-dir", "backups"]).status == 0)
        let plain = try f.migrate(["apply", "--json"] + f.models + [store, "--backup-dir", "backups"])
        #expect(try FleetCommandTests.records(plain.stdout, event: "done").first?["prunedBackups"] == nil)
    }

    @Test(arguments: [
        (
            ["--keep", "0", "--backup-dir", "backups"],
            "--keep must be 1 or more (the backup just taken is always kept)"
        ),
        (["--keep", "2"], "--keep counts the backups in --backup-dir: give --backup-dir"),
    ])
    func keepIsCheckedBeforeAnythingHappens(arguments: [String], message: String) throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        let before = f.snapshot(store)
        for command in [["apply"] + [store], ["fleet", "apply", store]] {
            let result = try f.migrate(command + f.models + arguments)
            #expect(result.status == 64, "\(command)")
            #expect(result.stderr.contains("Error: \(message)"), "\(result.stderr)")
        }
        #expect(f.snapshot(store) == before)
    }

    @Test func fleetApplyKeepsTheNewestOfEachStore() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let stores = ["fleet/a/stock.sqlite", "fleet/b/stock.sqlite"]
        for store in stores {
            try f.store(store)
            _ = try Self.releases(f, store: store, times: 1)
        }
        let result = try f.migrate(
            ["fleet", "apply", "--json", "--jobs", "2"] + f.models + [
                "fleet", "--backup-dir", "backups", "--keep", "1",
            ])
        #expect(result.status == 0, "\(result.stderr)")
        let records = try FleetCommandTests.records(result.stdout, event: "store")
        #expect(records.count == 2)
        for record in records {
            let pruned = try #require(record["prunedBackups"] as? [String])
            #expect(pruned.count == 1)
            #expect(!FileManager.default.fileExists(atPath: f.path(pruned[0])))
            #expect(FileManager.default.fileExists(atPath: f.path(try #require(record["backup"] as? String))))
        }
        // One backup left per store, each in its store's own folder.
        let left = BackupCommandTests.files(under: f.path("backups"))
        #expect(left.count == 2)
        #expect(
            left.filter { $0.contains("/fleet/a/stock.v1-to-2.") }.count == 1
                && left.filter { $0.contains("/fleet/b/stock.v1-to-2.") }.count == 1)
    }

    @Test func pruneKeepsTheNewestOfEachStoreAndSaysWhatItRemoves() throws {
        let f = try StockFixture()
        defer { f.remove() }
        try f.store("a/stock.sqlite")
        try f.store("b/stock.sqlite")
        let a = try Self.releases(f, store: "a/stock.sqlite", times: 3).filter { $0.contains("/a/") }
        _ = try Self.releases(f, store: "b/stock.sqlite", times: 1)
        try f.directory.write("backups/stock.v1-to-2.20200101T000000Z.sqlite", "named like a backup, written by hand")
        let all = BackupCommandTests.files(under: f.path("backups"))
        #expect(all.count == 5, "\(all)")

        let dry = try f.migrate(["backups", "prune", "--backup-dir", "backups", "--keep", "1", "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(
            dry.stdout == """
                would remove backups/\(a[1])
                would remove backups/\(a[0])
                3 stores in backups: kept 3 backups (the newest 1 of each), would remove 2 (dry run: nothing was \
                removed)

                """)
        #expect(BackupCommandTests.files(under: f.path("backups")) == all)

        let json = try f.migrate(["backups", "prune", "--json", "--backup-dir", "backups", "--keep", "1"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try CLIFixture.object(json.stdout)
        #expect(object["kept"] as? Int == 3)
        #expect(object["removed"] as? Int == 2)
        let reports = try #require(object["stores"] as? [[String: Any]])
        #expect(reports.map { $0["store"] as? String } == ["stock", "stock", "stock"])
        #expect(
            reports.compactMap { $0["removed"] as? [String] }.flatMap { $0 } == ["backups/" + a[1], "backups/" + a[0]])
        #expect(BackupCommandTests.files(under: f.path("backups")) == all.filter { $0 != a[0] && $0 != a[1] })
    }

    /// `--replaced PATH`: the stores restore replaced and kept in `.replaced/` beside
    /// each store go the same way, the newest N of each store kept.
    @Test func pruneKeepsTheNewestReplacedStoresOfEachStore() throws {
        let f = try StockFixture()
        defer { f.remove() }
        try f.store("fleet/a/stock.sqlite")
        try f.store("fleet/b/stock.sqlite")
        _ = try Self.releases(f, store: "fleet/a/stock.sqlite", times: 3)
        _ = try Self.releases(f, store: "fleet/b/stock.sqlite", times: 1)
        let kept = { (store: String) in
            Self.chronological(try FileManager.default.contentsOfDirectory(atPath: f.path("fleet/\(store)/.replaced")))
        }
        let a = try kept("a")
        #expect(a.count == 3 && a.allSatisfy { $0.hasPrefix("stock.sqlite.replaced.") }, "\(a)")
        // A symbolic link to the fleet's root is followed, and overlapping paths name a store once.
        try FileManager.default.createSymbolicLink(atPath: f.path("link"), withDestinationPath: f.path("fleet"))
        let dry = try f.migrate([
            "backups", "prune", "--replaced", "link", "--replaced", "fleet/a/stock.sqlite", "--keep", "1", "--dry-run",
        ])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(
            dry.stdout.hasSuffix(
                "kept 2 replaced stores (the newest 1 of each), would remove 2 (dry run: nothing was removed)\n"),
            "\(dry.stdout)")
        let pruned = try f.migrate(["backups", "prune", "--replaced", "fleet", "--keep", "1"])
        #expect(pruned.status == 0, "\(pruned.stderr)")
        #expect(
            pruned.stdout.hasSuffix("2 stores in fleet: kept 2 replaced stores (the newest 1 of each), removed 2\n"),
            "\(pruned.stdout)")
        #expect(try kept("a") == [a[2]])
        #expect(try kept("b").count == 1)
        let backups = BackupCommandTests.files(under: f.path("backups"))
        #expect(backups.count == 4, "the backups are not touched without --backup-dir")
        let json = try f.migrate(["backups", "prune", "--json", "--replaced", "fleet/a/stock.sqlite", "--keep", "1"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try CLIFixture.object(json.stdout)
        #expect((object["replaced"] as? [[String: Any]])?.first?["kept"] as? [String] == ["fleet/a/.replaced/" + a[2]])
        #expect(try f.migrate(["backups", "prune", "--keep", "1"]).status == 64)
    }

    @Test func pruneOfAMissingFolderFails() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let result = try f.migrate(["backups", "prune", "--backup-dir", "nowhere", "--keep", "1"])
        #expect(result.status == 1)
        #expect(result.stderr == "error: nowhere: no such backup folder; nothing was removed\n")
    }
}
