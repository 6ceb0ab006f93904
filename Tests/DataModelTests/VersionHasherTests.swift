import Foundation
import Testing

@testable import DataModel

/// Swift Testing has a `SourceLocation` too.
private typealias SourceLocation = DataModel.SourceLocation

/// The hash recipe (Docs/ModelFormat.md, "Version hashes"). Exact hex values below were computed
/// independently from the recipe (Python's hashlib), not by this code.
@Suite struct VersionHasherTests {
    // MARK: - Helpers

    private static let here = SourceLocation(file: "test.yaml", line: 1, column: 1)

    /// A model touching every hashed and unhashed fact; the variants below edit one
    /// piece of its text each.
    private static let base = """
        model: M
        version: 1
        entities:
          Person:
            attributes:
              name: string
              age: { type: integer16, default: 0 }
              photo: { type: binary, optional: true }
              color: { type: transformable, optional: true, transformer: ColorTransformer }
              nick: string?
              section: { type: string, transient: true }
            relationships:
              posts: { destination: Post, toMany: true, inverse: author, deleteRule: cascade }
              friends: { destination: Person, toMany: true, inverse: friends }
              favorite: { destination: Post }
            uniqueness: [[name]]
            indexes: [[name]]
          Post:
            abstract: false
            attributes:
              title: string
            relationships:
              author: { destination: Person, inverse: posts }
              tags: { destination: Tag, toMany: true, inverse: posts }
          Tag:
            attributes:
              label: string
            relationships:
              posts: { destination: Post, toMany: true, inverse: tags }
          Article:
            parent: Post

        """

    private func compile(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws
        -> CompiledVersion
    {
        try ModelText.compile(text, sourceLocation: sourceLocation)
    }

    /// The base text with `from` replaced by `to` (which must occur exactly once).
    private func variant(_ from: String, _ to: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws
        -> CompiledVersion
    {
        #expect(
            Self.base.components(separatedBy: from).count == 2, "'\(from)' must occur once",
            sourceLocation: sourceLocation)
        return try compile(Self.base.replacingOccurrences(of: from, with: to), sourceLocation: sourceLocation)
    }

    /// Names of the entities whose hash differs between two versions.
    private func changed(_ a: CompiledVersion, _ b: CompiledVersion) -> [String] {
        Set(a.versionHashes.keys).union(b.versionHashes.keys).filter { a.versionHashes[$0] != b.versionHashes[$0] }
            .sorted()
    }

    private func hex(_ hash: VersionHash?) -> String? { hash?.hex }

    // MARK: - Property and entity hashes, byte for byte

    @Test func attributeHashes() {
        var name = AttributeDescription(name: "name", type: .string, location: Self.here)
        #expect(VersionHasher.hash(name).hex == "8cb9965c0031ac68913984f3110941ad965395be9fd9b17de7be54bc7ad46890")
        name.isOptional = true
        #expect(VersionHasher.hash(name).hex == "95fbc4c1911386502d590fc8780df611a28374298d32797165373f91204cbb08")

        var photo = AttributeDescription(name: "photo", type: .binary, isOptional: true, location: Self.here)
        photo.allowsExternalStorage = true
        #expect(VersionHasher.hash(photo).hex == "60f200c81238248b51a6405b33f8a327dec1999ec898f8a19cab0a45073bd82a")
        photo.preservesValueInHistoryOnDeletion = true
        photo.hashModifier = "v2"
        // Not hashed: default, indexed, renamedFrom, limits.
        photo.defaultValue = .binary([1])
        photo.isIndexed = true
        photo.renamedFrom = "picture"
        photo.maximum = .integer(10)
        #expect(VersionHasher.hash(photo).hex == "c07624d3d3b6d79eb268a7221c798e5d1bc47b7e683a904387446e265616b083")

        var note = AttributeDescription(name: "note", type: .string, isOptional: true, location: Self.here)
        note.isTransient = true
        #expect(VersionHasher.hash(note).hex == "a5c0bd219b5362aa76e4c533a8dcd068ced2e66ec512277cd4b0b072bf67ef03")
    }

    @Test func relationshipHashes() {
        var posts = RelationshipDescription(name: "posts", destination: "Post", isToMany: true, location: Self.here)
        posts.inverse = "author"
        posts.isOrdered = true
        posts.minCount = 1
        posts.maxCount = 10
        posts.isOptional = false
        posts.hashModifier = "v3"
        posts.deleteRule = .cascade  // not hashed
        posts.renamedFrom = "articles"  // not hashed
        #expect(
            VersionHasher.hash(posts, isOwnInverse: false).hex
                == "edf78b90b9d311852bed4e3964dc2c3d57011e60fbb4467437b6aa79275e5b05")

        var owner = RelationshipDescription(name: "owner", destination: "Person", location: Self.here)
        owner.inverse = "cars"
        #expect(
            VersionHasher.hash(owner, isOwnInverse: false).hex
                == "de1c089788a726f3fe40c12bfbf0f4d48833e8afa94bf16d82bf8dec1f49ef0d")
        // Xcode writes maxCount 1 for a to-one; it hashes the same as none.
        owner.maxCount = 1
        #expect(
            VersionHasher.hash(owner, isOwnInverse: false).hex
                == "de1c089788a726f3fe40c12bfbf0f4d48833e8afa94bf16d82bf8dec1f49ef0d")
    }

    @Test func ownInverseLeavesTheInverseNameOut() throws {
        let version = try compile(
            """
            model: M
            version: 1
            entities:
              Person:
                attributes:
                  name: string
                relationships:
                  friends: { destination: Person, toMany: true, inverse: friends }

            """)
        let person = try #require(version.entity(named: "Person"))
        let friends = try #require(person.relationship(named: "friends"))
        var withoutInverse = friends.declaration
        withoutInverse.inverse = nil
        // The compiled hash is the hash of the same relationship with no inverse name…
        #expect(friends.versionHash == VersionHasher.hash(withoutInverse, isOwnInverse: false))
        #expect(friends.versionHash == VersionHasher.hash(friends.declaration, isOwnInverse: true))
        #expect(friends.versionHash.hex == "0f338ccda38a68b5b6656cc9c7270ae7010eaa282f36611974eb46437096d7b2")
        // …and not the hash that includes it.
        #expect(
            VersionHasher.hash(friends.declaration, isOwnInverse: false).hex
                == "2aea8ac1966947b9f4227eb726128397b29396ea176e25096a9421998c678269")
        #expect(person.versionHash.hex == "e80d700c475c7aba9707491eaf70e5c460ebd4e1db2cd6df5af4d76222b2e6ea")
        #expect(
            version.versionHashesDigest
                == "1i0n8lCz8jgADjpB9xPB456cirWBfeSxAwoDCMGRJk5QtHbdXikYkhOej4HXXg0cgqlGCqJbYnNhq0gMWNkFIw==")
    }

    @Test func ownInverseHoldsForAnInheritedSelfRelationship() throws {
        let version = try compile(
            """
            model: M
            version: 1
            entities:
              Person:
                relationships:
                  friends: { destination: Person, toMany: true, inverse: friends }
              Employee:
                parent: Person

            """)
        let declared = try #require(version.entity(named: "Person")?.relationship(named: "friends"))
        let inherited = try #require(version.entity(named: "Employee")?.relationship(named: "friends"))
        #expect(declared.versionHash == VersionHasher.hash(declared.declaration, isOwnInverse: true))
        #expect(inherited.versionHash == declared.versionHash)
        #expect(inherited.declaredIn == "Person")
    }

    @Test func entityHashWithParentAbstractModifierAndConstraints() throws {
        let version = try compile(
            """
            model: M
            version: 1
            entities:
              Product:
                abstract: true
                hashModifier: m
                attributes: { sku: string }
                uniqueness: [sku]
              Book:
                parent: Product
                attributes: { isbn: string }
                uniqueness: [[isbn, sku], [isbn]]

            """)
        #expect(
            version.versionHashes.mapValues(\.hex) == [
                "Product": "1671b170b2260f884858631d3fa0eb13a5bac58572b96560c702b6064ae6545f",
                "Book": "827b842cabd44c679b176dc6011c6f63e8587f1592db8f9c2a879562ff80c9b5",
            ])
        #expect(
            version.versionHashesDigest
                == "yIa7eGecsk0XKG6NFby9LTVzkrjDBYMteD/wLM1dV4a8j/cmwL+7R+RGDs2+wdGMdG4GmC0bV+oOvFjEZ9ZLRA==")
    }

    @Test func digestIsSHA512OverNamesAndHashesInNameOrder() {
        let hashes = [
            "B": VersionHash(bytes: [UInt8](repeating: 1, count: 32)),
            "A": VersionHash(bytes: [UInt8](repeating: 0, count: 32)),
        ]
        #expect(
            VersionHasher.digest(hashes)
                == "N1hmrcjZ5nVe7cWxKZScHMHeYyMaWyGXhXtXjf0X/kXwRlPpuaUcSYE9apdSP0CekifWUSOPb/NeuzaGmToIIg==")
        #expect(VersionHasher.hashesVersion == 3)
    }

    // MARK: - What changes the entity hash

    @Test(arguments: [
        // (what, from, to, layout hash changes too)
        ("a default", "age: { type: integer16, default: 0 }", "age: { type: integer16, default: 7 }", true),
        ("an index", "indexes: [[name]]", "indexes: [[nick, name]]", true),
        ("removing the index", "    indexes: [[name]]\n", "", true),
        ("indexed", "nick: string?", "nick: { type: string, optional: true, indexed: true }", true),
        (
            "an attribute's renamedFrom", "nick: string?",
            "nick: { type: string, optional: true, renamedFrom: handle }", true
        ),
        (
            "a relationship's renamedFrom", "favorite: { destination: Post }",
            "favorite: { destination: Post, renamedFrom: starred }", true
        ),
        ("an entity's renamedFrom", "  Tag:\n", "  Tag:\n    renamedFrom: Label\n", true),
        ("a delete rule", "deleteRule: cascade", "deleteRule: deny", true),
        ("a transformer", "transformer: ColorTransformer", "transformer: PaletteTransformer", true),
        ("a limit", "age: { type: integer16, default: 0 }", "age: { type: integer16, default: 0, max: 200 }", true),
        (
            "property order", "      name: string\n      age: { type: integer16, default: 0 }\n",
            "      age: { type: integer16, default: 0 }\n      name: string\n", false
        ),
        (
            "relationship order",
            "      posts: { destination: Post, toMany: true, inverse: author, deleteRule: cascade }\n"
                + "      friends: { destination: Person, toMany: true, inverse: friends }\n",
            "      friends: { destination: Person, toMany: true, inverse: friends }\n"
                + "      posts: { destination: Post, toMany: true, inverse: author, deleteRule: cascade }\n", false
        ),
        ("entity order", "  Article:\n    parent: Post\n", "", false),
        (
            "writing the defaults out", "favorite: { destination: Post }",
            "favorite: { destination: Post, toMany: false, ordered: false, optional: true, deleteRule: nullify }", false
        ),
    ])
    func keepsEveryEntityHash(what: String, from: String, to: String, layoutChanges: Bool) throws {
        let base = try compile(Self.base)
        var text = Self.base.replacingOccurrences(of: from, with: to)
        if what == "entity order" {
            // Move Article to the front instead of dropping it.
            text = text.replacingOccurrences(of: "entities:\n", with: "entities:\n  Article:\n    parent: Post\n")
        }
        #expect(Self.base.components(separatedBy: from).count == 2)
        let changedVersion = try compile(text)
        #expect(changed(base, changedVersion) == [])
        #expect(changedVersion.versionHashesDigest == base.versionHashesDigest)
        #expect((changedVersion.layoutHash != base.layoutHash) == layoutChanges)
    }

    @Test(arguments: [
        // (what, from, to, entities whose hash changes)
        ("a type", "age: { type: integer16", "age: { type: integer32", ["Person"]),
        ("optionality", "name: string\n", "name: string?\n", ["Person"]),
        ("a name", "nick: string?", "nickname: string?", ["Person"]),
        ("a parent's hash", "title: string", "title: string?", ["Article", "Post"]),
        ("abstract", "abstract: false", "abstract: true", ["Article", "Post"]),
        ("a destination", "favorite: { destination: Post }", "favorite: { destination: Tag }", ["Person"]),
        (
            "an inverse name", "author: { destination: Person, inverse: posts }",
            "writer: { destination: Person, inverse: posts }",
            ["Article", "Person", "Post"]
        ),
        (
            "ordered", "inverse: author, deleteRule: cascade", "inverse: author, deleteRule: cascade, ordered: true",
            ["Person"]
        ),
        ("minCount", "favorite: { destination: Post }", "favorite: { destination: Post, minCount: 1 }", ["Person"]),
        (
            "maxCount", "inverse: author, deleteRule: cascade", "inverse: author, deleteRule: cascade, maxCount: 5",
            ["Person"]
        ),
        (
            "a relationship's optionality", "favorite: { destination: Post }",
            "favorite: { destination: Post, optional: false }", ["Person"]
        ),
        ("a uniqueness constraint", "uniqueness: [[name]]", "uniqueness: [[name, nick]]", ["Person"]),
        ("removing a uniqueness constraint", "    uniqueness: [[name]]\n", "", ["Person"]),
        ("transient", "nick: string?", "nick: { type: string, optional: true, transient: true }", ["Person"]),
        (
            "externalStorage", "photo: { type: binary, optional: true }",
            "photo: { type: binary, optional: true, externalStorage: true }", ["Person"]
        ),
        (
            "preserveAfterDeletion", "nick: string?",
            "nick: { type: string, optional: true, preserveAfterDeletion: true }", ["Person"]
        ),
        ("an entity hashModifier", "  Tag:\n", "  Tag:\n    hashModifier: v2\n", ["Tag"]),
        ("an attribute hashModifier", "label: string", "label: { type: string, hashModifier: v2 }", ["Tag"]),
        (
            "a relationship hashModifier", "favorite: { destination: Post }",
            "favorite: { destination: Post, hashModifier: v2 }", ["Person"]
        ),
    ])
    func changesTheEntityHash(what: String, from: String, to: String, entities: [String]) throws {
        let base = try compile(Self.base)
        var text = Self.base.replacingOccurrences(of: from, with: to)
        if what == "an inverse name" {
            text = text.replacingOccurrences(of: "inverse: author", with: "inverse: writer")
        }
        #expect(Self.base.components(separatedBy: from).count == 2)
        let changedVersion = try compile(text)
        #expect(changed(base, changedVersion) == entities)
        #expect(changedVersion.versionHashesDigest != base.versionHashesDigest)
    }

    @Test func entityNameIsHashed() throws {
        let base = try compile(Self.base)
        let renamed = try variant(
            "  Article:\n    parent: Post\n", "  Story:\n    parent: Post\n    renamedFrom: Article\n")
        #expect(base.versionHashes["Article"] != nil)
        #expect(renamed.versionHashes["Story"] != nil)
        #expect(renamed.versionHashes["Story"] != base.versionHashes["Article"])
        #expect(renamed.versionHashes.filter { $0.key != "Story" } == base.versionHashes.filter { $0.key != "Article" })
    }

    @Test func aNewParentChangesTheChildsHash() throws {
        let base = try compile(Self.base)
        let reparented = try variant("  Article:\n    parent: Post\n", "  Article:\n    parent: Tag\n")
        #expect(changed(base, reparented) == ["Article"])
        let orphan = try variant("  Article:\n    parent: Post\n", "  Article: {}\n")
        #expect(changed(base, orphan) == ["Article"])
    }

    @Test func transientPropertiesAreLeftOutOfTheEntityHash() throws {
        let base = try compile(Self.base)
        let withoutSection = try variant("      section: { type: string, transient: true }\n", "")
        #expect(changed(base, withoutSection) == [])
        // The transient attribute still changes the layout hash (it is part of the model).
        #expect(withoutSection.layoutHash != base.layoutHash)
    }
}
