import Foundation
import TestSupport
import Testing

/// Backups (`apply --backup`, `--backup-dir`, `fleet apply --backup-dir`) when one
/// store is reached by two paths or by two migrators at once, when the migration
/// fails after the copy, and when the backup folder cannot take the copy: a backup
/// exists only for a store its run changed, and holds the version it is named after.
@Suite struct BackupCommandTests {
    /// The `.sqlite` files under `folder`, by path relative to it (every other file
    /// too, so that a leftover temporary file shows).
    static func files(under folder: String) -> [String] {
        ((try? FileManager.default.subpathsOfDirectory(atPath: folder)) ?? []).filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }.sorted()
    }

    /// Whether `path` ends in `<stem>.v1-to-2.<yyyyMMddTHHmmssZ>.sqlite`, a backup's name.
    static func isBackup(_ path: String, of stem: String) -> Bool {
        let name = (path as NSString).lastPathComponent
        return name.range(
            of: #"^\#(NSRegularExpression.escapedPattern(for: stem))\.v1-to-2\.[0-9]{8}T[0-9]{6}Z\.sqlite$"#,
            options: .regularExpression) != nil
    }

    /// What `apply` says of a small Stock store's plan before it starts.
    static let planWarning = "warning: destructive: Item.note is dropped: 200 non-nil values will be lost\n"

    /// The store, a hard link to it and a symbolic link to it in `fleet/`.
    static func threePaths(_ f: StockFixture, items: Int) throws -> [String] {
        let store = try f.store("fleet/store.sqlite", items: items)
        #expect(link(f.path(store), f.path("fleet/hard.sqlite")) == 0)
        #expect(symlink("store.sqlite", f.path("fleet/soft.sqlite")) == 0)
        return [store, "fleet/hard.sqlite", "fleet/soft.sqlite"]
    }

    /// A fleet given one store as itself, as a hard link and as a symbolic link,
    /// three jobs at a time: migrated once, one backup of version 1 (the store's
    /// exact bytes before), and each other path reported as a duplicate of the first.
    @Test func aFleetMigratesAStoreReachedByThreePathsOnceWithOneBackup() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let paths = try Self.threePaths(f, items: StockFixture.smallItems)
        let before = try #require(f.snapshot(paths[0]).bytes)

        let apply = try f.migrate(
            ["fleet", "apply"] + f.models + paths + ["--jobs", "3", "--backup-dir", "backups", "--json"])
        #expect(apply.status == 0, "\(apply)")
        #expect(
            try FleetCommandTests.statuses(apply.stdout) == [
                paths[0]: "migrated", paths[1]: "duplicate", paths[2]: "duplicate",
            ])
        let records = try FleetCommandTests.records(apply.stdout, event: "store")
        for record in records where record["status"] as? String == "duplicate" {
            #expect(record["duplicateOf"] as? String == paths[0])
            #expect(
                record["message"] as? String == """
                    the same store file as fleet/store.sqlite (same device and inode: a hard link, a symbolic link or \
                    a path listed twice); handled once, as fleet/store.sqlite
                    """)
            #expect(record["backup"] == nil)
        }
        let backups = Self.files(under: f.path("backups"))
        #expect(backups.count == 1, "\(backups)")
        let backup = try #require(backups.first)
        #expect(Self.isBackup(backup, of: "store"), "\(backup)")
        #expect(backup.hasPrefix(String(f.path("fleet").dropFirst()) + "/"), "\(backup)")
        #expect(records.first { $0["status"] as? String == "migrated" }?["backup"] as? String == "backups/" + backup)
        #expect(f.snapshot("backups/" + backup).bytes == before)
        #expect(try f.summary("backups/" + backup) == StockStore.expected(version: 1, items: StockFixture.smallItems))
        #expect(try StockStore.history(path: f.path(paths[0])) == [[1, 2]])
        #expect(try f.summary(paths[0]) == StockStore.expected(version: 2, items: StockFixture.smallItems))

        // The text report names each duplicate once, with the path it duplicates;
        // duplicates are no failure (exit 0).
        let again = try f.migrate(["fleet", "status"] + f.models + paths)
        #expect(again.status == 0, "\(again)")
        #expect(again.stdout.contains("1 current, 2 reached again by another path\n"), "\(again.stdout)")
        #expect(
            again.stdout.contains(
                """
                reached again by another path, handled once (2):
                  fleet/hard.sqlite: the same store file as fleet/store.sqlite
                """), "\(again.stdout)")
    }

    /// The same, found by searching the folder: whichever path the walk meets first
    /// is migrated, the two others are its duplicates.
    @Test func aSearchedFolderMigratesAStoreReachedByThreePathsOnce() throws {
        let f = try StockFixture()
        defer { f.remove() }
        _ = try Self.threePaths(f, items: StockFixture.smallItems)
        let apply = try f.migrate(
            ["fleet", "apply"] + f.models + ["fleet", "--jobs", "3", "--backup-dir", "backups", "--json"])
        #expect(apply.status == 0, "\(apply)")
        let records = try FleetCommandTests.records(apply.stdout, event: "store")
        let migrated = records.filter { $0["status"] as? String == "migrated" }
        #expect(migrated.count == 1, "\(apply.stdout)")
        let first = try #require(migrated.first?["store"] as? String)
        #expect(records.count == 3)
        #expect(
            records.filter { $0["status"] as? String == "duplicate" }.allSatisfy {
                $0["duplicateOf"] as? String == first
            })
        let backups = Self.files(under: f.path("backups"))
        #expect(backups.count == 1, "\(backups)")
        #expect(
            Self.isBackup(backups[0], of: ((first as NSString).lastPathComponent as NSString).deletingPathExtension),
            "\(backups)")
        #expect(
            try f.summary("backups/" + backups[0]) == StockStore.expected(version: 1, items: StockFixture.smallItems))
    }

    /// Three `apply` processes at once on one store (itself, a hard link and a
    /// symbolic link), all with the same --backup-dir: one migrates and keeps the one
    /// backup, of version 1; the others find nothing to do, or find the store changed
    /// or locked and keep no backup, and say so.
    @Test(.ownThread) func concurrentAppliesThroughThreePathsLeaveOneBackupOfTheOldVersion() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let paths = try Self.threePaths(f, items: StockFixture.largeItems)
        let before = try #require(f.snapshot(paths[0]).bytes)
        let runs = try paths.map {
            try BackgroundMigrate(["apply"] + f.models + [$0, "--backup-dir", "backups"], in: f.directory.path)
        }
        let results = runs.map { $0.finish() }

        let migrated = results.indices.filter { results[$0].status == 0 && results[$0].stdout.hasPrefix("migrated ") }
        #expect(migrated.count == 1, "\(results)")
        let backups = Self.files(under: f.path("backups"))
        #expect(backups.count == 1, "\(backups)")
        let backup = try #require(backups.first)
        let winner = try #require(migrated.first)
        // Named after the store a symbolic link leads to (a hard link is a store of its own name).
        let name =
            ((URL(fileURLWithPath: f.path(paths[winner])).resolvingSymlinksInPath().lastPathComponent) as NSString)
            .deletingPathExtension
        #expect(Self.isBackup(backup, of: name), "\(backup)")
        #expect(results[winner].stdout.contains("; backup at backups/\(backup)\n"), "\(results[winner])")
        #expect(f.snapshot("backups/" + backup).bytes == before)
        #expect(try f.summary("backups/" + backup) == StockStore.expected(version: 1, items: StockFixture.largeItems))
        for (index, other) in results.enumerated() where index != winner {
            let nothingToDo =
                other.status == 0
                && [
                    "\(paths[index]): Stock version 2 is current; nothing to do\n",
                    // Planned before the winner committed, then found the store at the target.
                    """
                    \(paths[index]): Stock version 2 is current (another process migrated it from version 1 while this \
                    run waited); nothing to do\n
                    """,
                ].contains(other.stdout)
            // After the plan's warning (the plan was made before the other run committed).
            let changed =
                other.status == 1
                && other.stderr.hasSuffix(
                    """
                    \nerror: \(paths[index]): the store changed since it was planned (another migration ran?); plan \
                    again; nothing was changed, so this run kept no backup in backups

                    """)
            let locked =
                other.status == 1 && other.stderr.contains("another migration, writer or reader holds the store")
                && other.stderr.hasSuffix("nothing was changed, so this run kept no backup in backups\n")
            #expect(nothingToDo || changed || locked, "\(other)")
        }
        #expect(try StockStore.history(path: f.path(paths[0])) == [[1, 2]])
        #expect(try f.summary(paths[0]) == StockStore.expected(version: 2, items: StockFixture.largeItems))
    }

    /// A check fails after the copy was taken: the store is unchanged, so the run
    /// keeps no backup (neither at --backup PATH nor in --backup-dir, nor a
    /// temporary file), and says so; a file already at another name stays.
    @Test func aFailedApplyKeepsNoBackupAndSaysSo() throws {
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
        let store = try f.createContacts("contacts.sqlite", version: 1)
        try SQLiteFile.execute(
            f.path(store),
            """
            INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZFULLNAME, ZEMAIL, ZAGE, ZCREATEDAT) VALUES (1, 1, 1, 'No Mail', \
            NULL, 40, 0); UPDATE Z_PRIMARYKEY SET Z_MAX = 1 WHERE Z_NAME = 'Person'
            """)
        try f.directory.write("backups/older.sqlite", "an older backup")
        let before = f.snapshot(store)
        let failure = """
            policy SplitFullName: Person 1 has no value for required Person.email (its source object had none, or the \
            policy set none: set it in the policy, or give the attribute a default); nothing was changed
            """

        let path = try f.migrate(["apply"] + f.models + migrations + [store, "--backup", "backup.sqlite"])
        #expect(path.status == 1, "\(path)")
        #expect(path.stdout == "")
        #expect(path.stderr == "error: \(failure), so this run kept no backup at backup.sqlite\n")
        #expect(f.snapshot(store) == before)

        let folder = try f.migrate(["apply"] + f.models + migrations + [store, "--backup-dir", "backups"])
        #expect(folder.status == 1, "\(folder)")
        #expect(folder.stderr == "error: \(failure), so this run kept no backup in backups\n")
        #expect(f.snapshot(store) == before)

        let json = try f.migrate(["apply", "--json"] + f.models + migrations + [store, "--backup-dir", "backups"])
        #expect(json.status == 1)
        let event = try CLIFixture.object(try #require(json.stdout.split(separator: "\n").last.map(String.init)))
        #expect(event["message"] as? String == "\(failure), so this run kept no backup in backups")

        // The folders made for the backup go with it: a new backup folder, and the
        // store's own folder under an existing one.
        let fresh = try f.migrate(["apply"] + f.models + migrations + [store, "--backup-dir", "new/backups"])
        #expect(fresh.status == 1, "\(fresh)")
        #expect(try f.directory.contents() == ["Migrations", "Models", "backups", "contacts.sqlite"])
        #expect(try FileManager.default.subpathsOfDirectory(atPath: f.path("backups")) == ["older.sqlite"])
        #expect(try String(contentsOfFile: f.path("backups/older.sqlite"), encoding: .utf8) == "an older backup")
        #expect(f.snapshot(store) == before)
    }

    /// A WAL store whose last commit is still in its -wal file (a reader keeps it
    /// from being checkpointed): the backup holds that commit too.
    @Test func aWALStoresBackupHoldsWhatIsStillInItsWAL() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        try SQLiteFile.execute(f.path(store), "PRAGMA journal_mode = WAL")
        let reader = try ReadLock(path: f.path(store), table: "ZITEM")
        defer { reader.release() }
        try SQLiteFile.execute(f.path(store), "UPDATE ZITEM SET ZNAME = 'changed in the WAL' WHERE Z_PK = 1")
        let original = try StoreDump.dump(f.path(store))
        #expect(original.contains("changed in the WAL"))
        #expect((try FileManager.default.attributesOfItem(atPath: f.path(store + "-wal"))[.size] as? Int ?? 0) > 0)

        let result = try f.migrate(["apply"] + f.models + [store, "--backup", "backup.sqlite"])
        #expect(result.status == 0, "\(result)")
        // Nothing beside the backup (before anything opens it: the copy of a WAL store
        // is a WAL database, and opening it makes its -shm).
        #expect(try f.directory.contents().filter { $0.hasPrefix("backup.sqlite") } == ["backup.sqlite"])
        #expect(try StoreDump.dump(f.path("backup.sqlite")) == original)
    }

    /// A dry run copies the store as a real run would, then keeps no backup.
    @Test func aDryRunKeepsNoBackup() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        let before = f.snapshot(store)
        let result = try f.migrate(["apply", "--dry-run"] + f.models + [store, "--backup-dir", "backups"])
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout.hasSuffix(" s (rolled back; the store is unchanged, so no backup was kept)\n"),
            "\(result.stdout)")
        #expect(Self.files(under: f.path("backups")) == [])
        #expect(f.snapshot(store) == before)
    }

    /// A backup folder that is a file, a backup path in a missing folder: refused
    /// before anything waits for the store, naming the folder and what to do; exit 1,
    /// store unchanged, nothing created.
    @Test func aBackupFolderThatCannotBeWrittenIsNamedWithWhatToDo() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        try f.directory.write("taken", "a file, not a folder")
        let before = f.snapshot(store)
        let cases: [([String], String)] = [
            (
                ["--backup-dir", "taken"],
                """
                error: taken: cannot write the backup there: it is a file, not a folder; choose another backup folder; \
                nothing was changed

                """
            ),
            (
                ["--backup-dir", "taken/backups"],
                """
                error: taken/backups: cannot create the backup folder: taken is a file, not a folder; choose another \
                backup folder; nothing was changed

                """
            ),
            (
                ["--backup", "missing/backup.sqlite"],
                """
                error: missing: cannot write the backup there: the folder does not exist; create the folder, or choose \
                a backup path in another folder; nothing was changed

                """
            ),
        ]
        for (arguments, message) in cases {
            let result = try f.migrate(["apply"] + f.models + [store] + arguments)
            #expect(result.status == 1, "\(arguments): \(result)")
            #expect(result.stdout == "")
            #expect(result.stderr == Self.planWarning + message, "\(arguments)")
            #expect(f.snapshot(store) == before)
        }
        #expect(try f.directory.contents() == ["Models", "stock.sqlite", "taken"])
    }

    /// Whether `setpriv` can run a command without capabilities: root then obeys
    /// file permissions as any user does (tests run as root, whom chmod alone stops
    /// from nothing).
    static let canDropCapabilities: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return false }
        return
            (try? CommandRunner.run("/usr/bin/setpriv", ["--bounding-set=-all", "--inh-caps=-all", "--", "/bin/true"])
            .status) == 0
    }()

    /// A read-only backup folder, with `migrate` run without capabilities (setpriv):
    /// the folder is named with what to do, exit 1, the store unchanged, nothing
    /// written; a folder to create inside it likewise.
    @Test(.enabled(if: canDropCapabilities, "needs setpriv and the right to drop capabilities"))
    func aReadOnlyBackupFolderIsNamedWithWhatToDo() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        try FileManager.default.createDirectory(atPath: f.path("readonly"), withIntermediateDirectories: true)
        #expect(chmod(f.path("readonly"), 0o555) == 0)
        defer { chmod(f.path("readonly"), 0o755) }
        let before = f.snapshot(store)
        let cases: [([String], String)] = [
            (
                ["--backup-dir", "readonly"],
                """
                error: readonly: cannot write the backup there: permission denied: this user cannot create files in \
                it; make the folder writable by this user, or choose another backup folder; nothing was changed

                """
            ),
            (
                ["--backup", "readonly/backup.sqlite"],
                """
                error: readonly: cannot write the backup there: permission denied: this user cannot create files in \
                it; make the folder writable by this user, or choose a backup path in another folder; nothing was \
                changed

                """
            ),
            (
                ["--backup-dir", "readonly/deploy/backups"],
                """
                error: readonly/deploy/backups: cannot create the backup folder: permission denied: this user cannot \
                create folders in readonly; make readonly writable by this user, or choose another backup folder; \
                nothing was changed

                """
            ),
        ]
        for (arguments, message) in cases {
            let result = try CommandRunner.run(
                "/usr/bin/setpriv",
                [
                    "--bounding-set=-all", "--inh-caps=-all", "--", CommandRunner.migratePath,
                    "apply",
                ] + f.models + [store] + arguments, in: f.directory.path)
            #expect(result.status == 1, "\(arguments): \(result)")
            #expect(result.stderr == Self.planWarning + message, "\(arguments)")
            #expect(f.snapshot(store) == before)
        }
        #expect(Self.files(under: f.path("readonly")) == [])
    }
}
