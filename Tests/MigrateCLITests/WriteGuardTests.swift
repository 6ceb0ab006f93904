import Foundation
import TestSupport
import Testing

/// Every command that writes keeps apply's promises: a signal rolls it back with a
/// message and exit 128 + n, nothing is left beside the store; an unreadable
/// mapping folder is refused, never read as "no mapping files".
@Suite struct WriteGuardTests {
    /// Version 2 drops `Note.body`: a hop a mapping file could map; one note stored.
    func notes() throws -> MigrationScenario {
        let scenario = try MigrationScenario(
            "Notes",
            versions: [
                """
                entities:
                  Note:
                    attributes: { title: string, body: string? }

                """,
                """
                entities:
                  Note:
                    attributes: { title: string }

                """,
            ])
        _ = try scenario.withObjects { access in
            try access.insert("Note", values: ["title": .string("a"), "body": .string("kept")], primaryKey: 1)
        }
        return scenario
    }

    /// The signal arrives while the command waits for another writer's lock, so
    /// it always comes before the work; the lock is then released and the command
    /// must stop at its first statement, not write.
    func interrupted(_ command: [String], signal: Int32, stdin: String? = nil) throws {
        let shop = try ShopModel.scenario()
        defer { shop.remove() }
        let before = try StoreDump.dump(shop.storePath)
        let bytes = FileManager.default.contents(atPath: shop.storePath)
        let writer = try WriteLock(path: shop.storePath)
        var arguments = [command[0], shop.storePath] + command.dropFirst() + ["--models", shop.modelsFolder]
        if command[0] != "load" { arguments += ["--timeout", "20"] }
        let run = try BackgroundMigrate(arguments, in: shop.directory.path)
        run.waitUntilItOpens(shop.storePath)
        kill(run.pid, signal)
        Thread.sleep(forTimeInterval: 0.2)
        try writer.release()
        let outcome = run.finish()
        #expect(outcome.status == 128 + signal, "\(outcome)")
        #expect(outcome.stderr.hasSuffix("error: interrupted: rolled back, the store is unchanged\n"), "\(outcome)")
        #expect(try StoreDump.dump(shop.storePath) == before)
        #expect(FileManager.default.contents(atPath: shop.storePath) == bytes)
        for side in ["-journal", "-wal", "-shm"] {
            #expect(!FileManager.default.fileExists(atPath: shop.storePath + side), "\(side) left beside the store")
        }
    }

    @Test(.ownThread) func updateRollsBackOnSIGTERM() throws {
        try interrupted(["update", "Customer", "--set", "visits = visits + 1"], signal: SIGTERM)
    }

    /// The other signals whose default action would end the process mid-write
    /// (a closed terminal, Ctrl-\\, a CPU-time limit, a supervisor's USR1/USR2) roll
    /// back as SIGTERM does (exit 128 + the signal; Docs/CLI.md "Signals and closed output").
    @Test(.ownThread, arguments: [SIGHUP, SIGQUIT, SIGXCPU, SIGUSR1, SIGUSR2])
    func updateRollsBackOnEveryStoppingSignal(signal: Int32) throws {
        try interrupted(["update", "Customer", "--set", "visits = visits + 1"], signal: signal)
    }

    /// A signal the parent ignored stays ignored (`nohup migrate apply … &` survives the
    /// end of its ssh session): the write goes on and commits; SIGTERM still stops it.
    @Test(.ownThread) func aSignalTheParentIgnoredStopsNothing() throws {
        let shop = try ShopModel.scenario()
        defer { shop.remove() }
        let visits = try StoreDump.dump(shop.storePath)
        let writer = try WriteLock(path: shop.storePath)
        let run = try BackgroundMigrate(
            [
                "update", shop.storePath, "Customer", "--set", "visits = visits + 1", "--models", shop.modelsFolder,
                "--timeout", "20",
            ],
            in: shop.directory.path, ignoring: "HUP")
        run.waitUntilItOpens(shop.storePath)
        kill(run.pid, SIGHUP)
        Thread.sleep(forTimeInterval: 0.2)
        try writer.release()
        let outcome = run.finish()
        #expect(outcome.status == 0, "\(outcome)")
        #expect(try StoreDump.dump(shop.storePath) != visits, "the update was not written")
    }

    @Test(.ownThread) func deleteRollsBackOnSIGINT() throws {
        try interrupted(["delete", "Order"], signal: SIGINT)
    }

    @Test(.ownThread) func loadRollsBackOnSIGINT() throws {
        let shop = try ShopModel.scenario()
        defer { shop.remove() }
        let lines = (100..<400).map { #"{"_pk": \#($0), "name": "Pen \#($0)"}"# }.joined(separator: "\n")
        try lines.write(toFile: shop.directory.file("products.jsonl"), atomically: true, encoding: .utf8)
        let before = try StoreDump.dump(shop.storePath)
        let writer = try WriteLock(path: shop.storePath)
        let run = try BackgroundMigrate(
            ["load", shop.storePath, "Product", "products.jsonl", "--models", shop.modelsFolder],
            in: shop.directory.path)
        run.waitUntilItOpens(shop.storePath)
        kill(run.pid, SIGINT)
        Thread.sleep(forTimeInterval: 0.2)
        try writer.release()
        let outcome = run.finish()
        #expect(outcome.status == 130, "\(outcome)")
        #expect(outcome.stderr.hasSuffix("error: interrupted: rolled back, the store is unchanged\n"), "\(outcome)")
        #expect(try StoreDump.dump(shop.storePath) == before)
        #expect(!FileManager.default.fileExists(atPath: shop.storePath + "-journal"))
    }

    /// A reader holding the store: load waits for it at BEGIN (as update and delete
    /// do), then says who holds the store; it was SQLite's raw "Error: SQLite error 5
    /// (SQLITE_BUSY) … in `COMMIT TRANSACTION`", after all the work, even with --json.
    @Test(.ownThread) func loadBesideAReaderSaysWhoHoldsTheStore() throws {
        let shop = try ShopModel.scenario()
        defer { shop.remove() }
        try #"{"_pk": 100, "name": "Pen"}"#.write(
            toFile: shop.directory.file("products.jsonl"), atomically: true, encoding: .utf8)
        let bytes = FileManager.default.contents(atPath: shop.storePath)
        let reader = try ReadLock(path: shop.storePath, table: "Z_PRIMARYKEY")
        defer { reader.release() }
        let run = try CommandRunner.migrate(
            [
                "load", shop.storePath, "Product", "products.jsonl", "--models", shop.modelsFolder, "--json",
                "--timeout", "0.3",
            ],
            in: shop.directory.path)
        #expect(run.status == 1, "\(run)")
        let message = try #require(try CLIFixture.object(run.stdout)["error"] as? [String: Any])["message"] as? String
        #expect(
            message?.hasPrefix(
                "\(shop.storePath): another migration, writer or reader holds the store (held by process ") == true,
            "\(run)")
        #expect(message?.hasSuffix("; nothing was loaded") == true, "\(run)")
        #expect(FileManager.default.contents(atPath: shop.storePath) == bytes)
        #expect(!FileManager.default.fileExists(atPath: shop.storePath + "-journal"))
    }

    /// Standard output on a full disk (or closed): `FileHandle.write` trapped (exit 132)
    /// after update had committed. Now a writer keeps its exit code, which speaks of
    /// the store, and says the output is incomplete; dump, whose output is its product, fails.
    @Test func aFullStdoutNeverTraps() throws {
        let shop = try ShopModel.scenario()
        defer { shop.remove() }
        func full(_ arguments: [String]) throws -> CommandResult {
            try CommandRunner.run(
                "/bin/sh",
                ["-c", "\"$0\" \"$@\" > /dev/full", CommandRunner.migratePath] + arguments
                    + ["--models", shop.modelsFolder], in: shop.directory.path)
        }
        let lost =
            "error: standard output could not be written (No space left on device); what it received is incomplete\n"
        let update = try full(["update", shop.storePath, "Customer", "--set", "visits = 7"])
        #expect(update.status == 0, "\(update)")
        #expect(
            update.stderr
                == "warning: standard output could not be written (No space left on device); what it received is "
                + "incomplete, "
                + "the command finished\n")
        #expect(try shop.rows("SELECT DISTINCT ZVISITS FROM ZCUSTOMER").map { $0[0].int64 } == [7])
        let dump = try full(["dump", shop.storePath, "Customer"])
        #expect(dump.status == 1, "\(dump)")
        #expect(dump.stderr == lost)
    }

    /// `Migrations/<Model>` that exists but cannot be listed (here: not a folder, or
    /// a symbolic link that loops; for another owner's 0700 folder the message names
    /// "Permission denied") refuses the plan instead of inferring the mapped hop.
    @Test func anUnreadableMappingFolderRefuses() throws {
        let scenario = try notes()
        defer { scenario.remove() }
        let before = try StoreDump.dump(scenario.storePath)
        let folder = scenario.migrationsFolder
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for make in [
            { try "not a folder".write(toFile: folder + "/Notes", atomically: true, encoding: .utf8) },
            { try FileManager.default.createSymbolicLink(atPath: folder + "/Notes", withDestinationPath: "Notes") },
        ] {
            try? FileManager.default.removeItem(atPath: folder + "/Notes")
            try make()
            for command in ["apply", "plan", "status"] {
                let result = try InProcess.migrate([
                    command, scenario.storePath, "--models", scenario.modelsFolder, "--migrations", folder,
                ])
                #expect(result.status == 1, "\(command): \(result)")
                #expect(
                    result.stderr.contains("\(folder)/Notes: cannot read the folder ("), "\(command): \(result.stderr)")
                #expect(result.stderr.contains("so nothing is planned without them"), "\(command): \(result.stderr)")
            }
        }
        #expect(try StoreDump.dump(scenario.storePath) == before)
    }
    /// Under a small address space a thread cannot be created: libdispatch used to
    /// retry forever at 0 % CPU. Every run must end in bounded time, and a store
    /// that was not migrated is left as it was.
    @Test(.slowTrial) func aSmallAddressSpaceNeverHangs() throws {
        let scenario = try notes()
        defer { scenario.remove() }
        let original = try #require(FileManager.default.contents(atPath: scenario.storePath))
        for limit in stride(from: 100_000, through: 200_000, by: 10_000) {
            for command in [["apply"], ["fleet", "status"], ["fleet", "apply", "--jobs", "2"]] {
                _ = FileManager.default.createFile(atPath: scenario.storePath, contents: original)
                let arguments =
                    ["20", "bash", "-c", "ulimit -v \(limit); exec \"$0\" \"$@\"", CommandRunner.migratePath]
                    + command + [scenario.storePath, "--models", scenario.modelsFolder]
                let result = try CommandRunner.run("/usr/bin/timeout", arguments)
                #expect(result.status != 124, "ulimit -v \(limit) \(command): hung")
                if result.status != 0 && command != ["fleet", "status"] {
                    #expect(
                        FileManager.default.contents(atPath: scenario.storePath) == original,
                        "ulimit -v \(limit) \(command): \(result)")
                }
            }
        }
    }
    /// A row whose Z_ENT is no entity's number is in no dump: said, not hidden.
    @Test func dumpSaysWhichRowsBelongToNoEntity() throws {
        let shop = try ShopModel.scenario()
        defer { shop.remove() }
        try SQLiteFile.execute(shop.storePath, "UPDATE ZCUSTOMER SET Z_ENT = 99 WHERE Z_PK = 2")
        let result = try InProcess.migrate(["dump", shop.storePath, "Customer", "--models", shop.modelsFolder])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.split(separator: "\n").count == 3)
        #expect(
            result.stderr == """
                warning: ZCUSTOMER holds rows whose Z_ENT is no entity's number (Z_PK 2); they belong to no entity and \
                are not in this dump

                """)
    }
}
