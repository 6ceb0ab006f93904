import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// A later hop of a run loses what an earlier hop of the same apply renamed, made or
/// computed: the store does not hold it yet to count, so the loss is warned as not
/// counted and trips `--fail-on-destructive`, where it passed as 0 (an outside
/// tester's F1: exit 0 with the data lost, while one version at a time exited 6).
@Suite struct LaterHopWarningTests {
    static func destructive(_ versions: [String], seed: (ObjectAccess) throws -> Void) throws -> [String] {
        let s = try MigrationScenario("Later", versions: versions)
        defer { s.remove() }
        try s.withObjects(seed)
        let plan = try s.plan()
        #expect(plan.hops.count > 1, "the case needs a run of several pieces")
        #expect(plan.destructiveRefusal?.exitCode == 6)
        return plan.warnings.filter(\.isDestructive).map(\.message)
    }

    /// Version 2 renames A.x to y (and fills z's nils, which ends the fused run);
    /// version 3 drops y.
    @Test func aRenamedAttributeDroppedLaterIsALoss() throws {
        let warnings = try Self.destructive(
            [
                "entities:\n  A:\n    attributes: { key: string, x: integer32?, z: integer32? }\n",
                """
                entities:\n  A:\n    attributes:\n      key: string\n      y: { type: integer32, optional: true, \
                renamedFrom: x }\n
                """
                    + "      z: { type: integer32, default: 1 }\n",
                "entities:\n  A:\n    attributes: { key: string, z: { type: integer32, default: 1 } }\n",
            ],
            seed: { o in
                try o.insert("A", values: ["key": .string("a1"), "x": .integer(1)])
                try o.insert("A", values: ["key": .string("a2"), "x": .integer(2), "z": .integer(5)])
            })
        #expect(
            warnings == [
                """
                A.y is dropped: the values an earlier hop of this run writes into it will be lost (not counted: they \
                are not in the store before the apply)
                """
            ], "\(warnings)")
    }

    /// Version 2 renames entity A to B; version 3 removes B: its objects are deleted.
    @Test func aRenamedEntityRemovedLaterIsALoss() throws {
        let warnings = try Self.destructive(
            [
                """
                entities:\n  A:\n    attributes: { key: string, x: integer32? }\n  K:\n    attributes: { key: string }\n
                """,
                """
                entities:\n  B:\n    renamedFrom: A\n    attributes: { key: string, x: integer32? }\n  K:\n    \
                attributes: { key: string }\n
                """,
                "entities:\n  K:\n    attributes: { key: string }\n",
            ],
            seed: { o in
                try o.insert("A", values: ["key": .string("a1"), "x": .integer(1)])
                try o.insert("K", values: ["key": .string("k")])
            })
        #expect(
            warnings.contains {
                $0.hasPrefix("table ZB is dropped with its rows (entity B removed; an earlier hop of this run makes it")
            }, "\(warnings)")
    }
}

/// Members a hierarchy change takes out of a to-many (a subentity leaving the
/// hierarchy, a to-one moved down) are held to its `minCount` after the hop, as a
/// filter's are: the apply fails with the store unchanged (an outside tester's F3:
/// exit 0, and `load` refused the migrated dump).
@Suite struct HierarchyMemberCountTests {
    @Test func aSubentityLeavingTheHierarchyCannotEmptyAMinCount() throws {
        let item =
            """
              Item:\n    attributes: { key: string }\n    relationships:\n      p: { destination: P, inverse: items }\n
            """
        let p =
            """
              P:\n    attributes: { key: string }\n    relationships:\n      items: { destination: Item, toMany: true, \
            inverse: p, minCount: 2 }\n
            """
        let s = try MigrationScenario(
            "Members",
            versions: [
                "entities:\n" + p + item + "  Sub:\n    parent: Item\n",
                "entities:\n" + p + item + "  Sub:\n    attributes: { key: string }\n",
            ])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Item", values: ["key": .string("i1")])
            try o.insert("Sub", values: ["key": .string("s2")])
            try o.insert("P", values: ["key": .string("p1")], relationships: ["items": [1, 2]])
        }
        let before = FileSnapshot(s.storePath).fingerprint
        let error = try #require(throws: MigrationError.self) { try s.migrate() }
        #expect("\(error)".contains("P.items still holds at least 2 objects: 1 row violates it"), "\(error)")
        #expect(FileSnapshot(s.storePath).fingerprint == before)
    }
}
