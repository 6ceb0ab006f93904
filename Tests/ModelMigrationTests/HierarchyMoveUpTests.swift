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
    static let tag =
        "Tag: {attributes: {key: string}, relationships: {ps: {destination: P, toMany: true, inverse: tags}}}"

    func tags(_ s: MigrationScenario) throws -> [String: [Int64]] {
        Dictionary(
            uniqueKeysWithValues: try s.fetch("P").map {
                ($0.values["key"].map { "\($0)" } ?? "?", $0.relationships["tags"] ?? [])
            })
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
                entities: {P: {attributes: {key: string}, relationships: {tags: {destination: Tag, toMany: true, \
                inverse: ps}}},
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
        #expect(
            try s.fetch("Tag").map { $0.relationships["ps"] ?? [] } == [[2], [2]],
            "c4 is the second object of P's table")
    }

    /// F9 b: two siblings' many-to-manys, one ordered, become the parent's ordered
    /// one: C keeps its order, D's members are placed in key order.
    @Test func twoSiblingsManyToManysMovedUpKeepTheirPairsAndOrder() throws {
        func sibling(_ name: String, ordered: Bool) -> String {
            """
            \(name): {parent: P, relationships: {tags: {destination: Tag, toMany: true, inverse: \
            \(name.lowercased())s, ordered: \(ordered)}}}
            """
        }
        let s = try MigrationScenario(
            "H",
            versions: [
                """
                entities: {P: {attributes: {key: string}}, \(sibling("C", ordered: true)), \
                \(sibling("D", ordered: false)),
                  Tag: {attributes: {key: string}, relationships: {
                    cs: {destination: C, toMany: true, inverse: tags}, ds: {destination: D, toMany: true, inverse: \
                tags}}}}
                """,
                """
                entities: {P: {attributes: {key: string}, relationships: {tags: {destination: Tag, toMany: true, \
                inverse: ps, ordered: true}}},
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

    /// F7: C.n and D.n move up to P.n with a new `max: 10`; D's 50 refuses the hop
    /// (exit 4) as an attribute given a max in place does, the store untouched.
    @Test func aMaxGivenToAnAttributeMovedUpJudgesEverySubentitysValues() throws {
        let s = try MigrationScenario(
            "H",
            versions: [
                """
                entities: {P: {attributes: {key: string}}, C: {parent: P, attributes: {n: integer32?}}, D: {parent: P, \
                attributes: {n: integer32?}}}
                """,
                """
                entities: {P: {attributes: {key: string, n: {type: integer32, max: 10, default: 0}}}, C: {parent: P}, \
                D: {parent: P}}
                """,
            ])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("C", values: ["key": .string("c1"), "n": .integer(3)])
            try o.insert("D", values: ["key": .string("d2"), "n": .integer(50)])
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: s.storePath))
        let error = try #require(throws: (any Error).self) { try s.migrate() }
        #expect("\(error)".contains("D.n gets max 10, and stored values are outside it: 1 row: Z_PK 2: 50"), "\(error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: s.storePath)) == before)
    }

    /// F7 d: the move in one version and the max in the next, fused by `apply`:
    /// refused as one version at a time refuses it.
    @Test func aMaxGivenAVersionAfterTheMoveIsJudgedInTheFusedRun() throws {
        let s = try MigrationScenario(
            "H",
            versions: [
                """
                entities: {P: {attributes: {key: string}}, C: {parent: P, attributes: {n: integer32?}}, D: {parent: P, \
                attributes: {n: integer32?}}}
                """,
                "entities: {P: {attributes: {key: string, n: integer32?}}, C: {parent: P}, D: {parent: P}}",
                """
                entities: {P: {attributes: {key: string, n: {type: integer32, optional: true, max: 10}}}, C: {parent: \
                P}, D: {parent: P}}
                """,
            ])
        defer { s.remove() }
        try s.withObjects { o in try o.insert("D", values: ["key": .string("d1"), "n": .integer(50)]) }
        for path in [MigrationPath.Preference.automatic, .chain] {
            let error = try #require(throws: (any Error).self) { try s.migrate(path: path) }
            #expect(
                "\(error)".contains("D.n gets max 10, and stored values are outside it: 1 row: Z_PK 1: 50"),
                "\(path): \(error)")
        }
        #expect(try s.storeVersion() == 1)
    }

    /// F6: C.t and D.t move up to P.t, and their inverses T.cs and T.ds become one
    /// T.cs with `maxCount: 1`; T 1 was the t of a C and of a D, so the merged T.cs
    /// would hold 2: the plan refuses it (exit 4), naming T 1.
    @Test func inversesMergedByAMoveUpAreHeldToTheirMaxCount() throws {
        func sibling(_ name: String) -> String {
            "\(name): {parent: P, relationships: {t: {destination: T, inverse: \(name.lowercased())s}}}"
        }
        let versions = [
            """
            entities: {P: {attributes: {key: string}}, \(sibling("C")), \(sibling("D")),
              T: {attributes: {key: string}, relationships: {cs: {destination: C, toMany: true, inverse: t, maxCount: \
            1},
                ds: {destination: D, toMany: true, inverse: t, maxCount: 1}}}}
            """,
            """
            entities: {P: {attributes: {key: string}, relationships: {t: {destination: T, inverse: cs}}}, C: {parent: \
            P}, D: {parent: P},
              T: {attributes: {key: string}, relationships: {cs: {destination: P, toMany: true, inverse: t, maxCount: \
            1}}}}
            """,
        ]
        func scenario(dTarget: Int64) throws -> MigrationScenario {
            let s = try MigrationScenario("H", versions: versions)
            try s.withObjects { o in
                try o.insert("T", values: ["key": .string("t1")])
                try o.insert("T", values: ["key": .string("t2")])
                try o.insert("C", values: ["key": .string("c1")], relationships: ["t": [1]])
                try o.insert("D", values: ["key": .string("d2")], relationships: ["t": [dTarget]])
            }
            return s
        }
        let s = try scenario(dTarget: 1)
        defer { s.remove() }
        let error = try #require(throws: (any Error).self) { try s.plan() }
        #expect(
            "\(error)".contains(
                """
                T.cs allows at most 1 object, and the pairs it takes over from several source relationships break \
                that: 1 row: Z_PK 1: 2 objects
                """
            ),
            "\(error)")
        // D 2 pointing at T 2: every T holds one, and the pairs are kept.
        let apart = try scenario(dTarget: 2)
        defer { apart.remove() }
        try apart.migrate(verify: true)
        #expect(try apart.fetch("T").map { $0.relationships["cs"] ?? [] } == [[1], [2]])
    }

    /// F8: C.n and D.n, set on every object, move up to a required P.n without a
    /// default, P having no objects of its own: Core Data's `PToP` fills nothing and
    /// validation finds no nil, so it migrates with the values; a P object of its
    /// own, or a C whose n is nil, refuses it (exit 4).
    @Test func aPropertyMovedUpAndMadeRequiredMigratesWhenEveryObjectHasAValue() throws {
        let versions = [
            """
            entities: {P: {attributes: {key: string}}, C: {parent: P, attributes: {n: integer32?}}, D: {parent: P, \
            attributes: {n: integer32?}}}
            """,
            "entities: {P: {attributes: {key: string, n: integer32}}, C: {parent: P}, D: {parent: P}}",
        ]
        func scenario(extra: (entity: String, n: Int64?)?) throws -> MigrationScenario {
            let s = try MigrationScenario("H", versions: versions)
            try s.withObjects { o in
                try o.insert("C", values: ["key": .string("c1"), "n": .integer(5)])
                try o.insert("D", values: ["key": .string("d2"), "n": .integer(7)])
                if let extra {
                    try o.insert(
                        extra.entity,
                        values: ["key": .string("x3")].merging(extra.n.map { ["n": .integer($0)] } ?? [:]) { a, _ in a }
                    )
                }
            }
            return s
        }
        let s = try scenario(extra: nil)
        defer { s.remove() }
        try s.migrate(path: .direct, verify: true)
        #expect(try s.fetch("P").map { $0.values["n"] } == [.integer(5), .integer(7)])
        let own = try scenario(extra: ("P", nil))
        defer { own.remove() }
        #expect(
            "\(try #require(throws: (any Error).self) { try own.plan() })".contains(
                "P.n: new required attribute without a default or source"))
        let nilValue = try scenario(extra: ("C", nil))
        defer { nilValue.remove() }
        #expect(
            "\(try #require(throws: (any Error).self) { try nilValue.plan() })".contains(
                "C.n becomes required without a default, and stored C objects hold nil: 1 row: Z_PK 3"))
    }

    /// F8 b: a to-one set on every C moves up to a required P.t: only P's own
    /// objects would have no destination, and there are none.
    @Test func aToOneMovedUpAndMadeRequiredMigratesWhenEveryObjectHasADestination() throws {
        let s = try MigrationScenario(
            "H",
            versions: [
                """
                entities: {P: {attributes: {key: string}}, C: {parent: P, relationships: {t: {destination: T, inverse: \
                cs}}},
                  T: {attributes: {key: string}, relationships: {cs: {destination: C, toMany: true, inverse: t}}}}
                """,
                """
                entities: {P: {attributes: {key: string}, relationships: {t: {destination: T, inverse: ps, optional: \
                false}}}, C: {parent: P},
                  T: {attributes: {key: string}, relationships: {ps: {destination: P, toMany: true, inverse: t}}}}
                """,
            ])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("T", values: ["key": .string("t1")])
            try o.insert("C", values: ["key": .string("c1")], relationships: ["t": [1]])
            try o.insert("C", values: ["key": .string("c2")], relationships: ["t": [1]])
        }
        try s.migrate(verify: true)
        #expect(try s.fetch("P").map { $0.relationships["t"] ?? [] } == [[1], [1]])
    }

    /// F8 c: the move in one version, made required in the next: the fused run
    /// migrates as one version at a time does.
    @Test func madeRequiredAVersionAfterTheMoveMigratesInTheFusedRun() throws {
        let s = try MigrationScenario(
            "H",
            versions: [
                """
                entities: {P: {attributes: {key: string}}, C: {parent: P, attributes: {n: integer32?}}, D: {parent: P, \
                attributes: {n: integer32?}}}
                """,
                "entities: {P: {attributes: {key: string, n: integer32?}}, C: {parent: P}, D: {parent: P}}",
                "entities: {P: {attributes: {key: string, n: integer32}}, C: {parent: P}, D: {parent: P}}",
            ])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("C", values: ["key": .string("c1"), "n": .integer(5)])
            try o.insert("D", values: ["key": .string("d2"), "n": .integer(50)])
        }
        try s.migrate(path: .chain, verify: true)
        #expect(try s.storeVersion() == 3)
        #expect(try s.fetch("P").map { $0.values["n"] } == [.integer(5), .integer(50)])
    }

    /// A many-to-many moved up from a subentity and made to-one in the same hop
    /// (fuzzer seed 7 trial 99): an E holding two B is refused (exit 4), as the
    /// same change on a root entity is; it kept one B and dropped the other pair
    /// without a word.
    @Test func aManyToManyMovedUpAndMadeToOneRefusesSeveralDestinations() throws {
        let s = try MigrationScenario(
            "H",
            versions: [
                """
                entities: {B: {attributes: {key: string}, relationships: {k2: {destination: E, toMany: true, inverse: \
                n2}}},
                  C: {attributes: {key: string}}, E: {parent: C, relationships: {n2: {destination: B, toMany: true, \
                inverse: k2}}}}
                """,
                """
                entities: {B: {attributes: {key: string}, relationships: {k2: {destination: C, toMany: true, inverse: \
                n2}}},
                  C: {attributes: {key: string}, relationships: {n2: {destination: B, inverse: k2}}}, E: {parent: C}}
                """,
            ])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("B", values: ["key": .string("b1")])
            try o.insert("B", values: ["key": .string("b2")])
            try o.insert("E", values: ["key": .string("e1")], relationships: ["n2": [1, 2]])
        }
        let error = try #require(throws: (any Error).self) { try s.plan() }
        #expect(
            "\(error)".contains(
                "E.n2 becomes to-one, and stored E objects have several destinations: 1 row: Z_PK 1: 2 destinations"),
            "\(error)")
        #expect(try s.storeVersion() == 1)
    }

    /// An ordered one-to-many moved up from a subentity to its parent (its inverse
    /// widened to the parent; fuzzer seed 600 trial 149): each list keeps its order
    /// (it took the order of primary keys).
    @Test func anOrderedToManyMovedUpKeepsItsOrder() throws {
        let s = try MigrationScenario(
            "H",
            versions: [
                """
                entities: {B: {attributes: {key: string}}, D: {parent: B, relationships: {m6: {destination: C, toMany: \
                true, inverse: o6, ordered: true}}},
                  C: {attributes: {key: string}, relationships: {o6: {destination: D, inverse: m6}}}}
                """,
                """
                entities: {B: {attributes: {key: string}, relationships: {m6: {destination: C, toMany: true, inverse: \
                o6, ordered: true}}}, D: {parent: B},
                  C: {attributes: {key: string}, relationships: {o6: {destination: B, inverse: m6}}}}
                """,
            ])
        defer { s.remove() }
        try s.withObjects { o in
            for key in ["c1", "c2", "c3"] { try o.insert("C", values: ["key": .string(key)]) }
            try o.insert("D", values: ["key": .string("d1")], relationships: ["m6": [3, 1, 2]])
        }
        try s.migrate(verify: true)
        #expect(try s.fetch("B").map { $0.relationships["m6"] ?? [] } == [[3, 1, 2]])
    }
}
