import DataModel
import Foundation
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// Properties moved up a hierarchy, from subentities to their parent. Core Data's
/// inferred mapping has one entity mapping per source entity, whose property
/// mappings pair every destination property, inherited ones included, with the
/// source property of the same name: `CToC` maps the inherited `P.tags` from
/// `C.tags`, so each subentity's objects keep what they had (outside tester's F9).
@Suite struct HierarchyMoveUpTests {
    static let tag = "Tag: {attributes: {key: string}, relationships: {ps: {destination: P, toMany: true, inverse: tags}}}"

    func tags(_ s: MigrationScenario) throws -> [String: [Int64]] {
        Dictionary(uniqueKeysWithValues: try s.fetch("P").map { ($0.values["key"].map { "\($0)" } ?? "?", $0.relationships["tags"] ?? []) })
    }

    /// F9: C.tags ⇄ Tag.cs becomes P.tags ⇄ Tag.ps; C 1 keeps its two tags, with no warning.
    @Test func aManyToManyMovedUpFromASubentityKeepsItsPairs() throws {
        let s = try MigrationScenario(
            "H",
            versions: [
                """
                entities: {P: {attributes: {key: string}},
                  C: {parent: P, relationships: {tags: {destination: Tag, toMany: true, inverse: cs}}},
                  Tag: {attributes: {key: string}, relationships: {cs: {destination: C, toMany: true, inverse: tags}}}}
                """,
                """
                entities: {P: {attributes: {key: string}, relationships: {tags: {destination: Tag, toMany: true, inverse: ps}}},
                  C: {parent: P}, \(Self.tag)}
                """,
            ])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Tag", values: ["key": .string("t1")])
            try o.insert("Tag", values: ["key": .string("t2")])
            try o.insert("P", values: ["key": .string("p3")])
            try o.insert("C", values: ["key": .string("c4")], relationships: ["tags": [1, 2]])
        }
        let plan = try s.migrate(verify: true)
        #expect(plan.warnings.filter(\.isDestructive).isEmpty, "\(plan.warnings)")
        #expect(try tags(s) == ["p3": [], "c4": [1, 2]])
        #expect(try s.fetch("Tag").map { $0.relationships["ps"] ?? [] } == [[2], [2]], "c4 is the second object of P's table")
    }

    /// F9 b: two siblings' many-to-manys, one ordered, become the parent's ordered
    /// one: C keeps its order, D's members are placed in key order.
    @Test func twoSiblingsManyToManysMovedUpKeepTheirPairsAndOrder() throws {
        func sibling(_ name: String, ordered: Bool) -> String {
            "\(name): {parent: P, relationships: {tags: {destination: Tag, toMany: true, inverse: \(name.lowercased())s, ordered: \(ordered)}}}"
        }
        let s = try MigrationScenario(
            "H",
            versions: [
                """
                entities: {P: {attributes: {key: string}}, \(sibling("C", ordered: true)), \(sibling("D", ordered: false)),
                  Tag: {attributes: {key: string}, relationships: {
                    cs: {destination: C, toMany: true, inverse: tags}, ds: {destination: D, toMany: true, inverse: tags}}}}
                """,
                """
                entities: {P: {attributes: {key: string}, relationships: {tags: {destination: Tag, toMany: true, inverse: ps, ordered: true}}},
                  C: {parent: P}, D: {parent: P}, \(Self.tag)}
                """,
            ])
        defer { s.remove() }
        try s.withObjects { o in
            for key in ["t1", "t2", "t3"] { try o.insert("Tag", values: ["key": .string(key)]) }
            try o.insert("C", values: ["key": .string("c4")], relationships: ["tags": [3, 1]])
            try o.insert("D", values: ["key": .string("d5")], relationships: ["tags": [2, 3, 1]])
        }
        let plan = try s.migrate(verify: true)
        #expect(plan.warnings.filter(\.isDestructive).isEmpty, "\(plan.warnings)")
        #expect(try tags(s) == ["c4": [3, 1], "d5": [1, 2, 3]])
    }
}
