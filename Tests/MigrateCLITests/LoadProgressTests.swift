import Foundation
import TestSupport
import Testing

/// `load` off a terminal says what it is doing at least every 2 seconds: a line on
/// stderr, or a `progress` event on stdout with `--json`, while it waits for a slow
/// producer; `--no-progress` says nothing.
@Suite struct LoadProgressTests {
    /// Runs `load` with stdin from a producer that writes one person, waits, then
    /// another; returns (status, stdout, stderr).
    private func slowLoad(_ f: CLIFixture, _ store: String, _ options: [String]) throws -> (Int32, String, String) {
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
        Thread.sleep(forTimeInterval: 3.4)
        try input.fileHandleForWriting.write(
            contentsOf: Data(#"{"firstName":"Bo","lastName":"Ng","email":"b@x","age":4}"#.utf8 + [10]))
        try input.fileHandleForWriting.close()
        let stdout = String(decoding: (try? out.fileHandleForReading.readToEnd()) ?? Data(), as: UTF8.self)
        let stderr = String(decoding: (try? err.fileHandleForReading.readToEnd()) ?? Data(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stdout, stderr)
    }

    @Test func aLineOnStderrWhileWaiting() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let store = try f.createContacts(version: 3)
        let (status, stdout, stderr) = try slowLoad(f, store, [])
        #expect(status == 0, "\(stderr)")
        #expect(stdout == "loaded 2 Person objects into \(store)\n")
        let lines = stderr.split(separator: "\n")
        // One at 1.5 s and one at 3 s, each saying one line was read so far.
        #expect(lines.count >= 2, "\(stderr)")
        #expect(lines.allSatisfy { $0.hasPrefix("load: 1 lines") }, "\(stderr)")
    }

    @Test func progressEventsWithJSON() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let store = try f.createContacts(version: 3)
        let (status, stdout, stderr) = try slowLoad(f, store, ["--json"])
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

    @Test func noProgressSaysNothing() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let store = try f.createContacts(version: 3)
        let (status, stdout, stderr) = try slowLoad(f, store, ["--no-progress"])
        #expect(status == 0, "\(stderr)")
        #expect(stdout == "loaded 2 Person objects into \(store)\n")
        #expect(stderr == "")
    }
}
