import DataModel
import Foundation
import SQLiteStore
import TestSupport
import Testing

@testable import CoreDataImport

/// Xcode 15's composite attributes and fetch index elements that are expressions:
/// imported as written, exported back element by element, hashed as Core Data's
/// framework code hashes composites, and stores refused where Core Data's layout is
/// not known (Docs/Xcode.md).
@Suite struct CompositeAndExpressionIndexTests {
    /// A model as Xcode 15 saves one (`<composite>` after the entities, an attribute
    /// naming its composite, a composite nested in another; expression index elements).
    static let places = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22158.8" \
        systemVersion="23A5257q" minimumToolsVersion="Automatic" sourceLanguage="Swift" \
        userDefinedModelVersionIdentifier="">
            <entity name="Place" representedClassName="Place" syncable="YES" codeGenerationType="class">
                <attribute name="location" optional="YES" attributeType="Composite" composite="Location"/>
                <attribute name="name" optional="YES" attributeType="String"/>
                <fetchIndex name="byLowerName">
                    <fetchIndexElement expression="lowercase:(name)" expressionType="String" type="Binary" \
        order="ascending"/>
                </fetchIndex>
                <fetchIndex name="byNamePath">
                    <fetchIndexElement expression="name" expressionType="String" type="Binary" order="descending"/>
                </fetchIndex>
            </entity>
            <composite name="Location">
                <attribute name="latitude" optional="YES" attributeType="Double" defaultValueString="0.0" \
        usesScalarValueType="YES"/>
                <attribute name="longitude" optional="YES" attributeType="Double" defaultValueString="0.0" \
        usesScalarValueType="YES"/>
                <attribute name="address" optional="YES" attributeType="Composite" composite="Address"/>
            </composite>
            <composite name="Address">
                <attribute name="city" optional="YES" attributeType="String"/>
            </composite>
        </model>
        """

    @Test func theYAMLStatesCompositesAndExpressionElements() throws {
        let directory = try TemporaryDirectory(prefix: "Composites")
        defer { directory.remove() }
        let (imported, version) = try XcodeFidelityTests.imported(Self.places, in: directory)
        let lines = imported.yaml.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
        #expect(
            lines == [
                "model: App",
                "version: 1",
                #"xcode: { minimumToolsVersion: "Automatic", sourceLanguage: "Swift" }"#,
                "syncable: entities",
                "composites:",
                "  Location:",
                "    attributes:",
                "      latitude: { type: double, optional: true, default: 0.0, scalar: true }",
                "      longitude: { type: double, optional: true, default: 0.0, scalar: true }",
                "      address: { type: composite, composite: Address, optional: true }",
                "  Address:",
                "    attributes:",
                "      city: string?",
                "entities:",
                "  Place:",
                #"    className: "Place""#,
                #"    codeGeneration: "class""#,
                "    attributes:",
                "      location: { type: composite, composite: Location, optional: true }",
                "      name: string?",
                "    indexes:",
                #"""
                      - { name: byLowerName, properties: [{ expression: "lowercase:(name)", expressionType: \#
                "String" }] }
                """#,
                #"""
                      - { name: byNamePath, properties: [{ expression: "name", expressionType: "String", order: \#
                descending }] }
                """#,
            ])
        #expect(version.composites.map(\.name) == ["Location", "Address"])
        let index = try #require(version.entities.first?.indexes.last?.elements.first)
        #expect(index.property == "name" && index.expression == "name" && index.isDescending)
    }

    @Test func exportGivesBackCompositesAndExpressionElements() throws {
        let directory = try TemporaryDirectory(prefix: "Composites")
        defer { directory.remove() }
        let (_, version) = try XcodeFidelityTests.imported(Self.places, in: directory)
        var omissions: [String] = []
        let exported = XcodeModelExporter().contents(of: version, omissions: &omissions)
        #expect(omissions == [])
        let original = try XMLTreeBuilder.parse(Data(Self.places.utf8))
        let back = try XMLTreeBuilder.parse(Data(exported.utf8))
        #expect(XcodeFidelityTests.differences(original, back) == [])
        #expect(
            exported.contains(
                #"        <attribute name="address" optional="YES" attributeType="Composite" composite="Address"/>"#))
        #expect(
            exported.contains(
                #"""
                            <fetchIndexElement expression="lowercase:(name)" expressionType="String" type="Binary" \#
                order="ascending"/>
                """#
            ))
    }

    /// `-[NSCompositeAttributeDescription _versionHash:inStyle:]`: SHA-256 over the
    /// leaf elements' attribute hashes by name (`city`, `latitude`, `longitude`), the
    /// composite's own name left out. Expected values computed outside Swift from the
    /// recipe in Docs/Xcode.md.
    @Test func compositesHashFromTheirFlattenedElements() throws {
        let directory = try TemporaryDirectory(prefix: "Composites")
        defer { directory.remove() }
        _ = try XcodeFidelityTests.imported(Self.places, in: directory)
        let version = try #require(try ModelLoader.loadModel(path: directory.file("Models/App")).versions.first)
        let place = try #require(version.entity(named: "Place"))
        #expect(
            place.attribute(named: "location")?.versionHash.hex
                == "4e73fe9de153dfc0166045883bd2d2276d657bba8ba7bce6409efc36d09dd7d6")
        #expect(
            version.versionHashes["Place"]?.hex == "13bdfdd6f2cb9951d4dc0674615eed5ba1d3ac78cfaa7f9fb263bcbac91c249a")
        // No column for the composite; the key-path expression indexes its column, the
        // function expression nothing.
        let table = try #require(version.layout.tables.first { $0.name == "ZPLACE" })
        #expect(table.columns.map(\.name) == ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME"])
        let indexes = version.layout.indexes.filter { $0.table == "ZPLACE" && $0.name.hasPrefix("Z_Place_") }
        #expect(indexes.map(\.name) == ["Z_Place_byNamePath"])
        #expect(indexes.first?.columns == [StorageLayout.IndexColumn(name: "ZNAME", isDescending: true)])
    }

    /// Validation says which expression is not indexed, and `create` refuses the
    /// version, leaving no file behind.
    @Test func storesOfCompositeVersionsAreRefusedWithTheReason() throws {
        let directory = try TemporaryDirectory(prefix: "Composites")
        defer { directory.remove() }
        _ = try XcodeFidelityTests.imported(Self.places, in: directory)
        let loaded = ModelLoader.load(path: directory.file("Models/App"))
        #expect(
            loaded.diagnostics.filter { $0.severity == .warning }.map(\.message) == [
                "entity 'Place': index 'byLowerName': the expression 'lowercase:(name)' is kept for Xcode but not "
                    + "indexed here: "
                    + "only an expression that is a key path has a known SQL form (its column)"
            ])
        let version = try #require(try ModelLoader.loadModel(path: directory.file("Models/App")).versions.first)
        let path = directory.file("places.sqlite")
        do {
            try Store.create(path: path, version: version).close()
            Issue.record("create succeeded")
        } catch {
            #expect(error.kind == .unsupportedModel)
            #expect(
                error.message
                    == "version 1 of App has composite attributes (Place.location): how Core Data stores them in "
                    + "SQLite "
                    + "is not proven by any store at hand, so this toolkit does not create, migrate or read stores of "
                    + "this version "
                    + "(import, export, validate and compile work)")
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
