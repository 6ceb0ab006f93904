import Foundation
import ModelMigration
import TestSupport
import Testing

/// The in-process seam (`MigrateTool.run(_:in:)` and its `Invocation`): a run in process
/// says and ends exactly as the binary does, and runs at once in one process keep their
/// folders, streams and notes apart, from every thread they start.
@Suite struct InProcessTests {
    /// The same arguments in the same folder, through the binary and in process: the
    /// same exit code, stdout and stderr, byte for byte. Help, usage errors (text and
    /// JSON), answers of every kind, the exit codes 0, 1, 3, 5 and 64.
    @Test func aRunInProcessSaysAndEndsAsTheBinary() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        try f.createContacts("old.sqlite", version: 1)
        try f.createContacts("current.sqlite", version: 3)
        try f.directory.write("notastore.sqlite", "these bytes are not SQLite")
        let cases: [[String]] = [
            [], ["--help"], ["help", "plan"], ["plan", "--help"], ["fleet", "apply", "--help"],
            ["statuz"], ["status"], ["status", "--json"], ["status", "--timeout", "x", "old.sqlite"],
            ["status", "--json", "--timeout", "x", "old.sqlite"],
            ["status"] + f.models + ["old.sqlite"], ["status", "--json"] + f.models + ["old.sqlite"],
            ["status"] + f.models + ["current.sqlite"], ["status"] + f.models + ["missing.sqlite"],
            ["status", "--json"] + f.models + ["notastore.sqlite"],
            ["plan"] + f.models + ["old.sqlite"], ["plan", "--json"] + f.models + ["old.sqlite"],
            ["inspect", "old.sqlite"], ["inspect", "--json", "current.sqlite"], ["validate"] + f.models,
            ["compile", "--json"] + f.models, ["diff"] + f.models + ["--model", "Contacts", "1", "3"],
            // (Not `apply`: it says how long it took.)
            ["fetch"] + f.models + ["current.sqlite", "Person"], ["dump"] + f.models + ["current.sqlite", "Person"],
        ]
        for arguments in cases {
            let binary = try f.binary(arguments)
            let inProcess = try f.migrate(arguments)
            #expect(inProcess.status == binary.status, "\(arguments)")
            #expect(inProcess.stdout == binary.stdout, "\(arguments)")
            #expect(inProcess.stderr == binary.stderr, "\(arguments)")
        }
    }

    /// A run that leaves its standard input unread ends as it would with the binary,
    /// and the megabyte the harness could not write never stops the tests (SIGPIPE).
    @Test func anUnreadStandardInputIsNoSignal() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let result = try f.migrate(["validate"] + f.models, stdin: String(repeating: "x", count: 1 << 20))
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Models/Contacts: 3 versions valid\n", "\(result)")
    }

    /// Twelve runs at once, in three folders, each naming its store by a relative path:
    /// each reads its own folder's store and says so on its own stdout.
    @Test func runsAtOnceKeepTheirFoldersAndStreams() throws {
        let fixtures = try (1...3).map { version in
            let f = try CLIFixture()
            try f.createContacts(version: version)
            return f
        }
        defer { fixtures.forEach { $0.remove() } }
        let results = Locked([Int: CommandResult]())
        DispatchQueue.concurrentPerform(iterations: 12) { index in
            let f = fixtures[index % 3]
            let result = try? f.migrate(["status", "--json"] + f.models + ["contacts.sqlite"])
            results.withLock { $0[index] = result }
        }
        for index in 0..<12 {
            let version = index % 3 + 1
            let result = try #require(results.withLock { $0[index] })
            #expect(result.status == (version == 3 ? 0 : 3), "\(result)")
            #expect(result.stderr == "", "\(result)")
            let report = try CLIFixture.object(result.stdout)
            #expect(report["version"] as? Int == version, "\(result)")
            #expect(report["store"] as? String == "contacts.sqlite")
        }
    }

    /// A fleet run's workers write from threads of their own: every store's record is
    /// on that run's stdout, and nothing of it on another run's at the same time.
    @Test func aFleetsWorkersWriteToTheirRunsStreams() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        for index in 0..<6 { try f.createContacts("fleet/s\(index).sqlite", version: 1) }
        try f.createContacts("alone.sqlite", version: 3)
        let results = Locked([String: CommandResult]())
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let arguments =
                index == 0
                ? ["fleet", "apply", "--json", "--jobs", "3"] + f.models + ["fleet"]
                : ["status", "--json"] + f.models + ["alone.sqlite"]
            let result = try? f.migrate(arguments)
            results.withLock { $0[arguments[0]] = result }
        }
        let fleet = try #require(results.withLock { $0["fleet"] })
        #expect(fleet.status == 0, "\(fleet)")
        let records = fleet.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let stores = Set(records.compactMap { $0["store"] as? String })
        #expect(stores == Set((0..<6).map { "fleet/s\($0).sqlite" }), "\(fleet.stdout)")
        let status = try #require(results.withLock { $0["status"] })
        #expect(status.status == 0, "\(status)")
        #expect(try CLIFixture.object(status.stdout)["store"] as? String == "alone.sqlite", "\(status)")
    }

    /// What a run's sweep removed is said by that run alone, whatever runs beside it.
    @Test func aRemovalIsSaidByTheRunThatMadeIt() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let store = try f.createContacts(version: 1)
        let other = try f.createContacts("other.sqlite", version: 3)
        let filed = "backups" + (f.directory.path as NSString).resolvingSymlinksInPath
        try FileManager.default.createDirectory(atPath: f.path(filed), withIntermediateDirectories: true)
        let dead = try ExitPathTests.deadProcessID()
        let name = "contacts.v1-to-3.sqlite.mm-scratch.backup.\(dead).0.\(ExitPathTests.namespace).c0ffee"
        try f.directory.write("\(filed)/\(name)", "partial")
        // Beside the apply (a migration from version 1), statuses of another store one
        // after another: some end while the apply runs.
        let results = Locked([Int: CommandResult]())
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            if thread == 0 {
                let result = try? f.migrate(["apply"] + f.models + [store, "--backup-dir", "backups"])
                results.withLock { $0[0] = result }
                return
            }
            for index in 1...8 {
                let result = try? f.migrate(["status"] + f.models + [other])
                results.withLock { $0[index] = result }
            }
        }
        let apply = try #require(results.withLock { $0[0] })
        #expect(
            apply.stderr == "note: removed \(filed)/\(name) (a partial backup copy left by migrate process \(dead), "
                + "which is gone)\n", "\(apply)")
        for index in 1...8 {
            let status = try #require(results.withLock { $0[index] })
            #expect(status.status == 0 && status.stderr == "", "\(status)")
        }
    }
}
