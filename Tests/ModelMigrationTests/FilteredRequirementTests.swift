import DataModel
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// A hop's data requirements count only the objects its mapping file's `filter:`
/// migrates: Core Data validates the destination objects it made, and the ones the
/// filter leaves out are not made.
@Suite struct FilteredRequirementTests {
    static func scenario(_ second: String, filter: String, objects: [[String: AttributeValue?]]) throws
        -> MigrationScenario
    {
        let s = try MigrationScenario(
            "Fz", versions: ["entities: {A: {attributes: {key: string, n: integer16?}}}", second])
        try s.withObjects { o in
            for values in objects { try o.insert("A", values: values) }
        }
        try s.writeMapping("1-to-2.yaml", "entities:\n  A:\n    filter: \"\(filter)\"\n")
        return s
    }

    @Test(
        arguments: [
            // required without a default: A2's nil is left out
            ("entities: {A: {attributes: {key: string, n: integer16}}}", "n != nil", [1, nil], ["A1"]),
            // a new uniqueness constraint: A2's duplicate 1 is left out
            (
                "entities: {A: {attributes: {key: string, n: integer16?}, uniqueness: [[n]]}}", "key == 'A1'", [1, 1],
                ["A1"]
            ),
            // a new max: A2's 100 is left out
            (
                "entities: {A: {attributes: {key: string, n: {type: integer16, optional: true, max: 7}}}}", "n <= 7",
                [1, 100], ["A1"]
            ),
        ] as [(String, String, [Int64?], [String])])
    func objectsTheFilterLeavesOutAreNotValidated(second: String, filter: String, values: [Int64?], kept: [String])
        throws
    {
        let objects = values.enumerated().map { i, n -> [String: AttributeValue?] in
            ["key": .string("A\(i + 1)"), "n": n.map { .integer($0) }]
        }
        let s = try Self.scenario(second, filter: filter, objects: objects)
        defer { s.remove() }
        try s.migrate()
        #expect(try s.rows("SELECT ZKEY FROM ZA ORDER BY Z_PK").map { $0[0].string } == kept)
    }

    /// The objects it keeps still must satisfy them.
    @Test func objectsTheFilterKeepsAreValidated() throws {
        let s = try Self.scenario(
            "entities: {A: {attributes: {key: string, n: integer16}}}", filter: "key != 'A1'",
            objects: [["key": .string("A1"), "n": .integer(1)], ["key": .string("A2"), "n": nil]])
        defer { s.remove() }
        let error = try #require(throws: (any Error).self) { try s.migrate() }
        #expect(
            "\(error)".contains("A.n becomes required without a default, and stored A objects hold nil"), "\(error)")
    }
}

/// `SQLFragment.inlined`: values replace the `?`s outside quoted text, as literals.
@Suite struct SQLFragmentInliningTests {
    @Test func parametersBecomeLiteralsOutsideQuotes() {
        let fragment = SQLFragment(
            "SELECT '?', \"a?\" FROM t WHERE x = ? AND y LIKE ? ESCAPE '\\' AND z = ?",
            [.text("it's"), .integer(-3), .null])
        #expect(
            fragment.inlined == "SELECT '?', \"a?\" FROM t WHERE x = 'it''s' AND y LIKE -3 ESCAPE '\\' AND z = NULL")
    }
}

/// The gate against objects no mapping reads judges each hop on the store as that
/// hop finds it.
@Suite struct ReplacedEntityGateTests {
    /// 1-to-2's filter leaves no A; 2-to-3 makes A from B: nothing of A is lost.
    @Test func anEarlierHopThatLeftNoneLetsTheHopMigrate() throws {
        let version = "entities: {A: {attributes: {key: string}}, B: {attributes: {key: string}}}"
        let s = try MigrationScenario("Fz", versions: [version, version, version])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("A", values: ["key": .string("A1")])
            try o.insert("B", values: ["key": .string("B1")])
        }
        try s.writeMapping("1-to-2.yaml", "entities:\n  A:\n    filter: \"key == 'none'\"\n")
        try s.writeMapping("2-to-3.yaml", "entities:\n  A:\n    source: B\n")
        try s.migrate()
        #expect(try s.rows("SELECT ZKEY FROM ZA ORDER BY Z_PK").map { $0[0].string } == ["B1"])
        #expect(try s.rows("SELECT ZKEY FROM ZB ORDER BY Z_PK").map { $0[0].string } == ["B1"])
    }
}

/// Each subentity is migrated by its own entity mapping, with its own filter.
@Suite struct SubentityFilterRequirementTests {
    static let versions = [
        "entities: {E: {attributes: {n: integer16?}}, F: {parent: E}}",
        "entities: {E: {attributes: {n: {type: integer16, optional: true, max: 10}}}, F: {parent: E}}",
    ]

    static func scenario(mapping: String) throws -> MigrationScenario {
        let s = try MigrationScenario("R", versions: versions)
        try s.withObjects { o in
            try o.insert("E", values: ["n": .integer(1)])
            try o.insert("F", values: ["n": .integer(99)])
        }
        try s.writeMapping("1-to-2.yaml", mapping)
        return s
    }

    /// A filter on the parent does not hold for the subentity's objects: F's 99 is
    /// validated against the new max, and refused.
    @Test func aParentsFilterDoesNotExemptItsSubentities() throws {
        let s = try Self.scenario(mapping: "entities:\n  E:\n    filter: \"n == 1\"\n")
        defer { s.remove() }
        let error = try #require(throws: (any Error).self) { try s.migrate() }
        #expect("\(error)".contains("E.n gets max 10, and stored values are outside it"), "\(error)")
    }

    /// The subentity's own filter leaves its 99 out: nothing to refuse.
    @Test func aSubentitysFilterExemptsItsObjects() throws {
        let s = try Self.scenario(mapping: "entities:\n  F:\n    filter: \"n < 10\"\n")
        defer { s.remove() }
        try s.migrate()
        #expect(try s.rows("SELECT ZN FROM ZE ORDER BY Z_PK").map { $0[0].int64 } == [1])
    }

    /// F4: hop 1 → 2's filter leaves no A, and version 3 gives A a new required
    /// attribute without a default. One version at a time migrates (no A object
    /// for validation to refuse), so `apply` and `--path chain` do too; with an A
    /// left by the filter, the apply refuses hop 2 → 3 (exit 4), the store unchanged.
    @Test(arguments: [MigrationPath.Preference.automatic, .chain])
    func aLaterHopIsJudgedOnTheStoreAnEarlierHopsFilterLeft(path: MigrationPath.Preference) throws {
        func scenario(z: Int64) throws -> MigrationScenario {
            let a = "A: {attributes: {key: string, z: integer32?}}"
            let s = try MigrationScenario(
                "Fz",
                versions: [
                    "entities: {\(a)}", "entities: {\(a)}",
                    "entities: {A: {attributes: {key: string, z: integer32?, r: integer32}}}",
                ])
            try s.withObjects { o in
                try o.insert("A", values: ["key": .string("a1")])
                try o.insert("A", values: ["key": .string("a2"), "z": .integer(z)])
            }
            try s.writeMapping("1-to-2.yaml", "entities:\n  A:\n    filter: \"z > 100\"\n")
            return s
        }
        let s = try scenario(z: 4)
        defer { s.remove() }
        try s.migrate(path: path)
        #expect(try s.storeVersion() == 3)
        #expect(try s.fetch("A").isEmpty)
        let kept = try scenario(z: 200)
        defer { kept.remove() }
        let error = try #require(throws: MigrationError.self) { try kept.migrate(path: path) }
        #expect(error.kind == .dataRefused)
        #expect("\(error)".contains("hop 2 → 3"), "\(error)")
        #expect(try kept.storeVersion() == 1)
    }

    /// A new `min` on B.p2 while the mapping file gives B's subentity F a constant
    /// (fuzzer seed 700 trial 24): F's old -1 is replaced, so only B's own objects
    /// are judged; the range check counted F's old value and refused.
    @Test func aRangeJudgesOnlyTheObjectsThatReceiveTheCopiedValues() throws {
        func scenario(bValue: Int64) throws -> MigrationScenario {
            let s = try MigrationScenario(
                "Fz",
                versions: [
                    "entities: {B: {attributes: {key: string, p2: integer16?}}, F: {parent: B}}",
                    """
                    entities: {B: {attributes: {key: string, p2: {type: integer16, optional: true, min: 0}}}, F: \
                    {parent: B}}
                    """,
                ])
            try s.withObjects { o in
                try o.insert("B", values: ["key": .string("b1"), "p2": .integer(bValue)])
                try o.insert("F", values: ["key": .string("f2"), "p2": .integer(-1)])
            }
            try s.writeMapping("1-to-2.yaml", "entities:\n  F:\n    properties:\n      p2: { default: 0 }\n")
            return s
        }
        let s = try scenario(bValue: 3)
        defer { s.remove() }
        try s.migrate(verify: true)
        #expect(try s.fetch("B").map { $0.values["p2"] } == [.integer(3), .integer(0)])
        let refused = try scenario(bValue: -1)
        defer { refused.remove() }
        let error = try #require(throws: (any Error).self) { try refused.plan() }
        #expect("\(error)".contains("B.p2 gets min 0, and stored values are outside it: 1 row: Z_PK 1: -1"), "\(error)")
    }
}
