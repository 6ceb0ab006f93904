import DataModel
import Foundation
import Mapping
import TestSupport
import Testing

@testable import CoreDataImport

/// A mapping file with every element, exported as an `.xcmappingmodel`, read back by
/// `XcodeMappingModel.parse` and converted by the importer: the same mapping file.
@Suite struct MappingFileExportTests {
    static let version1 = """
        model: Shop
        version: 1
        entities:
          Customer:
            attributes: { name: string, mail: string?, visits: integer32, status: string?, since: date? }
            relationships:
              orders: { destination: Order, toMany: true, inverse: customer }
          Order:
            attributes: { total: double, note: string? }
            relationships:
              customer: { destination: Customer, inverse: orders }
          Note:
            attributes: { text: string?, pinned: boolean? }
          Legacy:
            attributes: { name: string? }

        """
    static let version2 = """
        model: Shop
        version: 2
        entities:
          Client:
            attributes:
              name: string
              email: string?
              tier: string?
              score: integer32?
              active: boolean?
              rate: double?
              since: { type: date, optional: true, default: "2001-01-01T00:00:00Z" }
              label: string?
              key: uuid?
            relationships:
              purchases: { destination: Order, toMany: true, inverse: client }
          Order:
            attributes: { total: double, note: string?, code: string?, words: integer64? }
            relationships:
              client: { destination: Client, inverse: purchases }
          Note:
            attributes: { text: string?, pinned: boolean? }
          Tag:
            attributes: { label: string? }

        """
    /// Written as the importer writes mapping files, so that it comes back line for line.
    static let mappingFile = """
        entities:
          Client:
            source: Customer
            policy: ClientPolicy
            filter: "visits >= 10 AND name != 'test'"
            properties:
              email: $source.mail
              tier: { value: "FUNCTION($entityPolicy, 'tierForVisits:', $source.visits)" }
              score: { value: "($source.visits * 2)" }
              label: { default: "new \\"one\\"" }
              active: { default: true }
              rate: { default: 2.5 }
              purchases: $source.orders
              since: { default: "2001-01-01T00:00:00Z" }
          Order:
            properties:
              code: { value: "TERNARY($source.total > 100, 'big', uppercase:($source.note))" }
              words: { value: "FUNCTION($source.note, 'componentsSeparatedByString:', ' ')[SIZE]" }
              client: $source.customer
          Note:
            filter: "pinned == YES"
            properties:
              text: { value: "lowercase:($source.text)" }

        """

    /// The export of `mappingFile` (as `1-to-2.yaml`) against the two versions of `model`.
    static func export(
        _ mappingFile: String, model name: String = "Shop", versions: (String, String) = (version1, version2)
    ) throws -> (MappingModelExport, CompiledModel) {
        let folder = try TemporaryDirectory(prefix: "MappingFileExportTests")
        defer { folder.remove() }
        try folder.write("Models/\(name)/1.yaml", versions.0)
        try folder.write("Models/\(name)/2.yaml", versions.1)
        try folder.write("Migrations/\(name)/1-to-2.yaml", mappingFile)
        let model = try ModelLoader.loadModel(path: folder.file("Models/\(name)"))
        let files = MappingFiles.load(folder: folder.file("Migrations"), model: name, versions: [1, 2])
        #expect(files.diagnostics.isEmpty, "\(files.diagnostics)")
        let loaded = try #require(ModelLoader.load(path: folder.file("Models/\(name)")).models.first).versions
        let exported = XcodeModelExporter().export(loaded, model: name)
        return (
            MappingModelExport(
                mappingFiles: files, model: model, exported: exported, bundleName: "\(name).xcdatamodeld"), model
        )
    }

    /// The importer's reading of an exported `xcmapping.xml`.
    static func reimport(_ xml: String, model: CompiledModel, as name: String = "Shop 1 to 2.xcmappingmodel") throws
        -> ImportedMapping
    {
        let mappingModel = try XcodeMappingModel.parse(Data(xml.utf8), path: name)
        let converter = MappingModelConverter(
            model: model,
            versions: [
                ImportedVersion(
                    number: 1, source: "Shop.xcdatamodel", sourcePath: "", isCurrent: false, yaml: version1,
                    warnings: []),
                ImportedVersion(
                    number: 2, source: "Shop 2.xcdatamodel", sourcePath: "", isCurrent: true, yaml: version2,
                    warnings: []),
            ], bundleName: "Shop")
        return try #require(converter.convert([mappingModel]).mappings.first)
    }

    /// A mapping file's YAML without comments: what the loader reads.
    static func withoutComments(_ yaml: String) -> String {
        yaml.split(separator: "\n", omittingEmptySubsequences: false).filter {
            !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#")
        }
        .map { line in line.range(of: "   # ").map { String(line[..<$0.lowerBound]) } ?? String(line) }.joined(
            separator: "\n")
    }

    @Test func everyElementComesBack() throws {
        let (export, model) = try Self.export(Self.mappingFile)
        #expect(export.mappingModels.map(\.mappingModel) == ["Shop 1 to 2.xcmappingmodel"])
        #expect(export.omissions == [])
        #expect(export.files.map(\.path) == ["Shop 1 to 2.xcmappingmodel/xcmapping.xml", "ClientPolicy.swift"])
        let imported = try Self.reimport(export.files[0].text, model: model)
        #expect(imported.pairedBy == "sourcemodelpath and destinationmodelpath")
        #expect(Self.withoutComments(imported.yaml) == Self.withoutComments(Self.mappingFile))
        #expect(
            imported.yaml.hasPrefix("# Imported by `migrate import --mapping-models` from Shop 1 to 2.xcmappingmodel\n")
        )
    }

    /// A further entity mapping into one entity (a merge), under a name of its own:
    /// exported as a second entity mapping of that name into Client, it imports back as
    /// the same `destination:` entry.
    @Test func aFurtherMappingComesBack() throws {
        let merge = """
            entities:
              Client:
                source: Customer
                properties:
                  email: $source.mail
                  purchases: $source.orders
              LegacyClients:
                destination: Client
                source: Legacy
                filter: "name != nil"
                properties:
                  tier: { default: "legacy" }

            """
        let (export, model) = try Self.export(merge)
        let mappingModel = try XcodeMappingModel.parse(
            Data(export.files[0].text.utf8), path: "Shop 1 to 2.xcmappingmodel")
        #expect(
            mappingModel.entityMappings.filter { $0.destination == "Client" }.map(\.effectiveName) == [
                "CustomerToClient", "LegacyClients",
            ])
        let imported = try Self.reimport(export.files[0].text, model: model)
        #expect(
            Self.withoutComments(imported.yaml).contains(
                Self.withoutComments(merge).replacingOccurrences(of: "entities:\n", with: "")), "\(imported.yaml)")
    }

    /// A mapping file import wrote exports under the mapping model's own name and imports
    /// back byte for byte, comments included (Docs/MappingFiles.md, the corpus's 37 files).
    @Test func anImportedFileComesBackByteForByte() throws {
        let (first, model) = try Self.export(Self.mappingFile)
        let imported = try Self.reimport(first.files[0].text, model: model, as: "ShopToShop2.xcmappingmodel")
        let (second, _) = try Self.export(imported.yaml)
        #expect(second.mappingModels.map(\.mappingModel) == ["ShopToShop2.xcmappingmodel"])
        #expect(second.files.first?.path == "ShopToShop2.xcmappingmodel/xcmapping.xml")
        let again = try Self.reimport(second.files[0].text, model: model, as: "ShopToShop2.xcmappingmodel")
        #expect(again.yaml == imported.yaml)
        #expect(MappingModelExport.importedName(of: "/nonexistent") == nil)
    }

    /// A file `validate` refuses (a property the version lacks, an expression that does
    /// not check) is not exported: it would come back as another, valid file.
    @Test func aFileThatDoesNotFitItsVersionsIsNotExported() throws {
        let (export, _) = try Self.export(
            """
            entities:\n  Order:\n    properties:\n      nothere: { default: 1 }\n      note: { value: \"uppercase:(\" \
            }\n
            """
        )
        #expect(export.files.isEmpty)
        #expect(
            export.diagnostics.map(\.message).contains(
                "property 'Order.nothere': not a property of Order in version 2"), "\(export.diagnostics)")
        #expect(export.diagnostics.count == 2)
    }

    /// A further mapping listed before its entity's own entry is exported after it: the
    /// first mapping into an entity keeps its objects' keys when imported.
    @Test func anEntitysOwnMappingComesBeforeItsFurtherOnes() throws {
        let merge =
            """
            entities:\n  LegacyClients:\n    destination: Client\n    source: Legacy\n  Client:\n    source: Customer\n
            """
        let (export, _) = try Self.export(merge)
        let mappingModel = try XcodeMappingModel.parse(
            Data(export.files[0].text.utf8), path: "Shop 1 to 2.xcmappingmodel")
        #expect(
            mappingModel.entityMappings.filter { $0.destination == "Client" }.map(\.effectiveName) == [
                "CustomerToClient", "LegacyClients",
            ])
    }

    /// What Xcode records: the versions' paths in the bundle, one entity mapping per
    /// destination entity and one Remove mapping, each kind of property mapping.
    @Test func whatTheMappingModelRecords() throws {
        let (export, _) = try Self.export(Self.mappingFile)
        let mappingModel = try XcodeMappingModel.parse(
            Data(export.files[0].text.utf8), path: "Shop 1 to 2.xcmappingmodel")
        #expect(mappingModel.sourceModelPath == "Shop.xcdatamodeld/Shop.xcdatamodel")
        #expect(mappingModel.destinationModelPath == "Shop.xcdatamodeld/Shop 2.xcdatamodel")
        #expect(!mappingModel.embedsModels)
        #expect(mappingModel.unknown == [])
        let names = mappingModel.entityMappings.map { "\($0.number) \($0.effectiveName)" }
        #expect(names == ["1 CustomerToClient", "2 OrderToOrder", "3 NoteToNote", "4 Tag", "5 Legacy"])
        let client = mappingModel.entityMappings[0]
        #expect(client.policyClass == "ClientPolicy")
        #expect(client.filterPredicate == "visits >= 10 AND name != 'test'")
        #expect(client.mappingType == "Undefined")
        #expect(client.autogeneratesSource)
        // `name` is copied as Xcode generates it (no expression); `key` keeps the model's default (no mapping).
        #expect(client.attributes.map(\.name) == ["email", "tier", "score", "label", "active", "rate", "name"])
        #expect(client.attributes.last?.valueExpression == nil)
        let purchases = try #require(client.relationships.first)
        #expect(purchases.autogenerates && purchases.sourceKeyPath == "$source.orders")
        let tier = try ArchivedExpression.decode(try #require(client.attributes[1].valueExpression))
        #expect(tier.format == "FUNCTION($entityPolicy, 'tierForVisits:', $source.visits)")
        #expect(mappingModel.entityMappings[3].source == nil && mappingModel.entityMappings[4].destination == nil)
    }

    @Test func theSameFileGivesTheSameBytes() throws {
        let first = try Self.export(Self.mappingFile).0.files.map(\.text)
        let second = try Self.export(Self.mappingFile).0.files.map(\.text)
        #expect(first == second)
        #expect(first[0].contains("<UUID>") && first[0].hasPrefix("<?xml version=\"1.0\" standalone=\"yes\"?>\n"))
    }

    /// What Xcode's format cannot hold is named, never dropped silently.
    @Test func omissionsAreListed() throws {
        let file = """
            entities:
              Client:
                source: Customer
                properties:
                  score: { value: "CAST($source.status, 'NSNumber')", onFailure: nil }
                  key: { default: "8c0a3b0e-4f7c-4b1a-9a52-0c1f2d3e4f50" }
                  email: $source.mail
              Tag:
                properties:
                  label: { default: "new" }
            """
        let (export, _) = try Self.export(file)
        #expect(
            export.omissions == [
                "1-to-2.yaml: Client.score: onFailure: nil has no place in Xcode's format "
                    + "(Core Data fails the migration on a value that does not convert)",
                "1-to-2.yaml: Client.key: { default: 8c0a3b0e-4f7c-4b1a-9a52-0c1f2d3e4f50 }: a uuid constant has no "
                    + "archived form here; "
                    + "not written",
                "1-to-2.yaml: Tag: no source entity, so label not written",
            ])
    }

    /// The policy's stub: the class under the name the mapping model records, one method per selector.
    @Test func policyStub() throws {
        let (export, _) = try Self.export(Self.mappingFile)
        let stub = export.files[1].text
        #expect(
            stub.contains("import CoreData\n\n@objc(ClientPolicy)\nfinal class ClientPolicy: NSEntityMigrationPolicy {")
        )
        #expect(
            stub.contains(
                """
                    /// - Shop 1 to 2.xcmappingmodel: Client.tier\n    @objc(tierForVisits:)\n    func tierForVisits(_ \
                argument1: Any?) -> Any? {
                """
            ))
        #expect(stub.contains("//   Shop 1 to 2.xcmappingmodel: CustomerToClient\n"))
    }

    /// Each field the reader knows, written and read back.
    @Test func xmlRoundTrip() throws {
        let property = XcodeMappingModel.PropertyMapping(
            name: "owner", valueExpression: [1, 2, 3], autogenerates: true, sourceKeyPath: "$source.a.b",
            sourceMappingName: "AToB",
            userInfo: [4, 5], unknown: [], line: 0)
        let entity = XcodeMappingModel.EntityMapping(
            name: "Custom", source: "A", destination: "B", mappingType: "Undefined", number: 1, policyClass: "P",
            autogeneratesSource: false, filterPredicate: "name == \"<x & y>\"\nAND TRUEPREDICATE",
            sourceExpression: Array(0..<200),
            userInfo: [9], attributes: [property], relationships: [property], unknown: [], line: 0)
        let model = XcodeMappingModel(
            path: "M.xcmappingmodel", sourceModelPath: "M.xcdatamodeld/M.xcdatamodel",
            destinationModelPath: "M.xcdatamodeld/M 2.xcdatamodel",
            embedsModels: false, entityMappings: [entity], unknown: [])
        let read = try XcodeMappingModel.parse(Data(model.xml.utf8), path: "M.xcmappingmodel")
        #expect(
            read.sourceModelPath == model.sourceModelPath && read.destinationModelPath == model.destinationModelPath)
        let back = try #require(read.entityMappings.first)
        #expect(back.name == "Custom" && back.source == "A" && back.destination == "B" && back.policyClass == "P")
        #expect(
            back.filterPredicate == entity.filterPredicate && back.sourceExpression == entity.sourceExpression
                && back.userInfo == [9])
        #expect(!back.autogeneratesSource && back.unknown == [])
        for mapping in back.attributes + back.relationships {
            #expect(
                mapping.name == "owner" && mapping.valueExpression == [1, 2, 3] && mapping.userInfo == [4, 5]
                    && mapping.unknown == [])
        }
        #expect(
            back.relationships[0].sourceKeyPath == "$source.a.b" && back.relationships[0].sourceMappingName == "AToB")
    }

    /// A spanning file (`1-to-3.yaml`) maps its two versions: the mapping model records
    /// versions 1 and 3, and the importer pairs it back with that span.
    @Test func aSpanningFile() throws {
        let folder = try TemporaryDirectory(prefix: "MappingFileExportTests")
        defer { folder.remove() }
        let v1 = "model: Books\nversion: 1\nentities:\n  Book:\n    attributes: { title: string?, pages: string? }\n"
        let v2 = "model: Books\nversion: 2\nentities:\n  Book:\n    attributes: { title: string? }\n"
        let v3 = "model: Books\nversion: 3\nentities:\n  Book:\n    attributes: { title: string?, count: integer32? }\n"
        let span = "entities:\n  Book:\n    properties:\n      count: { value: \"CAST($source.pages, 'NSNumber')\" }\n"
        try folder.write("Models/Books/1.yaml", v1)
        try folder.write("Models/Books/2.yaml", v2)
        try folder.write("Models/Books/3.yaml", v3)
        try folder.write("Migrations/Books/1-to-3.yaml", span)
        let model = try ModelLoader.loadModel(path: folder.file("Models/Books"))
        let files = MappingFiles.load(folder: folder.file("Migrations"), model: "Books", versions: [1, 2, 3])
        let versions = try #require(ModelLoader.load(path: folder.file("Models/Books")).models.first).versions
        let export = MappingModelExport(
            mappingFiles: files, model: model, exported: XcodeModelExporter().export(versions, model: "Books"),
            bundleName: "Books.xcdatamodeld")
        #expect(export.mappingModels.map(\.mappingModel) == ["Books 1 to 3.xcmappingmodel"])
        let mappingModel = try XcodeMappingModel.parse(
            Data(export.files[0].text.utf8), path: "Books 1 to 3.xcmappingmodel")
        #expect(mappingModel.sourceModelPath == "Books.xcdatamodeld/Books.xcdatamodel")
        #expect(mappingModel.destinationModelPath == "Books.xcdatamodeld/Books 3.xcdatamodel")
        let imported = MappingModelConverter(
            model: model,
            versions: [1, 2, 3].map { n in
                ImportedVersion(
                    number: n, source: n == 1 ? "Books.xcdatamodel" : "Books \(n).xcdatamodel", sourcePath: "",
                    isCurrent: n == 3, yaml: "", warnings: [])
            }, bundleName: "Books"
        ).convert([mappingModel])
        let mapping = try #require(imported.mappings.first)
        #expect(mapping.sourceVersion == 1 && mapping.destinationVersion == 3)
        #expect(Self.withoutComments(mapping.yaml) == Self.withoutComments(span))
    }
}
