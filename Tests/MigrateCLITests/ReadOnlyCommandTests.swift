import Foundation
import TestSupport
import Testing

/// The commands that read a store (`status`, `inspect`, `plan`, `fetch`, `dump`; `diff`
/// and `diagram` read models only) leave its folder exactly as it was: no file created
/// beside the store, none changed, also in a folder nobody may write, also when SQLite
/// would recover the store in place (a `-wal` without its `-shm`, a crashed writer's
/// hot `-journal`): they read a private copy, recovered there.
@Suite struct ReadOnlyCommandTests {
    static let commands: [[String]] = [["status"], ["inspect"], ["plan"], ["fetch", "--count"], ["dump"]]

    /// Every file of the folder but the models, with its bytes.
    static func listing(_ f: CLIFixture) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for name in try f.directory.contents() where name != "Models" {
            files[name] = FileManager.default.contents(atPath: f.path(name)).map { [UInt8]($0) } ?? []
        }
        return files
    }

    /// `command` on `store` with the model's arguments; entity commands read Person.
    static func run(_ f: CLIFixture, _ command: [String], _ store: String) throws -> CommandResult {
        var arguments = [command[0]] + f.models + [store]
        if command[0] == "fetch" || command[0] == "dump" { arguments.append("Person") }
        return try f.migrate(arguments + command.dropFirst())
    }

    /// A Contacts store whose last commit (one person) is only in its `-wal`, without
    /// the `-shm` its writer had: the files a copied or crashed WAL store leaves.
    static func walStore(_ f: CLIFixture) throws -> String {
        try f.createContacts("writer.sqlite", version: 3)
        let image = try SQLiteFile.walImage(
            f.path("writer.sqlite"),
            """
            INSERT INTO ZPERSON (Z_ENT, Z_OPT, ZFIRSTNAME, ZLASTNAME, ZEMAIL, ZAGE, ZCREATEDAT)
            VALUES ((SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person'), 1, 'Ada', 'Lovelace', 'ada@example.com', \
            36, 0)
            """)
        try FileManager.default.removeItem(atPath: f.path("writer.sqlite"))
        try f.directory.write("wal.sqlite", bytes: image.main)
        try f.directory.write("wal.sqlite-wal", bytes: image.wal)
        #expect(!image.wal.isEmpty)
        return "wal.sqlite"
    }

    @Test(arguments: commands)
    func aWALStoreWithoutItsShmIsReadWithoutCreatingIt(command: [String]) throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let store = try Self.walStore(f)
        let before = try Self.listing(f)
        #expect(before.keys.sorted() == ["wal.sqlite", "wal.sqlite-wal"])
        let result = try Self.run(f, command, store)
        #expect(result.status == 0, "\(result.stderr)")
        // The person committed in the -wal is read.
        if command[0] == "fetch" { #expect(result.stdout == "1\n") }
        #expect(try Self.listing(f) == before, "\(command)")
        #expect(!FileManager.default.fileExists(atPath: f.path("wal.sqlite-shm")))
    }

    @Test(arguments: commands)
    func aWALStoreInAFolderNobodyMayWriteIsRead(command: [String]) throws {
        let f = try CLIFixture()
        defer {
            chmod(f.directory.path, 0o755)
            f.remove()
        }
        let store = try Self.walStore(f)
        let before = try Self.listing(f)
        #expect(chmod(f.directory.path, 0o555) == 0)
        let result = try Self.run(f, command, store)
        #expect(chmod(f.directory.path, 0o755) == 0)
        #expect(result.status == 0, "\(result.stderr)")
        if command[0] == "status" { #expect(result.stdout == "wal.sqlite: Contacts version 3, current\n") }
        #expect(try Self.listing(f) == before, "\(command)")
    }

    /// A writer killed mid-transaction: its changed pages in the file, the originals
    /// in a hot `-journal`. A reader sees the last committed state (the journal played
    /// back in its private copy) and leaves both files as they are, for the next
    /// writing command (or the app) to recover.
    @Test(arguments: commands)
    func aHotJournalIsReadAsRolledBackAndLeftInPlace(command: [String]) throws {
        let f = try CLIFixture()
        defer { f.remove() }
        try f.createContacts("clean.sqlite", version: 3)
        let writer = try WriteLock(path: f.path("clean.sqlite"), cacheSize: 2)
        try writer.execute(
            "CREATE TABLE SCRATCH AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) "
                + "SELECT i, randomblob(200) AS b FROM n")
        try writer.execute("UPDATE Z_METADATA SET Z_VERSION = 99")
        let crashed = try #require(FileManager.default.contents(atPath: f.path("clean.sqlite")))
        let journal = try #require(FileManager.default.contents(atPath: f.path("clean.sqlite") + "-journal"))
        try writer.release()
        try f.directory.write("crashed.sqlite", bytes: [UInt8](crashed))
        try f.directory.write("crashed.sqlite-journal", bytes: [UInt8](journal))
        try FileManager.default.removeItem(atPath: f.path("clean.sqlite"))
        #expect(Journal(f.path("crashed.sqlite")).isHot)
        let before = try Self.listing(f)

        let result = try Self.run(f, command, "crashed.sqlite")
        #expect(result.status == 0, "\(result.stderr)")
        if command[0] == "status" { #expect(result.stdout == "crashed.sqlite: Contacts version 3, current\n") }
        if command[0] == "fetch" { #expect(result.stdout == "0\n") }
        #expect(try Self.listing(f) == before, "\(command)")
    }
}
