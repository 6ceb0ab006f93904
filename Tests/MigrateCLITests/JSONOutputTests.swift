import Foundation
import TestSupport
import Testing

/// `--json` on every command, success and failure: stdout is JSON (JSON Lines for
/// `apply` and `dump`), and a failure carries `{"error": {"message", "exitCode"}}`
/// whose exit code is the process's.
@Suite struct JSONOutputTests {
    /// Every line of stdout parsed as a JSON object.
    static func objects(_ text: String) throws -> [[String: Any]] {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("{\n") || !trimmed.contains("\n") {
            return [
                try #require(try JSONSerialization.jsonObject(with: Data(trimmed.utf8)) as? [String: Any], "\(text)")
            ]
        }
        return try trimmed.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    /// Asserts the error object of a failed command.
    static func expectError(
        _ result: CommandResult, _ status: Int32, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws {
        #expect(result.status == status, "\(result)", sourceLocation: sourceLocation)
        let last = try #require(try objects(result.stdout).last, sourceLocation: sourceLocation)
        let error = try #require(last["error"] as? [String: Any], "\(result.stdout)", sourceLocation: sourceLocation)
        #expect((error["message"] as? String)?.isEmpty == false, sourceLocation: sourceLocation)
        #expect(error["exitCode"] as? Int == Int(status), sourceLocation: sourceLocation)
    }

    @Test func everyCommandSpeaksJSONOnSuccessAndFailure() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        let m = f.models

        // validate
        #expect(try Self.objects(try f.migrate(["validate", "--json"] + m).stdout).first?["valid"] as? Bool == true)
        try f.directory.write(
            "Bad/Stock/1.yaml", "model: Stock\nversion: 1\nentities:\n  Item:\n    attributes: { n: strin }\n")
        try Self.expectError(try f.migrate(["validate", "--json", "--models", "Bad"]), 1)
        // compile
        #expect(try Self.objects(try f.migrate(["compile", "--json"] + m).stdout).isEmpty == false)
        try Self.expectError(try f.migrate(["compile", "--json", "--models", "Bad"]), 1)
        // The summary is text: with --json it is a usage error, not text under exit 0.
        let both = try f.migrate(["compile", "--json", "--summary"] + m)
        try Self.expectError(both, 64)
        #expect(both.stdout.contains("--summary prints text and --json prints JSON: give one of them"), "\(both)")
        // diff
        #expect(try Self.objects(try f.migrate(["diff", "--json", "1", "2"] + m).stdout).first?["mapping"] != nil)
        try Self.expectError(try f.migrate(["diff", "--json", "1", "9"] + m), 64)
        // create
        #expect(
            try Self.objects(try f.migrate(["create", "--json", "new.sqlite"] + m).stdout).first?["version"] as? Int
                == 2)
        try Self.expectError(try f.migrate(["create", "--json", "new.sqlite"] + m), 1)
        // inspect
        #expect(
            try Self.objects(try f.migrate(["inspect", "--json", store] + m).stdout).first?["recognizedVersion"] as? Int
                == 1)
        try Self.expectError(try f.migrate(["inspect", "--json", "nothing.sqlite"] + m), 1)
        // status
        #expect(
            try Self.objects(try f.migrate(["status", "--json", store] + m).stdout).first?["status"] as? String
                == "migration-needed")
        try Self.expectError(try f.migrate(["status", "--json", "nothing.sqlite"] + m), 1)
        // plan
        #expect(try Self.objects(try f.migrate(["plan", "--json", store] + m).stdout).first?["hops"] != nil)
        try Self.expectError(try f.migrate(["plan", "--json", "nothing.sqlite"] + m), 1)
        // load and dump
        try f.directory.write("owners.jsonl", #"{"name":"Ann"}"# + "\n")
        let loaded = try f.migrate(["load", "--json", "new.sqlite", "Owner", "owners.jsonl"] + m)
        #expect(try Self.objects(loaded.stdout).first?["loaded"] as? Int == 1)
        try Self.expectError(try f.migrate(["load", "--json", "new.sqlite", "Robot", "owners.jsonl"] + m), 64)
        #expect(
            try Self.objects(try f.migrate(["dump", "--json", "new.sqlite", "Owner"] + m).stdout).first?["name"]
                as? String == "Ann")
        try Self.expectError(try f.migrate(["dump", "--json", "nothing.sqlite", "Owner"] + m), 1)
        // apply: JSON Lines ending in done, or in failed with the error object
        let applied = try Self.objects(try f.migrate(["apply", "--json", store] + m).stdout)
        #expect(applied.last?["event"] as? String == "done")
        let failed = try f.migrate(["apply", "--json", "nothing.sqlite"] + m)
        try Self.expectError(failed, 1)
        #expect(try Self.objects(failed.stdout).last?["event"] as? String == "failed")
        // import
        try Self.expectError(try f.migrate(["import", "--json", "nothing.xcdatamodeld", "-o", "Imported"]), 1)
        // diagram
        #expect(
            (try Self.objects(try f.migrate(["diagram", "--json"] + m).stdout).first?["diagram"] as? String)?.hasPrefix(
                "erDiagram") == true)
        try Self.expectError(try f.migrate(["diagram", "--json", "7"] + m), 64)
    }

    /// A request the argument parser refuses is the same error object on stdout
    /// with `--json` (exit 64, status `usage`), nothing on stderr; without
    /// `--json` it stays the parser's text; help stays help.
    @Test func usageErrorsSpeakJSONToo() throws {
        let f = try StockFixture()
        defer { f.remove() }
        for (arguments, message) in [
            (["apply", "--json", "--bogus", "x.sqlite"], "Unknown option '--bogus'"),
            (["plan", "--json"], "Missing expected argument '<store>'"),
            (["fleet", "apply", "--json", "--jobs", "abc"], "The value 'abc' is invalid for '--jobs <n>'"),
        ] {
            let result = try f.migrate(arguments)
            try Self.expectError(result, 64)
            let error = try #require(try Self.objects(result.stdout).last?["error"] as? [String: Any])
            #expect(error["message"] as? String == message, "\(arguments)")
            #expect(error["status"] as? String == "usage")
            #expect(result.stderr.isEmpty, "\(result.stderr)")
        }
        let text = try f.migrate(["apply", "--bogus", "x.sqlite"])
        #expect(text.status == 64)
        #expect(text.stderr.contains("Error: Unknown option '--bogus'"))
        let help = try f.migrate(["apply", "--json", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("OVERVIEW:"))
    }
}
