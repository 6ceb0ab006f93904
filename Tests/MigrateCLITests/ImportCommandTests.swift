import Foundation
import TestSupport
import Testing

/// `migrate import`, run as a developer runs it (in process): the command on a temporary
/// `.xcdatamodeld` bundle, checking files written, stdout, stderr and exit codes.
@Suite struct ImportCommandTests {
    static func version(_ identifier: String, _ entities: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22758" \
        systemVersion="23E224" minimumToolsVersion="Automatic" sourceLanguage="Swift" \
        userDefinedModelVersionIdentifier="\(identifier)">
        \(entities)
        </model>
        """
    }

    static let v1 = version(
        "1",
        """
            <entity name="Note" representedClassName="Note" syncable="YES">
                <attribute name="text" attributeType="String"/>
            </entity>
        """)
    static let v2 = version(
        "2",
        """
            <entity name="Note" representedClassName="Note" syncable="YES">
                <attribute name="body" attributeType="String" elementID="text"/>
                <attribute name="pinned" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES"/>
            </entity>
            <fetchRequest name="Pinned" entity="Note" predicateString="pinned == YES"/>
        """)
    static let v10 = version(
        "10",
        """
            <entity name="Note" representedClassName="Note" syncable="YES">
                <attribute name="body" attributeType="String"/>
                <attribute name="pinned" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES"/>
                <attribute name="title" attributeType="String"/>
            </entity>
        """)
    static let current = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>_XCCurrentVersionName</key>
        \t<string>Notes 10.xcdatamodel</string>
        </dict>
        </plist>
        """

    /// `Notes.xcdatamodeld` with versions "Notes", "Notes 2", "Notes 10" (current).
    static func project() throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory(prefix: "import-command")
        try folder.write("Notes.xcdatamodeld/Notes.xcdatamodel/contents", v1)
        try folder.write("Notes.xcdatamodeld/Notes 2.xcdatamodel/contents", v2)
        try folder.write("Notes.xcdatamodeld/Notes 10.xcdatamodel/contents", v10)
        try folder.write("Notes.xcdatamodeld/.xccurrentversion", current)
        return folder
    }

    @Test func importsEveryVersionInOrderAndReportsHops() throws {
        let project = try Self.project()
        defer { project.remove() }
        let result = try InProcess.migrate(
            ["import", "Notes.xcdatamodeld", "-o", "Models", "--report"], in: project.path)
        // Written, but hop 2 → 3 has no migration path yet: exit 4.
        #expect(result.status == 4, "\(result.stderr)")
        #expect(
            result.stdout == """
                wrote Models/Notes/1.yaml ← Notes.xcdatamodel (1 entity)
                wrote Models/Notes/2.yaml ← Notes 2.xcdatamodel (1 entity)
                wrote Models/Notes/3.yaml ← Notes 10.xcdatamodel (1 entity, current in Xcode)

                hops:
                  1 → 2: inferred (lightweight)
                  2 → 3: needs a mapping file (./Migrations/Notes/2-to-3.yaml)
                    Note.title: new required attribute without a default or source
                    remedy: add a default (`title: { type: string, default: … }`), make it optional, or write \
                Migrations/Notes/2-to-3.yaml with a policy for Note

                paths to version 3 (what plan takes from each version):
                  from 1: plan refuses: no lightweight mapping from Notes version 2 to 3 (1 change inference cannot \
                cover):
                    not taken: direct inferred 1 → 3: refused too (Note.body: new required attribute without a default \
                or source; Note.title: new required attribute without a default or source)
                  from 2: plan refuses: no lightweight mapping from Notes version 2 to 3 (1 change inference cannot \
                cover):

                """)
        // Class names and fetch requests are kept for export: nothing to warn about.
        #expect(result.stderr == "")
        let second = try String(contentsOfFile: project.file("Models/Notes/2.yaml"), encoding: .utf8)
        #expect(
            second.hasSuffix(
                """
                model: Notes
                version: 2
                identifier: "2"
                xcode: { minimumToolsVersion: "Automatic", sourceLanguage: "Swift" }
                syncable: entities
                fetchRequests:
                  Pinned: { entity: "Note", predicateString: "pinned == YES" }
                entities:
                  Note:
                    className: "Note"
                    attributes:
                      body: { type: string, renamedFrom: "text" }
                      pinned: { type: boolean, default: false, scalar: true }

                """))
        #expect(second.hasPrefix("# Imported by `migrate import` from Notes.xcdatamodeld/Notes 2.xcdatamodel:\n"))
        let validate = try InProcess.migrate(["validate", "Models"], in: project.path)
        #expect(validate.status == 0)
        #expect(validate.stdout == "Models/Notes: 3 versions valid\n")

        // A mapping file for the hop covers it: exit 0.
        try project.write(
            "Migrations/Notes/2-to-3.yaml",
            """
            entities:
              Note:
                properties:
                  title: { default: "untitled" }

            """)
        let again = try InProcess.migrate(
            ["import", "Notes.xcdatamodeld", "-o", "Models", "--report", "--force"], in: project.path)
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        #expect(
            again.stdout.hasSuffix(
                """
                hops:
                  1 → 2: inferred (lightweight)
                  2 → 3: mapping file ./Migrations/Notes/2-to-3.yaml

                paths to version 3 (what plan takes from each version):
                  from 1: inferred chain 1 → 2, then mapping file 2-to-3.yaml 2 → 3
                  from 2: mapping file 2-to-3.yaml 2 → 3

                """))
    }

    @Test func refusesToOverwriteWithoutForce() throws {
        let project = try Self.project()
        defer { project.remove() }
        #expect(
            try InProcess.migrate(["import", "Notes.xcdatamodeld", "--models", "Models"], in: project.path).status
                == 0)
        let again = try InProcess.migrate(["import", "Notes.xcdatamodeld", "--models", "Models"], in: project.path)
        #expect(again.status == 1)
        #expect(
            again.stderr.hasSuffix(
                """
                error: Models/Notes/1.yaml, Models/Notes/2.yaml, Models/Notes/3.yaml: already exist; pass --force to \
                overwrite\n
                """
            ))
        let forced = try InProcess.migrate(
            ["import", "Notes.xcdatamodeld", "--models", "Models", "--force", "--model", "Memo"], in: project.path)
        #expect(forced.status == 0)
        let forcedAgain = try InProcess.migrate(
            ["import", "Notes.xcdatamodeld", "--models", "Models", "--force"], in: project.path)
        #expect(forcedAgain.status == 0)
        #expect(FileManager.default.fileExists(atPath: project.file("Models/Memo/3.yaml")))
    }

    @Test func anOrderFileChoosesTheNumbers() throws {
        let project = try Self.project()
        defer { project.remove() }
        try project.write("order.txt", "# oldest first\nNotes 10\nNotes\nNotes 2\n")
        let result = try InProcess.migrate(
            ["import", "Notes.xcdatamodeld", "-o", "Out", "--order", "order.txt", "--json"], in: project.path)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let versions = report?["versions"] as? [[String: Any]] ?? []
        #expect(
            versions.compactMap { $0["source"] as? String } == [
                "Notes 10.xcdatamodel", "Notes.xcdatamodel", "Notes 2.xcdatamodel",
            ])
        #expect(
            try String(contentsOfFile: project.file("Out/Notes/1.yaml"), encoding: .utf8).contains(
                "identifier: \"10\"\n"))
    }

    @Test func aVersionThatDoesNotValidateWritesNothing() throws {
        let project = try Self.project()
        defer { project.remove() }
        try project.write(
            "Notes.xcdatamodeld/Notes 2.xcdatamodel/contents",
            Self.version(
                "2",
                """
                    <entity name="Note" syncable="YES">
                        <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" \
                destinationEntity="Person"/>
                    </entity>
                """))
        let result = try InProcess.migrate(["import", "Notes.xcdatamodeld", "-o", "Models"], in: project.path)
        #expect(result.status == 1)
        // The problem points at the Xcode file, line and column (the YAML is never written).
        #expect(
            result.stderr == """
                Notes.xcdatamodeld/Notes 2.xcdatamodel/contents:4:23: error: relationship 'Note.owner': unknown \
                destination entity 'Person' (Models/Notes/2.yaml:12:7 as imported)
                            <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" \
                destinationEntity="Person"/>
                                          ^
                error: the imported model does not validate; nothing was written

                """)
        #expect(!FileManager.default.fileExists(atPath: project.file("Models/Notes")))
    }

    @Test func aRefusedNameIsAnErrorNamingTheFile() throws {
        let project = try Self.project()
        defer { project.remove() }
        try project.write(
            "Notes.xcdatamodeld/Notes 2.xcdatamodel/contents",
            Self.version(
                "2",
                """
                    <entity name="Note" syncable="YES">
                        <attribute name="objectID" attributeType="String"/>
                    </entity>
                """))
        let result = try InProcess.migrate(["import", "Notes.xcdatamodeld"], in: project.path)
        #expect(result.status == 1)
        #expect(
            result.stderr == """
                error: Notes.xcdatamodeld/Notes 2.xcdatamodel/contents:4:20: attribute 'Note.objectID': the name \
                'objectID' is reserved (it clashes with an NSManagedObject member)

                """)
        #expect(
            try InProcess.migrate(["import", "Missing.xcdatamodeld"], in: project.path).stderr
                == "error: Missing.xcdatamodeld: no such file or folder\n")
    }

    /// The corpus bundles, imported, recognise Apple's stores entity by entity.
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpus/CoreDataPlus")
        .path

    @Test(.enabled(if: FileManager.default.fileExists(atPath: corpus)))
    func importedCorpusModelsRecogniseApplesStores() throws {
        let folder = try TemporaryDirectory(prefix: "import-corpus")
        defer { folder.remove() }
        // Each store is the version of the Xcode model it was written with (by name order:
        // the bundles' current marker was never switched from the first version).
        for (bundle, stores) in [
            (
                "SampleModel/SampleModel.xcdatamodeld",
                [("SampleModel/Fixtures/SampleModel_V1.sqlite", 1), ("SampleModel/Fixtures/SampleModel_V2.sqlite", 2)]
            ),
            ("SampleModel3/SampleModel3.xcdatamodeld", [("SampleModel3/Fixtures/SampleModel3_V1.sqlite", 1)]),
        ] {
            let imported = try InProcess.migrate(
                ["import", "\(Self.corpus)/\(bundle)", "-o", "Models", "--report"], in: folder.path)
            #expect(imported.status == 0, "\(imported.stdout)\(imported.stderr)")
            for (store, version) in stores {
                let inspect = try InProcess.migrate(
                    ["inspect", "\(Self.corpus)/\(store)", "--models", "Models", "--json"], in: folder.path)
                #expect(inspect.status == 0, "\(inspect.stderr)")
                let report = try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any]
                #expect(report?["recognizedVersion"] as? Int == version, "\(store)")
                // `status` says the same, and that a migration to version 3 is possible (exit 3).
                let status = try InProcess.migrate(
                    ["status", "\(Self.corpus)/\(store)", "--models", "Models"], in: folder.path)
                #expect(status.status == 3, "\(store): \(status.stdout)\(status.stderr)")
                #expect(
                    status.stdout.contains("version \(version), migration to 3 needed"), "\(store): \(status.stdout)")
                // Every entity with a stored hash matches an imported version.
                for entity in report?["entities"] as? [[String: Any]] ?? [] where entity["storedHash"] != nil {
                    #expect(entity["matches"] as? Bool == true, "\(store): \(entity["name"] ?? "?")")
                }
            }
        }
    }
}

/// `migrate import --mapping-models`: the app's mapping models become mapping files
/// beside the imported versions, and the report says what each hop's file does.
@Suite struct ImportMappingModelsCommandTests {
    /// An archived `NSConstantValueExpression` of the string "untitled" (NSKeyedArchiver's layout).
    static let untitled = """
        YnBsaXN0MDDUAQIDBAUGFxpZJGFyY2hpdmVyWCRvYmplY3RzVCR0b3BYJHZlcnNpb25fEA9OU0tleWVkQXJjaGl2ZXKkBwgPFlUkbnVsbNMJ\
        CgsMDQ5WJGNsYXNzXxAPTlND\
        b25zdGFudFZhbHVlXxAQTlNFeHByZXNzaW9uVHlwZYACgAMQANIQERITWCRjbGFzc2VzWiRjbGFzc25hbWWjExQVXxAZTlNDb25zdGFudFZh\
        bHVlRXhwcmVzc2lvblxOU0V4\
        cHJlc3Npb25YTlNPYmplY3RYdW50aXRsZWTRGBlUcm9vdIABEgABhqAIERskKTJESU9WXW+ChIaIjZahpcHO1+Dj6OoAAAAAAAABAQAAAAAA\
        AAAbAAAAAAAAAAAAAAAAAAAA7w==
        """

    static func mappingModel(from source: String, to destination: String, title: Bool) -> String {
        let attribute =
            title
            ? """
                <object type="XDDEVATTRIBUTEMAPPING" id="z3">
                    <attribute name="valueexpressiondata" type="binary">\(untitled)</attribute>
                    <attribute name="name" type="string">title</attribute>
                    <relationship name="entitymapping" type="1/1" destination="XDDEVENTITYMAPPING" \
            idrefs="z2"></relationship>
                </object>
            """ : ""
        return """
            <?xml version="1.0" standalone="no"?>
            <database>
                <object type="XDDEVMAPPINGMODEL" id="z1">
                    <attribute name="sourcemodelpath" type="string">Notes.xcdatamodeld/\(source).xcdatamodel</attribute>
                    <attribute name="destinationmodelpath" \
            type="string">Notes.xcdatamodeld/\(destination).xcdatamodel</attribute>
                    <relationship name="entitymappings" type="0/0" destination="XDDEVENTITYMAPPING" \
            idrefs="z2"></relationship>
                </object>
                <object type="XDDEVENTITYMAPPING" id="z2">
                    <attribute name="sourcename" type="string">Note</attribute>
                    <attribute name="destinationname" type="string">Note</attribute>
                    <attribute name="mappingnumber" type="int16">1</attribute>
                    <relationship name="attributemappings" type="0/0" destination="XDDEVATTRIBUTEMAPPING" idrefs="z4 \
            z5 z3"></relationship>
                </object>
                <object type="XDDEVATTRIBUTEMAPPING" id="z4">
                    <attribute name="name" type="string">body</attribute>
                    <relationship name="entitymapping" type="1/1" destination="XDDEVENTITYMAPPING" \
            idrefs="z2"></relationship>
                </object>
                <object type="XDDEVATTRIBUTEMAPPING" id="z5">
                    <attribute name="name" type="string">pinned</attribute>
                    <relationship name="entitymapping" type="1/1" destination="XDDEVENTITYMAPPING" \
            idrefs="z2"></relationship>
                </object>
            \(attribute)
            </database>
            """
    }

    @Test func mappingModelsBecomeMappingFilesAndTheReportSaysWhatEachHopDoes() throws {
        let project = try ImportCommandTests.project()
        defer { project.remove() }
        try project.write(
            "Mappings/Notes2ToNotes10.xcmappingmodel/xcmapping.xml",
            Self.mappingModel(from: "Notes 2", to: "Notes 10", title: true))
        try project.write(
            "Mappings/Old/NotesToNotes10.xcmappingmodel/xcmapping.xml",
            Self.mappingModel(from: "Notes", to: "Notes 10", title: false))
        try project.write("Mappings/NotesToNotes2.xcmappingmodel/README", "the xcmapping.xml was left out")
        let result = try InProcess.migrate(
            ["import", "Notes.xcdatamodeld", "-o", "App/Models", "--mapping-models", "Mappings", "--report"],
            in: project.path)
        // Hop 1 → 2 is covered by a spanning mapping model (and one not read); the span is
        // imported and planned from version 1, where Core Data would use it, but it leaves
        // the required body and title without values (version 1 has neither): exit 4.
        #expect(result.status == 4, "\(result.stderr)")
        #expect(
            result.stdout == """
                wrote App/Models/Notes/1.yaml ← Notes.xcdatamodel (1 entity)
                wrote App/Models/Notes/2.yaml ← Notes 2.xcdatamodel (1 entity)
                wrote App/Models/Notes/3.yaml ← Notes 10.xcdatamodel (1 entity, current in Xcode)
                wrote App/Migrations/Notes/1-to-3.yaml ← NotesToNotes10.xcmappingmodel (1 entity mapping, 0 \
                expressions decoded, 0 not carried)
                wrote App/Migrations/Notes/2-to-3.yaml ← Notes2ToNotes10.xcmappingmodel (1 entity mapping, 1 \
                expression decoded, 0 not carried)

                hops:
                  1 → 2: the app ships NotesToNotes10.xcmappingmodel (spanning 1-to-3): imported as \
                App/Migrations/Notes/1-to-3.yaml (spanning 1 → 3: every entity as inferred), which plan refuses
                    no lightweight mapping from Notes version 1 to 3 (2 changes inference cannot cover):
                      Note.body: new required attribute without a default or source
                        remedy: add a default (`body: { type: string, default: … }`), make it optional, or write \
                Migrations/Notes/1-to-3.yaml (a span) or a mapping file Migrations/Notes/<A>-to-<A+1>.yaml for the hop \
                that makes this change with a policy for Note
                      Note.title: new required attribute without a default or source
                        remedy: add a default (`title: { type: string, default: … }`), make it optional, or write \
                Migrations/Notes/1-to-3.yaml (a span) or a mapping file Migrations/Notes/<A>-to-<A+1>.yaml for the hop \
                that makes this change with a policy for Note
                  2 → 3: the app ships Notes2ToNotes10.xcmappingmodel: mapping file App/Migrations/Notes/2-to-3.yaml: \
                Note: 1 property

                paths to version 3 (what plan takes from each version):
                  from 1: plan refuses: mapping file 1-to-3.yaml 1 → 3: no lightweight mapping from Notes version 1 to \
                3 (2 changes inference cannot cover):
                  from 2: mapping file 2-to-3.yaml 2 → 3

                """)
        #expect(
            result.stderr.contains(
                """
                warning: Mappings/NotesToNotes2.xcmappingmodel: not imported: no xcmapping.xml in the folder (and no \
                compiled NotesToNotes2.cdm beside it)

                """), "\(result.stderr)")
        let file = try String(contentsOfFile: project.file("App/Migrations/Notes/2-to-3.yaml"), encoding: .utf8)
        #expect(
            file == """
                # Imported by `migrate import --mapping-models` from Notes2ToNotes10.xcmappingmodel
                # (version 2 → 3, paired by sourcemodelpath and destinationmodelpath).
                entities:
                  Note:
                    properties:
                      title: { default: "untitled" }

                """)
        // Written files are not replaced without --force.
        let again = try InProcess.migrate(
            [
                "import", "Notes.xcdatamodeld", "-o", "Other", "--migrations-out", "App/Migrations",
                "--mapping-models", "Mappings",
            ], in: project.path)
        #expect(again.status == 1)
        #expect(
            again.stderr.hasSuffix(
                """
                error: App/Migrations/Notes/1-to-3.yaml, App/Migrations/Notes/2-to-3.yaml: already exist; pass --force \
                to overwrite\n
                """
            ))
    }

    /// The import records which steps the app maps (`mappedFrom:`); a deploy whose
    /// migrations folder lacks their files is refused (exit 4) instead of inferring
    /// them and skipping what the mapping model does.
    @Test func aStepTheAppMapsIsNeverInferred() throws {
        let project = try ImportCommandTests.project()
        defer { project.remove() }
        try project.write(
            "Mappings/Notes2ToNotes10.xcmappingmodel/xcmapping.xml",
            Self.mappingModel(from: "Notes 2", to: "Notes 10", title: true))
        let imported = try InProcess.migrate(
            ["import", "Notes.xcdatamodeld", "-o", "App/Models", "--mapping-models", "Mappings"], in: project.path)
        #expect(imported.status == 0, "\(imported.stderr)")
        let three = try String(contentsOfFile: project.file("App/Models/Notes/3.yaml"), encoding: .utf8)
        #expect(three.contains("\nversion: 3\nmappedFrom: [2]\n"), "\(three)")
        #expect(
            try !String(contentsOfFile: project.file("App/Models/Notes/2.yaml"), encoding: .utf8).contains("mappedFrom")
        )
        _ = try InProcess.migrate(
            ["create", "n.sqlite", "--version", "2", "--models", "App/Models"], in: project.path)
        try project.write("Elsewhere/README", "a migrations folder without the app's mapping files")
        let plan = try InProcess.migrate(
            ["plan", "n.sqlite", "--models", "App/Models", "--migrations", "Elsewhere"], in: project.path)
        #expect(plan.status == 4, "\(plan.stdout)")
        #expect(
            plan.stderr.contains(
                """
                the app ships a mapping model for this step (mappedFrom: in the model), and its mapping file is not \
                found, so the step is never inferred:
                  2 → 3: Elsewhere/Notes/2-to-3.yaml
                """), "\(plan.stderr)")
        let found = try InProcess.migrate(
            ["plan", "n.sqlite", "--models", "App/Models", "--migrations", "App/Migrations"], in: project.path)
        #expect(found.status == 0, "\(found.stderr)")
    }

    /// A mapping model not imported that maps backward (3 → 2, a downgrade) is no
    /// reason against a forward path: the report blamed it for the path from 1.
    @Test func aBackwardMappingModelIsNotBlamedForAForwardPath() throws {
        let project = try ImportCommandTests.project()
        defer { project.remove() }
        try project.write(
            "Mappings/Notes2ToNotes10.xcmappingmodel/xcmapping.xml",
            Self.mappingModel(from: "Notes 2", to: "Notes 10", title: true))
        try project.write("Mappings/Notes10ToNotes2.xcmappingmodel/README", "the xcmapping.xml was left out")
        let result = try InProcess.migrate(
            ["import", "Notes.xcdatamodeld", "-o", "App/Models", "--mapping-models", "Mappings", "--report"],
            in: project.path)
        #expect(
            result.stderr.contains("warning: Mappings/Notes10ToNotes2.xcmappingmodel: not imported"), "\(result.stderr)"
        )
        #expect(!result.stdout.contains("Notes10ToNotes2.xcmappingmodel for 3 → 2"), "\(result.stdout)")
        #expect(result.stdout.contains("  from 1: "), "\(result.stdout)")
    }

    /// An import writes everything or nothing: a mapping file that cannot be written
    /// (a file stands where its folder goes) leaves no version file either, and a
    /// re-import with --force that fails the same way leaves the earlier files as
    /// they were (the versions were written, then the mapping files failed, issue 36).
    @Test func anImportThatCannotWriteAMappingFileWritesNothing() throws {
        let project = try ImportCommandTests.project()
        defer { project.remove() }
        try project.write(
            "Mappings/Notes2ToNotes10.xcmappingmodel/xcmapping.xml",
            Self.mappingModel(from: "Notes 2", to: "Notes 10", title: true))
        try project.write("App/Migrations/Notes", "a file where the mapping files' folder goes")
        let arguments = ["import", "Notes.xcdatamodeld", "-o", "App/Models", "--mapping-models", "Mappings"]
        let failed = try InProcess.migrate(arguments, in: project.path)
        #expect(failed.status == 1)
        #expect(failed.stderr.hasPrefix("error: App/Migrations/Notes/2-to-3.yaml.import-"), "\(failed.stderr)")
        #expect(failed.stderr.hasSuffix("cannot create (Not a directory); nothing was written\n"), "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: project.file("App/Models")))
        try FileManager.default.removeItem(atPath: project.file("App/Migrations/Notes"))
        #expect(try InProcess.migrate(arguments, in: project.path).status == 0)
        // Edited since, so that a rewrite would show.
        let edited = try String(contentsOfFile: project.file("App/Models/Notes/3.yaml"), encoding: .utf8) + "# edited\n"
        try project.write("App/Models/Notes/3.yaml", edited)
        try FileManager.default.removeItem(atPath: project.file("App/Migrations/Notes"))
        try project.write("App/Migrations/Notes", "a file again")
        let again = try InProcess.migrate(arguments + ["--force"], in: project.path)
        #expect(again.status == 1)
        #expect(try String(contentsOfFile: project.file("App/Models/Notes/3.yaml"), encoding: .utf8) == edited)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: project.file("App/Models/Notes")).filter {
                $0.contains(".import-")
            } == [])
    }
}
