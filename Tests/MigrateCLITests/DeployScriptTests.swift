import Foundation
import TestSupport
import Testing

/// The README's deploy script, as it is written there, run at three releases of a
/// model: it must work unchanged every time, leaving one backup per migration.
@Suite struct DeployScriptTests {
    /// The shell block after the `deploy-script` marker of the README (or of `file`).
    static func script(in file: String = "README.md") throws -> String {
        let readme = try String(contentsOfFile: TestModels.packageRoot + "/" + file, encoding: .utf8)
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
        // Under the store's own folder path beneath `backups` (a path below it each).
        func backups() throws -> [String] { BackupCommandTests.files(under: f.path("backups")) }
        func names() throws -> [String] { try backups().map { ($0 as NSString).lastPathComponent } }

        // Release 1 ships version 1 only: the store is current.
        try FileManager.default.moveItem(atPath: f.path("Models/Stock/2.yaml"), toPath: f.path("v2.yaml"))
        var result = try deploy()
        #expect(result.status == 0, "\(result)")
        #expect(try backups() == [])

        // Release 2 ships version 2: migrated, one backup of version 1.
        try FileManager.default.moveItem(atPath: f.path("v2.yaml"), toPath: f.path("Models/Stock/2.yaml"))
        result = try deploy()
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout.contains(
                "to restore the backup: migrate restore \(store) --backup-dir backups --version 1\n"),
            "\(result.stdout)")
        var files = try names()
        #expect(files.count == 1 && files[0].hasPrefix("stock.v1-to-2.") && files[0].hasSuffix("Z.sqlite"), "\(files)")
        let backup = try #require(try backups().first)
        #expect(
            try StockStore.summary(path: f.path("backups/" + backup))
                == StockStore.expected(version: 1, items: StockFixture.smallItems))

        // Release 3 ships version 3: the same script migrates again, a second backup.
        try f.directory.write(
            "Models/Stock/3.yaml",
            StockStore.v2.replacingOccurrences(of: "version: 2", with: "version: 3")
                .replacingOccurrences(
                    of: "      name: string\n    relationships:\n      items:",
                    with: "      name: string\n      city: string?\n    relationships:\n      items:"))
        result = try deploy()
        #expect(result.status == 0, "\(result)")
        files = try names()
        #expect(files.count == 2 && files.contains { $0.hasPrefix("stock.v2-to-3.") }, "\(files)")
        #expect(try f.migrate(["status"] + f.models + [store]).status == 0)

        // And once more with nothing to do.
        result = try deploy()
        #expect(result.status == 0, "\(result)")
        #expect(try backups().count == 2)
    }

    /// Docs/Deploying.md's script: a fresh server, a destructive release refused
    /// until allowed, a backup in the one absolute folder, and a rollback with
    /// `restore`.
    @Test func theDeployingScriptCreatesGatesAndRollsBack() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let backups = f.path("shared/backups")
        try f.directory.write(
            "deploy.sh", "STORE=stock.sqlite\nBACKUPS=\(backups)\n" + (try Self.script(in: "Docs/Deploying.md")))
        let bin = (CommandRunner.migratePath as NSString).deletingLastPathComponent
        func deploy(_ environment: String = "") throws -> CommandResult {
            try CommandRunner.run(
                "/bin/bash", ["-c", "PATH=\(bin):$PATH \(environment) bash deploy.sh"], in: f.directory.path)
        }
        // A fresh server at release 2 (version 2): the store is created, no backup.
        var result = try deploy()
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout.hasPrefix(
                "created stock.sqlite: no store was there (--create-if-missing); model Stock version 2\n"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: backups))

        // A server still at version 1 with data: release 2 drops Item.note, which
        // holds values: refused (exit 6 inside, the script stops), store unchanged.
        try FileManager.default.removeItem(atPath: f.path("stock.sqlite"))
        try f.store()
        let before = f.snapshot("stock.sqlite")
        result = try deploy()
        #expect(result.status == 1, "\(result)")
        #expect(
            result.stderr.contains(
                "has 1 destructive step (--fail-on-destructive); nothing was changed:\n  Item.note is dropped"),
            "\(result)")
        #expect(f.snapshot("stock.sqlite") == before)

        // Allowed: migrated, one backup in the shared folder.
        result = try deploy("ALLOW_DATA_LOSS=1")
        #expect(result.status == 0, "\(result)")
        let files = BackupCommandTests.files(under: backups).map { ($0 as NSString).lastPathComponent }
        #expect(files.count == 1 && files[0].hasPrefix("stock.v1-to-2."), "\(files)")
        #expect(try StockStore.summary(path: f.path("stock.sqlite")).version == 2)

        // Rolled back to release 1 (version 1 only): apply exits 5 and names restore, which puts version 1 back.
        try FileManager.default.removeItem(atPath: f.path("Models/Stock/2.yaml"))
        let refused = try f.migrate(["apply"] + f.models + ["stock.sqlite"])
        #expect(refused.status == 5)
        #expect(
            refused.stderr.contains("`migrate restore stock.sqlite --backup-dir DIR --version 1`"), "\(refused.stderr)")
        let restore = try f.migrate(
            ["restore"] + f.models + ["stock.sqlite", "--backup-dir", backups, "--version", "1"])
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(
            try StockStore.summary(path: f.path("stock.sqlite"))
                == StockStore.expected(version: 1, items: StockFixture.smallItems))
        result = try deploy()
        #expect(result.status == 0, "\(result)")
    }
}
