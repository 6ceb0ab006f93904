import Foundation
import TestSupport
import Testing

/// Expression results that cannot be stored fail the command naming the object, the
/// store unchanged (`update`), and a regular expression that backtracks for ever
/// stops on SIGTERM (`apply`).
@Suite struct ExpressionFailureCommandTests {
    func update(_ shop: MigrationScenario, _ arguments: [String]) throws -> CommandResult {
        try InProcess.migrate(
            ["update", shop.storePath, "Customer"] + arguments + ["--models", shop.modelsFolder])
    }

    /// `substringFromIndex:` past the end fails the update as it fails a migration
    /// (NSRangeException); update has no `onFailure: nil`.
    @Test func anIndexPastTheEndFailsTheUpdateNamingTheObject() throws {
        let shop = try ShopModel.scenario()
        defer { shop.remove() }
        let before = try StoreDump.dump(shop.storePath)
        let result = try update(
            shop, ["--set", "note = FUNCTION(name, 'substringFromIndex:', 99)", "--where", "name == 'Ann'"])
        #expect(result.status == 1)
        #expect(
            result.stderr == """
                error: Customer 1: note: substringFromIndex: 99 is beyond the end of 'Ann' (3 UTF-16 units); nothing \
                was changed

                """)
        #expect(try StoreDump.dump(shop.storePath) == before)
        // Within the text it is set.
        let fits = try update(
            shop, ["--set", "note = FUNCTION(name, 'substringFromIndex:', 1)", "--where", "name == 'Ann'"])
        #expect(fits.status == 0, "\(fits.stderr)")
        #expect(try shop.rows("SELECT ZNOTE FROM ZCUSTOMER WHERE Z_PK = 1").map { "\($0[0])" } == ["'nn'"])
    }

    /// A zero divisor fails the update naming the object (NSExpression's `divide:by:`
    /// raises or gives an infinity, never nil); in a fetch it is nil, as SQLite gives.
    @Test func aDivisionByZeroFailsTheUpdateNamingTheObject() throws {
        let shop = try ShopModel.scenario()
        defer { shop.remove() }
        let before = try StoreDump.dump(shop.storePath)
        let result = try update(shop, ["--set", "visits = visits / (visits - visits)", "--where", "name == 'Ann'"])
        #expect(result.status == 1)
        #expect(result.stderr == "error: Customer 1: visits: division by zero; nothing was changed\n")
        #expect(try StoreDump.dump(shop.storePath) == before)
        let fits = try update(shop, ["--set", "visits = visits / 1", "--where", "name == 'Ann'"])
        #expect(fits.status == 0, "\(fits.stderr)")
    }

    /// Integer arithmetic past Int64 computes in REAL in SQLite: no integer column
    /// takes that value.
    @Test func anOverflowingSetFailsNamingTheObjects() throws {
        let shop = try ShopModel.scenario()
        defer { shop.remove() }
        let before = try StoreDump.dump(shop.storePath)
        let result = try update(
            shop, ["--set", "visits = visits * 9223372036854775807 * 4", "--where", "name == 'Ann'"])
        #expect(result.status == 1)
        #expect(
            result.stderr == """
                error: 1 object would break the model; nothing was changed:
                  Customer 1: visits: 4.4272185776902924e+20 is out of range for integer32 (-2147483648...2147483647)

                """)
        #expect(try StoreDump.dump(shop.storePath) == before)
    }

    static let notes1 = "model: Notes\nversion: 1\nentities:\n  Note:\n    attributes: { text: string }\n"
    static let notes2 =
        "model: Notes\nversion: 2\nentities:\n  Note:\n    attributes: { text: string, clean: string? }\n"

    /// `(a+)+$` on `aaa…ab` backtracks 2^n times: SIGTERM stops the match itself,
    /// within seconds, and the apply rolls back; in a value and in a filter.
    @Test(
        .ownThread,
        arguments: [
            "    properties:\n      clean: { value: \"replace:matching:with:($source.text, '(a+)+$', 'x')\" }\n",
            "    filter: \"text MATCHES '(a+)+'\"\n",
        ])
    func sigtermStopsABacktrackingPattern(_ mapping: String) throws {
        let directory = try TemporaryDirectory(prefix: "regex-sigterm")
        defer { directory.remove() }
        try directory.write("Models/Notes/1.yaml", Self.notes1)
        try directory.write("Models/Notes/2.yaml", Self.notes2)
        try directory.write("Migrations/Notes/1-to-2.yaml", "entities:\n  Note:\n" + mapping)
        // ICU gives up on one whole-text match after about half a second here (its
        // backtracking stack is bounded), so many rows keep the apply busy for longer
        // than the wait below, however fast the machine.
        let backtracking = #"{"text": "\#(String(repeating: "a", count: 60))b"}"# + "\n"
        try directory.write("notes.jsonl", #"{"text": "short"}"# + "\n" + String(repeating: backtracking, count: 60))
        let create = try InProcess.migrate(
            ["create", "--models", "Models", "--model", "Notes", "--version", "1", "notes.sqlite"], in: directory.path)
        #expect(create.status == 0, "\(create.stderr)")
        let load = try InProcess.migrate(
            ["load", "--models", "Models", "notes.sqlite", "Note", "notes.jsonl"], in: directory.path)
        #expect(load.status == 0, "\(load.stderr)")
        let store = directory.file("notes.sqlite")
        let before = try StoreDump.dump(store)
        let bytes = FileManager.default.contents(atPath: store)

        let run = try BackgroundMigrate(
            ["apply", "notes.sqlite", "--models", "Models", "--migrations", "Migrations"], in: directory.path)
        run.waitUntilItOpens(store)
        // Inside the matching: starting and planning take a small part of this CPU time.
        run.waitUntilItHasWorked(cpuSeconds: 0.6)
        #expect(run.process.isRunning, "the apply ended before the signal: the pattern did not backtrack")
        let sent = Date()
        kill(run.pid, SIGTERM)
        while run.process.isRunning, Date().timeIntervalSince(sent) < 10 { usleep(50_000) }
        let stopped = !run.process.isRunning
        if !stopped { kill(run.pid, SIGKILL) }
        let outcome = run.finish()
        #expect(stopped, "still running 10 s after SIGTERM")
        #expect(outcome.status == 128 + SIGTERM, "\(outcome)")
        #expect(outcome.stderr.hasSuffix("error: interrupted: rolled back, the store is unchanged\n"), "\(outcome)")
        #expect(try StoreDump.dump(store) == before)
        #expect(FileManager.default.contents(atPath: store) == bytes)
    }
}
