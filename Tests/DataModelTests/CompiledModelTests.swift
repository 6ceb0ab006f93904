import Foundation
import Testing

@testable import DataModel

@Suite struct CompiledModelTests {
    // MARK: - Helpers

    /// The package's root folder (this file is `Tests/DataModelTests/CompiledModelTests.swift`).
    private static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    private static let contacts = packageRoot + "/Models/Contacts"
    private static let golden = ModelText.fixtures + "/Golden/Contacts.compiled.json"

    /// `CompiledModel.json` with the package root cut from every path, so that the
    /// text is the same on every machine.
    private func portableJSON(_ models: [CompiledModel]) throws -> String {
        try CompiledModel.json(models).replacingOccurrences(of: Self.packageRoot + "/", with: "")
    }

    /// Library version 1 with entities, keys and properties in another order.
    private static let reorderedLibrary = """
        model: Library
        version: 1
        identifier: "lib-1"
        entities:
          Genre:
            uniqueness: [name]
            relationships:
              books: { destination: Book, toMany: true, inverse: genres }
            attributes:
              name: string
          Author:
            relationships:
              friends: { destination: Author, toMany: true, inverse: friends }
              books: { deleteRule: cascade, inverse: author, ordered: true, toMany: true, destination: Book }
            attributes:
              name: string
          Book:
            uniqueness: [isbn]
            relationships:
              genres: { destination: Genre, toMany: true, inverse: books }
              author: { destination: Author, inverse: books }
            attributes:
              pageCount: { min: 0, default: 0, type: integer32 }
              isbn: string
            parent: Work
          Work:
            uniqueness: [title]
            attributes:
              publishedOn: date?
              title: string
            abstract: true

        """

    // MARK: - Determinism

    @Test func compilingTwiceGivesIdenticalJSON() throws {
        let first = try ModelLoader.loadModel(path: Self.contacts)
        let second = try ModelLoader.loadModel(path: Self.contacts)
        #expect(first == second)
        #expect(try CompiledModel.json([first]) == CompiledModel.json([second]))
    }

    @Test func reorderingEntitiesAndPropertiesKeepsEveryHashAndTheLayout() throws {
        let text = try String(contentsOfFile: ModelText.fixtures + "/Models/Library/1.yaml", encoding: .utf8)
        let original = try ModelText.compile(text)
        let reordered = try ModelText.compile(Self.reorderedLibrary)
        #expect(reordered.versionHashes == original.versionHashes)
        #expect(reordered.versionHashesDigest == original.versionHashesDigest)
        #expect(reordered.layoutHash == original.layoutHash)
        #expect(reordered.layout == original.layout)
        let shape: (CompiledVersion) -> [[String]] = { version in
            version.entities.map {
                [$0.name, $0.versionHash.hex] + $0.attributes.map(\.name) + $0.relationships.map(\.name)
            }
        }
        #expect(shape(reordered) == shape(original))
        #expect(shape(original).map { $0[0] } == ["Author", "Book", "Genre", "Work"])
    }

    // MARK: - The example model

    @Test func goldenJSONOfTheContactsModel() throws {
        let json = try portableJSON([try ModelLoader.loadModel(path: Self.contacts)])
        #expect(!json.contains(Self.packageRoot))
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(
                atPath: (Self.golden as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try json.write(toFile: Self.golden, atomically: true, encoding: .utf8)
        }
        guard let expected = try? String(contentsOfFile: Self.golden, encoding: .utf8) else {
            Issue.record("\(Self.golden) is missing; run the tests with UPDATE_GOLDEN=1 to write it")
            return
        }
        #expect(
            json == expected,
            "the compiled Contacts model changed; if intended, rerun with UPDATE_GOLDEN=1 and review the diff")
    }

    @Test func jsonDecodesToTheSameModel() throws {
        let model = try ModelLoader.loadModel(path: Self.contacts)
        let json = try CompiledModel.json([model])
        let document = try JSONDecoder().decode(CompiledModelsDocument.self, from: Data(json.utf8))
        #expect(document.formatVersion == 1)
        #expect(document.models == [model])
    }

    @Test func contactsVersion3Structure() throws {
        let model = try ModelLoader.loadModel(path: Self.contacts)
        #expect(model.name == "Contacts")
        // Later versions may be added; the first three are shipped and never change.
        #expect(Array(model.versions.map(\.version).prefix(3)) == [1, 2, 3])
        #expect(Array(model.versions.map(\.identifier).prefix(3)) == ["2026.1", "2026.2", "2026.3"])
        #expect(model.current == model.versions.last)
        #expect(model.version(0) == nil)
        let v3 = try #require(model.version(3))
        #expect(v3.entities.map(\.name) == ["FavoriteProduct", "Person", "Post", "Product", "Tag"])

        let favorite = try #require(v3.entity(named: "FavoriteProduct"))
        #expect(favorite.parent == "Product")
        #expect(favorite.root == "Product")
        #expect(!favorite.isAbstract)
        #expect(
            favorite.attributes.map { "\($0.name)@\($0.declaredIn)" } == [
                "addedAt@FavoriteProduct", "name@Product", "price@Product", "sku@Product",
            ])
        #expect(favorite.uniqueness == [])
        let product = try #require(v3.entity(named: "Product"))
        #expect(product.subentities == ["FavoriteProduct"])
        #expect(product.isAbstract)
        #expect(product.uniqueness == [["sku"]])
        #expect(product.attribute(named: "price")?.declaration.defaultValue == .decimal("0.00"))

        let person = try #require(v3.entity(named: "Person"))
        #expect(
            person.attributes.map(\.name) == [
                "age", "avatar", "city", "createdAt", "email", "externalID", "firstName", "homepage", "lastName",
                "nickname", "sectionIdentifier",
            ])
        #expect(
            person.relationships.map {
                """
                \($0.name)→\($0.declaration.destination) inverse \($0.inverseEntity ?? "-") many-to-many \
                \($0.isManyToMany)
                """
            } == [
                "favorites→FavoriteProduct inverse FavoriteProduct many-to-many true",
                "posts→Post inverse Post many-to-many false",
            ])
        #expect(person.indexes.map(\.name) == ["byName"])
        #expect(person.attribute(named: "createdAt")?.declaration.defaultValue == .date(788_918_400))
        #expect(v3.entity(named: "Post")?.renamedFrom == nil)
        #expect(v3.entity(named: "Post")?.attribute(named: "text")?.declaration.renamedFrom == "body")
        #expect(v3.versionHashes.count == 5)
        #expect(v3.file.hasSuffix("/Models/Contacts/3.yaml"))
    }

    @Test func summaryOfAnAppleParityModel() throws {
        let model = try ModelLoader.loadModel(path: ModelText.fixtures + "/AppleParity", named: "SampleModel")
        #expect(
            model.summary == """
                model SampleModel: 2 versions, current 2
                  version 1 (1): 4 entities, layout 980e03be, digest fACvwxty0QWr…
                    Car                9e555529  5 attributes, 1 relationships
                    ExpensiveSportCar  3dc7e32b  6 attributes, 1 relationships : SportCar
                    Person             16426855  4 attributes, 1 relationships
                    SportCar           514ec190  5 attributes, 1 relationships : Car
                  version 2 (2): 4 entities, layout 38b165de, digest gA/GyOCh8sMD…
                    Car        7e503efb  4 attributes, 1 relationships
                    LuxuryCar  a873c559  5 attributes, 1 relationships : SportCar
                    Person     067ae62e  3 attributes, 1 relationships
                    SportCar   722a55b5  4 attributes, 1 relationships : Car
                """)
    }

    @Test func libraryCompilesWithTheExpectedHashRelations() throws {
        let model = try ModelLoader.loadModel(path: ModelText.fixtures + "/Models/Library")
        let v1 = try #require(model.version(1)), v2 = try #require(model.version(2))
        // Unchanged entities keep their hashes; an index or `indexed` is not hashed.
        #expect(v2.versionHashes["Author"] == v1.versionHashes["Author"])
        #expect(v2.versionHashes["Book"] == v1.versionHashes["Book"])
        #expect(v2.versionHashes["Work"] == v1.versionHashes["Work"])
        // Genre.books became ordered.
        #expect(v2.versionHashes["Genre"] != v1.versionHashes["Genre"])
        #expect(v2.layoutHash != v1.layoutHash)
        let friends = try #require(v1.entity(named: "Author")?.relationship(named: "friends"))
        #expect(friends.isManyToMany)
        #expect(friends.inverseEntity == "Author")
        var anonymous = friends.declaration
        anonymous.inverse = nil
        #expect(friends.versionHash == VersionHasher.hash(anonymous, isOwnInverse: false))
        #expect(
            v1.entity(named: "Book")?.relationships.map { "\($0.name)@\($0.declaredIn)" } == [
                "author@Book", "genres@Book",
            ])
        #expect(v1.entity(named: "Work")?.subentities == ["Book"])
        #expect(v2.entity(named: "Work")?.subentities == ["Book", "Magazine"])
    }
}
