import Foundation
import TestSupport
import Testing

/// `restore` puts back only a backup provably of the store: its `NSStoreUUID` while
/// the store can be read, else its place under the backup folder. Two stores with
/// the same file name in different folders share one `--backup-dir`.
@Suite struct RestoreIdentityTests {
    /// `a/App.sqlite` (from the shared template) and `b/App.sqlite` (a store of its
    /// own, so another store UUID), both at version 1; their bytes.
    static func twoStores(_ f: StockFixture) throws -> (a: [UInt8], b: [UInt8]) {
        try f.store("a/App.sqlite")
        try FileManager.default.createDirectory(atPath: f.path("b"), withIntermediateDirectories: true)
        try StockStore.create(path: f.path("b/App.sqlite"), items: 5)
        return (try #require(f.snapshot("a/App.sqlite").bytes), try #require(f.snapshot("b/App.sqlite").bytes))
    }

    /// The store UUID `migrate inspect` prints.
    static func uuid(_ f: StockFixture, _ store: String) throws -> String {
        let inspect = try f.migrate(["inspect", store])
        let line = try #require(inspect.stdout.split(separator: "\n").first { $0.hasPrefix("uuid:") })
        return line.dropFirst(5).trimmingCharacters(in: .whitespaces)
    }

    /// The folder `apply --backup-dir backups` files a store of `folder` under,
    /// relative to the fixture: `backups` + the folder's absolute path.
    static func filed(_ f: StockFixture, _ folder: String) throws -> String {
        let real = try #require(realpath(f.directory.path, nil))
        defer { free(real) }
        return "backups" + String(cString: real) + "/" + folder
    }

    @Test func storesOfOneFileNameKeepTheirBackupsApartAndEachRestoresItsOwn() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (a, b) = try Self.twoStores(f)
        for store in ["a/App.sqlite", "b/App.sqlite"] {
            let apply = try f.migrate(["apply"] + f.models + [store, "--backup-dir", "backups"])
            #expect(apply.status == 0, "\(apply.stderr)")
        }
        let backups = BackupCommandTests.files(under: f.path("backups"))
        #expect(backups.count == 2, "\(backups)")
        let aFolder = try Self.filed(f, "a"), bFolder = try Self.filed(f, "b")
        let aBackup = try #require(backups.first { ("backups/" + $0).hasPrefix(aFolder + "/App.v1-to-2.") })
        let bBackup = try #require(backups.first { ("backups/" + $0).hasPrefix(bFolder + "/App.v1-to-2.") })
        // Byte-identical copies, each of its own store.
        #expect(f.snapshot("backups/" + aBackup).bytes == a)
        #expect(f.snapshot("backups/" + bBackup).bytes == b)
        // b's backup is the newest in the folder; a still gets its own, while it
        // exists (its UUID) and once it is gone (the folder it is filed under).
        let restored = try f.migrate(["restore"] + f.models + ["a/App.sqlite", "--backup-dir", "backups"])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(
            restored.stdout.hasPrefix("restored a/App.sqlite to Stock version 1 from backups/\(aBackup); "),
            "\(restored.stdout)")
        #expect(f.snapshot("a/App.sqlite").bytes == a)
        try FileManager.default.removeItem(atPath: f.path("a/App.sqlite"))
        let missing = try f.migrate(["restore"] + f.models + ["a/App.sqlite", "--backup-dir", "backups"])
        #expect(
            missing.stdout == "restored a/App.sqlite to Stock version 1 from backups/\(aBackup)\n", "\(missing.stderr)")
        #expect(f.snapshot("a/App.sqlite").bytes == a)
        let other = try f.migrate(["restore"] + f.models + ["b/App.sqlite", "--backup-dir", "backups"])
        #expect(other.status == 0, "\(other.stderr)")
        #expect(f.snapshot("b/App.sqlite").bytes == b)
    }

    /// Backups of the earlier layout (side by side in the backup folder) are found
    /// through the store's UUID; with the store gone, nothing proves whose they are.
    @Test func backupsOfTheEarlierLayoutQualifyByStoreUUIDOnly() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (a, b) = try Self.twoStores(f)
        let aUUID = try Self.uuid(f, "a/App.sqlite"), bUUID = try Self.uuid(f, "b/App.sqlite")
        #expect(aUUID != bUUID)
        let older = "App.v1-to-2.20260101T000000Z.sqlite", newer = "App.v1-to-2.20260102T000000Z.sqlite"
        try f.directory.write("backups/" + newer, bytes: b)
        for store in ["a/App.sqlite", "b/App.sqlite"] {
            #expect(try f.migrate(["apply"] + f.models + [store]).status == 0)
        }
        // Only b's backup: a (another store UUID) refuses it, unchanged.
        let migratedA = f.snapshot("a/App.sqlite")
        let foreign = try f.migrate(["restore"] + f.models + ["a/App.sqlite", "--backup-dir", "backups"])
        #expect(foreign.status == 1)
        #expect(
            foreign.stderr == """
                error: backups: no backup of App.sqlite (store UUID \(aUUID)) in it: \(newer) (store UUID \(bUUID)) is \
                of another store; nothing was changed

                """)
        #expect(f.snapshot("a/App.sqlite") == migratedA)
        // With a's own, older one beside it, a gets that one and b its own.
        try f.directory.write("backups/" + older, bytes: a)
        let own = try f.migrate(["restore"] + f.models + ["a/App.sqlite", "--backup-dir", "backups"])
        #expect(
            own.stdout.hasPrefix("restored a/App.sqlite to Stock version 1 from backups/\(older); "), "\(own.stderr)")
        #expect(f.snapshot("a/App.sqlite").bytes == a)
        let theirs = try f.migrate(["restore"] + f.models + ["b/App.sqlite", "--backup-dir", "backups"])
        #expect(
            theirs.stdout.hasPrefix("restored b/App.sqlite to Stock version 1 from backups/\(newer); "),
            "\(theirs.stderr)")
        #expect(f.snapshot("b/App.sqlite").bytes == b)
        // a gone: neither backup is filed under a's folder; both are named, nothing is created.
        try FileManager.default.removeItem(atPath: f.path("a/App.sqlite"))
        let gone = try f.migrate(["restore"] + f.models + ["a/App.sqlite", "--backup-dir", "backups"])
        #expect(gone.status == 1)
        #expect(
            gone.stderr == """
                error: backups: no backup filed under \(try Self.filed(f, "a")) and App.sqlite is missing, so no store \
                UUID proves which backup of that file name is its own: \(newer) (store UUID \(bUUID)), \(older) (store \
                UUID \(aUUID)); nothing was changed (to restore one of them, move it into \(try Self.filed(f, "a")) \
                first)

                """)
        #expect(f.snapshot("a/App.sqlite").bytes == nil)
        // Moved there, it is restored.
        try FileManager.default.createDirectory(
            atPath: f.path(try Self.filed(f, "a")), withIntermediateDirectories: true)
        try FileManager.default.moveItem(
            atPath: f.path("backups/" + older), toPath: f.path(try Self.filed(f, "a") + "/" + older))
        let moved = try f.migrate(["restore"] + f.models + ["a/App.sqlite", "--backup-dir", "backups"])
        #expect(
            moved.stdout == "restored a/App.sqlite to Stock version 1 from \(try Self.filed(f, "a"))/\(older)\n",
            "\(moved.stderr)")
        #expect(f.snapshot("a/App.sqlite").bytes == a)
    }
}
