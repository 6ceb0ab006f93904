import Foundation
import TestSupport
import Testing

/// The files SQLite pairs with a store by name (`-wal`, `-journal`, `-shm`): a log a
/// removed store left at its path is never applied to a store put there (`create`,
/// `apply --create-if-missing`, `restore`), and no backup is ever kept under such a
/// name (SQLite would reset or delete it).
@Suite struct SideFileTests {
    /// Leaves at `stock.sqlite`'s path only a log of the store that was there, with
    /// committed (`wal`) or rolled-back (`journal`) changes to its items; returns the
    /// log's bytes.
    static func leftover(_ kind: String, _ f: StockFixture, column: String = "ZNOTE") throws -> [UInt8] {
        let path = f.path("stock.sqlite")
        let log: [UInt8]
        if kind == "wal" {
            log = try SQLiteFile.walImage(path, "UPDATE ZITEM SET \(column) = 'from the log'").wal
        } else {
            let writer = try WriteLock(path: path, cacheSize: 2)
            try writer.execute("UPDATE ZITEM SET \(column) = hex(randomblob(300))")
            log = [UInt8](try #require(FileManager.default.contents(atPath: path + "-journal")))
            try writer.release()
        }
        try FileManager.default.removeItem(atPath: path)
        try f.directory.write("stock.sqlite-" + kind, bytes: log)
        #expect(log.count > 1000)
        return log
    }

    static func refusal(_ kind: String) -> String {
        """
        error: stock.sqlite: stock.sqlite-\(kind) is left beside it by a store that was removed: SQLite would apply \
        that log to a new store at this path, which would then hold the removed store's pages; nothing was created \
        (move it away, or run `create --force`, which sets it aside)

        """
    }

    @Test(arguments: ["wal", "journal"], [["create"], ["apply", "--create-if-missing"]])
    func aRemovedStoresLogRefusesCreating(kind: String, command: [String]) throws {
        let f = try StockFixture()
        defer { f.remove() }
        try f.store()
        let log = try Self.leftover(kind, f)
        let result = try f.migrate(command + f.models + ["stock.sqlite"])
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr == Self.refusal(kind))
        #expect(try f.directory.contents().sorted() == ["Models", "stock.sqlite-" + kind])
        #expect(FileSnapshot(f.path("stock.sqlite-" + kind)).bytes == log)
    }

    @Test(arguments: ["wal", "journal"])
    func createForceSetsTheLogAsideAndCreatesAnEmptyStore(kind: String) throws {
        let f = try StockFixture()
        defer { f.remove() }
        try f.store()
        let log = try Self.leftover(kind, f)
        let result = try f.migrate(["create"] + f.models + ["stock.sqlite", "--force"])
        #expect(result.status == 0, "\(result.stderr)")
        let aside = try #require(try f.directory.contents().first { $0.hasPrefix("stock.sqlite.leftover.") })
        #expect(aside.hasSuffix("Z.sqlite-" + kind))
        #expect(
            result.stdout == """
                created stock.sqlite: model Stock version 2; the removed store's log stock.sqlite-\(kind) was set \
                aside as \(aside)

                """)
        #expect(FileSnapshot(f.path(aside)).bytes == log)
        // None of the removed store's rows: a new, empty store.
        let summary = try f.summary("stock.sqlite")
        #expect(summary.version == 2 && summary.owners == 0 && summary.items == 0, "\(summary)")
    }

    /// The backup put where no store is has none of the removed store's log applied.
    @Test(arguments: ["wal", "journal"])
    func restoreSetsARemovedStoresLogAside(kind: String) throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (store, backup) = try RestoreCommandTests.migrated(f)
        let log = try Self.leftover(kind, f, column: "ZTITLE")
        let result = try f.migrate(["restore"] + f.models + [store, "--backup-dir", "backups"])
        #expect(result.status == 0, "\(result.stderr)")
        let aside = try #require(try f.directory.contents().first { $0.hasPrefix("stock.sqlite.leftover.") })
        #expect(
            result.stdout == """
                restored stock.sqlite to Stock version 1 from backups/\(backup); the removed store's log \
                stock.sqlite-\(kind) was set aside as \(aside)

                """)
        #expect(FileSnapshot(f.path(aside)).bytes == log)
        #expect(f.snapshot(store).sideFiles == [])
        #expect(f.snapshot(store).bytes == FileSnapshot(f.path("backups/" + backup)).bytes)
        #expect(try f.summary(store) == StockStore.expected(version: 1, items: StockFixture.smallItems))
    }

    /// A backup path SQLite pairs with the store is a usage error, before anything runs.
    @Test(arguments: [
        ("stock.sqlite-wal", "it is where SQLite keeps the store's write-ahead log (-wal)"),
        ("stock.sqlite-shm", "it is where SQLite keeps the store's write-ahead log index (-shm)"),
        ("./stock.sqlite-journal", "it is where SQLite keeps the store's rollback journal (-journal)"),
        ("link/stock.sqlite-mj0A1B2C3D", "it is where SQLite keeps the store's super-journals (-mj…)"),
        ("stock.sqlite", "it is the store itself"),
    ])
    func aBackupPathSQLitePairsWithTheStoreIsRefused(path: String, why: String) throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        try FileManager.default.createSymbolicLink(atPath: f.path("link"), withDestinationPath: ".")
        let before = f.snapshot(store)
        let apply = try f.migrate(["apply"] + f.models + [store, "--backup", path])
        #expect(apply.status == 64)
        #expect(
            apply.stderr.hasPrefix(
                """
                Error: --backup \(path): SQLite pairs that path with the store (and resets or deletes it on the next \
                open): \(why)

                """), "\(apply.stderr)")
        #expect(f.snapshot(store) == before)
        let restore = try f.migrate(["restore"] + f.models + [store, "--from", path])
        #expect(restore.status == 64)
        #expect(
            restore.stderr.hasPrefix("Error: --from \(path): SQLite pairs that path with the store: \(why)\n"),
            "\(restore.stderr)")
        #expect(try f.directory.contents().sorted() == ["Models", "link", "stock.sqlite"])
    }
}
