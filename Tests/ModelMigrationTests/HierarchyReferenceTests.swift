import DataModel
import Foundation
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// References to objects that leave a relationship's destination entity: Core
/// Data's inferred relationship mapping holds the destination instances of the
/// source targets made by the destination entity's mapping (or a subentity's), so
/// a target that becomes an object of another entity, or is not migrated, leaves
/// the relationship empty (outside tester's findings F3, F6, F7).
@Suite struct HierarchyReferenceTests {
    static let p = "P: {attributes: {key: string}, relationships: {xs: {destination: X, toMany: true, inverse: p}}}"
    static func x(required: Bool = false, to destination: String = "P") -> String {
        """
        X: {attributes: {key: string}, relationships: {p: {destination: \(destination), inverse: \
        xs\(required ? ", optional: false" : "")}}}
        """
    }

    /// P 1, C 2 (a P), X 1 → P 1, X 2 → C 2.
    static func scenario(_ versions: [String]) throws -> MigrationScenario {
        let s = try MigrationScenario("H", versions: versions)
        try s.withObjects { o in
            try o.insert("P", values: ["key": .string("p1")])
            try o.insert("C", values: ["key": .string("c1")])
            try o.insert("X", values: ["key": .string("x1")], relationships: ["p": [1]])
            try o.insert("X", values: ["key": .string("x2")], relationships: ["p": [2]])
        }
        return s
    }

    func destructive(_ plan: MigrationPlan) -> [String] { plan.warnings.filter(\.isDestructive).map(\.message) }

    /// F3: C leaves P's hierarchy; X 2 pointed at the C object, which is no P any more.
    @Test func aSubentityMovedOutOfItsHierarchyLeavesReferencesEmpty() throws {
        let s = try Self.scenario([
            "entities: {\(Self.p), C: {parent: P, attributes: {y: string?}}, \(Self.x())}",
            "entities: {\(Self.p), C: {attributes: {key: string, y: string?}}, \(Self.x())}",
        ])
        defer { s.remove() }
        let plan = try s.migrate(verify: true)
        #expect(
            destructive(plan) == ["X.p: 1 reference to C objects, which are not migrated as P objects, will be removed"]
        )
        #expect(try s.rows("SELECT Z_PK, ZP FROM ZX ORDER BY Z_PK").map { $0.map(\.int64) } == [[1, 1], [2, nil]])
        #expect(
            try s.rows("SELECT Z_PK, ZKEY FROM ZC").map { [$0[0].int64.map(String.init), $0[1].string] } == [
                ["2", "c1"]
            ])
    }

    /// F3 with a required X.p: validation refuses the hop at plan, the store untouched.
    @Test func aRequiredReferenceToAnObjectMovedOutIsRefused() throws {
        let s = try Self.scenario([
            "entities: {\(Self.p), C: {parent: P, attributes: {y: string?}}, \(Self.x(required: true))}",
            "entities: {\(Self.p), C: {attributes: {key: string, y: string?}}, \(Self.x(required: true))}",
        ])
        defer { s.remove() }
        let before = try Data(contentsOf: URL(fileURLWithPath: s.storePath))
        let error = try #require(throws: (any Error).self) { try s.migrate() }
        #expect(
            "\(error)".contains(
                """
                X.p is required, and stored X objects point to C objects, which are not migrated as P objects: 1 row: \
                Z_PK 2
                """
            ),
            "\(error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: s.storePath)) == before)
    }

    /// F3 b: a many-to-many's pairs with the C object go.
    @Test func pairsWithAnObjectMovedOutAreDeleted() throws {
        let tag = "Tag: {attributes: {key: string}, relationships: {ps: {destination: P, toMany: true, inverse: tags}}}"
        let p = "P: {attributes: {key: string}, relationships: {tags: {destination: Tag, toMany: true, inverse: ps}}}"
        let s = try MigrationScenario(
            "H",
            versions: [
                "entities: {\(p), C: {parent: P, attributes: {y: string?}}, \(tag)}",
                "entities: {\(p), C: {attributes: {key: string, y: string?}}, \(tag)}",
            ])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Tag", values: ["key": .string("t1")])
            try o.insert("Tag", values: ["key": .string("t2")])
            try o.insert("P", values: ["key": .string("p1")], relationships: ["tags": [1]])
            try o.insert("C", values: ["key": .string("c1")], relationships: ["tags": [1, 2]])
        }
        let plan = try s.migrate(verify: true)
        #expect(
            destructive(plan) == ["Tag.ps: 2 pairs to C objects, which are not migrated as P objects, will be removed"])
        let join = try #require(
            try s.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%TAGS'").first?.first?.string
        )
        #expect(try s.rows("SELECT * FROM \(join)").map { $0.map(\.int64) } == [[1, 1]])
    }

    /// F7: X.p narrowed from P to its subentity C; X 1 pointed at a plain P.
    @Test func aDestinationNarrowedToASubentityDropsOtherObjects() throws {
        let c =
            "C: {parent: P, attributes: {y: string?}, relationships: {xs: {destination: X, toMany: true, inverse: p}}}"
        let s = try Self.scenario([
            "entities: {\(Self.p), C: {parent: P, attributes: {y: string?}}, \(Self.x())}",
            "entities: {P: {attributes: {key: string}}, \(c), \(Self.x(to: "C"))}",
        ])
        defer { s.remove() }
        let plan = try s.migrate(verify: true)
        #expect(
            destructive(plan) == ["X.p: 1 reference to P objects, which are not migrated as C objects, will be removed"]
        )
        #expect(try s.rows("SELECT Z_PK, ZP FROM ZX ORDER BY Z_PK").map { $0.map(\.int64) } == [[1, nil], [2, 2]])
    }

    /// F6: C removed; X 2's reference to the C object goes, as a filter's would.
    @Test func referencesToARemovedSubentitysObjectsGo() throws {
        let s = try Self.scenario([
            "entities: {\(Self.p), C: {parent: P, attributes: {y: string?}}, \(Self.x())}",
            "entities: {\(Self.p), \(Self.x())}",
        ])
        defer { s.remove() }
        let plan = try s.migrate(verify: true)
        #expect(destructive(plan).first == "X.p: 1 reference to C objects, which are not migrated, will be removed")
        #expect(destructive(plan).contains("entity C is removed: its 1 row is deleted"))
        #expect(try s.rows("SELECT Z_PK, ZP FROM ZX ORDER BY Z_PK").map { $0.map(\.int64) } == [[1, 1], [2, nil]])
        #expect(try s.rows("SELECT Z_PK FROM ZP").map { $0.map(\.int64) } == [[1]])
    }

    /// C leaves P from under an abstract B: the warning names C, whose objects are lost, not B.
    @Test func anAbstractEntityHasNoObjectsToLose() throws {
        let b = "B: {parent: P, abstract: true}, D: {parent: P}"
        let s = try MigrationScenario(
            "H",
            versions: [
                "entities: {\(Self.p), \(b), C: {parent: B}, \(Self.x())}",
                "entities: {\(Self.p), \(b), C: {attributes: {key: string}}, \(Self.x())}",
            ])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("C", values: ["key": .string("c")])
            try o.insert("D", values: ["key": .string("d")])
            try o.insert("X", values: ["key": .string("x1")], relationships: ["p": [1]])
            try o.insert("X", values: ["key": .string("x2")], relationships: ["p": [2]])
        }
        let plan = try s.migrate(verify: true)
        #expect(
            destructive(plan) == ["X.p: 1 reference to C objects, which are not migrated as P objects, will be removed"]
        )
        #expect(try s.rows("SELECT Z_PK, ZP FROM ZX ORDER BY Z_PK").map { $0.map(\.int64) } == [[1, nil], [2, 2]])
    }

    /// A subentity moved out of its hierarchy keeps an inherited many-to-many as a
    /// relationship of its own, over a new inverse: `CToC` maps `C.tags` from the
    /// source's inherited `tags`, whose join table also holds the parent's pairs;
    /// C's new join table takes only its own objects' pairs (it took the parent's
    /// too, and the apply failed its check).
    @Test func aSubentityMovedOutKeepsOnlyItsOwnPairsOfAnInheritedManyToMany() throws {
        let p = "P: {attributes: {key: string}, relationships: {tags: {destination: Tag, toMany: true, inverse: ps}}}"
        let s = try MigrationScenario(
            "H",
            versions: [
                """
                entities: {\(p), C: {parent: P}, Tag: {attributes: {key: string}, relationships: {ps: {destination: P, \
                toMany: true, inverse: tags}}}}
                """,
                """
                entities: {\(p), C: {attributes: {key: string}, relationships: {tags: {destination: Tag, toMany: true, \
                inverse: cs}}},
                  Tag: {attributes: {key: string}, relationships: {ps: {destination: P, toMany: true, inverse: tags},
                    cs: {destination: C, toMany: true, inverse: tags}}}}
                """,
            ])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Tag", values: ["key": .string("t1")])
            try o.insert("Tag", values: ["key": .string("t2")])
            try o.insert("P", values: ["key": .string("p1")], relationships: ["tags": [1]])
            try o.insert("C", values: ["key": .string("c2")], relationships: ["tags": [1, 2]])
        }
        try s.migrate(verify: true)
        #expect(try s.fetch("P").map { $0.relationships["tags"] ?? [] } == [[1]])
        #expect(try s.fetch("C").map { $0.relationships["tags"] ?? [] } == [[1, 2]])
        #expect(
            try s.fetch("Tag").map { [$0.relationships["ps"] ?? [], $0.relationships["cs"] ?? []] } == [
                [[1], [2]], [[], [2]],
            ])
    }

    /// One hop takes E out of D's hierarchy and makes D.o7 (a to-one E inherited)
    /// to-many, a many-to-many with C.m7 (fuzzer seed 2 trial 32): the new join
    /// table takes D1's pair and leaves out E1's, whose o7 goes with the hierarchy
    /// (it took E1's pair too, and the apply failed its own check).
    @Test func aManyToManyBuiltFromAToOneLeavesOutObjectsThatLeftTheHierarchy() throws {
        let c = "C: {attributes: {key: string}, relationships: {m7: {destination: D, toMany: true, inverse: o7}}}"
        let s = try MigrationScenario(
            "H",
            versions: [
                """
                entities: {\(c), D: {attributes: {key: string}, relationships: {o7: {destination: C, inverse: m7}}}, \
                E: {parent: D}}
                """,
                """
                entities: {\(c), D: {attributes: {key: string}, relationships: {o7: {destination: C, toMany: true, \
                inverse: m7}}},
                  E: {attributes: {key: string}}}
                """,
            ])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("C", values: ["key": .string("c1")])
            try o.insert("D", values: ["key": .string("d1")], relationships: ["o7": [1]])
            try o.insert("E", values: ["key": .string("e1")], relationships: ["o7": [1]])
        }
        let plan = try s.migrate(verify: true)
        #expect(destructive(plan) == ["E.o7 is dropped: 1 non-nil value will be lost"])
        #expect(try s.fetch("C").map { $0.relationships["m7"] ?? [] } == [[1]])
        #expect(try s.fetch("D").map { $0.relationships["o7"] ?? [] } == [[1]])
    }
}
