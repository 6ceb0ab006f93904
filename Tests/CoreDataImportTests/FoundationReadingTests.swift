import DataModel
import Foundation
import TestSupport
import Testing

@testable import CoreDataImport

/// Values Xcode saves that are not well formed for their type (shipped by real apps:
/// Wire's `mutedStatus` Integer 32 with `defaultValueString="NO"`, a `taxID` Integer 64
/// with `"0.0"`) import as Foundation reads them, and the file says so.
@Suite struct FoundationReadingTests {
    @Test(arguments: [
        ("NO", Int64(0)), ("YES", 0), ("0.0", 0), ("1.5", 1), ("  -42abc", -42), ("+7", 7), ("", 0), ("abc", 0),
        ("99999999999999999999", Int64.max), ("-99999999999999999999", Int64.min), ("-9223372036854775808", Int64.min),
    ])
    func integerValue(text: String, expected: Int64) {
        #expect(FoundationScalarText.integerValue(text) == expected)
    }

    @Test(arguments: [
        ("2.5 kg", "2.5"), ("1e3x", "1e3"), ("1e", "1"), ("NO", "0"), (".5", "0.5"), ("-.5", "-0.5"), ("7.", "7"),
        ("-", "0"),
        (" +3.25e-2", "3.25e-2"), ("-0", "0"),
    ])
    func numericPrefix(text: String, expected: String) {
        #expect(FoundationScalarText.numericPrefix(text) == expected)
    }

    @Test(arguments: [
        ("YES", true), ("yes", true), ("true", true), ("007", true), ("-1", true), ("NO", false), ("0.5", false),
        ("", false), ("x", false),
    ])
    func boolValue(text: String, expected: Bool) {
        #expect(FoundationScalarText.boolValue(text) == expected)
    }

    static let contents =
        XcodeFixtures.header("1") + """
                <entity name="Conversation" representedClassName="Conversation" syncable="YES">
                    <attribute name="mutedStatus" optional="YES" attributeType="Integer 32" defaultValueString="NO" \
            usesScalarValueType="YES"/>
                    <attribute name="taxID" optional="YES" attributeType="Integer 64" defaultValueString="0.0" \
            usesScalarValueType="YES"/>
                    <attribute name="level" optional="YES" attributeType="Integer 16" defaultValueString="99999" \
            minValueString="x" usesScalarValueType="YES"/>
                    <attribute name="ratio" optional="YES" attributeType="Double" defaultValueString="2.5 kg" \
            usesScalarValueType="YES"/>
                    <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="12 EUR"/>
                    <attribute name="archived" optional="YES" attributeType="Boolean" defaultValueString="Y" \
            usesScalarValueType="YES"/>
                    <attribute name="token" optional="YES" attributeType="UUID" defaultValueString="not-a-uuid"/>
                    <attribute name="count" optional="YES" attributeType="Integer 32" defaultValueString="3" \
            usesScalarValueType="YES"/>
                </entity>
            </model>
            """

    @Test func importsWhatXcodeAcceptedAndNamesEachReading() throws {
        let model = try XcodeModelImporter().convert(
            XcodeFixtures.bundle([("Chat.xcdatamodel", Self.contents)], name: "Chat"))
        let yaml = model.versions[0].yaml
        let lines = yaml.split(separator: "\n").map(String.init)
        #expect(yaml.contains("#   - Conversation.mutedStatus: defaultValueString \"NO\" → 0 (NSString.integerValue)"))
        #expect(yaml.contains("#   - Conversation.taxID: defaultValueString \"0.0\" → 0 (NSString.integerValue)"))
        #expect(
            yaml.contains(
                """
                #   - Conversation.level: defaultValueString \"99999\" → 32767 (NSString.integerValue, clamped to \
                integer16)
                """
            ))
        #expect(yaml.contains("#   - Conversation.level: minValueString \"x\" → 0 (NSString.integerValue)"))
        #expect(yaml.contains("#   - Conversation.ratio: defaultValueString \"2.5 kg\" → 2.5 (NSString.doubleValue)"))
        #expect(
            yaml.contains(
                """
                #   - Conversation.price: defaultValueString \"12 EUR\" → 12 (its numeric prefix, as NSDecimalNumber \
                reads it)
                """
            ))
        #expect(yaml.contains("#   - Conversation.archived: defaultValueString \"Y\" → true (NSString.boolValue)"))
        #expect(
            yaml.contains(
                """
                #   - Conversation.token: defaultValueString \"not-a-uuid\" left out (not a UUID: Core Data has no \
                value for it)
                """
            ))
        // A well-formed value is not a conversion.
        #expect(!lines.contains { $0.contains("Conversation.count:") })

        let compiled = try compile(model)
        let entity = try #require(compiled.current.entity(named: "Conversation"))
        func value(_ name: String) -> AttributeValue? { entity.attribute(named: name)?.declaration.defaultValue }
        #expect(value("mutedStatus") == .integer(0))
        #expect(value("taxID") == .integer(0))
        #expect(value("level") == .integer(32767))
        #expect(value("ratio") == .double(2.5))
        #expect(value("archived") == .boolean(true))
        #expect(value("token") == nil)
        #expect(value("count") == .integer(3))
        #expect(entity.attribute(named: "level")?.declaration.minimum == .integer(0))
    }
}

/// Property names starting with an uppercase letter, which Core Data accepts and
/// apps ship (`<relationship name="Box" …/>`), import; the versions compile with a
/// warning and the names are hashed as written.
@Suite struct UppercasePropertyNameTests {
    static let contents =
        XcodeFixtures.header("1") + """
                <entity name="Shelf" representedClassName="Shelf" syncable="YES">
                    <attribute name="Total" optional="YES" attributeType="Integer 32" defaultValueString="0" \
            usesScalarValueType="YES"/>
                    <relationship name="Box" optional="YES" maxCount="1" deletionRule="Nullify" \
            destinationEntity="Shelf"/>
                </entity>
            </model>
            """

    @Test func importsAndCompiles() throws {
        let model = try XcodeModelImporter().convert(
            XcodeFixtures.bundle([("Store.xcdatamodel", Self.contents)], name: "Store"))
        #expect(
            model.versions[0].yaml.contains(
                "      Total: { type: integer32, optional: true, default: 0, scalar: true }\n"))
        #expect(model.versions[0].yaml.contains("      Box: { destination: Shelf }\n"))
        let folder = try TemporaryDirectory(prefix: "UppercasePropertyNameTests")
        defer { folder.remove() }
        try folder.write("Store/1.yaml", model.versions[0].yaml)
        let result = ModelLoader.load(path: folder.file("Store"))
        #expect(result.diagnostics.filter { $0.severity == .error }.isEmpty)
        #expect(
            result.diagnostics.filter { $0.severity == .warning && $0.message.contains("uppercase") }.map(\.message)
                .sorted() == [
                    """
                    attribute 'Shelf.Total': the name starts with an uppercase letter; Core Data accepts it, but Swift \
                    and Objective-C accessors expect a lowercase one
                    """,
                    """
                    relationship 'Shelf.Box': the name starts with an uppercase letter; Core Data accepts it, but \
                    Swift and Objective-C accessors expect a lowercase one
                    """,
                ])
        let compiled = try ModelLoader.loadModel(path: folder.file("Store"))
        let layout = compiled.current.layout
        #expect(layout.tables.first?.columns.map(\.name) == ["Z_PK", "Z_ENT", "Z_OPT", "ZTOTAL", "ZBOX"])
        // The name's own bytes are hashed: `Box` is another property than `box`.
        let lower = try TestModels.compile(
            "Store",
            """
            entities:
              Shelf:
                attributes: { Total: { type: integer32, optional: true } }
                relationships: { box: { destination: Shelf, optional: true } }
            """)
        #expect(lower.versionHashes["Shelf"] != compiled.current.versionHashes["Shelf"])
    }
}
