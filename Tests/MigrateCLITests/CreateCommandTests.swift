import Foundation
import TestSupport
import Testing

@Suite struct CreateCommandTests {
    @Test func anExistingFileIsKeptUnlessForced() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        try f.directory.write("existing.sqlite", "precious bytes\n")
        let before = f.snapshot("existing.sqlite")
        let refused = try f.migrate(["create"] + f.models + ["--model", "Contacts", "existing.sqlite"])
        #expect(refused.status == 1)
        #expect(refused.stderr == "error: existing.sqlite: a file already exists here (use --force to replace it)\n")
        #expect(refused.stdout == "")
        #expect(f.snapshot("existing.sqlite") == before)

        let forced = try f.migrate(["create", "--force"] + f.models + ["--model", "Contacts", "existing.sqlite"])
        #expect(forced.status == 0)
        #expect(forced.stderr == "")
        #expect(forced.stdout == "created existing.sqlite: model Contacts version 3\n")
        let bytes = try #require(f.snapshot("existing.sqlite").bytes)
        #expect(Array(bytes.prefix(16)) == Array("SQLite format 3\0".utf8))
        let inspect = try CLIFixture.object(
            try f.migrate(["inspect", "--json"] + f.models + ["existing.sqlite"]).stdout)
        #expect(inspect["recognizedVersion"] as? Int == 3)
        #expect(try f.directory.contents() == ["Models", "existing.sqlite"])
    }

    /// --force replaces a file: a folder at the path is refused with what it holds
    /// (it was removed recursively), and the new store is built beside the old one and
    /// renamed over it, so that nothing but the new store is left.
    @Test func forceNeverRemovesAFolder() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        try f.directory.write("shop.sqlite/keep.txt", "precious\n")
        let refused = try f.migrate(["create", "--force"] + f.models + ["--model", "Contacts", "shop.sqlite"])
        #expect(refused.status == 1)
        #expect(refused.stderr == "error: shop.sqlite: a folder is here; --force replaces only a file\n")
        #expect(try String(contentsOfFile: f.directory.file("shop.sqlite/keep.txt"), encoding: .utf8) == "precious\n")

        try f.directory.write("old.sqlite", "old bytes\n")
        try f.directory.write("old.sqlite-journal", "a journal of the old file\n")
        let forced = try f.migrate(["create", "--force"] + f.models + ["--model", "Contacts", "old.sqlite"])
        #expect(forced.status == 0, "\(forced)")
        #expect(try f.directory.contents() == ["Models", "old.sqlite", "shop.sqlite"])
        #expect(
            try CLIFixture.object(try f.migrate(["inspect", "--json"] + f.models + ["old.sqlite"]).stdout)[
                "recognizedVersion"] as? Int == 3)
    }

    @Test func anUnknownVersionIsAUsageError() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let result = try f.migrate(["create"] + f.models + ["--model", "Contacts", "--version", "9", "new.sqlite"])
        #expect(result.status == 64)
        #expect(result.stderr == "error: model Contacts has no version 9 (versions 1 to 3)\n")
        #expect(result.stdout == "")
        #expect(try f.directory.contents() == ["Models"])
        let unknownModel = try f.migrate(["create"] + f.models + ["--model", "Robots", "new.sqlite"])
        #expect(unknownModel.status == 64)
        #expect(unknownModel.stderr == "error: no model named 'Robots' under Models (found: Contacts)\n")
        #expect(try f.directory.contents() == ["Models"])
    }

    @Test func createAsJSON() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let result = try f.migrate(
            ["create", "--json"] + f.models + ["--model", "Contacts", "--version", "2", "v2.sqlite"])
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                {
                  "forCoreData" : false,
                  "model" : "Contacts",
                  "store" : "v2.sqlite",
                  "version" : 2
                }

                """)
        #expect(f.snapshot("v2.sqlite").sideFiles == [])
    }
}
