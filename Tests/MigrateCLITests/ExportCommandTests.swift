import Foundation
import TestSupport
import Testing

/// `migrate export`, run as a developer runs it (in process): the command writing a bundle
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

        let export = try InProcess.migrate(
            ["export", "--model", "Notes", "-o", "Notes.xcdatamodeld"], in: project.path)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout == "wrote Notes.xcdatamodeld: 2 versions, current Notes 2.xcdatamodel\n")
        let contents = try String(
            contentsOfFile: project.file("Notes.xcdatamodeld/Notes 2.xcdatamodel/contents"), encoding: .utf8)
        #expect(contents.contains(#"<attribute name="body" attributeType="String" elementID="text"/>"#))
        #expect(
            try String(contentsOfFile: project.file("Notes.xcdatamodeld/.xccurrentversion"), encoding: .utf8)
                .contains("<string>Notes 2.xcdatamodel</string>"))

        let reimport = try InProcess.migrate(["import", "Notes.xcdatamodeld", "-o", "Again"], in: project.path)
        #expect(reimport.status == 0, "\(reimport.stderr)")
        let original = try InProcess.migrate(["compile", "--summary", "Models/Notes"], in: project.path)
        let again = try InProcess.migrate(["compile", "--summary", "Again/Notes"], in: project.path)
        #expect(original.stdout == again.stdout)

        let refused = try InProcess.migrate(
            ["export", "--model", "Notes", "-o", "Notes.xcdatamodeld"], in: project.path)
        #expect(refused.status == 1)
        #expect(refused.stderr == "error: Notes.xcdatamodeld exists; pass --force to replace it\n")
        let forced = try InProcess.migrate(
            ["export", "--model", "Notes", "-o", "Notes.xcdatamodeld", "--force", "--json"], in: project.path)
        #expect(forced.status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(forced.stdout.utf8)) as? [String: Any])
        #expect(report["versions"] as? [String] == ["Notes.xcdatamodel", "Notes 2.xcdatamodel"])

        let unknown = try InProcess.migrate(
            ["export", "--model", "Nope", "-o", "Nope.xcdatamodeld"], in: project.path)
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no such model folder (models under ./Models: Notes)"))
        let badName = try InProcess.migrate(["export", "--model", "Notes", "-o", "Notes.bundle"], in: project.path)
        #expect(badName.status == 64)
    }

    /// The mapping files beside the bundle: one `.xcmappingmodel` per file, a policy stub,
    /// the JSON report, omissions as warnings; a file that does not load writes nothing;
    /// `migrate import --mapping-models` of the export gives the mapping file back.
    @Test func writesMappingModelsAndPolicyStubs() throws {
        let project = try TemporaryDirectory(prefix: "ExportCommandTests")
        defer { project.remove() }
        try project.write("Models/Notes/1.yaml", Self.v1)
        try project.write(
            "Models/Notes/2.yaml", Self.v2.replacingOccurrences(of: "pinned: {", with: "words: integer32?, pinned: {"))
        let mapping = """
            entities:
              Note:
                policy: NotePolicy
                filter: "pinned == YES"
                properties:
                  body: { value: "FUNCTION($entityPolicy, 'bodyFromText:', $source.text)" }
                  words: { value: "CAST($source.text, 'NSNumber')", onFailure: nil }

            """
        try project.write("Migrations/Notes/1-to-2.yaml", mapping)

        let export = try InProcess.migrate(
            ["export", "--model", "Notes", "-o", "Xcode/Notes.xcdatamodeld"], in: project.path)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(
            export.stdout == """
                wrote Xcode/Notes.xcdatamodeld: 2 versions, current Notes 2.xcdatamodel
                wrote Xcode/Notes 1 to 2.xcmappingmodel ← 1-to-2.yaml (1 entity mapping, policy NotePolicy)
                wrote Xcode/NotePolicy.swift (NSEntityMigrationPolicy stub)

                """)
        #expect(
            export.stderr
                == "warning: not exported (no place in Xcode's format): 1-to-2.yaml: Note.words: onFailure: nil has no "
                + "place "
                + "in Xcode's format (Core Data fails the migration on a value that does not convert)\n")
        let xml = try String(
            contentsOfFile: project.file("Xcode/Notes 1 to 2.xcmappingmodel/xcmapping.xml"), encoding: .utf8)
        #expect(
            xml.contains(
                "<attribute name=\"sourcemodelpath\" type=\"string\">Notes.xcdatamodeld/Notes.xcdatamodel</attribute>"))
        #expect(xml.contains("<attribute name=\"migrationpolicyclassname\" type=\"string\">NotePolicy</attribute>"))
        let stub = try String(contentsOfFile: project.file("Xcode/NotePolicy.swift"), encoding: .utf8)
        #expect(stub.contains("@objc(bodyFromText:)"))

        // Import of the export: the same mapping file, but for comments and the onFailure Xcode cannot hold.
        let again = try InProcess.migrate(
            [
                "import", "Xcode/Notes.xcdatamodeld", "-o", "Again", "--mapping-models", "Xcode", "--migrations-out",
                "Back",
            ], in: project.path)
        #expect(again.status == 0 || again.status == 4, "\(again.stderr)")
        let back = try String(contentsOfFile: project.file("Back/Notes/1-to-2.yaml"), encoding: .utf8)
        #expect(
            back.contains(
                """
                  Note:
                    policy: NotePolicy
                    filter: "pinned == YES"
                    properties:
                      body: { value: "FUNCTION($entityPolicy, 'bodyFromText:', $source.text)" }
                      words: { value: "CAST($source.text, 'NSNumber')" }
                """))

        // Everything exists: refused, naming each; --force replaces; --json lists the mapping models.
        let refused = try InProcess.migrate(
            ["export", "--model", "Notes", "-o", "Xcode/Notes.xcdatamodeld"], in: project.path)
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "error: Xcode/Notes.xcdatamodeld, Xcode/Notes 1 to 2.xcmappingmodel, Xcode/NotePolicy.swift exist; "
                + "pass --force to replace them\n")
        let forced = try InProcess.migrate(
            ["export", "--model", "Notes", "-o", "Xcode/Notes.xcdatamodeld", "--force", "--json"], in: project.path)
        #expect(forced.status == 0, "\(forced.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(forced.stdout.utf8)) as? [String: Any])
        let models = try #require(report["mappingModels"] as? [[String: Any]])
        #expect(models.map { $0["mappingModel"] as? String } == ["Notes 1 to 2.xcmappingmodel"])
        #expect(models.first?["sourceVersion"] as? Int == 1 && models.first?["destinationVersion"] as? Int == 2)
        #expect(report["policyStubs"] as? [String] == ["NotePolicy.swift"])

        // A mapping file that does not load: exit 1, nothing written.
        try project.write("Migrations/Notes/1-to-2.yaml", "entities:\n  Note:\n    colour: red\n")
        let broken = try InProcess.migrate(
            ["export", "--model", "Notes", "-o", "Fresh/Notes.xcdatamodeld"], in: project.path)
        #expect(broken.status == 1)
        #expect(broken.stderr.contains("colour"), "\(broken.stderr)")
        #expect(!FileManager.default.fileExists(atPath: project.file("Fresh")))
    }
}
