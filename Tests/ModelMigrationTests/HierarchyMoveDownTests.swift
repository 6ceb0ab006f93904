import DataModel
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// A property moved down a hierarchy (P.x → C.x, C one subentity of P) on a table
/// changed in place: the values of P's own objects and of a sibling D's are
/// dropped, counted as destructive, so that the store fits the new version and the
/// next hop migrates it (outside tester's finding F1).
@Suite struct HierarchyMoveDownTests {
    func destructive(_ plan: MigrationPlan) -> [String] { plan.warnings.filter(\.isDestructive).map(\.message) }

    @Test func anAttributeMovedDownDropsTheOtherEntitiesValues() throws {
        let s = try MigrationScenario(
            "M",
            versions: [
                """
                entities: {P: {attributes: {key: string, x: integer32?}}, C: {parent: P, attributes: {y: string?}}, D: \
                {parent: P}}
                """,
                """
                entities: {P: {attributes: {key: string}}, C: {parent: P, attributes: {y: string?, x: integer32?}}, D: \
                {parent: P}}
                """,
                """
                entities: {P: {attributes: {key: string, x: {type: integer32, default: 7}}}, C: {parent: P, \
                attributes: {y: string?}}, D: {parent: P}}
                """,
            ])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("P", values: ["key": .string("p"), "x": .integer(1)])
            try o.insert("C", values: ["key": .string("c"), "x": .integer(2)])
            try o.insert("D", values: ["key": .string("d"), "x": .integer(3)])
            try o.insert("C", values: ["key": .string("c2")])
        }
        let plan = try s.migrate(to: 2, verify: true)
        #expect(
            destructive(plan) == [
                "P.x is dropped: 1 non-nil value will be lost", "D.x is dropped: 1 non-nil value will be lost",
            ])
        #expect(
            try s.rows("SELECT Z_PK, ZX FROM ZP ORDER BY Z_PK").map { $0.map(\.int64) } == [
                [1, nil], [2, 2], [3, nil], [4, nil],
            ])
        // The store fits version 2: the next hop migrates it (x back on P, default 7).
        try s.migrate(to: 3, verify: true)
        #expect(
            try s.rows("SELECT Z_PK, ZX FROM ZP ORDER BY Z_PK").map { $0.map(\.int64) } == [
                [1, 7], [2, 2], [3, 7], [4, 7],
            ])
    }

    /// The same for a to-one, with and without an inverse (the inverse moves to C).
    @Test(arguments: [false, true])
    func aToOneMovedDownDropsTheOtherEntitiesDestinations(inverse: Bool) throws {
        func t(_ owner: String) -> String { inverse ? "{destination: Tg, inverse: ps}" : "{destination: Tg}" }
        func tg(_ owner: String) -> String {
            inverse
                ? """
                Tg: {attributes: {key: string}, relationships: {ps: {destination: \(owner), toMany: true, inverse: t}}}
                """
                : "Tg: {attributes: {key: string}}"
        }
        let s = try MigrationScenario(
            "M",
            versions: [
                """
                entities: {P: {attributes: {key: string}, relationships: {t: \(t("P"))}}, C: {parent: P}, D: {parent: \
                P}, \(tg("P"))}
                """,
                """
                entities: {P: {attributes: {key: string}}, C: {parent: P, relationships: {t: \(t("C"))}}, D: {parent: \
                P}, \(tg("C"))}
                """,
            ])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Tg", values: ["key": .string("t1")])
            for entity in ["P", "C", "D"] {
                try o.insert(entity, values: ["key": .string(entity.lowercased())], relationships: ["t": [1]])
            }
        }
        let plan = try s.migrate(verify: true)
        #expect(
            destructive(plan) == [
                "P.t is dropped: 1 non-nil value will be lost", "D.t is dropped: 1 non-nil value will be lost",
            ])
        #expect(
            try s.rows("SELECT Z_PK, ZT FROM ZP ORDER BY Z_PK").map { $0.map(\.int64) } == [
                [1, nil], [2, 1], [3, nil],
            ])
    }
}
