import Foundation
import TestSupport
import Testing

/// `import` on bytes Foundation's `XMLParser` traps on, and `export` of versions
/// whose Xcode names and current version are not the ones export would choose.
@Suite struct ImportHostileTests {
    static func contents(element: String = "relationship", attribute: String = "deletionRule") -> [UInt8] {
        Array(
            """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" \
            userDefinedModelVersionIdentifier="">
                <entity name="Item" representedClassName="Item" syncable="YES">
                    <\(element) name="tags" optional="YES" toMany="YES" \(attribute)="Nullify" destinationEntity="Tag" \
            inverseName="items" inverseEntity="Tag"/>
                </entity>
                <entity name="Tag" representedClassName="Tag" syncable="YES">
                    <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" \
            destinationEntity="Item" inverseName="tags" inverseEntity="Item"/>
                </entity>
            </model>

            """.utf8)
    }

    /// One byte that is not UTF-8 in an element or attribute name used to kill the
    /// process (SIGILL inside XMLParser): now exit 1 naming line and column.
    @Test func aByteThatIsNotUTF8IsAnErrorNotACrash() throws {
        let folder = try TemporaryDirectory(prefix: "import-hostile")
        defer { folder.remove() }
        let cases: [(element: String, attribute: String, column: Int)] = [
            ("relatio\u{FFFF}ship", "deletionRule", 17),
            ("relationship", "deletion\u{FFFF}ule", 71),
        ]
        for (element, attribute, column) in cases {
            // U+FFFF's UTF-8 (EF BF BF) stands in for the bad byte, replaced by 0xFF.
            var bytes = Self.contents(element: element, attribute: attribute)
            let marker: [UInt8] = [0xEF, 0xBF, 0xBF]
            let at = try #require((0..<bytes.count - 2).first { Array(bytes[$0..<$0 + 3]) == marker })
            bytes.replaceSubrange(at..<at + 3, with: [0xFF])
            try folder.write("Bad.xcdatamodeld/Bad.xcdatamodel/contents", bytes: bytes)
            let result = try InProcess.migrate(
                ["import", "Bad.xcdatamodeld", "-o", "Out", "--force"], in: folder.path)
            #expect(result.status == 1)
            #expect(
                result.stderr == """
                    error: Bad.xcdatamodeld/Bad.xcdatamodel/contents:4:\(column): not well-formed XML: not UTF-8: byte \
                    0xFF cannot start or continue a UTF-8 character (the file declares UTF-8, as Xcode writes it; \
                    expected a UTF-8 character here)

                    """)
        }
        // A mapping model with such a byte, whose name names no hop, refuses the import
        // (plan would infer the step it maps): nothing is written.
        try folder.write("Bad.xcdatamodeld/Bad.xcdatamodel/contents", bytes: Self.contents())
        try folder.write(
            "Maps/M.xcmappingmodel/xcmapping.xml",
            bytes: Array("<?xml version=\"1.0\"?>\n<datab".utf8) + [0xFF] + Array("ase/>\n".utf8))
        let mapping = try InProcess.migrate(
            ["import", "Bad.xcdatamodeld", "-o", "Out2", "--mapping-models", "Maps"], in: folder.path)
        #expect(mapping.status == 1)
        #expect(
            mapping.stderr == """
                error: Maps/M.xcmappingmodel: cannot be read (Maps/M.xcmappingmodel/xcmapping.xml:2:7: not UTF-8: byte \
                0xFF cannot start or continue a UTF-8 character (the file declares UTF-8, as Xcode writes it; expected \
                a UTF-8 character here)), and its name names no two versions
                the step it maps would be inferred: repair it or leave it out of --mapping-models; nothing was written

                """, "\(mapping.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("Out2")))
        // One that was read but records no model paths says so, once.
        try FileManager.default.removeItem(atPath: folder.file("Maps/M.xcmappingmodel"))
        try folder.write(
            "Maps/M.xcmappingmodel/xcmapping.xml",
            "<database><object type=\"XDDEVMAPPINGMODEL\" id=\"z1\"></object></database>\n")
        let bare = try InProcess.migrate(
            ["import", "Bad.xcdatamodeld", "-o", "Out3", "--mapping-models", "Maps"], in: folder.path)
        #expect(bare.status == 1)
        #expect(
            bare.stderr == """
                error: Maps/M.xcmappingmodel: it records no model paths and its name names no two versions of Bad
                the step it maps would be inferred: repair it or leave it out of --mapping-models; nothing was written

                """, "\(bare.stderr)")
    }

    /// A document declaring another encoding is transcoded by libxml2 (its names
    /// arrive as UTF-8): its bytes are not held to UTF-8.
    @Test func aDocumentInAnotherEncodingIsRead() throws {
        let folder = try TemporaryDirectory(prefix: "import-latin1")
        defer { folder.remove() }
        var bytes = Array(
            """
            <?xml version="1.0" encoding="ISO-8859-1"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Item" representedClassName="Item" syncable="YES">
                    <attribute name="title" optional="YES" attributeType="String" defaultValueString="caf\u{FFFF}"/>
                </entity>
            </model>

            """.utf8)
        let at = try #require((0..<bytes.count - 2).first { Array(bytes[$0..<$0 + 3]) == [0xEF, 0xBF, 0xBF] })
        bytes.replaceSubrange(at..<at + 3, with: [0xE9])
        try folder.write("L.xcdatamodeld/L.xcdatamodel/contents", bytes: bytes)
        let result = try InProcess.migrate(["import", "L.xcdatamodeld", "-o", "Out"], in: folder.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try String(contentsOfFile: folder.file("Out/L/1.yaml"), encoding: .utf8).contains(
                "title: { type: string, optional: true, default: \"café\" }"))
    }

    /// Versions named `X v2` and a current version that is not the last come back
    /// from export as Xcode had them.
    @Test func exportWritesTheImportedVersionNamesAndCurrentVersion() throws {
        let folder = try TemporaryDirectory(prefix: "export-names")
        defer { folder.remove() }
        let entity =
            #"""
            <entity name="Book" representedClassName="Book" syncable="YES"><attribute name="title" optional="YES" \#
            attributeType="String"/></entity>
            """#
        let v2 =
            #"<attribute name="year" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/></entity>"#
        try folder.write("Lib.xcdatamodeld/Lib.xcdatamodel/contents", ImportCommandTests.version("", entity))
        try folder.write(
            "Lib.xcdatamodeld/Lib v2.xcdatamodel/contents",
            ImportCommandTests.version("", entity.replacingOccurrences(of: "</entity>", with: v2)))
        try folder.write(
            "Lib.xcdatamodeld/.xccurrentversion",
            ImportCommandTests.current.replacingOccurrences(of: "Notes 10", with: "Lib"))
        #expect(try InProcess.migrate(["import", "Lib.xcdatamodeld", "-o", "Models"], in: folder.path).status == 0)
        let yaml1 = try String(contentsOfFile: folder.file("Models/Lib/1.yaml"), encoding: .utf8)
        let yaml2 = try String(contentsOfFile: folder.file("Models/Lib/2.yaml"), encoding: .utf8)
        #expect(yaml1.contains("\nxcodeVersion: { current: true }\n"))
        #expect(yaml2.contains("\nxcodeVersion: { name: \"Lib v2\" }\n"))
        let export = try InProcess.migrate(
            ["export", "--models", "Models", "--model", "Lib", "-o", "Out.xcdatamodeld"], in: folder.path)
        #expect(export.status == 0)
        #expect(export.stdout == "wrote Out.xcdatamodeld: 2 versions, current Lib.xcdatamodel\n")
        #expect(
            export.stderr == """
                note: .xccurrentversion names Lib.xcdatamodel (version 1), as in the bundle imported, although Lib \
                v2.xcdatamodel is newer; remove `current: true` from its xcodeVersion to make the last version current

                """)
        let folders = try FileManager.default.contentsOfDirectory(atPath: folder.file("Out.xcdatamodeld")).sorted()
        #expect(folders == [".xccurrentversion", "Lib v2.xcdatamodel", "Lib.xcdatamodel"])
        let current = try String(contentsOfFile: folder.file("Out.xcdatamodeld/.xccurrentversion"), encoding: .utf8)
        #expect(current.contains("<string>Lib.xcdatamodel</string>"))
        // Imported again, the exported bundle gives the same YAML.
        #expect(
            try InProcess.migrate(["import", "Out.xcdatamodeld", "-o", "Again", "--model", "Lib"], in: folder.path)
                .status == 0)
        let again = try String(contentsOfFile: folder.file("Again/Lib/2.yaml"), encoding: .utf8)
        #expect(again.contains("\nxcodeVersion: { name: \"Lib v2\" }\n"))
    }
}
