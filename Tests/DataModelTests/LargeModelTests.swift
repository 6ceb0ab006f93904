import Testing

@testable import DataModel

/// Issue 17, item 10: validation and compilation stay linear (or n log n) in the
/// number of entities and the depth of a hierarchy, and walk deep hierarchies
/// without recursion. These check the data of large models exactly; the timing
/// lives in the benchmark (`Benchmarks/Sources/main.swift`), not here.
@Suite struct LargeModelTests {
    // MARK: - Helpers

    /// `count` entities in a ring: each has a to-one `next` and its to-many inverse
    /// `prev`, an indexed attribute, a uniqueness constraint and a fetch index.
    private func ring(_ count: Int) -> String {
        var text = "model: Big\nversion: 1\nentities:\n"
        for i in 0..<count {
            text += """
                  E\(i):
                    attributes: { name: string, count: integer32, flag: { type: boolean, indexed: true } }
                    relationships:
                      next: { destination: E\((i + 1) % count), inverse: prev }
                      prev: { destination: E\((i + count - 1) % count), inverse: next, toMany: true }
                    uniqueness: [[name]]
                    indexes: [[count, name]]

                """
        }
        return text
    }

    /// A chain `E0` ← `E1` ← … ← `E<depth-1>` under the root `E0`, with `Item`
    /// pointing at the root; the leaf adds an attribute, `E1` a uniqueness constraint.
    private func chain(_ depth: Int) -> String {
        var text = """
            model: Deep
            version: 1
            entities:
              Item:
                attributes: { title: string }
                relationships:
                  owner: { destination: E0, inverse: items }
              E0:
                attributes: { name: string }
                relationships:
                  items: { destination: Item, toMany: true, inverse: owner }

            """
        for i in 1..<depth {
            text += "  E\(i):\n    parent: E\(i - 1)\n"
            if i == 1 { text += "    uniqueness: [[name]]\n" }
            if i == depth - 1 { text += "    attributes: { leafNote: string? }\n" }
        }
        return text
    }

    // MARK: - Many entities

    @Test func twoThousandEntitiesValidateAndCompile() throws {
        let version = try ModelText.compile(ring(2000))
        #expect(version.entities.count == 2000)
        #expect(version.layout.tables.count == 2000)
        // Per entity: the key of `next`, the indexed attribute, the constraint, the index.
        #expect(version.layout.indexes.count == 8000)
        #expect(Set(version.layout.indexes.map { $0.name.lowercased() }).count == 8000)
        let e1234 = try #require(version.entity(named: "E1234"))
        #expect(e1234.relationship(named: "next")?.inverseEntity == "E1235")
        #expect(e1234.relationship(named: "prev")?.declaration.destination == "E1233")
        #expect(
            version.layout.table(named: "ZE0")?.columns.map(\.name) == [
                "Z_PK", "Z_ENT", "Z_OPT", "ZCOUNT", "ZFLAG", "ZNEXT", "ZNAME",
            ])
        #expect(
            version.layout.indexes.filter { $0.table == "ZE0" }.map(\.name)
                == ["ZE0_ZNEXT_INDEX", "ZE0_ZFLAG_INDEX", "Z_E0_UNIQUE_name", "Z_E0_byCountName"])
    }

    // MARK: - Deep hierarchies

    @Test func twoThousandDeepHierarchyCompiles() throws {
        let version = try ModelText.compile(chain(2000))
        #expect(version.entities.count == 2001)
        let leaf = try #require(version.entity(named: "E1999"))
        #expect(leaf.root == "E0")
        #expect(leaf.attributes.map(\.name) == ["leafNote", "name"])
        #expect(leaf.relationships.map { "\($0.declaredIn).\($0.name)" } == ["E0.items"])
        #expect(version.lineage(of: "E1999") == (0..<2000).reversed().map { "E\($0)" })
        #expect(version.subtree(of: "E0") == (0..<2000).map { "E\($0)" })
        #expect(version.entity(named: "E0")?.subentities == ["E1"])
        // Every entity hashes its parent's hash: check the chain's two ends against
        // the recipe (Docs/ModelFormat.md, "Version hashes"), computed here from its parts.
        let name = try #require(version.entity(named: "E0")?.attribute(named: "name")).versionHash
        let items = try #require(version.entity(named: "E0")?.relationship(named: "items")).versionHash
        let root = VersionHasher.hashEntity(
            name: "E0", isAbstract: false, parentHash: nil,
            properties: [("name", name), ("items", items)], hashModifier: nil, uniqueness: [])
        #expect(version.versionHashes["E0"] == root)
        let parent = try #require(version.versionHashes["E1998"])
        let leafNote = try #require(leaf.attribute(named: "leafNote")).versionHash
        #expect(
            leaf.versionHash
                == VersionHasher.hashEntity(
                    name: "E1999", isAbstract: false, parentHash: parent,
                    properties: [("name", name), ("items", items), ("leafNote", leafNote)],
                    hashModifier: nil, uniqueness: []))
        #expect(Set(version.versionHashes.values).count == 2001)
        // One table for the hierarchy; entity numbers depth-first from the root.
        #expect(
            version.layout.entityNumbers["E0"] == 1 && version.layout.entityNumbers["E1999"] == 2000
                && version.layout.entityNumbers["Item"] == 2001)
        #expect(
            version.layout.table(named: "ZE0")?.columns.map(\.name) == ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME", "ZLEAFNOTE"])
        #expect(
            version.layout.table(named: "ZITEM")?.columns.map(\.name) == [
                "Z_PK", "Z_ENT", "Z_OPT", "ZOWNER", "Z1_OWNER", "ZTITLE",
            ])
        // E1's constraint covers its rows and those of every entity below it.
        let unique = try #require(version.layout.indexes.first { $0.name == "Z_E1_UNIQUE_name" })
        #expect(unique.condition == "Z_ENT IN (\((2...2000).map(String.init).joined(separator: ", ")))")
    }

    @Test func aTwoThousandEntityCycleIsReportedOnce() throws {
        var text = "model: Loop\nversion: 1\nentities:\n  E0: { parent: E1999 }\n"
        for i in 1..<2000 { text += "  E\(i): { parent: E\(i - 1) }\n" }
        let cycle = ["E0"] + (1..<2000).reversed().map { "E\($0)" } + ["E0"]
        #expect(
            try ModelText.validate(text) == [
                Diagnostic(
                    .error, "entity 'E0': inheritance cycle \(cycle.joined(separator: " → "))", at: ModelText.at(4, 3))
            ])
    }

    @Test func entitiesBelowABrokenChainAreSkippedWithoutAnError() throws {
        // A 2,000-deep chain under an unknown parent: one error, at the entity naming it.
        var text = "model: Broken\nversion: 1\nentities:\n  E0: { parent: Missing }\n"
        for i in 1..<2000 { text += "  E\(i): { parent: E\(i - 1), attributes: { a\(i): string } }\n" }
        #expect(
            try ModelText.validate(text) == [
                Diagnostic(.error, "entity 'E0': unknown parent entity 'Missing'", at: ModelText.at(4, 3))
            ])
    }
}
