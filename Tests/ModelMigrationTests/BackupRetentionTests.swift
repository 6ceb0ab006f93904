import Foundation
import TestSupport
import Testing

@testable import ModelMigration

/// `BackupRetention`: the newest N backups of each store are kept, per folder and
/// store file name; only complete backups this toolkit wrote are ever removed.
@Suite struct BackupRetentionTests {
    /// A backup folder as `apply --backup-dir` fills it: `a/App` with five backups
    /// (two taken in the same second), `a/Other` with one, `b/App` (another store of
    /// the same file name) with two; and files that are not backups.
    static func folder() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "mm-retention")
        try StockStore.create(path: directory.file("store.sqlite"), items: 3)
        let store = try #require(FileManager.default.contents(atPath: directory.file("store.sqlite")))
        try FileManager.default.removeItem(atPath: directory.file("store.sqlite"))
        for name in [
            "a/App.v1-to-2.20260101T000000Z.sqlite", "a/App.v2-to-3.20260201T000000Z.sqlite",
            "a/App.v3-to-4.20260301T000000Z.sqlite",
            "a/App.v3-to-4.20260301T000000Z-2.sqlite", "a/App.v4-to-5.20260401T000000Z.sqlite",
            "a/Other.v1-to-2.20260101T000000Z.sqlite",
            "b/App.v1-to-2.20250101T000000Z.sqlite", "b/App.v2-to-3.20250201T000000Z.sqlite",
        ] {
            try directory.write(name, bytes: [UInt8](store))
        }
        try directory.write("a/notes.txt", "not a backup")
        try directory.write("a/App.v1-to-2.20260101T000000Z.sqlite.mm-scratch.backup.99999.1.1.ab", "a partial copy")
        return directory
    }

    static func names(_ paths: [String], in directory: TemporaryDirectory) -> [String] {
        paths.map { String($0.dropFirst(directory.path.count + 1)) }
    }

    @Test func backupsAreGroupedPerFolderAndStoreName() throws {
        let directory = try Self.folder()
        defer { directory.remove() }
        let groups = BackupRetention.groups(under: directory.path)
        #expect(
            groups.map { "\(Self.names([$0.folder], in: directory)[0])/\($0.storeName) \($0.backups.count)" } == [
                "a/App 5", "a/Other 1", "b/App 2",
            ])
        // Oldest first, the same second told apart by its -n.
        #expect(
            Self.names(groups[0].backups.map(\.path), in: directory) == [
                "a/App.v1-to-2.20260101T000000Z.sqlite", "a/App.v2-to-3.20260201T000000Z.sqlite",
                "a/App.v3-to-4.20260301T000000Z.sqlite",
                "a/App.v3-to-4.20260301T000000Z-2.sqlite", "a/App.v4-to-5.20260401T000000Z.sqlite",
            ])
    }

    @Test func theNewestAreKeptAndOnlyTheOlderBackupsOfThatStoreGo() throws {
        let directory = try Self.folder()
        defer { directory.remove() }
        let group = BackupRetention.group(folder: directory.file("a"), storeName: "App")
        let dryRun = BackupRetention.prune(group, keep: 2, dryRun: true)
        let report = BackupRetention.prune(group, keep: 2)
        #expect(dryRun.removed == report.removed)
        #expect(
            Self.names(report.kept, in: directory) == [
                "a/App.v4-to-5.20260401T000000Z.sqlite", "a/App.v3-to-4.20260301T000000Z-2.sqlite",
            ])
        #expect(
            Self.names(report.removed, in: directory) == [
                "a/App.v3-to-4.20260301T000000Z.sqlite", "a/App.v2-to-3.20260201T000000Z.sqlite",
                "a/App.v1-to-2.20260101T000000Z.sqlite",
            ])
        #expect(report.left == [])
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.file("a")).sorted()
        #expect(
            left == [
                "App.v1-to-2.20260101T000000Z.sqlite.mm-scratch.backup.99999.1.1.ab",
                "App.v3-to-4.20260301T000000Z-2.sqlite",
                "App.v4-to-5.20260401T000000Z.sqlite", "Other.v1-to-2.20260101T000000Z.sqlite", "notes.txt",
            ])
        // The other store of the same file name, in its own folder, keeps both.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("b")).count == 2)
    }

    /// The backup a run just took is never removed, even when the clock made it look older.
    @Test func theBackupJustTakenIsSpared() throws {
        let directory = try Self.folder()
        defer { directory.remove() }
        let group = BackupRetention.group(folder: directory.file("a"), storeName: "App")
        let oldest = directory.file("a/App.v1-to-2.20260101T000000Z.sqlite")
        let report = BackupRetention.prune(group, keep: 1, sparing: oldest)
        #expect(
            Self.names(report.kept, in: directory) == [
                "a/App.v4-to-5.20260401T000000Z.sqlite", "a/App.v1-to-2.20260101T000000Z.sqlite",
            ])
        #expect(report.removed.count == 3)
        #expect(FileManager.default.fileExists(atPath: oldest))
    }

    /// A file named like a backup that is not a store, or is a symbolic link, is left
    /// and said; it never counts as a removed backup.
    @Test func whatIsNotABackupThisToolkitWroteIsLeft() throws {
        let directory = try Self.folder()
        defer { directory.remove() }
        try directory.write("a/App.v1-to-2.20200101T000000Z.sqlite", "hand-written, named like a backup")
        try FileManager.default.createSymbolicLink(
            atPath: directory.file("a/App.v1-to-2.20200102T000000Z.sqlite"),
            withDestinationPath: directory.file("a/notes.txt"))
        let report = BackupRetention.prune(
            BackupRetention.group(folder: directory.file("a"), storeName: "App"), keep: 5)
        #expect(report.removed == [])
        #expect(
            report.left == [
                BackupRetention.Left(
                    path: directory.file("a/App.v1-to-2.20200102T000000Z.sqlite"),
                    reason: """
                        not a regular file (a link or a folder named like a backup); left as it is
                        """, failed: false),
                BackupRetention.Left(
                    path: directory.file("a/App.v1-to-2.20200101T000000Z.sqlite"),
                    reason:
                        """
                        not a store whose metadata can be read (damaged, or not a backup this toolkit wrote); left as \
                        it is
                        """,
                    failed: false),
            ])
        #expect(try String(contentsOfFile: directory.file("a/notes.txt"), encoding: .utf8) == "not a backup")
    }
}
