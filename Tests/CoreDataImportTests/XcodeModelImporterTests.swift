import CoreDataImport
import DataModel
import Foundation
import Mapping
import TestSupport
import Testing

/// Writes the imported versions to `<temp>/<Name>/<N>.yaml` and loads them as
/// `migrate validate` does.
func compile(_ model: ImportedModel) throws -> CompiledModel {
    let folder = try TemporaryDirectory(prefix: "CoreDataImportTests")
    defer { folder.remove() }
    for version in model.versions {
        try folder.write("\(model.name)/\(version.number).yaml", version.yaml)
    }
    let result = ModelLoader.load(path: folder.file(model.name))
    let errors = result.diagnostics.filter { $0.severity == .error }
    #expect(errors.isEmpty, "\(DiagnosticRenderer(sources: result.sources).render(errors))")
    return try ModelLoader.loadModel(path: folder.file(model.name))
}

@Suite struct XcodeModelImporterTests {
    static let libraryV1YAML = """
        # Imported by `migrate import` from Library.xcdatamodeld/Library.xcdatamodel:
        # Xcode model version "Library".
        # Last saved by Xcode tools version 21754, system 22G120.
        model: Library
        version: 1
        identifier: "2024.1"
        xcode: { minimumToolsVersion: "Automatic", sourceLanguage: "Swift" }
        syncable: entities
        fetchRequests:
          AllBooks: { entity: "Book" }
        configurations:
          Cloud: { usedWithCloudKit: "YES", entities: [Author, Tag] }
        entities:
          Author:
            className: "Author"
            codeGeneration: "class"
            attributes:
              name: { type: string, default: "Anonymous \\"A\\"" }
            relationships:
              items: { destination: Item, toMany: true, inverse: author, deleteRule: cascade }
            fetchedProperties:
              recentItems: { optional: "YES", fetchRequest: { entity: "Item", name: "fetchedPropertyFetchRequest", \
        predicateString: "added > $FETCH_SOURCE.since" } }
          Book:
            parent: Item
            className: "Book"
            attributes:
              pages: { type: integer32, default: 1, min: 1, max: 5000, scalar: true }
            relationships:
              chapters: { destination: Chapter, toMany: true, ordered: true, optional: false, minCount: 1, maxCount: \
        50, inverse: book, deleteRule: deny }
          Chapter:
            className: "Chapter"
            attributes:
              heading: { type: string, min: 1, max: 200 }
            relationships:
              book: { destination: Book, inverse: chapters, deleteRule: noAction }
          Item:
            abstract: true
            hashModifier: "v2-layout"
            className: "Item"
            attributes:
              added: { type: date, default: "2023-01-01T00:00:00.5Z", indexed: true, scalar: false }
              available: { type: boolean, default: true, scalar: true }
              code: { type: uuid, optional: true, scalar: false, xcode: { defaultValueString: "" } }
              cover: { type: binary, optional: true, externalStorage: true }
              editions: { type: integer16, default: 0, min: 0, max: 100, scalar: true }
              homepage: uri?
              palette: { type: transformable, optional: true, transformer: "NSSecureUnarchiveFromData" }
              price: { type: decimal, default: "9.99" }
              rating: { type: float, default: 2.5, scalar: true }
              scratch: { type: transformable, optional: true, transient: true, xcode: { attributeType: "Undefined" } }
              serial: { type: integer64, default: -42, preserveAfterDeletion: true, hashModifier: "wide", scalar: true }
              title: { type: string, userInfo: { searchable: "YES" } }
              views: { type: integer32, default: 0, scalar: true }
              weight: { type: double, default: 0.0, scalar: true }
            relationships:
              author: { destination: Author, inverse: items }
              tags: { destination: Tag, toMany: true, inverse: items, hashModifier: "m2m" }
            indexes:
              - { name: byTitleAndAdded, properties: [title, { property: added, order: descending }] }
          Magazine:
            parent: Item
            className: "Magazine"
            attributes:
              issue: { type: integer16, default: 1, scalar: true }
          Tag:
            className: "Tag"
            userInfo: { color: "red" }
            attributes:
              label: string
            relationships:
              items: { destination: Item, toMany: true, inverse: tags }
            uniqueness: [[label]]

        """

    @Test func convertsEveryElementAndAttributeExactly() throws {
        let model = try XcodeModelImporter().convert(XcodeFixtures.library)
        #expect(model.name == "Library")
        #expect(
            model.versions.map(\.source) == ["Library.xcdatamodel", "Library 2.xcdatamodel", "Library 3.xcdatamodel"])
        #expect(model.versions[0].yaml == Self.libraryV1YAML)
        #expect(model.versions.map(\.isCurrent) == [false, false, true])
    }

    /// Everything of the library's `contents` has a place (class names, code generation,
    /// fetched properties, user info, fetch requests, configurations): no warning.
    @Test func keepsEverythingWithoutWarnings() throws {
        let model = try XcodeModelImporter().convert(XcodeFixtures.library)
        #expect(model.versions.map(\.warnings) == [[], [], []])
    }

    @Test func renamesChainAcrossThreeVersions() throws {
        let model = try XcodeModelImporter().convert(XcodeFixtures.library)
        let v2 = model.versions[1].yaml, v3 = model.versions[2].yaml
        #expect(v2.contains("      caption: { type: string, renamedFrom: \"heading\" }\n"))
        #expect(v2.contains("  Label:\n    renamedFrom: \"Tag\"\n"))
        #expect(
            v2.contains("      labels: { destination: Label, toMany: true, inverse: items, renamedFrom: \"tags\" }\n"))
        #expect(v3.contains("      headline: { type: string, renamedFrom: \"caption\" }\n"))
        #expect(v3.contains("  Keyword:\n    renamedFrom: \"Label\"\n"))
        #expect(
            v3.contains(
                "      keywords: { destination: Keyword, toMany: true, inverse: items, renamedFrom: \"labels\" }\n"))
    }

    @Test func importedVersionsCompileAndInferenceSeesTheRenames() throws {
        let compiled = try compile(try XcodeModelImporter().convert(XcodeFixtures.library))
        #expect(compiled.versions.map(\.version) == [1, 2, 3])
        #expect(compiled.versions.map(\.identifier) == ["2024.1", "2024.2", "2024.3"])
        let v1 = try #require(compiled.version(1))
        #expect(v1.entity(named: "Book")?.parent == "Item")
        #expect(v1.entity(named: "Item")?.isAbstract == true)
        #expect(v1.entity(named: "Item")?.relationship(named: "tags")?.isManyToMany == true)
        #expect(v1.entity(named: "Book")?.relationship(named: "chapters")?.declaration.isOrdered == true)
        #expect(v1.entity(named: "Tag")?.uniqueness == [["label"]])
        // 1 → 2 renames Tag, tags and heading: inference follows them.
        let mapping = try MappingResolver.resolve(compiled, from: 1, to: 2, file: nil)
        #expect(mapping.entityMappings.contains { $0.source == "Tag" && $0.destination == "Label" })
        // 2 → 3 adds the required Author.born without a default: refused, naming it.
        #expect {
            _ = try MappingResolver.resolve(compiled, from: 2, to: 3, file: nil)
        } throws: { error in
            (error as? InferenceFailure)?.refusals.contains { $0.description.contains("Author.born") } == true
        }
    }

    /// Hashes computed independently of the importer: Apple's, read from the
    /// CoreDataPlus store of this model version.
    @Test func sampleModelGivesApplesHashes() throws {
        let model = try XcodeModelImporter().convert(
            XcodeFixtures.bundle([("SampleModel.xcdatamodel", XcodeFixtures.sampleV1)], name: "SampleModel"))
        let version = try #require(try compile(model).version(1))
        #expect(version.versionHashes["Car"]?.hex == "9e555529072158220d1bacd2f80a3dad4919f74a32aa8be9ee22a6a7b4126c8f")
        #expect(
            version.versionHashes["Person"]?.hex == "164268551b45108ae763aa2ba61ff32d32d32323850987c3e21607c8da44b72b")
        #expect(version.versionHashes.keys.sorted() == ["Car", "ExpensiveSportCar", "Person", "SportCar"])
    }

    /// The same version written by hand in the format gives the same hashes and layout.
    @Test func matchesAHandWrittenTranslation() throws {
        let handWritten = """
            model: Library
            version: 1
            entities:
              Author:
                attributes: { name: string, born: date }
                relationships:
                  items: { destination: Item, toMany: true, inverse: author, deleteRule: cascade }
              Book:
                parent: Item
                attributes: { pages: { type: integer32, default: 1 } }
                relationships:
                  chapters: { destination: Chapter, toMany: true, ordered: true, optional: false, inverse: book, \
            deleteRule: deny }
              Chapter:
                attributes: { headline: string, summary: string? }
                relationships:
                  book: { destination: Book, inverse: chapters }
              Item:
                abstract: true
                attributes: { title: string }
                relationships:
                  author: { destination: Author, inverse: items }
                  keywords: { destination: Keyword, toMany: true, inverse: items }
              Keyword:
                attributes: { label: string }
                relationships:
                  items: { destination: Item, toMany: true, inverse: keywords }
              Magazine:
                parent: Item
                attributes: { issue: { type: integer16, default: 1 } }
            """
        let folder = try TemporaryDirectory(prefix: "CoreDataImportTests")
        defer { folder.remove() }
        try folder.write("Library/1.yaml", handWritten)
        let expected = try ModelLoader.loadModel(path: folder.file("Library")).current
        let imported = try XcodeModelImporter().convert(
            XcodeFixtures.bundle([("Library 3.xcdatamodel", XcodeFixtures.libraryV3)]))
        let actual = try #require(try compile(imported).version(1))
        #expect(actual.versionHashes == expected.versionHashes)
        #expect(actual.versionHashesDigest == expected.versionHashesDigest)
    }

    @Test func datesAndBooleansAsXcodeWritesThem() throws {
        let xml =
            XcodeFixtures.header("1") + """
                    <entity name="Event" syncable="YES">
                        <attribute name="at" attributeType="Date" defaultDateTimeInterval="-978307200" \
                minDateTimeInterval="-978307200" maxDateTimeInterval="1000000000" usesScalarValueType="NO"/>
                        <attribute name="created" optional="YES" attributeType="Date" defaultValueString="now" \
                usesScalarValueType="NO"/>
                        <attribute name="done" attributeType="Boolean" defaultValueString="NO" \
                usesScalarValueType="YES"/>
                        <attribute name="link" attributeType="URI" \
                defaultValueString="https://example.com/a?b=c&amp;d=&quot;e&quot;"/>
                        <attribute name="id" attributeType="UUID" \
                defaultValueString="0E6B1B5C-26E4-4F6A-9B3E-4F1D3C2A1B00" usesScalarValueType="NO"/>
                    </entity>
                </model>
                """
        let model = try XcodeModelImporter().convert(
            XcodeFixtures.bundle([("Events.xcdatamodel", xml)], name: "Events"))
        let yaml = model.versions[0].yaml
        #expect(
            yaml.contains(
                "      at: { type: date, default: \"1970-01-01T00:00:00Z\", min: \"1970-01-01T00:00:00Z\", max: "
                    + "\"2032-09-09T01:46:40Z\", "
                    + "scalar: false }\n"))
        #expect(
            yaml.contains(
                "      created: { type: date, optional: true, scalar: false, xcode: { defaultValueString: \"now\" } }\n"
            ))
        #expect(yaml.contains("      done: { type: boolean, default: false, scalar: true }\n"))
        #expect(yaml.contains("      link: { type: uri, default: \"https://example.com/a?b=c&d=\\\"e\\\"\" }\n"))
        // Export writes UUIDs in lowercase: Xcode's uppercase text is kept beside.
        #expect(
            yaml.contains(
                "      id: { type: uuid, default: \"0E6B1B5C-26E4-4F6A-9B3E-4F1D3C2A1B00\", scalar: false, "
                    + "xcode: { defaultValueString: \"0E6B1B5C-26E4-4F6A-9B3E-4F1D3C2A1B00\" } }\n"))
        #expect(
            model.versions[0].warnings == [
                """
                date defaults other than a fixed date (e.g. \"now\"; kept for Xcode, no default here): Event.created \
                (now)
                """
            ])
        let event = try #require(try compile(model).version(1)?.entity(named: "Event"))
        #expect(event.attribute(named: "at")?.declaration.defaultValue == .date(-978307200))
    }

    @Test func refusedNamesAndTypesNameTheFileAndLine() throws {
        let xml =
            XcodeFixtures.header("1") + """
                    <entity name="person" syncable="YES">
                        <attribute name="description" optional="YES" attributeType="String"/>
                        <attribute name="Total" attributeType="Integer 32" defaultValueString="x"/>
                        <attribute name="thing" attributeType="Undefined"/>
                        <attribute name="shape" attributeType="Composite"/>
                        <relationship name="owner" optional="YES" maxCount="1" deletionRule="Explode" \
                destinationEntity="person"/>
                    </entity>
                </model>
                """
        #expect {
            _ = try XcodeModelImporter().convert(XcodeFixtures.bundle([("Bad.xcdatamodel", xml)], name: "Bad"))
        } throws: { error in
            guard let error = error as? ImportError else { return false }
            return error.kind == .invalid
                && error.problems == [
                    """
                    Bad.xcdatamodeld/Bad.xcdatamodel/contents:3:13: entity 'person': not a valid entity name \
                    (ASCII letters, digits and '_', starting with an uppercase letter)
                    """,
                    """
                    Bad.xcdatamodeld/Bad.xcdatamodel/contents:4:20: attribute 'person.description': the name \
                    'description' is reserved (it clashes with an NSManagedObject member)
                    """,
                    """
                    Bad.xcdatamodeld/Bad.xcdatamodel/contents:6:20: attribute 'person.thing': type Undefined is \
                    allowed only for transient attributes (Xcode refuses it too)
                    """,
                    """
                    Bad.xcdatamodeld/Bad.xcdatamodel/contents:7:20: attribute 'person.shape': a Composite attribute \
                    without composite="…" (Xcode writes the composite's name)
                    """,
                    """
                    Bad.xcdatamodeld/Bad.xcdatamodel/contents:8:23: relationship 'person.owner': unknown deletionRule \
                    'Explode' (Nullify, Cascade, Deny or No Action)
                    """,
                ]
        }
    }

    @Test func malformedXMLIsRefused() throws {
        #expect {
            _ = try XcodeModelImporter().convert(
                XcodeFixtures.bundle([("Broken.xcdatamodel", "<model><entity name=\"A\"></model>")], name: "Broken"))
        } throws: { error in
            guard let error = error as? ImportError else { return false }
            return error.kind == .malformed && error.problems.count == 1
                && error.problems[0].hasPrefix(
                    "Broken.xcdatamodeld/Broken.xcdatamodel/contents:1:1: not well-formed XML")
        }
    }

    /// Attributes the format has no word for are kept for export, verbatim.
    @Test func unknownAttributesAreKeptForExport() throws {
        let xml =
            XcodeFixtures.header("") + """
                    <entity name="Note" syncable="YES" spotlightIndexingEnabled="YES">
                        <attribute name="body" optional="YES" attributeType="String" allowsCloudEncryption="YES" \
                regularExpressionString="[a-z]*"/>
                        <fetchIndex name="byBody">
                            <fetchIndexElement expression="length:(body)" expressionType="Integer 64" \
                order="ascending"/>
                        </fetchIndex>
                    </entity>
                </model>
                """
        let model = try XcodeModelImporter(modelName: "Notes").convert(
            XcodeFixtures.bundle([("Notes.xcdatamodel", xml)]))
        #expect(model.name == "Notes")
        #expect(model.versions[0].yaml.contains("    xcode: { spotlightIndexingEnabled: \"YES\" }\n"))
        #expect(
            model.versions[0].yaml.contains(
                """
                      body: { type: string, optional: true, xcode: { allowsCloudEncryption: \"YES\", \
                regularExpressionString: \"[a-z]*\" } }\n
                """
            ))
        // An expression element is kept as written (the store indexes only key paths).
        #expect(
            model.versions[0].yaml.contains(
                #"""
                      - { name: byBody, properties: [{ expression: "length:(body)", expressionType: "Integer \#
                64" }] }
                """#
                    + "\n"))
        #expect(model.versions[0].warnings == [])
        #expect(!model.versions[0].yaml.contains("identifier:"))
    }
}
