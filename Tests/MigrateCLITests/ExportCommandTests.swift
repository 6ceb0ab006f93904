import Foundation
import TestSupport
import Testing

/// `migrate export`, run as a developer runs it: the built binary writing a bundle
/// that `migrate import` reads back into the same versions.
@Suite struct ExportCommandTests {
    static let v1 = """
        model: Notes
        version: 1
        entities:
          Note:
            attributes: { text: string, pinned: { type: boolean, default: false } }
        """
    static let v2 = """
        model: Notes
        version: 2
        identifier: "2.0"
        entities:
          Note:
            attributes: { body: { type: string, renamedFrom: text }, pinned: { type: boolean, default: false } }
        """

    @Test func exportsImportsBackAndRefusesToOverwrite() throws {
        let project = try TemporaryDirectory(prefix: "ExportCommandTests")
        defer { project.remove() }
        try project.write("Models/Notes/1.yaml", Self.v1)
        try project.write("Models/Notes/2.yaml", Self.v2)

        let export = try CommandRunner.migrate(["export", "--model", "Notes", "-o", "Notes.xcdatamodeld"], in: project.path)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout == "wrote Notes.xcdatamodeld: 2 versions, current Notes 2.xcdatamodel\n")
        let contents = try String(contentsOfFile: project.file("Notes.xcdatamodeld/Notes 2.xcdatamodel/contents"), encoding: .utf8)
        #expect(contents.contains(#"<attribute name="body" attributeType="String" elementID="text"/>"#))
        #expect(
            try String(contentsOfFile: project.file("Notes.xcdatamodeld/.xccurrentversion"), encoding: .utf8)
                .contains("<string>Notes 2.xcdatamodel</string>"))

        let reimport = try CommandRunner.migrate(["import", "Notes.xcdatamodeld", "-o", "Again"], in: project.path)
        #expect(reimport.status == 0, "\(reimport.stderr)")
        let original = try CommandRunner.migrate(["compile", "--summary", "Models/Notes"], in: project.path)
        let again = try CommandRunner.migrate(["compile", "--summary", "Again/Notes"], in: project.path)
        #expect(original.stdout == again.stdout)

        let refused = try CommandRunner.migrate(["export", "--model", "Notes", "-o", "Notes.xcdatamodeld"], in: project.path)
        #expect(refused.status == 1)
        #expect(refused.stderr == "error: Notes.xcdatamodeld exists; pass --force to replace it\n")
        let forced = try CommandRunner.migrate(["export", "--model", "Notes", "-o", "Notes.xcdatamodeld", "--force", "--json"], in: project.path)
        #expect(forced.status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(forced.stdout.utf8)) as? [String: Any])
        #expect(report["versions"] as? [String] == ["Notes.xcdatamodel", "Notes 2.xcdatamodel"])

        let unknown = try CommandRunner.migrate(["export", "--model", "Nope", "-o", "Nope.xcdatamodeld"], in: project.path)
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no such model folder (models under ./Models: Notes)"))
        let badName = try CommandRunner.migrate(["export", "--model", "Notes", "-o", "Notes.bundle"], in: project.path)
        #expect(badName.status == 64)
    }
}
