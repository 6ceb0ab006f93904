import Foundation
import TestSupport
import Testing

/// `restore` under failure (a damaged newest backup, a kill, a signal) and `apply`
/// racing another process over the same store (another replica, a restore).
@Suite struct StoreRaceTests {
    /// Two backups taken at version 1, the newest damaged: the refusal lists the
    /// older one, and `restore --from` puts it back.
    @Test func aDamagedNewestBackupNamesTheOthersAndFromRestoresOne() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (store, good) = try RestoreCommandTests.migrated(f)
        let damaged = "stock.v1-to-2.29991231T235959Z.sqlite"
        let bytes = try #require(FileSnapshot(f.path("backups/" + good)).bytes)
        try f.directory.write("backups/" + damaged, bytes: Array(bytes.prefix(bytes.count / 2)))
        let before = f.snapshot(store)
        let refused = try f.migrate(["restore"] + f.models + [store, "--backup-dir", "backups", "--version", "1"])
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("error: backups/\(damaged): "), "\(refused.stderr)")
        #expect(
            refused.stderr.hasSuffix(
                """
                ; nothing was changed (other backups of the store, newest first: backups/\(good) (taken at version 1); \
                restore one with --from <its path>)

                """), "\(refused.stderr)")
        #expect(f.snapshot(store) == before)

        let restored = try f.migrate(["restore"] + f.models + [store, "--from", "backups/" + good])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(
            restored.stdout.hasPrefix(
                "restored stock.sqlite to Stock version 1 from backups/\(good); the replaced store is kept as "))
        #expect(f.snapshot(store).bytes == bytes)
        #expect(try f.summary(store) == StockStore.expected(version: 1, items: StockFixture.smallItems))

        // --from is checked as any backup: a damaged file is refused, with no other to offer.
        let bad = try f.migrate(["restore"] + f.models + [store, "--from", "backups/" + damaged])
        #expect(bad.status == 1)
        #expect(bad.stderr.hasPrefix("error: backups/\(damaged): "), "\(bad.stderr)")
        #expect(bad.stderr.hasSuffix("; nothing was changed\n"), "\(bad.stderr)")
        #expect(f.snapshot(store).bytes == bytes)
        let usage = try f.migrate(["restore"] + f.models + [store, "--from", "backups/" + good, "--version", "1"])
        #expect(usage.status == 64)
        #expect(
            usage.stderr.hasPrefix("Error: --version chooses among --backup-dir's backups; --from names one file\n"),
            "\(usage.stderr)")
    }

    /// A file of any name: its version is the one its hashes say.
    @Test func fromTakesAFileOfAnyName() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (store, backup) = try RestoreCommandTests.migrated(f)
        try FileManager.default.moveItem(atPath: f.path("backups/" + backup), toPath: f.path("kept by hand.sqlite"))
        let result = try f.migrate(["restore", "--json"] + f.models + [store, "--from", "kept by hand.sqlite"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try StockFixture.object(result.stdout)
        #expect(object["backup"] as? String == "kept by hand.sqlite")
        #expect(object["version"] as? Int == 1)
        #expect(try f.summary(store) == StockStore.expected(version: 1, items: StockFixture.smallItems))
    }

    /// A partial copy whose restore was killed is removed by the next restore and
    /// named; a live process's copy is left alone.
    @Test func theNextRestoreRemovesPartialCopiesOfDeadProcesses() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (store, backup) = try RestoreCommandTests.migrated(f)
        let exited = try CommandRunner.run("/bin/sh", ["-c", "echo $$"])
        let dead = try #require(Int32(exited.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(dead, 0) != 0)
        try f.directory.write("stock.sqlite.restoring.\(dead).partial", "killed mid-copy")
        try f.directory.write("stock.sqlite.restoring.\(getpid()).partial", "a live restore's copy")
        let result = try f.migrate(["restore"] + f.models + [store, "--backup-dir", "backups"])
        #expect(result.status == 0, "\(result.stderr)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: f.path(".replaced"))
        let replaced = ".replaced/" + (try #require(kept.first { $0.hasPrefix("stock.sqlite.replaced.") }))
        #expect(
            result.stdout == """
                restored stock.sqlite to Stock version 1 from backups/\(backup); the replaced store is kept as \
                \(replaced); removed stock.sqlite.restoring.\(dead).partial, left by a restore that was killed

                """)
        #expect(
            try f.directory.contents().filter { $0.hasSuffix(".partial") } == [
                "stock.sqlite.restoring.\(getpid()).partial"
            ])
    }

    /// SIGTERM while restore waits for another process's lock: it stops, says so,
    /// exits 143 and leaves the store and its folder as they were.
    @Test(.ownThread) func aSignalStopsRestoreAndLeavesNothingBehind() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (store, _) = try RestoreCommandTests.migrated(f)
        let before = f.snapshot(store)
        let files = try f.directory.contents().sorted()
        let reader = try ReadLock(path: f.path(store), table: "ZITEM")
        defer { reader.release() }
        let run = try BackgroundMigrate(
            ["restore"] + f.models + [store, "--backup-dir", "backups", "--timeout", "20"], in: f.directory.path)
        run.waitUntilItOpens(f.path(store))
        kill(run.pid, SIGTERM)
        let outcome = run.finish()
        #expect(outcome.status == 143, "\(outcome)")
        #expect(
            outcome.stderr
                == "error: stock.sqlite: interrupted while waiting for the store's lock; the store is unchanged\n")
        reader.release()
        #expect(f.snapshot(store) == before)
        #expect(try f.directory.contents().sorted() == files)
    }

    /// `apply` through a symbolic link names the backup after the store it leads
    /// to, so that `restore` finds it by the store's own name (and the link's).
    @Test func aBackupTakenThroughALinkIsNamedAfterTheStore() throws {
        let f = try StockFixture()
        defer { f.remove() }
        try f.store()
        try FileManager.default.createSymbolicLink(
            atPath: f.path("current.sqlite"), withDestinationPath: "stock.sqlite")
        let apply = try f.migrate(["apply"] + f.models + ["current.sqlite", "--backup-dir", "backups"])
        #expect(apply.status == 0, "\(apply.stderr)")
        // Filed under the store's own folder path inside the backup folder.
        let backups = Self.files(under: f.path("backups"))
        #expect(
            backups.count == 1 && (backups[0] as NSString).lastPathComponent.hasPrefix("stock.v1-to-2."), "\(backups)")
        let restore = try f.migrate(["restore"] + f.models + ["stock.sqlite", "--backup-dir", "backups"])
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(restore.stdout.hasPrefix("restored stock.sqlite to Stock version 1 from backups/\(backups[0])"))
        #expect(try f.migrate(["apply"] + f.models + ["stock.sqlite", "--backup-dir", "backups"]).status == 0)
        let again = try f.migrate(["restore"] + f.models + ["current.sqlite", "--backup-dir", "backups"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try f.summary("stock.sqlite") == StockStore.expected(version: 1, items: StockFixture.smallItems))
    }

    /// Two replicas apply at once: both plan while another writer holds the store
    /// (WAL mode, so that reading and planning go on beside it), then race for it.
    /// One migrates and keeps the backup; the other finds the store at the target
    /// and says another process migrated it (exit 0, no backup).
    @Test(.ownThread) func theReplicaThatLosesTheRaceReportsNothingToDo() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        try SQLiteFile.execute(f.path(store), "PRAGMA journal_mode = WAL")
        let writer = try WriteLock(path: f.path(store))
        let arguments = ["apply"] + f.models + [store, "--backup-dir", "backups", "--timeout", "30"]
        let runs = [
            try BackgroundMigrate(arguments, in: f.directory.path),
            try BackgroundMigrate(arguments, in: f.directory.path),
        ]
        for run in runs { run.waitUntilItOpens(f.path(store)) }
        try writer.release()
        let outcomes = runs.map { $0.finish() }
        #expect(outcomes.map(\.status) == [0, 0], "\(outcomes)")
        let said = outcomes.map {
            $0.stdout.hasPrefix("migrated stock.sqlite from version 1 to 2") ? "migrated" : $0.stdout
        }.sorted()
        #expect(
            said == [
                "migrated",
                """
                stock.sqlite: Stock version 2 is current (another process migrated it from version 1 while this run \
                waited); nothing to do\n
                """,
            ], "\(outcomes)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: f.path("backups")).count == 1)
        #expect(try f.summary(store) == StockStore.expected(version: 2, items: StockFixture.smallItems))
    }

    /// Another process renames a file over the store while `apply` waits for its
    /// lock (what `restore` does): SQLite refuses to write the moved file, and apply
    /// says the store was replaced, not that it may be damaged.
    @Test(.ownThread) func aStoreReplacedDuringApplyIsReportedAsReplaced() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        try f.store("other.sqlite")
        let replacement = try #require(f.snapshot("other.sqlite").bytes)
        let reader = try ReadLock(path: f.path(store), table: "ZITEM")
        defer { reader.release() }
        let run = try BackgroundMigrate(
            ["apply"] + f.models + [store, "--backup-dir", "backups", "--timeout", "30"], in: f.directory.path)
        run.waitUntilItOpens(f.path(store))
        #expect(rename(f.path("other.sqlite"), f.path(store)) == 0)
        reader.release()
        let outcome = run.finish()
        #expect(outcome.status == 1, "\(outcome)")
        #expect(
            outcome.stderr == """
                warning: destructive: Item.note is dropped: 200 non-nil values will be lost
                error: stock.sqlite: the store was replaced by another process during this run (its file was renamed \
                over or removed, e.g. by migrate restore); nothing of this run was written to it; check the store and \
                run again; so this run kept no backup in backups

                """, "\(outcome)")
        #expect(f.snapshot(store).bytes == replacement)
        #expect(f.snapshot(store).sideFiles == [])
        #expect(Self.files(under: f.path("backups")) == [])
    }

    /// The files (not folders) under `folder`, as paths relative to it.
    static func files(under folder: String) -> [String] {
        let all = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        return all.filter { path in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(
                atPath: (folder as NSString).appendingPathComponent(path), isDirectory: &isFolder)
                && !isFolder.boolValue
        }.sorted()
    }
}

/// Reading commands on a store whose files are read-only (mode 0444) and need
/// recovery: the private copy is ours, so SQLite may recover it.
@Suite struct ReadOnlyModeTests {
    /// Runs `migrate` as a user that file modes apply to (`nobody` when the tests
    /// run as root, who ignores them).
    static func migrateAsUser(_ arguments: [String], in directory: String) throws -> CommandResult {
        guard getuid() == 0 else { return try CommandRunner.migrate(arguments, in: directory) }
        return try CommandRunner.run(
            "/usr/bin/setpriv",
            ["--reuid=nobody", "--regid=nogroup", "--clear-groups", CommandRunner.migratePath] + arguments,
            in: directory, environment: ["TMPDIR": "/tmp"])
    }

    @Test(arguments: ["wal", "journal"])
    func aReadOnlyStoreThatNeedsRecoveryIsRead(kind: String) throws {
        let f = try StockFixture()
        defer { f.remove() }
        let path = f.path(try f.store())
        if kind == "wal" {
            let image = try SQLiteFile.walImage(path, "UPDATE ZITEM SET ZNOTE = 'in the log' WHERE Z_PK = 1")
            try f.directory.write("stock.sqlite", bytes: image.main)
            try f.directory.write("stock.sqlite-wal", bytes: image.wal)
        } else {
            let writer = try WriteLock(path: path, cacheSize: 2)
            try writer.execute("UPDATE ZITEM SET ZNOTE = hex(randomblob(300))")
            let main = try #require(FileManager.default.contents(atPath: path))
            let journal = try #require(FileManager.default.contents(atPath: path + "-journal"))
            try writer.release()
            try f.directory.write("stock.sqlite", bytes: [UInt8](main))
            try f.directory.write("stock.sqlite-journal", bytes: [UInt8](journal))
            #expect(Journal(path).isHot)
        }
        chmod(f.directory.path, 0o755)
        for file in ["stock.sqlite", "stock.sqlite-" + kind] { #expect(chmod(f.path(file), 0o444) == 0) }
        let before = f.snapshot("stock.sqlite")
        let fetch = try Self.migrateAsUser(
            ["fetch"] + f.models + ["stock.sqlite", "Item", "--where", "note == 'in the log'", "--count"],
            in: f.directory.path)
        #expect(fetch.status == 0, "\(fetch.stderr)")
        #expect(fetch.stdout == (kind == "wal" ? "1\n" : "0\n"))
        let status = try Self.migrateAsUser(["status"] + f.models + ["stock.sqlite"], in: f.directory.path)
        #expect(status.stdout.hasPrefix("stock.sqlite: Stock version 1"), "\(status.stderr)")
        #expect(f.snapshot("stock.sqlite") == before)
    }
}
