import CoreDataImport
import Foundation
import TestSupport
import Testing

@Suite struct VersionOrderTests {
    @Test func namesCompareDigitsAsNumbers() {
        let names = [
            "Model 10.xcdatamodel", "Model.xcdatamodel", "Model 2.xcdatamodel", "model 3.xcdatamodel",
            "Model 02.xcdatamodel",
        ]
        #expect(
            VersionOrder.sorted(names, current: nil) == [
                "Model.xcdatamodel", "Model 02.xcdatamodel", "Model 2.xcdatamodel", "model 3.xcdatamodel",
                "Model 10.xcdatamodel",
            ])
    }

    /// Meshtastic's history names "MeshtasticDataModelV22", then "…V32" and "…V33",
    /// then "…V 23" to "…V 31" and "…V 34" on: spaces do not reorder versions.
    @Test func spacesBeforeANumberDoNotChangeTheOrder() {
        let names = ["DataModelV 23", "DataModelV32", "DataModelV 31", "DataModelV22", "DataModelV 34", "DataModelV33"]
        #expect(
            VersionOrder.sorted(names, current: nil) == [
                "DataModelV22", "DataModelV 23", "DataModelV 31", "DataModelV32", "DataModelV33", "DataModelV 34",
            ])
    }

    @Test func theCurrentVersionGoesLast() {
        #expect(
            VersionOrder.sorted(["Model 2", "Model 10", "Model"], current: "Model 2") == [
                "Model", "Model 10", "Model 2",
            ])
        #expect(
            VersionOrder.placement(of: "Model 2", among: ["Model 2", "Model 10", "Model"])
                == .movedLast(after: ["Model 10"]))
        #expect(VersionOrder.placement(of: "Model 10", among: ["Model 2", "Model 10", "Model"]) == nil)
        #expect(VersionOrder.sorted(["Model 2", "Model 10"], current: "Elsewhere") == ["Model 2", "Model 10"])
    }

    /// A current marker on the first version by name, with later versions beside it,
    /// was never switched (CoreDataPlus's SampleModel): name order stands.
    @Test func aCurrentMarkerOnTheFirstVersionKeepsNameOrder() {
        #expect(
            VersionOrder.sorted(["SampleModel2", "SampleModel", "SampleModel3"], current: "SampleModel")
                == ["SampleModel", "SampleModel2", "SampleModel3"])
        #expect(
            VersionOrder.placement(of: "SampleModel", among: ["SampleModel2", "SampleModel", "SampleModel3"])
                == .keptFirst(before: ["SampleModel2", "SampleModel3"]))
    }

    @Test func orderFilesSkipBlankLinesAndComments() {
        #expect(
            VersionOrder.parseList("# oldest first\nModel 2\n\n  Model.xcdatamodel  \r\n") == [
                "Model 2", "Model.xcdatamodel",
            ])
    }

    static func bundle(current: String = "M.xcdatamodel") -> XcodeModelBundle {
        let xml =
            XcodeFixtures.header("")
            + "<entity name=\"A\"><attribute name=\"a\" attributeType=\"String\"/></entity></model>"
        return XcodeFixtures.bundle(
            [("M 10.xcdatamodel", xml), ("M 2.xcdatamodel", xml), ("M.xcdatamodel", xml)],
            current: current, name: "M")
    }

    @Test func importNumbersVersionsByTheRule() throws {
        let model = try XcodeModelImporter().convert(Self.bundle(current: "M 2.xcdatamodel"))
        #expect(model.versions.map(\.source) == ["M.xcdatamodel", "M 10.xcdatamodel", "M 2.xcdatamodel"])
        #expect(model.versions.map(\.number) == [1, 2, 3])
        #expect(
            model.notes == [
                """
                M 2.xcdatamodel is the current version (.xccurrentversion), so it is imported last, as version 3, \
                although M 10.xcdatamodel sorts after it; pass --order to choose another order
                """
            ])
    }

    @Test func aCurrentMarkerNeverSwitchedKeepsNameOrderWithANote() throws {
        let model = try XcodeModelImporter().convert(Self.bundle())
        #expect(model.versions.map(\.source) == ["M.xcdatamodel", "M 2.xcdatamodel", "M 10.xcdatamodel"])
        #expect(model.versions.map(\.isCurrent) == [true, false, false])
        #expect(
            model.notes == [
                """
                M.xcdatamodel is marked current (.xccurrentversion) but is the first version by name, and M \
                2.xcdatamodel, M 10.xcdatamodel sort after it: the marker looks never switched, so the versions are \
                imported in name order and M.xcdatamodel is version 1; pass --order M.xcdatamodel last if it is the \
                newest
                """
            ])
    }

    /// A mapping model of the app into the marked version, from one sorting after it,
    /// shows the marker was switched (keybuk/EngineShed ships `MaxIndexMigrationModel`
    /// from "EngineShed 5" to the unnumbered, current "EngineShed"): it goes last. One
    /// that maps between other versions is no such evidence.
    @Test func aMappingModelIntoTheMarkedVersionShowsTheMarkerWasSwitched() throws {
        var importer = XcodeModelImporter()
        importer.mappedVersions = [("M 2.xcdatamodel", "M 10.xcdatamodel"), ("M 10.xcdatamodel", "M.xcdatamodel")]
        let model = try importer.convert(Self.bundle())
        #expect(model.versions.map(\.source) == ["M 2.xcdatamodel", "M 10.xcdatamodel", "M.xcdatamodel"])
        #expect(model.versions.map(\.isCurrent) == [false, false, true])
        #expect(
            model.notes == [
                """
                M.xcdatamodel is marked current (.xccurrentversion) though it is the first version by name, and a \
                mapping model of the app maps M 10.xcdatamodel to it, so the marker was switched: M.xcdatamodel is \
                imported last, as version 3; pass --order to choose another order
                """
            ])
        importer.mappedVersions = [("M 2.xcdatamodel", "M 10.xcdatamodel")]
        #expect(
            try importer.convert(Self.bundle()).versions.map(\.source) == [
                "M.xcdatamodel", "M 2.xcdatamodel", "M 10.xcdatamodel",
            ])
    }

    @Test func anOrderListOverridesTheRule() throws {
        let model = try XcodeModelImporter(order: ["M", "M 2.xcdatamodel", "M 10"]).convert(Self.bundle())
        #expect(model.versions.map(\.source) == ["M.xcdatamodel", "M 2.xcdatamodel", "M 10.xcdatamodel"])
        #expect(model.versions[2].yaml.contains("version: 3\n"))
        #expect(model.notes.isEmpty)
    }

    @Test func anOrderListMustNameEveryVersionOnce() {
        #expect {
            _ = try XcodeModelImporter(order: ["M", "M", "M 3"]).convert(Self.bundle())
        } throws: { error in
            (error as? ImportError)?.problems == [
                "order: 'M' is listed twice",
                """
                order: 'M 3' is not a version of M.xcdatamodeld (versions: M.xcdatamodel, M 2.xcdatamodel, M \
                10.xcdatamodel)
                """,
                "order: the list leaves out M 2.xcdatamodel, M 10.xcdatamodel; list every version once",
            ]
        }
    }
}

@Suite struct XcodeModelBundleTests {
    static let currentVersion = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>_XCCurrentVersionName</key>
        \t<string>Shop 2.xcdatamodel</string>
        </dict>
        </plist>
        """

    @Test func readsABundleWithItsCurrentVersionAndSkipsCompiledOnes() throws {
        let folder = try TemporaryDirectory(prefix: "CoreDataImportTests")
        defer { folder.remove() }
        try folder.write("Shop.xcdatamodeld/Shop.xcdatamodel/contents", XcodeFixtures.sampleV1)
        try folder.write("Shop.xcdatamodeld/Shop 2.xcdatamodel/contents", XcodeFixtures.sampleV1)
        try folder.write("Shop.xcdatamodeld/Shop 0.mom", bytes: [0x62, 0x70])
        try folder.write("Shop.xcdatamodeld/.xccurrentversion", Self.currentVersion)
        let bundle = try XcodeModelBundle.read(path: folder.file("Shop.xcdatamodeld/"))
        #expect(bundle.name == "Shop")
        #expect(bundle.currentVersion == "Shop 2.xcdatamodel")
        #expect(bundle.versions.map(\.folder).sorted() == ["Shop 2.xcdatamodel", "Shop.xcdatamodel"])
        #expect(bundle.skipped == ["Shop 0.mom: a compiled model version, whose source is not in the bundle; skipped"])
    }

    @Test func readsOneVersionFolderOrOneContentsFile() throws {
        let folder = try TemporaryDirectory(prefix: "CoreDataImportTests")
        defer { folder.remove() }
        let contents = try folder.write("Shop.xcdatamodeld/Shop 2.xcdatamodel/contents", XcodeFixtures.sampleV1)
        let single = try XcodeModelBundle.read(path: folder.file("Shop.xcdatamodeld/Shop 2.xcdatamodel"))
        #expect(single.versions.map(\.folder) == ["Shop 2.xcdatamodel"])
        let file = try XcodeModelBundle.read(path: contents)
        #expect(file.versions.map(\.folder) == ["Shop 2.xcdatamodel"])
        #expect(file.versions[0].path == contents)
        // "Shop 2" is no model name; --model chooses one.
        #expect(throws: ImportError.self) { try XcodeModelImporter().convert(file) }
        #expect(try XcodeModelImporter(modelName: "Shop").convert(file).versions.count == 1)
    }

    @Test func aBundleOfCompiledModelsOnlyIsRefused() throws {
        let folder = try TemporaryDirectory(prefix: "CoreDataImportTests")
        defer { folder.remove() }
        try folder.write("Old.xcdatamodeld/Old.mom", bytes: [0x62])
        #expect {
            _ = try XcodeModelBundle.read(path: folder.file("Old.xcdatamodeld"))
        } throws: { error in
            (error as? ImportError)?.problems == [
                """
                \(folder.file("Old.xcdatamodeld")): no model versions with a 'contents' file found \
                (Old.mom: a compiled model version, whose source is not in the bundle; skipped)
                """
            ]
        }
    }
}
