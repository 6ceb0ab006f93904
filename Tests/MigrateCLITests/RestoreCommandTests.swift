import Foundation
import TestSupport
import Testing

/// `migrate restore`: the newest backup `apply --backup-dir` kept (of a version)
/// goes back in place atomically, checked first; the replaced store is kept.
@Suite struct RestoreCommandTests {
    /// A Stock store migrated 1 → 2 with a backup under `backups/` (in the store's
    /// own folder path beneath it); returns the store and the backup's path below
    /// `backups/`.
    static func migrated(_ f: StockFixture) throws -> (store: String, backup: String) {
        let store = try f.store()
        let apply = try f.migrate(["apply"] + f.models + [store, "--backup-dir", "backups"])
        #expect(apply.status == 0, "\(apply.stderr)")
        let files = BackupCommandTests.files(under: f.path("backups"))
        #expect(files.count == 1, "\(files)")
        return (store, try #require(files.first))
    }

    func files(_ f: StockFixture) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: f.directory.path).sorted()
    }

    @Test func putsBackTheNewestBackupAndKeepsTheReplacedStore() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (store, backup) = try Self.migrated(f)
        let migrated = f.directory.file(store)
        let migratedBytes = FileSnapshot(migrated).bytes
        let result = try f.migrate(["restore"] + f.models + [store, "--backup-dir", "backups"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        // Kept in `.replaced/` beside the store, where fleets never take it for a store.
        let kept = try FileManager.default.contentsOfDirectory(atPath: f.path(".replaced"))
        let replaced =
            ".replaced/"
            + (try #require(kept.first { $0.hasPrefix("stock.sqlite.replaced.") && $0.hasSuffix("Z.sqlite") }))
        #expect(kept.count == 1, "\(kept)")
        #expect(try files(f).filter { $0.contains("replaced") } == [".replaced"])
        #expect(
            result.stdout == """
                restored stock.sqlite to Stock version 1 from backups/\(backup); the replaced store is kept as \
                \(replaced)

                """)
        // The store is the backup, byte for byte, and holds version 1's data.
        #expect(FileSnapshot(migrated).bytes == FileSnapshot(f.path("backups/" + backup)).bytes)
        #expect(FileSnapshot(migrated).sideFiles == [])
        #expect(
            try StockStore.summary(path: migrated) == StockStore.expected(version: 1, items: StockFixture.smallItems))
        #expect(FileSnapshot(f.path(replaced)).bytes == migratedBytes)
        #expect(try f.migrate(["status"] + f.models + [store]).status == 3)
        // The backup stays where it was (the next deploy may need it again).
        #expect(BackupCommandTests.files(under: f.path("backups")) == [backup])
    }

    @Test func versionPicksBackupsTakenAtThatVersion() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (store, backup) = try Self.migrated(f)
        // A newer backup of another hop: --version 1 still picks the v1-to-2 one.
        try f.directory.write("backups/stock.v2-to-3.29991231T235959Z.sqlite", "not this one")
        let none = try f.migrate(["restore"] + f.models + [store, "--backup-dir", "backups", "--version", "3"])
        #expect(none.status == 1)
        #expect(
            none.stderr == """
                error: backups: no backup of stock.sqlite taken at version 3 (it has: \
                stock.v2-to-3.29991231T235959Z.sqlite, \(backup)); nothing was changed

                """)
        let result = try f.migrate(
            ["restore", "--json"] + f.models + [store, "--backup-dir", "backups", "--version", "1"])
        #expect(result.status == 0, "\(result.stdout)")
        let object = try CLIFixture.object(result.stdout)
        #expect(object["backup"] as? String == "backups/" + backup)
        #expect(object["version"] as? Int == 1)
        #expect(object["model"] as? String == "Stock")
        #expect((object["replaced"] as? String)?.hasPrefix(".replaced/stock.sqlite.replaced.") == true)
    }

    /// A damaged copy, or a copy whose hashes are not those of the version its name
    /// says, is refused before anything changes; `--version` picks another.
    @Test(arguments: ["truncated", "garbage", "otherVersion"])
    func refusesABackupThatIsNotWhatItsNameSays(kind: String) throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (store, backup) = try Self.migrated(f)
        let name = "stock.v1-to-2.29991231T235959Z.sqlite"
        let good = try #require(FileSnapshot(f.path("backups/" + backup)).bytes)
        switch kind {
        case "truncated": try f.directory.write("backups/" + name, bytes: Array(good.prefix(good.count / 2)))
        case "garbage":
            try f.directory.write(
                "backups/" + name, bytes: Array(good.prefix(100)) + [UInt8](repeating: 0xA5, count: good.count - 100))
        default: try f.directory.write("backups/" + name, bytes: try #require(FileSnapshot(f.path(store)).bytes))
        }
        let before = f.snapshot(store)
        let result = try f.migrate(["restore"] + f.models + [store, "--backup-dir", "backups"])
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("error: backups/\(name): "), "\(result.stderr)")
        #expect(
            result.stderr.hasSuffix(
                """
                ; nothing was changed (other backups of the store, newest first: backups/\(backup) (taken at version \
                1); restore one with --from <its path>)

                """), "\(result.stderr)")
        if kind == "otherVersion" {
            #expect(
                result.stderr == """
                    error: backups/\(name): its name says version 1, but its entity hashes are those of version 2 of \
                    Stock; nothing was changed (other backups of the store, newest first: backups/\(backup) (taken at \
                    version 1); restore one with --from <its path>)

                    """)
        }
        #expect(f.snapshot(store) == before)
        #expect(try files(f).filter { $0.contains(".replaced") || $0.contains(".mm-scratch.") } == [])
    }

    /// A store already damaged when apply (without --verify) copied it has a damaged
    /// backup: refused with the way out named, and put back as it was with
    /// `--allow-damaged`.
    @Test func aDamagedBackupComesBackOnlyWhenAllowed() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (store, backup) = try Self.migrated(f)
        // An index whose definition no longer matches its entries: integrity_check fails.
        try SQLiteFile.execute(
            f.path("backups/" + backup),
            """
            CREATE INDEX DAMAGE ON ZITEM(Z_PK); PRAGMA writable_schema = ON; \
            UPDATE sqlite_master SET sql = 'CREATE INDEX DAMAGE ON ZITEM(Z_OPT)' WHERE name = 'DAMAGE'
            """)
        let damaged = try #require(FileSnapshot(f.path("backups/" + backup)).bytes)
        let before = f.snapshot(store)
        let refused = try f.migrate(["restore"] + f.models + [store, "--backup-dir", "backups"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("PRAGMA integrity_check says: "), "\(refused.stderr)")
        #expect(
            refused.stderr.contains("--allow-damaged puts it back as it was); nothing was changed"), "\(refused.stderr)"
        )
        #expect(f.snapshot(store) == before)
        let allowed = try f.migrate(["restore"] + f.models + [store, "--backup-dir", "backups", "--allow-damaged"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(FileSnapshot(f.path(store)).bytes == damaged)
    }

    @Test func refusesWhileAnotherProcessHoldsTheStore() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (store, _) = try Self.migrated(f)
        let before = f.snapshot(store)
        let reader = try ReadLock(path: f.path(store), table: "ZITEM")
        defer { reader.release() }
        let result = try f.binary(["restore"] + f.models + [store, "--backup-dir", "backups", "--timeout", "0"])
        #expect(result.status == 1)
        #expect(
            result.stderr == """
                error: stock.sqlite: another process holds the store (held by process \(getpid()) (reading)); waited 0 \
                s (--timeout); nothing was changed

                """)
        #expect(f.snapshot(store) == before)
        #expect(try files(f).filter { $0.contains(".replaced") || $0.contains(".mm-scratch.") } == [])
    }

    /// A journal beside the replaced store belongs to it: it goes with it, and the
    /// restored file, byte for byte the backup, never has it applied.
    @Test func aJournalOfTheOldStoreIsNeverAppliedToTheRestoredOne() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (store, backup) = try Self.migrated(f)
        try f.directory.write(store + "-journal", bytes: [UInt8](repeating: 0x5A, count: 4096))
        let result = try f.migrate(["restore"] + f.models + [store, "--backup-dir", "backups"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(f.snapshot(store).sideFiles == [])
        #expect(try f.migrate(["status"] + f.models + [store]).status == 3)
        #expect(FileSnapshot(f.path(store)).bytes == FileSnapshot(f.path("backups/" + backup)).bytes)
    }

    /// The replaced store is an old store of a version the rolled-back models may not
    /// know: kept beside the store, `fleet`'s `*.sqlite` took it for one (`fleet
    /// status` refused the next deploy, exit 5, and `fleet apply` would have migrated
    /// it). In `.replaced/` it never is, nor is a copy an earlier release kept beside
    /// its store, nor a `.replaced` folder named on the command line.
    @Test func keptCopiesAreNeverTakenForFleetStores() throws {
        let f = try StockFixture()
        defer { f.remove() }
        try FileManager.default.createDirectory(atPath: f.path("fleet/t1"), withIntermediateDirectories: true)
        let store = try f.store("fleet/t1/stock.sqlite")
        #expect(try f.migrate(["apply"] + f.models + [store, "--backup-dir", "backups"]).status == 0)
        // A copy kept by an earlier release, beside its store.
        try f.directory.write(
            "fleet/t1/stock.sqlite.replaced.20261201T101500Z.sqlite",
            bytes: try #require(FileSnapshot(f.path(store)).bytes))
        let restored = try f.migrate(["restore", "--json"] + f.models + [store, "--backup-dir", "backups"])
        #expect(restored.status == 0, "\(restored.stderr)")
        let replaced = try #require(try CLIFixture.object(restored.stdout)["replaced"] as? String)
        #expect(replaced.hasPrefix("fleet/t1/.replaced/stock.sqlite.replaced."), "\(replaced)")
        #expect(FileManager.default.fileExists(atPath: f.path(replaced)))
        // The release is rolled back: its models end at version 1.
        try FileManager.default.removeItem(atPath: f.path("Models/Stock/2.yaml"))
        for source in ["fleet", "fleet/t1/.replaced"] {
            let status = try f.migrate(["fleet", "status", "--json"] + f.models + [source])
            let stores = try FleetCommandTests.statuses(status.stdout)
            #expect(stores == (source == "fleet" ? [store: "current"] : [:]), "\(source): \(status.stdout)")
        }
        let status = try f.migrate(["fleet", "status"] + f.models + ["fleet"])
        #expect(status.status == 0, "\(status.stdout)\(status.stderr)")
        // Listed by name (a list `find` made): reported, never handled, no exit code of
        // their own; named to a single-store command: refused, unchanged.
        let backups = try FileManager.default.subpathsOfDirectory(atPath: f.path("backups")).filter {
            $0.hasSuffix(".sqlite")
        }
        let listed =
            [store, replaced, "fleet/t1/stock.sqlite.replaced.20261201T101500Z.sqlite"]
            + backups.map { "backups/" + $0 }
        try f.directory.write("list", listed.joined(separator: "\n"))
        let fleetApply = try f.migrate(["fleet", "apply", "--json", "--stores-from", "list"] + f.models)
        #expect(fleetApply.status == 0, "\(fleetApply.stderr)")
        let statuses = try FleetCommandTests.statuses(fleetApply.stdout)
        #expect(
            statuses == Dictionary(uniqueKeysWithValues: listed.map { ($0, $0 == store ? "current" : "not-a-store") }),
            "\(fleetApply.stdout)")
        let before = FileSnapshot(f.path(replaced)).bytes
        for command in ["status", "apply"] {
            let single = try f.migrate([command] + f.models + [replaced])
            #expect(single.status == 1)
            #expect(
                single.stderr
                    == """
                    error: \(replaced): a store `restore` replaced and kept, never a store to migrate (restore it to \
                    use it again)\n
                    """
            )
        }
        #expect(FileSnapshot(f.path(replaced)).bytes == before)
    }

    /// A fresh server: nothing at the path, the backup is put there.
    @Test func restoresOntoAMissingStore() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (store, backup) = try Self.migrated(f)
        try FileManager.default.removeItem(atPath: f.path(store))
        let result = try f.migrate(["restore"] + f.models + [store, "--backup-dir", "backups"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "restored stock.sqlite to Stock version 1 from backups/\(backup)\n")
    }

    /// A store newer than this deployment (exit 5) is told how to go back.
    @Test func aStoreNewerThanTheDeploymentNamesRestore() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (store, _) = try Self.migrated(f)
        try FileManager.default.removeItem(atPath: f.path("Models/Stock/2.yaml"))
        let result = try f.migrate(["apply"] + f.models + [store, "--backup-dir", "backups"])
        #expect(result.status == 5)
        #expect(
            result.stderr.hasSuffix(
                """
                to go back to version 1: `migrate restore stock.sqlite --backup-dir DIR --version 1` \
                puts back the backup `apply --backup-dir DIR` kept when it migrated the store from version 1 \
                (changes made to the store since are lost; Docs/Deploying.md: "Rolling back")

                """), "\(result.stderr)")
    }
}
