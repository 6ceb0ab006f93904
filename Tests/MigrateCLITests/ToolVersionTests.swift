import Foundation
import TestSupport
import Testing

/// `migrate --version` prints the version CHANGELOG.md's top entry names.
@Suite struct ToolVersionTests {
    @Test func theVersionIsTheChangelogsTopEntry() throws {
        let changelog = try String(contentsOfFile: TestModels.packageRoot + "/CHANGELOG.md", encoding: .utf8)
        let top = try #require(changelog.split(separator: "\n").first { $0.hasPrefix("## ") })
        let number = try #require(top.dropFirst(3).split(separator: " ").first)
        let printed = try CommandRunner.migrate(["--version"], in: NSTemporaryDirectory())
        #expect(printed.status == 0)
        #expect(printed.stdout == "\(number)\n")
        #expect(number.split(separator: ".").count == 3 && number.split(separator: ".").allSatisfy { Int($0) != nil })
    }
}
