import Foundation
import TestSupport
import Testing

/// Whatever a model file, a store or the command line holds, no control character
/// but a line feed or a tab reaches the terminal through what the tool says: an ESC
/// sequence (here one setting the window's title and one clearing the screen) is
/// written as `\u001b`, a C1 control as `\u0085`.
@Suite struct ControlCharacterTests {
    /// The control characters a run's output holds, other than line feeds and tabs.
    static func controls(_ text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.filter {
            ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value)
        }
    }

    @Test func nothingTheToolSaysDrivesTheTerminal() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let hostile = "\u{1B}]0;title\u{7}\u{1B}[2J\u{85}"
        let version1 = "model: Tag\nversion: 1\nentities:\n  Tag:\n    attributes: { code: string? }\n"
        let version2 = """
            model: Tag
            version: 2
            identifier: "v2\\e]0;title\\a\\e[2J\\N"
            entities:
              Tag:
                attributes:
                  code: string?
                  note: { type: string, default: "d\\e[31m\\N" }

            """
        try f.directory.write("Tags/Tag/1.yaml", version1)
        try f.directory.write("Tags/Tag/2.yaml", version2)
        try f.directory.write("Empty/.keep", "")
        let models = ["--models", "Tags", "--migrations", "Empty"]
        #expect(try f.migrate(["create", "t.sqlite", "--version", "1"] + models).status == 0)
        let runs: [[String]] = [
            ["plan", "t.sqlite"], ["plan", "t.sqlite", "--sql"], ["compile", "--summary", "--models", "Tags"],
            ["diff", "1", "2", "--model", "Tag"], ["diagram", "--models", "Tags"],
            ["load", "t.sqlite", "Tag\(hostile)", "-"], ["fetch", "t.sqlite", "Tag", "--where", "code == \(hostile)"],
            ["status", "no\(hostile).sqlite"],
        ]
        for arguments in runs {
            let run = try f.migrate(arguments + (arguments.contains("--models") ? [] : models))
            #expect(Self.controls(run.stdout + run.stderr).isEmpty, "\(arguments): \(run)")
            #expect((run.stdout + run.stderr).contains("\\u001b"), "\(arguments): \(run)")
        }
        #expect(try f.migrate(["apply", "t.sqlite"] + models).status == 0)
        let update = try f.migrate(["update", "t.sqlite", "Tag", "--set", "co\(hostile)de = 'x'"] + models)
        #expect(update.status == 64 && Self.controls(update.stderr).isEmpty, "\(update)")
        #expect(update.stderr.contains(#"co\u001b]0;title\u0007"#), "\(update)")
        let inspect = try f.migrate(["inspect", "t.sqlite"] + models)
        #expect(Self.controls(inspect.stdout + inspect.stderr).isEmpty, "\(inspect)")
        #expect(inspect.stdout.contains(#"v2\u001b]0;title\u0007\u001b[2J\u0085"#), "\(inspect)")
    }
}
