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
            relationships:
              friend: { destination: Person }
          Shelf:
            attributes: { title: string?, heading: string?, label: string? }
            relationships:
              items: { destination: Ledger, toMany: true }

        """
    static let version2 = """
        model: Fit
        version: 2
        entities:
          Ledger:
            attributes: { name: string?, balance: decimal?, floor: integer64?, flag: integer16? }
            relationships:
              owner: { destination: Person, inverse: ledgers }
          Person:
            attributes: { fullName: string?, nick: string?, first: string?, second: { type: string, optional: true, \
        default: "x" } }
            relationships:
              home: { destination: City, inverse: people }
              work: { destination: City }
              friend: { destination: Person }
              ledgers: { destination: Ledger, toMany: true, inverse: owner }
          City:
            attributes: { name: string? }
            relationships:
              people: { destination: Person, toMany: true, inverse: home }
          Shelf:
            attributes:
              title: { type: string, optional: true, renamedFrom: heading }
              caption: { type: string, optional: true, renamedFrom: label }
            relationships:
              items: { destination: Ledger, toMany: true, renamedFrom: oldItems }

        """

    /// Export `file` (as `1-to-2.yaml`), import the export; the imported YAML without comments.
    static func roundTrip(_ file: String) throws -> (yaml: String, export: MappingModelExport) {
        let (export, model) = try MappingFileExportTests.export(file, model: "Fit", versions: (version1, version2))
        #expect(export.omissions == [] && export.diagnostics == [])
        let xml = try #require(export.files.first { $0.path.hasSuffix("xcmapping.xml") }).text
        let converter = MappingModelConverter(
            model: model,
            versions: [
                ImportedVersion(
                    number: 1, source: "Fit.xcdatamodel", sourcePath: "", isCurrent: false, yaml: version1, warnings: []
                ),
                ImportedVersion(
                    number: 2, source: "Fit 2.xcdatamodel", sourcePath: "", isCurrent: true, yaml: version2,
                    warnings: []),
            ], bundleName: "Fit")
        let mapping = try #require(
            converter.convert([try XcodeMappingModel.parse(Data(xml.utf8), path: "Fit 1 to 2.xcmappingmodel")]).mappings
                .first)
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
        let yaml = try Self.roundTrip(file).yaml
        #expect(yaml == file)
    }

    /// `policy` on properties the source lacks (attribute and relationship) or has, beside
    /// a new attribute the file leaves to inference: Xcode's format says "the policy sets
    /// it" only by leaving a property unset on an entity mapping with a policy, so the
    /// inferred attribute goes as its default's constant, and comes back as that default.
    @Test func whatThePolicySetsComesBack() throws {
        let file = """
            entities:
              Person:
                policy: SplitName
                properties:
                  first: policy
                  nick: policy
                  friend: policy
                  home: policy
                  ledgers: policy
                  work: policy

            """
        let (yaml, export) = try Self.roundTrip(file)
        // What the policy sets comes after the other attributes, in the entity's order.
        #expect(
            yaml
                == file.replacingOccurrences(
                    of: "properties:\n", with: "properties:\n      second: { default: \"x\" }\n"))
        #expect(export.files.map(\.path) == ["Fit 1 to 2.xcmappingmodel/xcmapping.xml", "SplitName.swift"])
        // As Xcode leaves what a policy sets (BookPlayer 10 → 11's `uuid`): an empty attribute
        // mapping for a new attribute, none for one the source has or for a relationship.
        let xml = try #require(export.files.first).text
        #expect(xml.contains(">first<") && !xml.contains(">nick<") && !xml.contains(">home<"))
    }

    /// A copy of a namesake where the renaming identifier names another property (BookPlayer
    /// 2 → 3's `Playlist.books`, renamed from `relationBookV3`): Xcode's mapping copies the
    /// namesake, inference would not, so it is written out both ways; an inferred rename
    /// (`caption` from `label`) is left to inference both ways.
    @Test func copiesInferenceWouldNotMakeAreWrittenOut() throws {
        let file = """
            entities:
              Shelf:
                properties:
                  title: $source.title
                  items: $source.items

            """
        let yaml = try Self.roundTrip(file).yaml
        #expect(yaml == file)
    }

    /// An entity mapping's own name goes to Xcode and back (`mappingName:`); an entry that
    /// migrates no objects has no entity mapping, as import writes one for an
    /// entity without one; a default the file writes for a new attribute is a constant
    /// (import writes nothing for a new attribute nothing sets); the inverse of a
    /// relationship the policy sets is generated without a source (`Ledger.owner`), which
    /// sets nothing, so `ledgers: policy` still comes back.
    @Test func whatTheFileSaysItselfComesBack() throws {
        let file = """
            entities:
              Person:
                properties:
                  second: { default: "x" }
              Shelf:
                mappingName: "Shelves And More"
              Ledger:
                filter: "FALSEPREDICATE"

            """
        let (yaml, export) = try Self.roundTrip(file)
        #expect(yaml == file)
        let xml = try #require(export.files.first).text
        #expect(!xml.contains(">Ledger<") && xml.contains(">Shelves And More<"))
    }

    /// A mapping model beside the bundle (or below its folder) that maps its versions and
    /// that no mapping file wrote is named, and so is one for the same versions as a file
    /// written now, and one that cannot be read; one of another bundle, one just written,
    /// or one inside a model bundle is not.
    @Test func leftoverMappingModelsAreNamed() throws {
        let (_, export) = try Self.roundTrip("entities:\n  Person:\n    policy: SplitName\n")
        let xml = try #require(export.files.first { $0.path.hasSuffix("xcmapping.xml") }).text
        let folder = try TemporaryDirectory(prefix: "MappingFileExportFidelityTests")
        defer { folder.remove() }
        try folder.write("Fit 1 to 2.xcmappingmodel/xcmapping.xml", xml)
        try folder.write("Old 1 to 2.xcmappingmodel/xcmapping.xml", xml)
        try folder.write(
            "sub/Older.xcmappingmodel/xcmapping.xml",
            xml.replacingOccurrences(
                of: "Fit.xcdatamodeld/Fit 2.xcdatamodel", with: "Fit.xcdatamodeld/Fit 3.xcdatamodel"))
        try folder.write(
            "Other.xcmappingmodel/xcmapping.xml",
            xml.replacingOccurrences(of: "Fit.xcdatamodeld", with: "Other.xcdatamodeld"))
        try folder.write("Broken.xcmappingmodel/xcmapping.xml", "<database")
        try folder.write("Fit.xcdatamodeld/Inside.xcmappingmodel/xcmapping.xml", xml)
        let leftovers = export.leftovers(in: folder.path, bundleName: "Fit.xcdatamodeld")
        #expect(
            leftovers.map { ($0.path as NSString).lastPathComponent } == [
                "Broken.xcmappingmodel", "Old 1 to 2.xcmappingmodel", "Older.xcmappingmodel",
            ])
        #expect(leftovers.map(\.sameVersionsAs) == [nil, "Fit 1 to 2.xcmappingmodel", nil])
        #expect(leftovers[0].message.hasSuffix("an import of this folder with --mapping-models refuses it"))
        #expect(leftovers[1].message.hasSuffix("the app would have two mapping models for that hop; delete this one"))
        #expect(
            leftovers[2].sourceModel == "Fit.xcdatamodeld/Fit.xcdatamodel"
                && leftovers[2].destinationModel == "Fit.xcdatamodeld/Fit 3.xcdatamodel")
    }
}
