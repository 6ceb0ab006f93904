import Foundation
import TestSupport
import Testing

/// What the built binary meets as its process starts: closed standard streams, a narrow
/// terminal, leftovers to sweep before it prints its help. A run in process cannot show
/// these: they belong to the process.
@Suite struct ToolStartTests {
    /// Runs `script` (bash) in the fixture's folder, `$0` being the built `migrate`.
    private func bash(_ f: CLIFixture, _ script: String, environment: [String: String] = [:]) throws -> CommandResult {
        try CommandRunner.run(
            "/bin/bash", ["-c", script, CommandRunner.migratePath], in: f.directory.path, environment: environment)
    }

    /// A closed stdin stays closed: `--stores-from -` fails at once with EBADF (the signal
    /// watcher's pipe took descriptor 0 and the run read it for ever), `load -` too.
    @Test func aClosedStandardInputIsAnErrorNotAWait() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let store = try f.createContacts(version: 3)
        let fleet = try bash(f, "timeout -k 5 20 \"$0\" fleet apply --models Models --stores-from - <&-")
        #expect(fleet.status == 1, "\(fleet)")
        #expect(fleet.stderr == "error: -: cannot read the store list: Bad file descriptor\n", "\(fleet)")
        let load = try bash(f, "timeout -k 5 20 \"$0\" load --models Models \(store) Person - <&-")
        #expect(load.status == 1, "\(load)")
        #expect(load.stderr == "error: <stdin>: cannot read the file: Bad file descriptor (nothing was loaded)\n")
        #expect(try f.migrate(["dump"] + f.models + [store, "Person"]).stdout == "")
    }

    /// `COLUMNS` under 27 stopped argument-parser (SIGILL, exit 132) on any help; help
    /// is now wrapped at 40 columns at the narrowest.
    @Test(arguments: ["0", "10", "-5", "26", "39"])
    func aNarrowTerminalGetsHelpAtFortyColumns(_ columns: String) throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let narrow = try bash(f, "\"$0\" plan --help", environment: ["COLUMNS": columns])
        let forty = try bash(f, "\"$0\" plan --help", environment: ["COLUMNS": "40"])
        #expect(narrow.status == 0, "\(narrow)")
        #expect(narrow.stdout == forty.stdout)
        #expect(narrow.stdout.hasPrefix("OVERVIEW: Show what apply would do:\nevery hop"), "\(narrow.stdout)")
    }

    /// What the start's sweep removed is said before the help, as before help was
    /// printed by the tool itself: one stream for both shows the note first.
    @Test func theSweepsNoteComesBeforeTheHelp() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let temporary = try TemporaryDirectory(prefix: "tool-start")
        defer { temporary.remove() }
        let name = "x.mm-scratch.read.\(try ExitPathTests.deadProcessID()).0.\(ExitPathTests.namespace).9a"
        try temporary.write(name, "a copy")
        let result = try bash(f, "\"$0\" --help 2>&1", environment: ["TMPDIR": temporary.path])
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first?.hasPrefix("note: removed \(temporary.file(name)) (a private copy") == true, "\(result)")
        #expect(lines.dropFirst().first?.hasPrefix("OVERVIEW: ") == true, "\(result)")
    }
}
