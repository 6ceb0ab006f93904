import Foundation
import TestSupport
import Testing

/// `load` off a terminal says what it is doing at least every 2 seconds: a line on
/// stderr, or a `progress` event on stdout with `--json`, while it waits for a slow
/// producer; `--no-progress` says nothing.
@Suite struct LoadProgressTests {
    /// Runs `load` once per set of `options`, all at once (one wait for all), with
    /// stdin from a producer that writes one person, waits, then another; returns
    /// (status, stdout, stderr) per run.
    private func slowLoads(_ f: CLIFixture, _ stores: [String], _ options: [[String]]) throws -> [(
        Int32, String, String
    )] {
        var runs: [(process: Process, input: Pipe, out: Pipe, err: Pipe)] = []
        for (store, options) in zip(stores, options) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandRunner.migratePath)
            process.arguments = ["load"] + f.models + [store, "Person", "-"] + options
            process.currentDirectoryURL = URL(fileURLWithPath: f.directory.path)
            let input = Pipe(), out = Pipe(), err = Pipe()
            process.standardInput = input
            process.standardOutput = out
            process.standardError = err
            try process.run()
            try input.fileHandleForWriting.write(
                contentsOf: Data(#"{"firstName":"Ann","lastName":"Lee","email":"a@x","age":3}"#.utf8 + [10]))
            runs.append((process, input, out, err))
        }
        Thread.sleep(forTimeInterval: 3.4)
        return try runs.map { run in
            try run.input.fileHandleForWriting.write(
                contentsOf: Data(#"{"firstName":"Bo","lastName":"Ng","email":"b@x","age":4}"#.utf8 + [10]))
            try run.input.fileHandleForWriting.close()
            let stdout = String(decoding: (try? run.out.fileHandleForReading.readToEnd()) ?? Data(), as: UTF8.self)
            let stderr = String(decoding: (try? run.err.fileHandleForReading.readToEnd()) ?? Data(), as: UTF8.self)
            run.process.waitUntilExit()
            return (run.process.terminationStatus, stdout, stderr)
        }
    }

    /// The three ways to run it in one test, so that the suite waits for the slow
    /// producer once, not three times.
    @Test(.ownThread) func progressWhileWaitingForInput() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let stores = try ["a.sqlite", "b.sqlite", "c.sqlite"].map { try f.createContacts($0, version: 3) }
        let runs = try slowLoads(f, stores, [[], ["--json"], ["--no-progress"]])
        aLineOnStderrWhileWaiting(stores[0], runs[0])
        try progressEventsWithJSON(stores[1], runs[1])
        noProgressSaysNothing(stores[2], runs[2])
    }

    func aLineOnStderrWhileWaiting(_ store: String, _ run: (Int32, String, String)) {
        let (status, stdout, stderr) = run
        #expect(status == 0, "\(stderr)")
        #expect(stdout == "loaded 2 Person objects into \(store)\n")
        let lines = stderr.split(separator: "\n")
        // One at 1.5 s and one at 3 s, each saying one line was read so far.
        #expect(lines.count >= 2, "\(stderr)")
        #expect(lines.allSatisfy { $0.hasPrefix("load: 1 lines") }, "\(stderr)")
    }

    func progressEventsWithJSON(_ store: String, _ run: (Int32, String, String)) throws {
        let (status, stdout, stderr) = run
        #expect(status == 0, "\(stderr)")
        #expect(stderr == "")
        let events = stdout.split(separator: "\n").filter { $0.hasPrefix(#"{"bytes":"#) }
        #expect(events.count >= 2, "\(stdout)")
        for event in events {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(event.utf8)) as? [String: Any])
            #expect(object["event"] as? String == "progress")
            #expect(object["phase"] as? String == "reading")
            #expect(object["lines"] as? Int == 1)
            #expect(object["bytes"] as? Int == 59)
            #expect(object["bytesTotal"] == nil)
        }
        // The result follows the events, as without them.
        #expect(
            stdout.hasSuffix("{\n  \"entity\" : \"Person\",\n  \"loaded\" : 2,\n  \"store\" : \"\(store)\"\n}\n"),
            "\(stdout)")
    }

    func noProgressSaysNothing(_ store: String, _ run: (Int32, String, String)) {
        let (status, stdout, stderr) = run
        #expect(status == 0, "\(stderr)")
        #expect(stdout == "loaded 2 Person objects into \(store)\n")
        #expect(stderr == "")
    }
}
