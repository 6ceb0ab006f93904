import DataModel
import Foundation
import TestSupport
import Testing

@testable import CoreDataImport

/// `export(import(contents))` gives back what the app compiles: every element and
/// attribute Xcode wrote, except what Xcode rewrites on every save (the tools and
/// system versions, the document version, the diagram's box positions). And what
/// Xcode and Core Data accept imports: index elements on to-many relationships,
/// inverses that do not name each other, ordered to-ones.
@Suite struct XcodeFidelityTests {
    /// What an app's `contents` holds beyond the model format's own facts.
    static let app = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="14490.99" \
        systemVersion="18F132" minimumToolsVersion="Xcode 7.3" sourceLanguage="Objective-C" iOSVersion="Automatic" \
        userDefinedModelVersionIdentifier="">
            <entity name="Artist" representedClassName="FlickrSearcher.Artist" syncable="YES" \
        codeGenerationType="class">
                <attribute name="name" attributeType="String" syncable="YES"/>
                <attribute name="rank" optional="YES" attributeType="Integer 16" minValueString="0.50" \
        defaultValueString="NO" usesScalarValueType="NO" syncable="YES"/>
                <attribute name="verified" optional="YES" attributeType="Boolean" syncable="YES"/>
                <attribute name="started" optional="YES" attributeType="Date" defaultValueString="now" \
        usesScalarValueType="NO" elementID="started" syncable="YES"/>
                <attribute name="secret" optional="YES" attributeType="String" allowsCloudEncryption="YES" \
        syncable="YES"/>
                <attribute name="nameLength" optional="YES" attributeType="Integer 64" derived="YES" \
        derivationExpression="name.length" usesScalarValueType="YES" syncable="YES"/>
                <attribute name="scratch" optional="YES" transient="YES" attributeType="Undefined" syncable="YES">
                    <userInfo>
                        <entry key="note" value="kept &amp; shown"/>
                    </userInfo>
                </attribute>
                <relationship name="images" optional="YES" toMany="YES" deletionRule="Cascade" \
        destinationEntity="Image" inverseName="artist" inverseEntity="Image" syncable="YES"/>
                <relationship name="thumbnail" optional="YES" maxCount="1" deletionRule="Nullify" ordered="YES" \
        destinationEntity="Image" inverseName="thumbnailOf" inverseEntity="Image" syncable="YES"/>
                <fetchedProperty name="recent" optional="YES" syncable="YES">
                    <fetchRequest name="fetchedPropertyFetchRequest" entity="Image" predicateString="artist == \
        $FETCH_SOURCE"/>
                </fetchedProperty>
                <userInfo>
                    <entry key="table" value="artists"/>
                </userInfo>
                <fetchIndex name="byNameImages">
                    <fetchIndexElement property="name" type="Binary" order="ascending"/>
                    <fetchIndexElement property="images" type="Binary" order="ascending"/>
                </fetchIndex>
                <compoundIndexes>
                    <compoundIndex>
                        <index value="name"/>
                        <index value="rank"/>
                    </compoundIndex>
                </compoundIndexes>
            </entity>
            <entity name="Image" representedClassName="FlickrSearcher.Photo" syncable="YES">
                <attribute name="cache" optional="YES" transient="YES" syncable="YES"/>
                <attribute name="url" optional="YES" attributeType="URI" syncable="YES"/>
                <relationship name="artist" optional="YES" maxCount="1" deletionRule="Nullify" \
        destinationEntity="Artist" inverseName="thumbnail" inverseEntity="Artist" syncable="YES"/>
                <relationship name="thumbnailOf" optional="YES" maxCount="1" deletionRule="Nullify" \
        destinationEntity="Artist" inverseName="thumbnail" inverseEntity="Artist" syncable="YES"/>
            </entity>
            <fetchRequest name="AllArtists" entity="Artist" predicateString="name != nil" fetchLimit="20"/>
            <configuration name="Cloud" usedWithCloudKit="YES">
                <memberEntity name="Artist"/>
                <memberEntity name="Image"/>
            </configuration>
            <elements>
                <element name="Artist" positionX="-63" positionY="-18" width="128" height="149"/>
            </elements>
        </model>
        """

    /// The version imported, as the YAML loader reads it back.
    static func imported(_ contents: String, in directory: TemporaryDirectory) throws -> (
        ImportedVersion, ModelVersionDescription
    ) {
        try directory.write("App.xcdatamodel/contents", contents)
        let bundle = try XcodeModelBundle.read(path: directory.file("App.xcdatamodel"))
        let model = try XcodeModelImporter(modelName: "App").convert(bundle)
        let version = try #require(model.versions.first)
        try directory.write("Models/App/1.yaml", version.yaml)
        let loaded = ModelLoader.load(path: directory.file("Models/App"))
        #expect(!loaded.hasErrors, "\(loaded.diagnostics)")
        return (version, try #require(loaded.models.first?.versions.first))
    }

    /// Differences between two `contents`, as `Scripts/corpus.py` counts them:
    /// attributes compared by name, children matched by tag and name, `<elements>`
    /// and what Xcode rewrites on save left out.
    static func differences(_ a: XMLElementNode, _ b: XMLElementNode, at place: String = "model") -> [String] {
        let rewritten: Set<String> = ["lastSavedToolsVersion", "systemVersion", "documentVersion", "type"]
        var found: [String] = []
        for key in Set(a.attributes.keys).union(b.attributes.keys).sorted()
        where a.attributes[key] != b.attributes[key] && !(a.name == "model" && rewritten.contains(key)) {
            found.append("\(place)@\(key): \(a.attributes[key] ?? "nil") → \(b.attributes[key] ?? "nil")")
        }
        func keyed(_ node: XMLElementNode) -> [(String, XMLElementNode)] {
            var seen: [String: Int] = [:]
            return node.children.filter { $0.name != "elements" }.map { child in
                let name =
                    child.attributes["name"] ?? child.attributes["key"] ?? child.attributes["value"]
                    ?? child.attributes["property"] ?? ""
                let key = "\(child.name)[\(name)]"
                seen[key, default: 0] += 1
                return ("\(key)#\(seen[key]!)", child)
            }
        }
        let left = keyed(a), right = keyed(b)
        if left.map(\.0) != right.map(\.0) { found.append("\(place): children \(left.map(\.0)) → \(right.map(\.0))") }
        let byKey = Dictionary(right, uniquingKeysWith: { first, _ in first })
        for (key, child) in left {
            if let other = byKey[key] { found += differences(child, other, at: "\(place)/\(key)") }
        }
        return found
    }

    @Test func exportGivesBackEveryElementAndAttribute() throws {
        let directory = try TemporaryDirectory(prefix: "XcodeFidelity")
        defer { directory.remove() }
        let (_, version) = try Self.imported(Self.app, in: directory)
        var omissions: [String] = []
        let exported = XcodeModelExporter().contents(of: version, omissions: &omissions)
        #expect(omissions == [])
        let original = try XMLTreeBuilder.parse(Data(Self.app.utf8))
        let back = try XMLTreeBuilder.parse(Data(exported.utf8))
        #expect(Self.differences(original, back) == [])
        #expect(back.attributes["lastSavedToolsVersion"] == XcodeModelExporter().toolsVersion)
        #expect(back.children(named: "elements").isEmpty)
    }

    @Test func theYAMLSaysWhatOnlyXcodeReads() throws {
        let directory = try TemporaryDirectory(prefix: "XcodeFidelity")
        defer { directory.remove() }
        let (imported, _) = try Self.imported(Self.app, in: directory)
        let lines = imported.yaml.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
        #expect(
            Array(lines.prefix(12)) == [
                "model: App",
                "version: 1",
                #"xcode: { iOSVersion: "Automatic", minimumToolsVersion: "Xcode 7.3", sourceLanguage: "Objective-C" }"#,
                "syncable: all",
                "fetchRequests:",
                #"  AllArtists: { entity: "Artist", fetchLimit: "20", predicateString: "name != nil" }"#,
                "configurations:",
                #"  Cloud: { usedWithCloudKit: "YES", entities: [Artist, Image] }"#,
                "entities:",
                "  Artist:",
                #"    className: "FlickrSearcher.Artist""#,
                #"    codeGeneration: "class""#,
            ])
        #expect(
            lines.contains(
                #"      rank: { type: integer16, optional: true, default: 0, min: 0, scalar: false, "#
                    + #"xcode: { defaultValueString: "NO", minValueString: "0.50" } }"#))
        #expect(lines.contains("      verified: boolean?"))
        #expect(lines.contains(#"      thumbnail: { destination: Image, ordered: true, inverse: thumbnailOf }"#))
        #expect(
            lines.contains(
                #"      recent: { optional: "YES", syncable: "YES", fetchRequest: { entity: "Image", "#
                    + #"name: "fetchedPropertyFetchRequest", predicateString: "artist == $FETCH_SOURCE" } }"#))
        #expect(lines.contains("      - { properties: [name, rank], compound: true }"))
    }

    /// Core Data hashes `isOrdered` whatever the cardinality (`-[NSRelationshipDescription
    /// _versionHash:inStyle:proxyContext:]` adds the u16 when `isOrdered` is true, and
    /// the flag is a property flag, not a to-many one); a to-one has no order column.
    /// An index element on a to-many has no column: the index covers the others.
    @Test func orderedToOnesAreHashedAndToManyIndexElementsLeftOut() throws {
        let directory = try TemporaryDirectory(prefix: "XcodeFidelity")
        defer { directory.remove() }
        _ = try Self.imported(Self.app, in: directory)
        let compiled = try ModelLoader.loadModel(path: directory.file("Models/App"))
        let unordered = Self.app.replacingOccurrences(
            of: #"deletionRule="Nullify" ordered="YES""#, with: #"deletionRule="Nullify""#)
        try directory.write("Plain/App.xcdatamodel/contents", unordered)
        let plainModel = try XcodeModelImporter(modelName: "App").convert(
            try XcodeModelBundle.read(path: directory.file("Plain/App.xcdatamodel")))
        try directory.write("Plain/Models/App/1.yaml", try #require(plainModel.versions.first).yaml)
        let plain = try ModelLoader.loadModel(path: directory.file("Plain/Models/App"))
        let version = try #require(compiled.versions.first), plainVersion = try #require(plain.versions.first)
        #expect(version.versionHashes["Artist"] != plainVersion.versionHashes["Artist"])
        #expect(version.versionHashes["Image"] == plainVersion.versionHashes["Image"])
        #expect(version.layout.tables == plainVersion.layout.tables)
        let artistTable = try #require(version.layout.tables.first { $0.name == "ZARTIST" })
        #expect(!artistTable.columns.contains { $0.name.hasPrefix("Z_FOK") })
        let index = try #require(version.layout.indexes.first { $0.name == "Z_Artist_byNameImages" })
        #expect(index.columns.map(\.name) == ["ZNAME"])
    }

    /// A problem of an imported version points at the `contents` element it came from.
    @Test func importProblemsPointAtTheContentsFile() throws {
        let directory = try TemporaryDirectory(prefix: "XcodeFidelity")
        defer { directory.remove() }
        let broken = Self.app.replacingOccurrences(
            of: #"<attribute name="name" attributeType="String" syncable="YES"/>"#,
            with: #"<attribute name="name" attributeType="String" syncable="YES"/>"# + "\n"
                + #"        <attribute name="Name" attributeType="Strin"/>"#)
        try directory.write("App.xcdatamodel/contents", broken)
        let bundle = try XcodeModelBundle.read(path: directory.file("App.xcdatamodel"))
        #expect(throws: ImportError.self) { try XcodeModelImporter(modelName: "App").convert(bundle) }
        do {
            _ = try XcodeModelImporter(modelName: "App").convert(bundle)
        } catch {
            #expect(
                error.problems == [
                    """
                    \(directory.file("App.xcdatamodel/contents")):5:20: attribute 'Artist.Name': attribute type \
                    'Strin' is not supported by the model format
                    """
                ])
        }
        // A diagnostic of the YAML maps back through the line table.
        let (imported, _) = try Self.imported(Self.app, in: directory)
        let yamlLine =
            try #require(
                imported.yaml.split(separator: "\n", omittingEmptySubsequences: false)
                    .firstIndex { $0.hasPrefix("      thumbnail:") }) + 1
        let source = try #require(imported.sourceLocation(ofYAMLLine: yamlLine))
        #expect(source.file == directory.file("App.xcdatamodel/contents"))
        #expect(source.line == 16)
        #expect(source.column == 23)
    }
}
