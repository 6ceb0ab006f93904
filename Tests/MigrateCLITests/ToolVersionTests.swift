import Foundation
import TestSupport
import Testing

/// `migrate --version` prints the version CHANGELOG.md's top entry names.
@Suite struct ToolVersionTests {
    @Test func theVersionIsTheChangelogsTopEntry() throws {
        let changelog = try String(contentsOfFile: TestModels.packageRoot + "/CHANGELOG.md", encoding: .utf8)
        let top = try #require(changelog.split(separator: "\n").first { $0.hasPrefix("## ") })
        let number = try #require(top.dropFirst(3).split(separator: " ").first)
        // The binary: `--version` is answered on the way in, as the process starts.
        let printed = try CommandRunner.migrate(["--version"], in: NSTemporaryDirectory())
        #expect(printed.status == 0)
        #expect(printed.stdout == "\(number)\n")
        #expect(number.split(separator: ".").count == 3 && number.split(separator: ".").allSatisfy { Int($0) != nil })
    }

    /// The tool's `--version` is the root command's alone: `restore --version N`
    /// and `create --version N` mean a model version, listed once in their help.
    @Test func subcommandsListTheirOwnVersionOptionOnce() throws {
        for command in ["restore", "create", "fleet restore"] {
            let help = try InProcess.migrate(
                command.split(separator: " ").map(String.init) + ["--help"], in: NSTemporaryDirectory())
            let options = help.stdout.split(separator: "\n").filter { $0.hasPrefix("  --version") }
            #expect(options.count == 1, "\(command): \(options)")
            #expect(options.first?.hasPrefix("  --version <n>") == true)
        }
    }
}
