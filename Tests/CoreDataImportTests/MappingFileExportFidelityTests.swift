import DataModel
import Foundation
import Mapping
import TestSupport
import Testing

@testable import CoreDataImport

/// What a mapping file says that Xcode's format says only by what it leaves out, and
/// values no double holds: each comes back from an export's import word for word.
@Suite struct MappingFileExportFidelityTests {
    static let version1 = """
        model: Fit
        version: 1
        entities:
          Ledger:
            attributes: { name: string? }
          Person:
            attributes: { fullName: string?, nick: string? }

        """
    static let version2 = """
        model: Fit
        version: 2
        entities:
          Ledger:
            attributes: { name: string?, balance: decimal?, floor: integer64?, flag: integer16? }
          Person:
            attributes: { fullName: string?, nick: string?, first: string?, second: { type: string, optional: true, default: "x" } }
            relationships:
              home: { destination: City, inverse: people }
              work: { destination: City }
          City:
            attributes: { name: string? }
            relationships:
              people: { destination: Person, toMany: true, inverse: home }

        """

    /// Export `file` (as `1-to-2.yaml`), import the export; the imported YAML without comments.
    static func roundTrip(_ file: String) throws -> (yaml: String, export: MappingModelExport) {
        let folder = try TemporaryDirectory(prefix: "MappingFileExportFidelityTests")
        defer { folder.remove() }
        try folder.write("Models/Fit/1.yaml", version1)
        try folder.write("Models/Fit/2.yaml", version2)
        try folder.write("Migrations/Fit/1-to-2.yaml", file)
        let model = try ModelLoader.loadModel(path: folder.file("Models/Fit"))
        let files = MappingFiles.load(folder: folder.file("Migrations"), model: "Fit", versions: [1, 2])
        #expect(files.diagnostics.isEmpty, "\(files.diagnostics)")
        let versions = try #require(ModelLoader.load(path: folder.file("Models/Fit")).models.first).versions
        let export = MappingModelExport(
            mappingFiles: files, model: model, exported: XcodeModelExporter().export(versions, model: "Fit"), bundleName: "Fit.xcdatamodeld")
        #expect(export.omissions == [] && export.diagnostics == [])
        let xml = try #require(export.files.first { $0.path.hasSuffix("xcmapping.xml") }).text
        let converter = MappingModelConverter(
            model: model,
            versions: [
                ImportedVersion(number: 1, source: "Fit.xcdatamodel", sourcePath: "", isCurrent: false, yaml: version1, warnings: []),
                ImportedVersion(number: 2, source: "Fit 2.xcdatamodel", sourcePath: "", isCurrent: true, yaml: version2, warnings: []),
            ], bundleName: "Fit")
        let mapping = try #require(
            converter.convert([try XcodeMappingModel.parse(Data(xml.utf8), path: "Fit 1 to 2.xcmappingmodel")]).mappings.first)
        return (MappingFileExportTests.withoutComments(mapping.yaml), export)
    }

    /// A decimal no double holds, Int64.min, and predicate options [n] and [l].
    @Test func valuesComeBackExactly() throws {
        let file = """
            entities:
              Ledger:
                properties:
                  balance: { default: -12345678901234567890.123456789 }
                  floor: { default: -9223372036854775808 }
                  flag: { value: "TERNARY($source.name CONTAINS[n] 'x', 1, TERNARY($source.name ==[cdl] 'y', 2, 0))" }

            """
        #expect(try Self.roundTrip(file).yaml == file)
    }

    /// `policy` on properties the source lacks (attribute and relationship), beside new
    /// properties the file leaves to inference and a default the model has: Xcode's
    /// format tells them apart only by which property mappings it holds.
    @Test func whatThePolicySetsComesBack() throws {
        let file = """
            entities:
              Person:
                policy: SplitName
                properties:
                  first: policy
                  nick: policy
                  home: policy

            """
        let (yaml, export) = try Self.roundTrip(file)
        #expect(yaml == file)
        #expect(export.files.map(\.path) == ["Fit 1 to 2.xcmappingmodel/xcmapping.xml", "SplitName.swift"])
        // The same entity with nothing left to the policy: nothing comes back as `policy`.
        let inferred = """
            entities:
              Person:
                policy: SplitName
                properties:
                  second: { default: "x" }

            """
        #expect(try Self.roundTrip(inferred).yaml == inferred.replacingOccurrences(of: "    properties:\n      second: { default: \"x\" }\n", with: ""))
    }

    /// A mapping model beside the bundle that maps its versions and that no mapping file
    /// wrote is named; one of another bundle, or one just written, is not.
    @Test func leftoverMappingModelsAreNamed() throws {
        let (_, export) = try Self.roundTrip("entities:\n  Person:\n    policy: SplitName\n")
        let xml = try #require(export.files.first { $0.path.hasSuffix("xcmapping.xml") }).text
        let folder = try TemporaryDirectory(prefix: "MappingFileExportFidelityTests")
        defer { folder.remove() }
        try folder.write("Fit 1 to 2.xcmappingmodel/xcmapping.xml", xml)
        try folder.write("Old 2 to 3.xcmappingmodel/xcmapping.xml", xml)
        try folder.write("Other.xcmappingmodel/xcmapping.xml", xml.replacingOccurrences(of: "Fit.xcdatamodeld", with: "Other.xcdatamodeld"))
        try folder.write("Broken.xcmappingmodel/xcmapping.xml", "<database")
        let leftovers = MappingModelExport.leftovers(
            in: folder.path, bundleName: "Fit.xcdatamodeld", written: ["Fit 1 to 2.xcmappingmodel"])
        #expect(leftovers.map { ($0.path as NSString).lastPathComponent } == ["Old 2 to 3.xcmappingmodel"])
        #expect(leftovers.first?.sourceModel == "Fit.xcdatamodeld/Fit.xcdatamodel")
    }
}
