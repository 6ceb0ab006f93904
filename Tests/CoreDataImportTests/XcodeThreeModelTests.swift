import DataModel
import Foundation
import PropertyList
import TestSupport
import Testing

@testable import CoreDataImport

/// Versions saved in Xcode 3's binary format (`elements`, an NSKeyedArchiver
/// archive of `XDPMModel`): read into the XML of later Xcodes, beside XML
/// versions of the same bundle. The archives here are written by the test in the
/// shape of real ones (Simplenote's first model versions, Docs/Corpus.md).
@Suite struct XcodeThreeModelTests {
    /// Builds an archive: objects numbered as NSKeyedArchiver numbers them.
    final class Archive {
        var objects: [PropertyListValue] = [.string("$null")]
        var classes: [String: PropertyListValue] = [:]

        func add(_ value: PropertyListValue) -> PropertyListValue {
            objects.append(value)
            return .dictionary(["CF$UID": .integer(Int64(objects.count - 1))])
        }

        func className(_ name: String) -> PropertyListValue {
            if let known = classes[name] { return known }
            let uid = add(
                .dictionary(["$classname": .string(name), "$classes": .array([.string(name), .string("NSObject")])]))
            classes[name] = uid
            return uid
        }

        func object(_ name: String, _ fields: [String: PropertyListValue]) -> PropertyListValue {
            var fields = fields
            fields["$class"] = className(name)
            return add(.dictionary(fields))
        }

        /// The entries of a dictionary this archive holds, by reference.
        func dictionaryEntries(_ reference: PropertyListValue?) -> [(String, PropertyListValue)] {
            guard case .dictionary(let ref)? = reference, case .integer(let index)? = ref["CF$UID"],
                case .dictionary(let d) = objects[Int(index)], case .array(let keys)? = d["NS.keys"],
                case .array(let values)? = d["NS.objects"]
            else { return [] }
            return zip(keys, values).compactMap { key, value in
                guard case .dictionary(let k) = key, case .integer(let i)? = k["CF$UID"],
                    case .string(let name) = objects[Int(i)]
                else { return nil }
                return (name, value)
            }
        }

        func dictionary(_ entries: [(String, PropertyListValue)]) -> PropertyListValue {
            object(
                "NSMutableDictionary",
                ["NS.keys": .array(entries.map { add(.string($0.0)) }), "NS.objects": .array(entries.map(\.1))])
        }

        /// A stereotype holding tagged values.
        func stereotype(_ name: String, _ values: [(String, PropertyListValue)]) -> PropertyListValue {
            let owned = values.map { key, value in
                (
                    key,
                    object(
                        "XDUMLPropertyImp",
                        [
                            "_name": add(.string(key)),
                            "_default": value == .string("$null") ? .dictionary(["CF$UID": .integer(0)]) : add(value),
                        ])
                )
            }
            return object(
                "XDUMLStereotypeImp",
                ["_name": add(.string(name)), "XDBucketForOwnedAttributesstorage": dictionary(owned)])
        }

        func attribute(
            _ name: String, type: Int64, optional: Bool = false, indexed: Bool = false, defaultValue: String? = nil,
            modifier: String? = nil
        ) -> PropertyListValue {
            let property = stereotype(
                "XD_PPropStereotype",
                [
                    ("XD_PPSK_isOptional", .boolean(optional)), ("XD_PPSK_isTransient", .boolean(false)),
                    ("XD_PPSK_isIndexed", .boolean(indexed)),
                    ("XD_PPSK_versionHashModifier", modifier.map { .string($0) } ?? .string("$null")),
                ])
            let attribute = stereotype(
                "XD_PAtt_Stereotype",
                [
                    ("XD_PAttK_attributeType", .integer(type)),
                    ("XD_PAttK_defaultValueAsString", defaultValue.map { .string($0) } ?? .string("$null")),
                ])
            return object(
                "XDPMAttribute",
                [
                    "_name": add(.string(name)),
                    "XDBucketForStereotypesstorage": dictionary([
                        ("XD_PPropStereotype", property), ("XD_PAtt_Stereotype", attribute),
                    ]),
                ])
        }

        func entity(_ name: String, _ attributes: [PropertyListValue], extra: [PropertyListValue] = [])
            -> PropertyListValue
        {
            let tags = stereotype(
                "XD_PStereotype", [("XD_PSK_entityClassName", .string(name)), ("XD_PSK_isAbstract", .boolean(false))])
            let names = attributes.indices.map { "a\($0)" }
            return object(
                "XDPMEntity",
                [
                    "_name": add(.string(name)), "_isAbstract": .boolean(false),
                    "XDBucketForStereotypesstorage": dictionary([("XD_PStereotype", tags)]),
                    "XDBucketForOwnedAttributesstorage": dictionary(
                        Array(zip(names, attributes))
                            + extra.enumerated().map { ("x\($0.offset)", $0.element) }),
                    "XDBucketForGeneralizationsstorage": object("NSMutableArray", ["NS.objects": .array([])]),
                ])
        }

        /// The archive's bytes with `entities` in the model's root package.
        func bytes(_ entities: [PropertyListValue]) -> [UInt8] {
            let package = object(
                "XDModelPackage",
                [
                    "_name": add(.string("Model")),
                    "XDBucketForOwnedElementsstorage": object("NSMutableArray", ["NS.objects": .array(entities)]),
                ])
            let model = object("XDPMModel", ["_xd_rootPackage": package, "_xd_modelName": add(.string("Model"))])
            // The root object is the model.
            return BinaryPropertyList.encodeArchive(
                .dictionary([
                    "$version": .integer(100_000), "$archiver": .string("NSKeyedArchiver"),
                    "$top": .dictionary(["root": model]), "$objects": .array(objects),
                ]))
        }
    }

    static let second = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="1811" \
        systemVersion="11D50" minimumToolsVersion="Xcode 4.1" macOSVersion="Automatic" iOSVersion="Automatic">
            <entity name="Note" representedClassName="Note" syncable="YES">
                <attribute name="content" attributeType="String" syncable="YES"/>
                <attribute name="pinned" attributeType="Boolean" defaultValueString="NO" syncable="YES"/>
                <attribute name="rank" optional="YES" attributeType="Integer 32" defaultValueString="0" syncable="YES"/>
                <attribute name="tags" optional="YES" attributeType="String" syncable="YES"/>
            </entity>
        </model>
        """

    func bundle(elements: [UInt8]) throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory(prefix: "xcode3")
        try folder.write("Notes.xcdatamodeld/Notes.xcdatamodel/elements", bytes: elements)
        try folder.write("Notes.xcdatamodeld/Notes.xcdatamodel/layout", bytes: Array("bplist00".utf8))
        try folder.write("Notes.xcdatamodeld/Notes 2.xcdatamodel/contents", Self.second)
        try folder.write(
            "Notes.xcdatamodeld/.xccurrentversion",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>Notes \
            2.xcdatamodel</string></dict></plist>
            """)
        return folder
    }

    @Test func aBinaryVersionIsReadBesideTheXMLOnes() throws {
        let archive = Archive()
        let note = archive.entity(
            "Note",
            [
                archive.attribute("content", type: 700),
                archive.attribute("pinned", type: 800, defaultValue: "NO"),
                archive.attribute("rank", type: 200, optional: true, indexed: true, defaultValue: "0", modifier: "v1"),
                archive.attribute("created", type: 900, optional: true),
            ])
        let folder = try bundle(elements: archive.bytes([note]))
        defer { folder.remove() }
        let bundle = try XcodeModelBundle.read(path: folder.file("Notes.xcdatamodeld"))
        #expect(
            bundle.versions.map(\.folder) == ["Notes 2.xcdatamodel", "Notes.xcdatamodel"]
                || bundle.versions.map(\.folder) == ["Notes.xcdatamodel", "Notes 2.xcdatamodel"])
        #expect(bundle.skipped == ["Notes.xcdatamodel: saved in Xcode 3's binary format (elements); read from it"])
        let model = try XcodeModelImporter().convert(bundle)
        #expect(model.versions.count == 2)
        let first = model.versions[0].yaml
        #expect(
            first.contains(
                """
                  Note:
                    className: "Note"
                    attributes:
                      content: string
                      created: date?
                      pinned: { type: boolean, default: false }
                      rank: { type: integer32, optional: true, default: 0, indexed: true, hashModifier: "v1" }
                """), "\(first)")
        // Compiled, the two versions differ where the archive and the XML do.
        try folder.write("Models/Notes/1.yaml", model.versions[0].yaml)
        try folder.write("Models/Notes/2.yaml", model.versions[1].yaml)
        let compiled = try ModelLoader.loadModel(path: folder.file("Models/Notes"))
        #expect(compiled.versions.count == 2)
        #expect(
            compiled.versions[0].entities.first?.attributes.map(\.name) == ["content", "created", "pinned", "rank"])
    }

    /// The models Xcode embeds in mapping models (`sourcemodeldata`) are this format
    /// with relationships and uniqueness constraints (LoopKit, AltStore, Delta, Moody).
    @Test func relationshipsAndUniquenessConstraintsAreRead() throws {
        let archive = Archive()
        let tagEntity = archive.add(.string("placeholder"))
        let notesRelationship = archive.add(.string("placeholder"))
        func relationship(_ name: String, toMany: Bool, optional: Bool, inverse: PropertyListValue) -> PropertyListValue
        {
            let property = archive.stereotype(
                "XD_PPropStereotype",
                [("XD_PPSK_isOptional", .boolean(optional)), ("XD_PPSK_isTransient", .boolean(false))])
            let details = archive.stereotype(
                "XD_PRelStereotype",
                [
                    ("XD_PRK_destination", tagEntity), ("XD_PRK_inverseRelationship", inverse),
                    ("XD_PRK_isToMany", .boolean(toMany)),
                    ("XD_PRK_minCount", .integer(0)), ("XD_PRK_maxCount", .integer(toMany ? 0 : 1)),
                    ("XD_PRK_deleteRule", .integer(2)),
                    ("XD_PRK_ordered", .boolean(false)),
                ])
            return archive.object(
                "XDPMRelationship",
                [
                    "_name": archive.add(.string(name)),
                    "XDBucketForStereotypesstorage": archive.dictionary([("p", property), ("r", details)]),
                ])
        }
        let tags = relationship("tags", toMany: true, optional: true, inverse: notesRelationship)
        let note = archive.entity("Note", [archive.attribute("content", type: 700)], extra: [tags])
        let constraint = archive.object("NSMutableArray", ["NS.objects": .array([archive.add(.string("content"))])])
        let uniqueness = archive.stereotype(
            "XD_PUniq",
            [("XDPMUniquenessConstraints", archive.object("NSMutableArray", ["NS.objects": .array([constraint])]))])
        // Entities hold their stereotypes in one dictionary: add the uniqueness one.
        guard case .dictionary(let ref) = note, case .integer(let index)? = ref["CF$UID"],
            case .dictionary(var fields) = archive.objects[Int(index)],
            case .dictionary(let bucketRef)? = fields["XDBucketForStereotypesstorage"],
            case .integer(let bucket)? = bucketRef["CF$UID"],
            case .dictionary(let stereotypes) = archive.objects[Int(bucket)],
            case .array(let keys)? = stereotypes["NS.keys"],
            case .array(let values)? = stereotypes["NS.objects"]
        else {
            Issue.record("archive shape")
            return
        }
        fields["XDBucketForStereotypesstorage"] = archive.object(
            "NSMutableDictionary",
            [
                "NS.keys": .array(keys + [archive.add(.string("u"))]),
                "NS.objects": .array(values + [uniqueness]),
            ])
        archive.objects[Int(index)] = .dictionary(fields)
        let tag = archive.entity(
            "Tag", [archive.attribute("name", type: 700)],
            extra: [relationship("notes", toMany: false, optional: true, inverse: tags)])
        // The placeholders become references to the Tag entity and its relationship.
        guard case .dictionary(let tagRef) = tag, case .dictionary(let placeholder) = tagEntity,
            case .integer(let slot)? = placeholder["CF$UID"],
            case .dictionary(let notesPlaceholder) = notesRelationship,
            case .integer(let notesSlot)? = notesPlaceholder["CF$UID"],
            case .integer(let tagIndex)? = tagRef["CF$UID"],
            case .dictionary(let tagFields) = archive.objects[Int(tagIndex)]
        else {
            Issue.record("archive shape")
            return
        }
        archive.objects[Int(slot)] = .dictionary(tagRef)
        let owned = archive.dictionaryEntries(tagFields["XDBucketForOwnedAttributesstorage"])
        archive.objects[Int(notesSlot)] = owned.first { $0.0 == "x0" }?.1 ?? .string("$null")
        let folder = try bundle(elements: archive.bytes([note, tag]))
        defer { folder.remove() }
        let model = try XcodeModelImporter().convert(try XcodeModelBundle.read(path: folder.file("Notes.xcdatamodeld")))
        #expect(
            model.versions[0].yaml.contains(
                """
                  Note:
                    className: "Note"
                    attributes:
                      content: string
                    relationships:
                      tags: { destination: Tag, toMany: true, inverse: notes, deleteRule: cascade }
                    uniqueness: [[content]]
                """), "\(model.versions[0].yaml)")
        #expect(
            model.versions[0].yaml.contains("      notes: { destination: Tag, inverse: tags, deleteRule: cascade }"),
            "\(model.versions[0].yaml)")
    }

    /// A mapping model's embedded copy becomes a one-version model, compiled for its hashes.
    @Test func anEmbeddedModelBecomesTheYAMLOfOneVersion() throws {
        let archive = Archive()
        let note = archive.entity(
            "Note", [archive.attribute("content", type: 700), archive.attribute("rank", type: 200, optional: true)])
        let yaml = try XcodeMappingModel.yaml(
            ofEmbeddedModel: archive.bytes([note]), model: "Notes", label: "M.xcmappingmodel: sourcemodeldata")
        #expect(
            yaml.hasSuffix(
                """
                model: Notes
                version: 1
                xcode: { minimumToolsVersion: "Xcode 3" }
                entities:
                  Note:
                    className: "Note"
                    attributes:
                      content: string
                      rank: integer32?

                """), "\(yaml)")
        #expect {
            try XcodeMappingModel.yaml(
                ofEmbeddedModel: Array("not a plist".utf8), model: "Notes", label: "M.xcmappingmodel: sourcemodeldata")
        } throws: { error in
            "\(error)".hasPrefix("M.xcmappingmodel: sourcemodeldata: ")
        }
    }

    /// Sets a field of an object the archive holds.
    static func set(_ archive: Archive, _ object: PropertyListValue, _ key: String, _ value: PropertyListValue) {
        guard case .dictionary(let ref) = object, case .integer(let index)? = ref["CF$UID"],
            case .dictionary(var fields) = archive.objects[Int(index)]
        else { return }
        fields[key] = value
        archive.objects[Int(index)] = .dictionary(fields)
    }

    /// An archived NSDecimalNumber: `mantissa` × 10^`exponent`.
    static func decimal(_ archive: Archive, mantissa: UInt16, exponent: Int64 = 0, negative: Bool = false)
        -> PropertyListValue
    {
        archive.object(
            "NSDecimalNumberPlaceholder",
            [
                "NS.mantissa": .data(
                    [UInt8(mantissa & 0xff), UInt8(mantissa >> 8)] + [UInt8](repeating: 0, count: 14)),
                "NS.length": .integer(mantissa == 0 ? 0 : 1), "NS.exponent": .integer(exponent),
                "NS.negative": .boolean(negative),
                "NS.compact": .boolean(true), "NS.mantissa.bo": .integer(1),
            ])
    }

    /// Inheritance (a generalization from the subentity to its parent), fetch request
    /// templates and counts archived as NSDecimalNumber, as pecunia-client's eight
    /// Xcode 3 versions hold them (Docs/Corpus.md): read, not refused.
    @Test func inheritanceFetchRequestsAndDecimalCountsAreRead() throws {
        let archive = Archive()
        let itemPlaceholder = archive.add(.string("placeholder"))
        let property = archive.stereotype(
            "XD_PPropStereotype", [("XD_PPSK_isOptional", .boolean(true)), ("XD_PPSK_isTransient", .boolean(false))])
        let details = archive.stereotype(
            "XD_PRelStereotype",
            [
                ("XD_PRK_destination", itemPlaceholder), ("XD_PRK_isToMany", .boolean(true)),
                ("XD_PRK_minCount", Self.decimal(archive, mantissa: 2)),
                ("XD_PRK_maxCount", Self.decimal(archive, mantissa: 0)),
                ("XD_PRK_deleteRule", .integer(1)),
            ])
        let related = archive.object(
            "XDPMRelationship",
            [
                "_name": archive.add(.string("related")),
                "XDBucketForStereotypesstorage": archive.dictionary([("p", property), ("r", details)]),
            ])
        let item = archive.entity("Item", [archive.attribute("title", type: 700)], extra: [related])
        let book = archive.entity("Book", [archive.attribute("pages", type: 200, optional: true)])
        // The placeholder becomes a reference to Item.
        if case .dictionary(let placeholder) = itemPlaceholder, case .integer(let slot)? = placeholder["CF$UID"] {
            archive.objects[Int(slot)] = item
        }
        let generalization = archive.object(
            "XDUMLGeneralizationImp", ["_general": item, "_specific": book, "_owner": book])
        Self.set(
            archive, book, "XDBucketForGeneralizationsstorage",
            archive.object("NSMutableArray", ["NS.objects": .array([generalization])]))
        Self.set(
            archive, item, "XDBucketForGeneralizationsstorage",
            archive.object("NSMutableArray", ["NS.objects": .array([generalization])]))
        _ = archive.object(
            "XDPMFetchRequest",
            [
                "_name": archive.add(.string("longBooks")), "_entity": book,
                "_predicateString": archive.add(.string("pages > 300")),
                "_fetchedProperty": .dictionary(["CF$UID": .integer(0)]),
            ])
        let folder = try bundle(elements: archive.bytes([item, book]))
        defer { folder.remove() }
        let model = try XcodeModelImporter().convert(try XcodeModelBundle.read(path: folder.file("Notes.xcdatamodeld")))
        let yaml = model.versions[0].yaml
        #expect(yaml.contains("  Book:\n    parent: Item\n"), "\(yaml)")
        #expect(yaml.contains("      related: { destination: Item, toMany: true, minCount: 2 }"), "\(yaml)")
        #expect(
            yaml.contains("fetchRequests:\n  longBooks: { entity: \"Book\", predicateString: \"pages > 300\" }\n"),
            "\(yaml)")
        // Compiled, the subentity inherits its parent's properties (and hashes so).
        try folder.write("Models/Notes/1.yaml", yaml)
        try folder.write("Models/Notes/2.yaml", model.versions[1].yaml)
        let compiled = try ModelLoader.loadModel(path: folder.file("Models/Notes"))
        let first = try #require(compiled.versions.first)
        #expect(first.entity(named: "Book")?.attributes.map(\.name) == ["pages", "title"])
        #expect(first.entity(named: "Book")?.relationships.map(\.name) == ["related"])
    }

    /// NSDecimalNumber's archive: a 128-bit mantissa in 16-bit words, an exponent and a sign.
    @Test(arguments: [
        (UInt16(0), Int64(0), false, PropertyListValue.integer(0)), (2, 0, false, .integer(2)),
        (25, -1, false, .string("2.5")),
        (25, 2, true, .integer(-2500)), (5, -3, false, .string("0.005")), (1200, -2, false, .integer(12)),
    ])
    func decimalNumbersAreRead(mantissa: UInt16, exponent: Int64, negative: Bool, expected: PropertyListValue) throws {
        let archive = Archive()
        let number = Self.decimal(archive, mantissa: mantissa, exponent: exponent, negative: negative)
        let keyed = try KeyedArchive(
            .dictionary(["$objects": .array(archive.objects), "$top": .dictionary(["root": number])]))
        #expect(keyed.decimal(number) == expected)
    }

    @Test func whatTheFormatHoldsBeyondAttributesIsRefusedNamingIt() throws {
        let archive = Archive()
        let relationship = archive.object("XDPMRelationship", ["_name": archive.add(.string("owner"))])
        let note = archive.entity("Note", [archive.attribute("content", type: 700)], extra: [relationship])
        let folder = try bundle(elements: archive.bytes([note]))
        defer { folder.remove() }
        #expect {
            _ = try XcodeModelBundle.read(path: folder.file("Notes.xcdatamodeld"))
        } throws: { error in
            let text = "\(error)"
            return text.contains(
                """
                Notes.xcdatamodel/elements: an Xcode 3 data model this importer cannot read: \
                Note.owner: a relationship without a destination entity
                """)
                && text.contains("save it in the current format")
        }

        let garbage = try bundle(elements: Array("not a plist".utf8))
        defer { garbage.remove() }
        #expect {
            _ = try XcodeModelBundle.read(path: garbage.file("Notes.xcdatamodeld"))
        } throws: { error in
            "\(error)".contains("not an Xcode 3 data model")
        }
    }
}
