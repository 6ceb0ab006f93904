import Foundation
import TestSupport
import Testing

/// The CLI list of Docs/CLI.md (its first code block)
/// against `--help`: every command is listed, and each line names exactly the
/// options its command takes (`--models`, `--migrations`, `--json` are every
/// command's and are described below the list).
@Suite struct HelpListTests {
    static let list: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let document = (try? String(contentsOf: root.appendingPathComponent("Docs/CLI.md"), encoding: .utf8)) ?? ""
        guard let open = document.range(of: "\n```\n"),
            let close = document.range(of: "\n```", range: open.upperBound..<document.endIndex)
        else { return "Docs/CLI.md: no CLI list" }
        return String(document[open.upperBound..<close.lowerBound])
    }()

    static let everyCommands: Set<String> = ["--models", "--migrations", "--json", "--verbose", "--help", "-h"]

    /// Option names in a line of the list (`-o`, `--to`…), `--version` of `create` included.
    static func options(inListLine line: String) -> Set<String> {
        Set(
            line.split(whereSeparator: { " []|,();:".contains($0) }).compactMap { word in
                word.wholeMatch(of: /--?[a-z][a-z-]*/).map { String($0.output) }
            })
    }

    /// Option names in the OPTIONS section of a `--help` text: `-o, --output <file>` gives both.
    static func options(inHelp help: String) -> Set<String> {
        var names: Set<String> = []
        var inOptions = false
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasSuffix(":") && !line.hasPrefix(" ") {
                inOptions = line == "OPTIONS:"
                continue
            }
            guard inOptions, line.hasPrefix("  -") else { continue }
            let head = line.dropFirst(2).components(separatedBy: "  ")[0]
            for match in head.matches(of: /--?[a-z][a-z-]*/) { names.insert(String(match.output)) }
        }
        return names
    }

    func help(_ command: [String]) throws -> String {
        let result = try InProcess.migrate(command + ["--help"])
        #expect(result.status == 0, "\(command)")
        return result.stdout
    }

    @Test func everyCommandIsListed() throws {
        var subcommands: [String] = []
        var inList = false
        for line in try help([]).split(separator: "\n") {
            if line == "SUBCOMMANDS:" {
                inList = true
                continue
            }
            // Wrapped abstracts are indented further than the names.
            if inList, line.hasPrefix("  "), !line.hasPrefix("   "), let name = line.split(separator: " ").first,
                name != "See"
            {
                subcommands.append(String(name))
            }
            if inList, !line.hasPrefix(" ") { inList = false }
        }
        let listed = Self.list.split(separator: "\n").map { $0.split(separator: " ")[1] }.map(String.init)
        #expect(subcommands.sorted() == Set(listed).sorted())
    }

    @Test(arguments: list.split(separator: "\n").map(String.init))
    func eachLineNamesTheOptionsOfItsCommand(line: String) throws {
        let words = line.split(separator: " ")
        var commands: [[String]] = [[String(words[1])]]
        if words[1] == "fleet" || words[1] == "backups" {
            commands = words[2].split(separator: "|").map { [String(words[1]), String($0)] }
        }
        var fromHelp: Set<String> = []
        for command in commands { fromHelp.formUnion(Self.options(inHelp: try help(command))) }
        // `--version` is only where it picks a model version (`migrate --version`, the
        // tool's, is the root command's alone).
        fromHelp.subtract(Self.everyCommands)
        var listed = Self.options(inListLine: line)
        // `-o FILE` in the list stands for `-o, --output`.
        if listed.contains("-o") { listed.insert("--output") }
        #expect(
            fromHelp == listed,
            """
            \(words[1]): only in --help: \(fromHelp.subtracting(listed).sorted()); only listed: \
            \(listed.subtracting(fromHelp).sorted())
            """
        )
    }
}
