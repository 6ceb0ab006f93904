import DataModel
import Foundation
import TestSupport
import Testing

@testable import CoreDataImport

/// A mapping model with two entity mappings reading one source entity (Note → Note and
/// Note → Tag, as Xcode writes "a third split into two"): both are written, and the
/// import names the split among what it carried.
@Suite struct SplitImportTests {
    typealias Fixture = MappingModelConverterTests

    static var xml: String {
        let objects = [
            Fixture.entity("z10", number: 1, source: "Note", destination: "Note", attributes: ["z11"]),
            Fixture.attribute("z11", "text", of: "z10"),
            Fixture.entity("z20", number: 2, source: "Note", destination: "Tag", attributes: ["z21"]),
            Fixture.attribute("z21", "label", of: "z20", expression: ExpressionArchive.base64 { $0.source("text") }),
        ]
        return """
            <?xml version="1.0" standalone="no"?>
            <database>
                <object type="XDDEVMAPPINGMODEL" id="z1">
                    <attribute name="sourcemodelpath" type="string">App/Shop.xcdatamodeld/Shop.xcdatamodel</attribute>
                    <attribute name="destinationmodelpath" type="string">App/Shop.xcdatamodeld/Shop \
            2.xcdatamodel</attribute>
                    <relationship name="entitymappings" type="0/0" destination="XDDEVENTITYMAPPING" idrefs="z10 \
            z20"></relationship>
                </object>
            \(objects.joined(separator: "\n"))
            </database>
            """
    }

    @Test func bothMappingsOfOneSourceEntityAreCarriedAndTheSplitIsNamed() throws {
        let folder = try TemporaryDirectory(prefix: "split-import")
        defer { folder.remove() }
        let mappingModel = try XcodeMappingModel.parse(Data(Self.xml.utf8), path: "Mappings/Split.xcmappingmodel")
        let result = try Fixture.converter(in: folder).convert([mappingModel])
        let mapping = try #require(result.mappings.first)
        #expect(mapping.notCarried == [])
        #expect(
            mapping.splits == ["Note feeds 2 entities, each from every Note object: Note (NoteToNote), Tag (NoteToTag)"]
        )
        #expect(
            mapping.yaml.components(separatedBy: "entities:\n").last == """
                  Tag:
                    source: Note
                    properties:
                      label: $source.text
                  # NoteToNote: Note → Note, every property as inferred
                  Order:
                    # Split.xcmappingmodel has no entity mapping for Order: Core Data migrates none of its objects
                    filter: "FALSEPREDICATE"

                """)
    }
}
