import Foundation
import TestSupport
import Testing

/// A fleet run reading its stores from standard input stops on a signal at once,
/// even while the writer keeps the pipe open: the list is cut short and the run
/// ends interrupted (143), with its summary.
@Suite struct FleetStdinSignalTests {
    /// `-`, and `/dev/stdin`, which names the same pipe as a path.
    @Test(.ownThread, arguments: ["-", "/dev/stdin"]) func aSignalEndsTheWaitForMoreStores(list: String) throws {
        let f = try StockFixture()
        defer { f.remove() }
        try f.store("fleet/a.sqlite")
        try f.store("fleet/b.sqlite")
        let pipe = Pipe()
        let runner = try BackgroundMigrate(
            ["fleet", "apply"] + f.models + ["--stores-from", list, "--jobs", "1", "--json"], in: f.directory.path,
            stdin: pipe)
        try pipe.fileHandleForWriting.write(contentsOf: Data("fleet/a.sqlite\nfleet/b.sqlite\n".utf8))
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let out = (try? String(contentsOfFile: runner.directory.file("stdout"), encoding: .utf8)) ?? ""
            if out.components(separatedBy: "\"event\":\"store\"").count > 2 { break }
            usleep(20_000)
        }
        kill(runner.pid, SIGTERM)
        let stopped = Date()
        // The pipe stays open: the run must not wait for its end.
        while runner.process.isRunning && Date().timeIntervalSince(stopped) < 10 { usleep(20_000) }
        #expect(!runner.process.isRunning, "still waiting for standard input after SIGTERM")
        try pipe.fileHandleForWriting.close()
        let outcome = runner.finish()
        #expect(outcome.status == 143, "\(outcome)")
        #expect(
            try FleetCommandTests.statuses(outcome.stdout) == [
                "fleet/a.sqlite": "migrated", "fleet/b.sqlite": "migrated",
            ])
        #expect(try FleetCommandTests.records(outcome.stdout, event: "summary").first?["exitCode"] as? Int == 143)
    }
}

/// `fleet restore --log` from a pipe (`-`, `/dev/stdin`) whose writer keeps it open: a
/// signal ends the wait, and nothing is restored.
@Suite struct FleetRestoreLogSignalTests {
    @Test(.ownThread, arguments: ["-", "/dev/stdin"]) func aSignalEndsTheWaitForTheLog(log: String) throws {
        let f = try StockFixture()
        defer { f.remove() }
        let (stores, _) = try FleetRestoreCommandTests.deployed(f, count: 2)
        let before = stores.map { FileSnapshot(f.path($0)).bytes }
        let pipe = Pipe()
        let runner = try BackgroundMigrate(
            ["fleet", "restore"] + f.models + ["--log", log], in: f.directory.path, stdin: pipe)
        try pipe.fileHandleForWriting.write(
            contentsOf: try Data(contentsOf: URL(fileURLWithPath: f.directory.file("run.jsonl"))))
        usleep(500_000)
        kill(runner.pid, SIGTERM)
        let stopped = Date()
        while runner.process.isRunning && Date().timeIntervalSince(stopped) < 10 { usleep(20_000) }
        #expect(!runner.process.isRunning, "still waiting for the log after SIGTERM")
        try pipe.fileHandleForWriting.close()
        let outcome = runner.finish()
        #expect(outcome.status == 143, "\(outcome)")
        #expect(
            outcome.stderr.contains("\(log): interrupted while reading the log; nothing was changed"),
            "\(outcome.stderr)")
        #expect(stores.map { FileSnapshot(f.path($0)).bytes } == before)
    }

    @Test func aLogThatCannotBeReadIsNamed() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let missing = try f.migrate(["fleet", "restore"] + f.models + ["--log", "none.jsonl"])
        #expect(missing.status == 1)
        #expect(
            missing.stderr.contains("none.jsonl: cannot read the log: No such file or directory"), "\(missing.stderr)")
    }
}
