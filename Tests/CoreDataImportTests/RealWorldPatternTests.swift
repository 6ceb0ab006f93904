import CoreDataImport
import Foundation
import TestSupport
import Testing

/// Patterns met in public apps' Core Data histories (Docs/Corpus.md, `Scripts/corpus.py`),
/// each written again here by hand in a few lines: how real bundles name and order their
/// versions, and the changes apps shipped between versions.
@Suite struct RealWorldPatternTests {
    static let note =
        XcodeFixtures.header("") + """
            <entity name="Note" representedClassName="Note" syncable="YES"><attribute name="text" optional="YES" \
            attributeType="String"/></entity></model>
            """

    static func sources(_ folders: [String], current: String? = nil, order: [String]? = nil, name: String = "M") throws
        -> [String]
    {
        let bundle = XcodeFixtures.bundle(folders.map { ($0, note) }, current: current, name: name)
        return try XcodeModelImporter(order: order).convert(bundle).versions.map(\.source)
    }

    /// Meshtastic: "MeshtasticDataModelV22", then "…V 23" to "…V 31" with a space, beside
    /// "…V32" and "…V33" without: the space before a number does not reorder versions.
    @Test func aSpaceBeforeTheNumberIsIgnored() throws {
        let folders = ["DataModelV 31", "DataModelV32", "DataModelV 23", "DataModelV22", "DataModelV 34", "DataModel"]
            .map { $0 + ".xcdatamodel" }
        #expect(
            try Self.sources(folders, current: "DataModelV 34.xcdatamodel")
                == [
                    "DataModel", "DataModelV22", "DataModelV 23", "DataModelV 31", "DataModelV32", "DataModelV 34",
                ].map { $0 + ".xcdatamodel" })
    }

    /// EasyLife "EasyLife 1.3.0" / "1.5.0", Wire "zmessaging2.21.0" / "2.24" / "2.24.1",
    /// Moonlight "v1.0" / "v1.0-2" / "v1.1": release numbers compare field by field.
    @Test func releaseNumbersCompareFieldByField() {
        #expect(
            VersionOrder.sorted(["EasyLife 1.10.0", "EasyLife 1.5.0", "EasyLife", "EasyLife 1.3.0"], current: nil)
                == ["EasyLife", "EasyLife 1.3.0", "EasyLife 1.5.0", "EasyLife 1.10.0"])
        #expect(
            VersionOrder.sorted(
                ["zmessaging2.24.1", "zmessaging2.3", "zmessaging2.24", "zmessaging2.21.0"], current: nil)
                == ["zmessaging2.3", "zmessaging2.21.0", "zmessaging2.24", "zmessaging2.24.1"])
        #expect(
            VersionOrder.sorted(["v1.1", "v1.0-2", "v1.0", "0.3.1"], current: nil) == [
                "0.3.1", "v1.0", "v1.0-2", "v1.1",
            ])
    }

    /// Stepik names versions by feature ("Model_notifications" beside "Model_exams_v10"):
    /// their names say nothing of their order, so Xcode's listing is not the history and
    /// an order list (`import --order`, here the order commits added them) decides.
    @Test func featureNamedVersionsTakeAnOrderList() throws {
        let folders = ["Model", "Model_v2", "Model_exams_v10", "Model_notifications", "Model_ discussion_threads"].map {
            $0 + ".xcdatamodel"
        }
        #expect(
            try Self.sources(folders, current: "Model_notifications.xcdatamodel")
                == [
                    "Model", "Model_ discussion_threads", "Model_exams_v10", "Model_v2", "Model_notifications",
                ].map { $0 + ".xcdatamodel" })
        let history = ["Model", "Model_v2", "Model_exams_v10", "Model_ discussion_threads", "Model_notifications"]
        #expect(
            try Self.sources(folders, current: "Model_notifications.xcdatamodel", order: history)
                == history.map { $0 + ".xcdatamodel" })
    }

    /// CoreDataStack's `Sample.xcdatamodeld` holds "TestModel" and "TestModel 2", LoopKit's
    /// `Model.xcdatamodeld` "Model" and "Modelv4": the bundle names the model, the folders
    /// only order the versions.
    @Test func versionFoldersNamedUnlikeTheBundle() throws {
        let model = try XcodeModelImporter().convert(
            XcodeFixtures.bundle(
                [("TestModel 2.xcdatamodel", Self.note), ("TestModel.xcdatamodel", Self.note)],
                current: "TestModel 2.xcdatamodel", name: "Sample"))
        #expect(model.name == "Sample")
        #expect(model.versions.map(\.source) == ["TestModel.xcdatamodel", "TestModel 2.xcdatamodel"])
        #expect(model.versions[1].yaml.contains("model: Sample\nversion: 2\n"))
        #expect(
            try Self.sources(["Modelv4.xcdatamodel", "Model.xcdatamodel"], current: "Modelv4.xcdatamodel") == [
                "Model.xcdatamodel", "Modelv4.xcdatamodel",
            ])
    }

    // MARK: Changes apps shipped, through `migrate import --report`

    static func version(_ attributes: String) -> String {
        XcodeFixtures.header("")
            + "<entity name=\"Item\" representedClassName=\"Item\" syncable=\"YES\">\(attributes)</entity></model>"
    }

    /// Imports two versions and returns, per refused hop, the refusal kinds with the property.
    static func refusals(_ old: String, _ new: String) throws -> [String] {
        let folder = try TemporaryDirectory(prefix: "real-world")
        defer { folder.remove() }
        _ = try folder.write("App.xcdatamodeld/App.xcdatamodel/contents", version(old))
        _ = try folder.write("App.xcdatamodeld/App 2.xcdatamodel/contents", version(new))
        let result = try CommandRunner.migrate([
            "import", folder.file("App.xcdatamodeld"), "-o", folder.file("Models"), "--report", "--json",
        ])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let hops = try #require(report["hops"] as? [[String: Any]])
        return hops.flatMap {
            ($0["refusals"] as? [[String: Any]] ?? []).map { "\($0["property"] ?? "-"): \($0["kind"] ?? "?")" }
        }
    }

    static func attribute(_ type: String, optional: Bool = true, extra: String = "") -> String {
        "<attribute name=\"value\"\(optional ? " optional=\"YES\"" : "") attributeType=\"\(type)\"\(extra)/>"
    }

    /// AltStore 1 → 2 and 12 → 13, Delta 3 → 4, WooCommerce 9 → 10: a new required
    /// attribute without a default. Core Data's inferred mapping has no value for it
    /// either; each app ships a mapping model for the hop. With a default it is inferred.
    @Test func aNewRequiredAttributeNeedsADefault() throws {
        let before = Self.attribute("String")
        #expect(
            try Self.refusals(before, before + "<attribute name=\"identifier\" attributeType=\"String\"/>") == [
                "identifier: requiredWithoutDefault"
            ])
        #expect(
            try Self.refusals(
                before, before + "<attribute name=\"identifier\" attributeType=\"String\" defaultValueString=\"\"/>")
                == [])
    }

    /// The type changes apps shipped without a mapping model: Meshtastic 5 → 6 (Integer 32
    /// → Date, Boolean → Integer 64), 33 → 34 (Integer 64 → Integer 32), 44 → 45 (Integer
    /// 32 → Float); Moonlight 5 → 6 (Integer 32 → Boolean); Stepik 64 → 65 (Integer 64 →
    /// Float). None is a widening; all are refused, naming the change.
    @Test(arguments: [
        ("Integer 32", "Date"), ("Boolean", "Integer 64"), ("Integer 64", "Integer 32"),
        ("Integer 32", "Float"), ("Integer 32", "Boolean"), ("Integer 64", "Float"),
    ])
    func typeChangesAppsShippedAreRefused(from: String, to: String) throws {
        #expect(try Self.refusals(Self.attribute(from), Self.attribute(to)) == ["value: typeChange"])
    }

    /// Widening an integer (Integer 16 → 32 → 64) keeps every value: inferred.
    @Test(arguments: [("Integer 16", "Integer 32"), ("Integer 32", "Integer 64"), ("Integer 16", "Integer 64")])
    func integerWideningIsInferred(from: String, to: String) throws {
        #expect(try Self.refusals(Self.attribute(from), Self.attribute(to)) == [])
    }
}
