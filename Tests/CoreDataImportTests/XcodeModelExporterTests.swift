import DataModel
import Foundation
import TestSupport
import Testing

@testable import CoreDataImport

/// `migrate export`'s bundle: Xcode's XML for every fact the format holds, and the
/// round trip `import(export(M)) == M` (the same compiled versions and hashes).
@Suite struct XcodeModelExporterTests {
    /// A model with every feature the format carries.
    static let v1 = """
        model: Shop
        version: 1
        identifier: "2026.1 <beta> & \\"quoted\\""
        entities:
          Item:
            abstract: true
            attributes:
              title: { type: string, default: "Untitled \\"new\\"", min: 1, max: 80 }
              count: { type: integer16, default: 3, min: 0, max: 100 }
              size: { type: integer32, optional: true, indexed: true }
              big: { type: integer64, default: -9000000000 }
              price: { type: decimal, default: "12.50" }
              ratio: { type: double, default: 0.25 }
              weight: { type: float, optional: true, default: 1.5 }
              active: { type: boolean, default: true }
              added: { type: date, default: "2001-01-01T00:00:10.5Z", min: "2000-01-01T00:00:00Z" }
              photo: { type: binary, optional: true, externalStorage: true }
              token: { type: uuid, default: "0e6b1b5c-26e4-4f6a-9b3e-4f1d3c2a1b00", preserveAfterDeletion: true }
              link: { type: uri, optional: true, default: "https://example.com/a?b=c&d=e" }
              extra: { type: transformable, optional: true, transformer: NSSecureUnarchiveFromData }
              scratch: { type: string, transient: true, optional: true }
              legacyName: { type: string, optional: true, renamedFrom: oldName, hashModifier: v2 }
            relationships:
              tags: { destination: Tag, toMany: true, ordered: true, inverse: items, deleteRule: nullify, minCount: 1, \
        maxCount: 5 }
              shelf: { destination: Shelf, optional: false, inverse: items, deleteRule: deny }
              notes: { destination: Note, toMany: true, deleteRule: cascade, inverse: item }
            uniqueness: [[title, size]]
            indexes:
              - { name: byTitleDesc, properties: [{ property: title, order: descending }, count] }
          Book:
            parent: Item
            renamedFrom: Volume
            hashModifier: b
            attributes: { isbn: string? }
          Tag:
            attributes: { name: string }
            relationships:
              items: { destination: Item, toMany: true, inverse: tags, deleteRule: noAction }
          Shelf:
            attributes: { label: string? }
            relationships:
              items: { destination: Item, toMany: true, inverse: shelf, deleteRule: cascade }
          Note:
            attributes: { text: string? }
            relationships:
              item: { destination: Item, optional: true, inverse: notes }
        """

    static let v2 = v1.replacingOccurrences(of: "version: 1", with: "version: 2")
        .replacingOccurrences(of: "identifier: \"2026.1 <beta> & \\\"quoted\\\"\"", with: "identifier: \"2026.2\"")
        .replacingOccurrences(
            of: "          Note:\n            attributes: { text: string? }",
            with:
                "          Note:\n            attributes: { body: { type: string, optional: true, renamedFrom: text } }"
        )

    static func compiled(_ folder: String) throws -> CompiledModel { try ModelLoader.loadModel(path: folder) }

    @Test func theRoundTripGivesTheSameVersions() throws {
        let directory = try TemporaryDirectory(prefix: "XcodeModelExporterTests")
        defer { directory.remove() }
        try directory.write("Models/Shop/1.yaml", Self.v1)
        try directory.write("Models/Shop/2.yaml", Self.v2)
        let original = try Self.compiled(directory.file("Models/Shop"))
        let loaded = try #require(ModelLoader.load(path: directory.file("Models/Shop")).models.first)

        let exported = XcodeModelExporter().export(loaded.versions, model: "Shop")
        #expect(exported.versions.map(\.folder) == ["Shop.xcdatamodel", "Shop 2.xcdatamodel"])
        #expect(exported.omissions.isEmpty)
        try exported.write(to: directory.file("Shop.xcdatamodeld"), force: false)

        let bundle = try XcodeModelBundle.read(path: directory.file("Shop.xcdatamodeld"))
        #expect(bundle.currentVersion == "Shop 2.xcdatamodel")
        let imported = try XcodeModelImporter().convert(bundle)
        for version in imported.versions { try directory.write("Again/Shop/\(version.number).yaml", version.yaml) }
        let again = try Self.compiled(directory.file("Again/Shop"))

        #expect(again.versions.count == 2)
        for (a, b) in zip(original.versions, again.versions) {
            #expect(a.versionHashes == b.versionHashes)
            #expect(a.identifier == b.identifier)
            #expect(a.layout == b.layout)
            let byName = Dictionary(uniqueKeysWithValues: b.entities.map { ($0.name, $0) })
            for entity in a.entities {
                let other = try #require(byName[entity.name])
                #expect(entity.parent == other.parent && entity.isAbstract == other.isAbstract)
                #expect(entity.renamedFrom == other.renamedFrom && entity.hashModifier == other.hashModifier)
                #expect(entity.uniqueness == other.uniqueness)
                #expect(entity.indexes.map { $0.name } == other.indexes.map { $0.name })
                #expect(
                    entity.indexes.map { $0.elements.map { "\($0.property) \($0.isDescending)" } }
                        == other.indexes.map { $0.elements.map { "\($0.property) \($0.isDescending)" } })
                for attribute in entity.attributes {
                    var mine = attribute.declaration,
                        theirs = try #require(other.attribute(named: attribute.name)?.declaration)
                    mine.location = theirs.location
                    theirs.location = mine.location
                    // What only Xcode reads: export gives a YAML-only model Xcode's defaults
                    // (scalar accessors), which import then keeps as written.
                    mine.xcode = XcodeSettings()
                    theirs.xcode = XcodeSettings()
                    #expect(mine == theirs, "\(entity.name).\(attribute.name)")
                }
                for relationship in entity.relationships {
                    var mine = relationship.declaration,
                        theirs = try #require(other.relationship(named: relationship.name)?.declaration)
                    mine.location = theirs.location
                    mine.xcode = theirs.xcode
                    #expect(mine == theirs, "\(entity.name).\(relationship.name)")
                }
            }
        }
    }

    @Test func theXMLIsXcodesAndEscaped() throws {
        let directory = try TemporaryDirectory(prefix: "XcodeModelExporterTests")
        defer { directory.remove() }
        try directory.write("Models/Shop/1.yaml", Self.v1)
        let loaded = try #require(ModelLoader.load(path: directory.file("Models/Shop")).models.first)
        let xml = XcodeModelExporter().export(loaded.versions, model: "Shop").versions[0].contents
        #expect(
            xml.hasPrefix(
                """
                <?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<model \
                type=\"com.apple.IDECoreDataModeler.DataModel\"
                """
            ))
        #expect(xml.contains(#"userDefinedModelVersionIdentifier="2026.1 &lt;beta&gt; &amp; &quot;quoted&quot;">"#))
        #expect(
            xml.contains(
                #"""
                <entity name="Book" representedClassName="Book" parentEntity="Item" elementID="Volume" \#
                versionHashModifier="b" syncable="YES">
                """#))
        #expect(
            xml.contains(
                #"""
                <attribute name="title" attributeType="String" minValueString="1" maxValueString="80" \#
                defaultValueString="Untitled &quot;new&quot;"/>
                """#))
        #expect(
            xml.contains(
                #"""
                <attribute name="added" attributeType="Date" minDateTimeInterval="-31622400" \#
                defaultDateTimeInterval="10.5"/>
                """#
            ))
        #expect(
            xml.contains(
                #"""
                <attribute name="active" attributeType="Boolean" defaultValueString="YES" usesScalarValueType="YES"/>
                """#
            ))
        #expect(
            xml.contains(
                #"""
                <relationship name="tags" optional="YES" toMany="YES" ordered="YES" minCount="1" maxCount="5" \#
                deletionRule="Nullify" destinationEntity="Tag" inverseName="items" inverseEntity="Tag"/>
                """#))
        #expect(
            xml.contains(
                #"""
                <relationship name="shelf" maxCount="1" deletionRule="Deny" destinationEntity="Shelf" \#
                inverseName="items" inverseEntity="Shelf"/>
                """#))
        #expect(
            xml.contains(
                """
                        <fetchIndex name="byTitleDesc">
                            <fetchIndexElement property="title" type="Binary" order="descending"/>
                            <fetchIndexElement property="count" type="Binary" order="ascending"/>
                        </fetchIndex>
                """))
    }

    /// What Xcode's XML cannot hold is named, never written half.
    @Test func defaultsXcodeCannotHoldAreNamed() throws {
        let directory = try TemporaryDirectory(prefix: "XcodeModelExporterTests")
        defer { directory.remove() }
        try directory.write(
            "Models/Blob/1.yaml",
            """
            model: Blob
            version: 1
            entities:
              Blob:
                attributes:
                  data: { type: binary, default: "AAEC" }
                  bell: { type: string, default: "ding\\u0007" }
                  tab: { type: string, default: "a\\tb\\nc" }
            """)
        let loaded = try #require(ModelLoader.load(path: directory.file("Models/Blob")).models.first)
        let exported = XcodeModelExporter().export(loaded.versions, model: "Blob")
        #expect(
            exported.omissions == [
                "Blob.data: the default of a binary attribute (Xcode's format has none)",
                "Blob.bell: the default, which holds control characters XML 1.0 cannot carry",
            ])
        #expect(
            exported.versions[0].contents.contains(
                #"<attribute name="tab" attributeType="String" defaultValueString="a&#9;b&#10;c"/>"#))
        #expect(exported.versions[0].contents.contains(#"<attribute name="bell" attributeType="String"/>"#))
    }

    @Test func anExistingBundleIsReplacedOnlyWhenForced() throws {
        let directory = try TemporaryDirectory(prefix: "XcodeModelExporterTests")
        defer { directory.remove() }
        try directory.write("Models/Shop/1.yaml", Self.v1)
        let loaded = try #require(ModelLoader.load(path: directory.file("Models/Shop")).models.first)
        let exported = XcodeModelExporter().export(loaded.versions, model: "Shop")
        let path = directory.file("Shop.xcdatamodeld")
        try directory.write("Shop.xcdatamodeld/Old.xcdatamodel/contents", "old")
        #expect(throws: ExportError.self) { try exported.write(to: path, force: false) }
        #expect(FileManager.default.fileExists(atPath: path + "/Old.xcdatamodel/contents"))
        try exported.write(to: path, force: true)
        #expect(!FileManager.default.fileExists(atPath: path + "/Old.xcdatamodel"))
        #expect(FileManager.default.fileExists(atPath: path + "/Shop.xcdatamodel/contents"))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".mm-scratch.") }
                .isEmpty)
    }
}
