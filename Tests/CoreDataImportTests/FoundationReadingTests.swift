@testable import CoreDataImport
import DataModel
import Foundation
import Testing

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
        ("2.5 kg", "2.5"), ("1e3x", "1e3"), ("1e", "1"), ("NO", "0"), (".5", "0.5"), ("-.5", "-0.5"), ("7.", "7"), ("-", "0"),
        (" +3.25e-2", "3.25e-2"), ("-0", "0"),
    ])
    func numericPrefix(text: String, expected: String) {
        #expect(FoundationScalarText.numericPrefix(text) == expected)
    }

    @Test(arguments: [("YES", true), ("yes", true), ("true", true), ("007", true), ("-1", true), ("NO", false), ("0.5", false), ("", false), ("x", false)])
    func boolValue(text: String, expected: Bool) {
        #expect(FoundationScalarText.boolValue(text) == expected)
    }

    static let contents = XcodeFixtures.header("1") + """
        <entity name="Conversation" representedClassName="Conversation" syncable="YES">
            <attribute name="mutedStatus" optional="YES" attributeType="Integer 32" defaultValueString="NO" usesScalarValueType="YES"/>
            <attribute name="taxID" optional="YES" attributeType="Integer 64" defaultValueString="0.0" usesScalarValueType="YES"/>
            <attribute name="level" optional="YES" attributeType="Integer 16" defaultValueString="99999" minValueString="x" usesScalarValueType="YES"/>
            <attribute name="ratio" optional="YES" attributeType="Double" defaultValueString="2.5 kg" usesScalarValueType="YES"/>
            <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="12 EUR"/>
            <attribute name="archived" optional="YES" attributeType="Boolean" defaultValueString="Y" usesScalarValueType="YES"/>
            <attribute name="token" optional="YES" attributeType="UUID" defaultValueString="not-a-uuid"/>
            <attribute name="count" optional="YES" attributeType="Integer 32" defaultValueString="3" usesScalarValueType="YES"/>
        </entity>
    </model>
    """

    @Test func importsWhatXcodeAcceptedAndNamesEachReading() throws {
        let model = try XcodeModelImporter().convert(XcodeFixtures.bundle([("Chat.xcdatamodel", Self.contents)], name: "Chat"))
        let yaml = model.versions[0].yaml
        let lines = yaml.split(separator: "\n").map(String.init)
        #expect(yaml.contains("#   - Conversation.mutedStatus: defaultValueString \"NO\" → 0 (NSString.integerValue)"))
        #expect(yaml.contains("#   - Conversation.taxID: defaultValueString \"0.0\" → 0 (NSString.integerValue)"))
        #expect(yaml.contains("#   - Conversation.level: defaultValueString \"99999\" → 32767 (NSString.integerValue, clamped to integer16)"))
        #expect(yaml.contains("#   - Conversation.level: minValueString \"x\" → 0 (NSString.integerValue)"))
        #expect(yaml.contains("#   - Conversation.ratio: defaultValueString \"2.5 kg\" → 2.5 (NSString.doubleValue)"))
        #expect(yaml.contains("#   - Conversation.price: defaultValueString \"12 EUR\" → 12 (its numeric prefix, as NSDecimalNumber reads it)"))
        #expect(yaml.contains("#   - Conversation.archived: defaultValueString \"Y\" → true (NSString.boolValue)"))
        #expect(yaml.contains("#   - Conversation.token: defaultValueString \"not-a-uuid\" left out (not a UUID: Core Data has no value for it)"))
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
