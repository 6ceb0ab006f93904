import Foundation
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// Rules a hop gives a relationship whose shape it changes in the same hop, and a
/// uniqueness constraint over a new attribute's default, are judged on the stored
/// data as Core Data's validation stage judges every migrated object (an outside
/// tester's F4 and F2: each migrated, exit 0, or failed in SQLite, exit 1).
@Suite struct ReshapedRuleTests {
    static func versions(_ first: String, _ second: String) -> [String] {
        [first, second].map { relationships in
            """
            entities:
              A:
                attributes: { key: string }
                relationships:
                  \(relationships.split(separator: "|")[0])
              B:
                attributes: { key: string }
                relationships:
                  \(relationships.split(separator: "|")[1])

            """
        }
    }

    static let oneToMany = "bs: { destination: B, toMany: true, inverse: a }|a: { destination: A, inverse: bs }"

    /// A holding two Bs, and A 2 holding one.
    static func seed(_ o: ObjectAccess) throws {
        try o.insert("A", values: ["key": .string("A1")])
        try o.insert("A", values: ["key": .string("A2")])
        try o.insert("B", values: ["key": .string("B1")], relationships: ["a": [1]])
        try o.insert("B", values: ["key": .string("B2")], relationships: ["a": [1]])
        try o.insert("B", values: ["key": .string("B3")], relationships: ["a": [2]])
    }

    @Test(arguments: [
        (
            """
            bs: { destination: B, toMany: true, inverse: as, maxCount: 1 }|as: { destination: A, toMany: true, \
            inverse: bs, renamedFrom: a }
            """,
            "A.bs allows at most 1 objects, and stored objects have more"
        ),
        (
            """
            bs: { destination: B, toMany: true, inverse: as, minCount: 2 }|as: { destination: A, toMany: true, \
            inverse: bs, renamedFrom: a }
            """,
            "A.bs needs at least 2 objects, and stored objects have fewer"
        ),
        (
            """
            bs: { destination: B, toMany: true, inverse: as }|as: { destination: A, toMany: true, inverse: bs, \
            renamedFrom: a, minCount: 2 }
            """,
            "B.as needs at least 2 objects, and stored objects have fewer"
        ),
        (
            """
            bs: { destination: B, toMany: true, ordered: true, inverse: a, minCount: 2 }|a: { destination: A, inverse: \
            bs }
            """,
            "A.bs needs at least 2 objects, and stored objects have fewer"
        ),
    ])
    func aRuleOnAReshapedRelationshipRefusesTheObjectsItBreaks(second: String, summary: String) throws {
        try TightenedRuleTests.refuses(Self.versions(Self.oneToMany, second), seed: Self.seed, summary)
    }

    /// Without the rule the same reshaping migrates, every pair kept.
    @Test func theSameReshapingWithoutARuleKeepsEveryPair() throws {
        let s = try MigrationScenario(
            "Tight",
            versions: Self.versions(
                Self.oneToMany,
                """
                bs: { destination: B, toMany: true, inverse: as }|as: { destination: A, toMany: true, inverse: bs, \
                renamedFrom: a }
                """
            ))
        defer { s.remove() }
        try s.withObjects(Self.seed)
        try s.migrate()
        #expect(try s.fetch("A").map { $0.relationships["bs"] } == [[1, 2], [3]])
    }

    /// A new attribute with a default under a new uniqueness constraint gives every
    /// object the same value: two objects collide (refused at plan, exit 4, where the
    /// apply failed in SQLite); one object migrates.
    @Test func aNewDefaultUnderANewConstraintCollidesOverTwoObjects() throws {
        let versions = [
            "entities:\n  E:\n    attributes: { key: string }\n",
            """
            entities:\n  E:\n    attributes:\n      key: string\n      n: { type: integer32, default: 50 }\n    \
            uniqueness: [[n]]\n
            """,
        ]
        try TightenedRuleTests.refuses(
            versions,
            seed: { o in
                try o.insert("E", values: ["key": .string("e1")])
                try o.insert("E", values: ["key": .string("e2")])
            }, "stored values are held by several objects")
        let s = try MigrationScenario("Tight", versions: versions)
        defer { s.remove() }
        try s.withObjects { try $0.insert("E", values: ["key": .string("e1")]) }
        try s.migrate()
        #expect(try s.rows("SELECT ZN FROM ZE").map { $0[0] } == [.integer(50)])
    }

    /// A later hop's rule over what an earlier hop gave (version 2 adds n with
    /// default 50, version 3 gives it max 10) is judged when the run reaches it:
    /// the apply is refused with the outcome plan gives such data (no path, exit 4),
    /// not as a failure (exit 1), and the store is unchanged.
    @Test func aLaterHopsRuleRefusesWithPlansOutcome() throws {
        let s = try MigrationScenario(
            "Tight",
            versions: [
                "entities:\n  E:\n    attributes: { key: string }\n",
                "entities:\n  E:\n    attributes:\n      key: string\n      n: { type: integer32, default: 50 }\n",
                """
                entities:\n  E:\n    attributes:\n      key: string\n      n: { type: integer32, default: 5, max: 10 }\n
                """,
            ])
        defer { s.remove() }
        try s.withObjects { try $0.insert("E", values: ["key": .string("e1")]) }
        let plan = try s.plan()
        #expect(plan.hops.map { [$0.from, $0.to] } == [[1, 2], [2, 3]])
        let before = FileSnapshot(s.storePath).fingerprint
        let error = #expect(throws: MigrationError.self) { try Migrator().apply(plan) }
        #expect(error?.kind == .dataRefused)
        #expect(
            error?.message.contains("hop 2 → 3 cannot migrate this store's data:\n  E.n gets max 10") == true,
            "\(String(describing: error))")
        #expect(error.map { Outcome($0).exitCode } == 4)
        #expect(FileSnapshot(s.storePath).fingerprint == before)
    }
}
