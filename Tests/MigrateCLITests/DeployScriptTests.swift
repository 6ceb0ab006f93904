import Foundation
import Testing
import TestSupport

/// The README's deploy script, as it is written there, run at three releases of a
/// model: it must work unchanged every time, leaving one backup per migration.
@Suite struct DeployScriptTests {
    /// The shell block after the README's `deploy-script` marker.
    static func script() throws -> String {
        let readme = try String(contentsOfFile: TestModels.packageRoot + "/README.md", encoding: .utf8)
        let marker = try #require(readme.range(of: "<!-- deploy-script"))
        let rest = readme[marker.upperBound...]
        let start = try #require(rest.range(of: "```sh\n"))
        let end = try #require(rest[start.upperBound...].range(of: "```"))
        return String(rest[start.upperBound..<end.lowerBound])
    }

    @Test func theDeployScriptWorksReleaseAfterRelease() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        let script = "set -u\nSTORE=\(store)\n" + (try Self.script())
        try f.directory.write("deploy.sh", script)
        // `migrate` on the PATH, run where Models/ is, as a deploy job would.
        let bin = (CommandRunner.migratePath as NSString).deletingLastPathComponent
        func deploy() throws -> CommandResult {
            try CommandRunner.run("/bin/bash", ["-c", "PATH=\(bin):$PATH bash deploy.sh"], in: f.directory.path)
        }
        func backups() throws -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: f.path("backups"))) ?? []).sorted()
        }

        // Release 1 ships version 1 only: the store is current.
        try FileManager.default.moveItem(atPath: f.path("Models/Stock/2.yaml"), toPath: f.path("v2.yaml"))
        var result = try deploy()
        #expect(result.status == 0, "\(result)")
        #expect(try backups() == [])

        // Release 2 ships version 2: migrated, one backup of version 1.
        try FileManager.default.moveItem(atPath: f.path("v2.yaml"), toPath: f.path("Models/Stock/2.yaml"))
        result = try deploy()
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("to restore the backup, with nothing using the store: cp backups/stock.v1-to-2."), "\(result.stdout)")
        var files = try backups()
        #expect(files.count == 1 && files[0].hasPrefix("stock.v1-to-2.") && files[0].hasSuffix("Z.sqlite"), "\(files)")
        #expect(try StockStore.summary(path: f.path("backups/" + files[0])) == StockStore.expected(version: 1, items: StockFixture.smallItems))

        // Release 3 ships version 3: the same script migrates again, a second backup.
        try f.directory.write("Models/Stock/3.yaml", StockStore.v2.replacingOccurrences(of: "version: 2", with: "version: 3")
            .replacingOccurrences(of: "      name: string\n    relationships:\n      items:",
                                  with: "      name: string\n      city: string?\n    relationships:\n      items:"))
        result = try deploy()
        #expect(result.status == 0, "\(result)")
        files = try backups()
        #expect(files.count == 2 && files.contains { $0.hasPrefix("stock.v2-to-3.") }, "\(files)")
        #expect(try f.migrate(["status"] + f.models + [store]).status == 0)

        // And once more with nothing to do.
        result = try deploy()
        #expect(result.status == 0, "\(result)")
        #expect(try backups().count == 2)
    }
}
