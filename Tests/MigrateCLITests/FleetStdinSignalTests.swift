import Foundation
import TestSupport
import Testing

/// A fleet run reading its stores from standard input stops on a signal at once,
/// even while the writer keeps the pipe open: the list is cut short and the run
/// ends interrupted (143), with its summary.
@Suite struct FleetStdinSignalTests {
    @Test func aSignalEndsTheWaitForMoreStores() throws {
        let f = try StockFixture()
        defer { f.remove() }
        try f.store("fleet/a.sqlite")
        try f.store("fleet/b.sqlite")
        let pipe = Pipe()
        let runner = try BackgroundMigrate(
            ["fleet", "apply"] + f.models + ["--stores-from", "-", "--jobs", "1", "--json"], in: f.directory.path, stdin: pipe)
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
        #expect(try FleetCommandTests.statuses(outcome.stdout) == ["fleet/a.sqlite": "migrated", "fleet/b.sqlite": "migrated"])
        #expect(try FleetCommandTests.records(outcome.stdout, event: "summary").first?["exitCode"] as? Int == 143)
    }
}
