import Foundation
import TestSupport
import Testing

/// Every way a command can end is a decided one: a closed stdout, the stopping
/// signals beyond SIGINT and SIGTERM, a full temporary folder, and what a killed run
/// left behind, which the next run removes and names (Docs/CLI.md "Signals and closed
/// output", Docs/Safety.md "Temporary files").
@Suite struct ExitPathTests {
    /// This process's PID namespace, as scratch names carry it (`/proc/self/ns/pid`'s inode).
    static var namespace: UInt64 {
        var info = stat()
        return stat("/proc/self/ns/pid", &info) == 0 ? UInt64(info.st_ino) : 0
    }

    /// A process id that no process has: a child that has exited and been reaped.
    static func deadProcessID() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    /// `migrate apply --json | head -n 1`, made certain: stdout is a pipe whose reader
    /// closed before the command started, so every write meets EPIPE (and SIGPIPE).
    /// The migration finishes and commits, says on stderr that its output was lost,
    /// and leaves no journal; SIGPIPE killed it inside its transaction before.
    @Test func applyFinishesWhenStdoutIsClosed() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let store = try f.createContacts(version: 1)
        let (process, stderr) = try Self.runWithStdoutClosed(["apply", "--json"] + f.models + [store], in: f)
        #expect(process.terminationReason == .exit, "\(stderr)")
        #expect(process.terminationStatus == 0, "\(stderr)")
        #expect(
            stderr.contains(
                "warning: standard output could not be written (Broken pipe); what it received is incomplete"),
            "\(stderr)")
        let status = try f.migrate(["status"] + f.models + [store])
        #expect(status.status == 0, "\(status)")
        #expect(status.stdout == "contacts.sqlite: Contacts version 3, current\n")
        #expect(!FileManager.default.fileExists(atPath: f.path(store) + "-journal"))
    }

    /// A command that fails with stdout closed keeps its exit code and still says on
    /// stderr that its output was lost (`fleet apply --json | head -1` with a failed
    /// store said nothing), and, with `--json`, why it failed: the error object went to
    /// the lost stdout.
    @Test func aFailureWithStdoutClosedSaysItsOutputWasLost() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        try f.directory.write("broken.sqlite", "not a store")
        let reason = "error: broken.sqlite: not an SQLite database (the file does not start with SQLite's header)\n"
        let lost = "warning: standard output could not be written (Broken pipe); what it received is incomplete\n"
        try f.directory.write(
            "Broken/Shop/1.yaml", "model: Shop\nversion: 1\nentities:\n  Item:\n    attributes: { n: strin }\n")
        let compiled = try f.migrate(["compile", "--models", "Broken"])
        let broken = compiled.stderr
        #expect(compiled.status == 1 && broken.contains("strin"), "\(compiled)")
        for (arguments, said) in [
            (["apply", "--json", "broken.sqlite"] + f.models, reason + lost),
            (["status", "--json", "broken.sqlite"] + f.models, reason + lost),
            (["inspect", "--json", "broken.sqlite"] + f.models, reason + lost),
            // Text goes to stderr, and nothing was lost.
            (["apply", "broken.sqlite"] + f.models, reason),
            // A fleet's failures were in its summary, a model's in validate's diagnostics.
            (["fleet", "apply", "--json", "broken.sqlite"] + f.models, lost),
            (["validate", "--json", "--models", "Broken"], lost),
            // Without a store: said as the text form would say it.
            (["compile", "--json", "--models", "Broken"], broken + lost),
        ] {
            let (process, stderr) = try Self.runWithStdoutClosed(arguments, in: f)
            #expect(process.terminationStatus == 1, "\(arguments): \(stderr)")
            #expect(stderr == said, "\(arguments)")
        }
        // An answer that is no failure keeps to the warning: its exit code says it.
        let store = try f.createContacts(version: 1)
        let (process, stderr) = try Self.runWithStdoutClosed(["status", "--json", store] + f.models, in: f)
        #expect(process.terminationStatus == 3, "\(stderr)")
        #expect(stderr == lost)
    }

    /// Runs the built `migrate` in `f` with a stdout whose reader closed before it
    /// started: every write meets EPIPE. Returns the ended process and its stderr.
    static func runWithStdoutClosed(_ arguments: [String], in f: CLIFixture) throws -> (Process, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandRunner.migratePath)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: f.directory.path)
        let out = Pipe()
        let err = try TemporaryDirectory(prefix: "exit-path")
        defer { err.remove() }
        _ = FileManager.default.createFile(atPath: err.file("stderr"), contents: nil)
        process.standardOutput = out
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err.file("stderr")))
        process.standardInput = FileHandle.nullDevice
        try out.fileHandleForReading.close()
        try process.run()
        process.waitUntilExit()
        return (process, try String(contentsOfFile: err.file("stderr"), encoding: .utf8))
    }

    /// A private copy, an import's folder and a backup copy left in the temporary
    /// folder by runs that were killed are removed by the next command, whichever it
    /// is, and named on stderr; a live process's are left alone.
    @Test func theNextRunRemovesWhatAKilledRunLeftInTheTemporaryFolder() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let temporary = try TemporaryDirectory(prefix: "exit-path-tmp")
        defer { temporary.remove() }
        let dead = try Self.deadProcessID()
        let live = getpid()
        let leftovers = [
            "migrate-read.mm-scratch.read.\(dead).0.\(Self.namespace).1a2b3c",
            "migrate-import.mm-scratch.import.\(dead).0.\(Self.namespace).ff00",
        ]
        for name in leftovers {
            try FileManager.default.createDirectory(
                atPath: temporary.file(name + "/inner"), withIntermediateDirectories: true)
            try temporary.write(name + "/inner/copy.sqlite", "bytes")
        }
        let kept = "migrate-read.mm-scratch.read.\(live).0.\(Self.namespace).abcdef"
        try FileManager.default.createDirectory(atPath: temporary.file(kept), withIntermediateDirectories: true)
        let unrelated = try temporary.write("notes.mm-scratch.txt", "not a scratch name")
        // The binary: the temporary folder is the process's.
        let result = try CommandRunner.migrate(
            ["validate"] + f.models, in: f.directory.path, environment: ["TMPDIR": temporary.path])
        #expect(result.status == 0, "\(result)")
        for name in leftovers {
            #expect(!FileManager.default.fileExists(atPath: temporary.file(name)), "\(name)")
        }
        #expect(FileManager.default.fileExists(atPath: temporary.file(kept)))
        #expect(FileManager.default.fileExists(atPath: unrelated))
        #expect(
            result.stderr.contains(
                "note: removed \(temporary.file(leftovers[0])) (a private copy made to read a store left by migrate "
                    + "process \(dead), "
                    + "which is gone)"), "\(result.stderr)")
        #expect(
            result.stderr.contains("note: removed \(temporary.file(leftovers[1])) (an import's unfinished output"),
            "\(result.stderr)")
    }

    /// `kill -9` during `apply --backup-dir`'s copy leaves a partial copy in the store's
    /// backup folder: the next `apply` into that folder removes it, and so does a
    /// `restore` looking there (it was never a backup to restore).
    @Test func aKilledBackupCopyIsRemovedByTheNextApplyAndByRestore() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let store = try f.createContacts(version: 1)
        let dead = try Self.deadProcessID()
        // The folder apply files this store's backups in: the backup folder + the store's own folder.
        let filed = "backups" + (f.directory.path as NSString).resolvingSymlinksInPath
        let folder = f.path(filed)
        func plant() throws -> String {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let name = "contacts.v1-to-3.20260101T000000Z.sqlite.mm-scratch.backup.\(dead).0.\(Self.namespace).c0ffee"
            let path = (folder as NSString).appendingPathComponent(name)
            #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: 7, count: 4096)))
            #expect(FileManager.default.createFile(atPath: path + "-journal", contents: Data(repeating: 1, count: 512)))
            return path
        }
        let first = try plant()
        let apply = try f.migrate(["apply"] + f.models + [store, "--backup-dir", "backups"])
        #expect(apply.status == 0, "\(apply)")
        #expect(!FileManager.default.fileExists(atPath: first))
        #expect(!FileManager.default.fileExists(atPath: first + "-journal"))
        let shown = (filed as NSString).appendingPathComponent((first as NSString).lastPathComponent)
        #expect(
            apply.stderr
                == "note: removed \(shown) (a partial backup copy left by migrate process \(dead), which is gone)\n",
            "\(apply)")
        let second = try plant()
        let restore = try f.migrate(["restore"] + f.models + [store, "--backup-dir", "backups"])
        #expect(restore.status == 0, "\(restore)")
        #expect(!FileManager.default.fileExists(atPath: second))
        #expect(restore.stderr.hasPrefix("note: removed \(shown) (a partial backup copy"), "\(restore)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(
            names.count == 1 && names[0].hasPrefix("contacts.v1-to-3.") && names[0].hasSuffix(".sqlite"), "\(names)")
    }

    /// A read-only command on a store whose hot journal or WAL must be recovered in a
    /// private copy, with no room in the temporary folder (`ulimit -f`): exit 1 with
    /// what to do, no trap (`FileHandle.write(_:)` trapped, exit 132), no partial copy
    /// left behind, and the store's files untouched.
    @Test(arguments: [["status"], ["dump", "Person"], ["plan"]])
    func aFullTemporaryFolderFailsAReaderCleanly(command: [String]) throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let store = try ReadOnlyCommandTests.walStore(f)
        let before = try ReadOnlyCommandTests.listing(f)
        let temporary = try TemporaryDirectory(prefix: "exit-path-full")
        defer { temporary.remove() }
        let arguments = [command[0]] + f.models + [store] + command.dropFirst()
        let result = try CommandRunner.run(
            "/bin/bash", ["-c", "ulimit -f 4; exec \"$0\" \"$@\"", CommandRunner.migratePath] + arguments,
            in: f.directory.path,
            environment: ["TMPDIR": temporary.path])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("set TMPDIR to a folder with room"), "\(result)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == [])
        #expect(try ReadOnlyCommandTests.listing(f) == before)
    }

    /// `restore` of a store reached through a symbolic link keeps the replaced store
    /// beside the file the link leads to, and names it there (it named a path beside
    /// the link, where no file was).
    @Test func restoreThroughALinkNamesTheKeptCopyWhereItIs() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        try FileManager.default.createDirectory(atPath: f.path("real"), withIntermediateDirectories: true)
        _ = try f.createContacts("real/contacts.sqlite", version: 1)
        try FileManager.default.createSymbolicLink(
            atPath: f.path("link.sqlite"), withDestinationPath: "real/contacts.sqlite")
        let apply = try f.migrate(["apply"] + f.models + ["link.sqlite", "--backup-dir", "backups"])
        #expect(apply.status == 0, "\(apply)")
        let restore = try f.migrate(["restore", "--json"] + f.models + ["link.sqlite", "--backup-dir", "backups"])
        #expect(restore.status == 0, "\(restore)")
        let replaced = try #require(try CLIFixture.object(restore.stdout)["replaced"] as? String)
        let full = replaced.hasPrefix("/") ? replaced : f.path(replaced)
        #expect(FileManager.default.fileExists(atPath: full), "\(replaced) does not exist")
        #expect(replaced.contains("real/"), "\(replaced)")
    }

    /// A killed backup copy goes with the next `apply --backup-dir`, even one with
    /// nothing to do (the store already current): it stayed for good.
    @Test func aCurrentStoresApplySweepsItsBackupFolder() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let store = try f.createContacts(version: 3)
        let filed = "backups" + (f.directory.path as NSString).resolvingSymlinksInPath
        try FileManager.default.createDirectory(atPath: f.path(filed), withIntermediateDirectories: true)
        let name =
            """
            contacts.v1-to-3.20260101T000000Z.sqlite.mm-scratch.backup.\(try Self.deadProcessID()).0.\
            \(Self.namespace).c0ffee
            """
        try f.directory.write("\(filed)/\(name)", "partial")
        let apply = try f.migrate(["apply"] + f.models + [store, "--backup-dir", "backups"])
        #expect(apply.status == 0, "\(apply)")
        #expect(apply.stdout.contains("is current; nothing to do"))
        #expect(!FileManager.default.fileExists(atPath: f.path("\(filed)/\(name)")))
        #expect(apply.stderr.hasPrefix("note: removed \(filed)/\(name)"), "\(apply)")
    }

    /// `load STORE ENTITY -` whose producer went quiet: a signal stops it (read(2)
    /// restarted after the handler and waited for input forever, holding the lock).
    @Test(.ownThread) func aSignalStopsALoadWaitingForInput() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let store = try f.createContacts(version: 3)
        let before = FileManager.default.contents(atPath: f.path(store))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandRunner.migratePath)
        process.arguments = ["load"] + f.models + [store, "Person", "-"]
        process.currentDirectoryURL = URL(fileURLWithPath: f.directory.path)
        let input = Pipe(), err = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        try process.run()
        try input.fileHandleForWriting.write(
            contentsOf: Data(#"{"firstName":"Ann","lastName":"Lee","email":"a@x","age":3}"#.utf8 + [10]))
        Thread.sleep(forTimeInterval: 1.5)
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(!process.isRunning, "load did not stop on SIGTERM while waiting for input")
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        let stderr = String(decoding: (try? err.fileHandleForReading.readToEnd()) ?? Data(), as: UTF8.self)
        #expect(process.terminationStatus == 143, "\(stderr)")
        #expect(stderr.hasSuffix("error: interrupted: rolled back, the store is unchanged\n"), "\(stderr)")
        #expect(FileManager.default.contents(atPath: f.path(store)) == before)
        #expect(!FileManager.default.fileExists(atPath: f.path(store) + "-journal"))
    }

    /// `abs:` of Int64.min in a selection fails instead of reading as nil, which
    /// `NOT (abs:(n) > 5)` took for a match and deleted.
    @Test func absOfTheSmallestIntegerNeverSelects() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let store = try f.createContacts(version: 3)
        try f.directory.write("p.jsonl", #"{"firstName":"A","lastName":"B","email":"e","age":3}"# + "\n")
        #expect(try f.migrate(["load"] + f.models + [store, "Person", "p.jsonl"]).status == 0)
        let before = FileManager.default.contents(atPath: f.path(store))
        let delete = try f.migrate(
            ["delete"] + f.models + [store, "Person", "--where", "NOT (abs:(age - 3 - 9223372036854775807 - 1) > 5)"])
        #expect(delete.status == 1, "\(delete)")
        #expect(delete.stderr.contains("abs: of -9223372036854775808 is 2^63, beyond Integer 64"), "\(delete)")
        #expect(FileManager.default.contents(atPath: f.path(store)) == before)
    }
}
