import DataModel
import Foundation
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// A fused run of inferred hops gives what migrating one version at a time gives
/// (issue 35): an intermediate version's defaults and its rules travel with the run,
/// or the run ends at that version.
@Suite struct IntermediateVersionTests {
    /// The store's rows, one text per object, as the version it holds reads them.
    static func rows(_ s: MigrationScenario, _ entity: String) throws -> [String] {
        try s.fetch(entity).map { object in
            "\(object.primaryKey): "
                + object.values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.displayText)" }.joined(
                    separator: " ")
        }
    }

    /// The same history applied at once and one version at a time, from copies of one store.
    static func bothWays(_ versions: [String], seed: (ObjectAccess) throws -> Void) throws -> (
        fused: Result<[String], any Error>, stepped: Result<[String], any Error>
    ) {
        func run(stepwise: Bool) -> Result<[String], any Error> {
            Result {
                let s = try MigrationScenario("Fuse", versions: versions)
                defer { s.remove() }
                try s.withObjects(seed)
                if stepwise {
                    for target in 2...versions.count { try Migrator().apply(try s.plan(to: target)) }
                } else {
                    try Migrator().apply(try s.plan())
                }
                return try rows(s, "A")
            }
        }
        return (run(stepwise: false), run(stepwise: true))
    }

    /// Version 2 adds `x` with default 5; version 3 makes it optional without one.
    /// One version at a time every A has x = 5; the fused run gave nil.
    @Test func anIntermediateDefaultIsKept() throws {
        let versions = [
            "entities:\n  A:\n    attributes:\n      name: string\n",
            "entities:\n  A:\n    attributes:\n      name: string\n      x: { type: integer32, default: 5 }\n",
            "entities:\n  A:\n    attributes:\n      name: string\n      x: integer32?\n",
        ]
        let (fused, stepped) = try Self.bothWays(versions) { o in
            try o.insert("A", values: ["name": .string("a")])
            try o.insert("A", values: ["name": .string("b")])
        }
        #expect(try stepped.get() == [#"1: name="a" x=5"#, #"2: name="b" x=5"#])
        #expect(try fused.get() == stepped.get())
    }

    /// Version 2's `max` and uniqueness refuse the store one version at a time; the
    /// fused run migrated it.
    @Test(arguments: [
        "      n: { type: integer32, max: 10 }\n",
        "      n: integer32\n    uniqueness: [[n]]\n",
    ])
    func anIntermediateVersionsRulesStillRefuse(rule: String) throws {
        let versions = [
            "entities:\n  A:\n    attributes:\n      n: integer32\n",
            "entities:\n  A:\n    attributes:\n" + rule,
            "entities:\n  A:\n    attributes:\n      n: integer32\n",
        ]
        let (fused, stepped) = try Self.bothWays(versions) { o in
            try o.insert("A", values: ["n": .integer(50)])
            try o.insert("A", values: ["n": .integer(50)])
        }
        #expect(throws: (any Error).self) { try stepped.get() }
        #expect(throws: (any Error).self) { try fused.get() }
    }

    /// Version 2 makes `p` required without a default, version 3 gives it default 40.
    /// One version at a time hop 1 → 2 refuses the nil; the fused run filled it with
    /// 40 (the later default stood in for the intermediate requirement). Without a
    /// nil both ways give the same data.
    @Test func aLaterDefaultDoesNotLiftAnIntermediateRequirement() throws {
        let versions = [
            "entities:\n  A:\n    attributes:\n      p: integer32?\n",
            "entities:\n  A:\n    attributes:\n      p: integer32\n",
            "entities:\n  A:\n    attributes:\n      p: { type: integer32, default: 40 }\n",
        ]
        let (fused, stepped) = try Self.bothWays(versions) { o in
            try o.insert("A", values: ["p": .integer(7)])
            try o.insert("A", values: ["p": nil])
        }
        for result in [fused, stepped] {
            #expect(throws: PlanningError.self) { try result.get() }
            #expect("\(result)".contains("hop 1 → 2 of Fuse cannot migrate this store's data"), "\(result)")
        }
        let (fusedClean, steppedClean) = try Self.bothWays(versions) { o in
            try o.insert("A", values: ["p": .integer(7)])
        }
        #expect(try steppedClean.get() == ["1: p=7"])
        #expect(try fusedClean.get() == steppedClean.get())
    }

    /// Version 2 adds `x` with default 40000, version 3 keeps it, version 4 changes
    /// the default to 5: objects made before keep 40000 (seed 200 trial 2: the run was
    /// judged against the next version only, and the fused mapping gave 5).
    @Test func aDefaultChangedTwoVersionsLaterDoesNotReachEarlierObjects() throws {
        let versions = [
            "entities:\n  A:\n    attributes:\n      name: string\n",
            "entities:\n  A:\n    attributes:\n      name: string\n      x: { type: integer32, default: 40000 }\n",
            """
            entities:\n  A:\n    attributes:\n      name: string\n      x: { type: integer32, default: 40000 }\n      \
            y: string?\n
            """,
            """
            entities:\n  A:\n    attributes:\n      name: string\n      x: { type: integer32, default: 5 }\n      y: \
            string?\n
            """,
        ]
        let (fused, stepped) = try Self.bothWays(versions) { o in try o.insert("A", values: ["name": .string("a")]) }
        #expect(try stepped.get() == [#"1: name="a" x=40000"#])
        #expect(try fused.get() == stepped.get())
    }

    /// An attribute added without a default, renamed two versions later and given a
    /// default after that (fuzzer seed 600 trial 156): every object keeps nil, as
    /// hop by hop; the fused run took the renamed attribute for a new one and gave
    /// every object the default.
    @Test func aDefaultGivenAfterARenameDoesNotReachEarlierObjects() throws {
        let versions = [
            "entities:\n  A:\n    attributes:\n      name: string\n",
            "entities:\n  A:\n    attributes:\n      name: string\n      p9: integer64?\n",
            "entities:\n  A:\n    attributes:\n      name: string\n      p9: integer64?\n      y: string?\n",
            """
            entities:\n  A:\n    attributes:\n      name: string\n      p11: { type: integer64, optional: true, \
            renamedFrom: p9 }\n      y: string?\n
            """,
            """
            entities:\n  A:\n    attributes:\n      name: string\n      p11: { type: integer64, optional: true, \
            default: 5 }\n      y: string?\n
            """,
        ]
        let (fused, stepped) = try Self.bothWays(versions) { o in try o.insert("A", values: ["name": .string("a")]) }
        #expect(try stepped.get() == [#"1: name="a""#])
        #expect(try fused.get() == stepped.get())
    }

    /// Where nothing differs, the run stays fused: one rewrite, not one per hop.
    @Test func aRunWithoutIntermediateValuesOrRulesStaysFused() throws {
        let versions = [
            "entities:\n  A:\n    attributes:\n      name: string\n      old: string?\n",
            "entities:\n  A:\n    attributes:\n      name: string\n      x: { type: integer32, default: 5 }\n",
            """
            entities:\n  A:\n    attributes:\n      name: string\n      x: { type: integer32, default: 5 }\n      y: \
            string?\n
            """,
        ]
        let s = try MigrationScenario("Fuse", versions: versions)
        defer { s.remove() }
        #expect(try s.plan().hops.map { [$0.from, $0.to] } == [[1, 3]])
    }
}

/// Path choice searches every route the mapping files give (issue 35).
@Suite struct PathSearchTests {
    /// Files 1-to-2, 1-to-3 and 2-to-4, and hop 3 → 4 refused by inference (a new
    /// required attribute without a default): the furthest file from 1 leads nowhere,
    /// 1-to-2 then 2-to-4 reach 4. It was refused, "write 3-to-4.yaml".
    @Test func aRouteThroughAShorterFileIsFound() throws {
        let versions = [
            "entities:\n  A:\n    attributes:\n      name: string\n",
            "entities:\n  A:\n    attributes:\n      name: string\n      b: string?\n",
            "entities:\n  A:\n    attributes:\n      name: string\n      b: string?\n      c: string?\n",
            """
            entities:\n  A:\n    attributes:\n      name: string\n      b: string?\n      c: string?\n      d: string\n
            """,
        ]
        let s = try MigrationScenario("Route", versions: versions)
        defer { s.remove() }
        try s.writeMapping("1-to-2.yaml", "entities:\n  A:\n    properties:\n      b: { value: \"'from 1-to-2'\" }\n")
        try s.writeMapping("1-to-3.yaml", "entities:\n  A:\n    properties:\n      c: { value: \"'from 1-to-3'\" }\n")
        try s.writeMapping("2-to-4.yaml", "entities:\n  A:\n    properties:\n      d: { value: \"'from 2-to-4'\" }\n")
        try s.withObjects { try $0.insert("A", values: ["name": .string("a")]) }
        let plan = try s.plan()
        #expect(plan.path.pieces.map { [$0.from, $0.to] } == [[1, 2], [2, 4]])
        #expect(
            plan.path.pieces[0].reason.contains("1-to-3.yaml leads to no route from version 3 to 4"),
            "\(plan.path.pieces[0].reason)")
        try Migrator().apply(plan)
        #expect(
            try s.fetch("A").map { [$0.values["b"], $0.values["c"], $0.values["d"]] } == [
                [.string("from 1-to-2"), nil, .string("from 2-to-4")]
            ])
    }
}

/// Destructive warnings come from the data (issue 35).
@Suite struct DataWarningTests {
    static let serials = [
        "entities:\n  A:\n    attributes:\n      serial: integer64?\n",
        "entities:\n  A:\n    attributes:\n      serial: double?\n",
    ]

    /// Integer 64 → Double: 2^53 + 1 becomes 2^53. Counted, destructive; a store
    /// whose values all fit gets no warning.
    @Test func integer64ToDoubleCountsTheValuesItChanges() throws {
        let s = try MigrationScenario("Serials", versions: Self.serials)
        defer { s.remove() }
        try s.withObjects { o in
            for value: Int64 in [5, 9_007_199_254_740_993, -9_007_199_254_740_995, 9_007_199_254_740_992, .max] {
                try o.insert("A", values: ["serial": .integer(value)])
            }
        }
        let plan = try s.plan()
        #expect(
            plan.destructiveWarnings.map(\.message) == [
                "A.serial: integer64 → double changes 3 values beyond 2^53, which no double holds exactly"
            ])
        let exact = try MigrationScenario("Serials", versions: Self.serials)
        defer { exact.remove() }
        try exact.withObjects { o in
            for value: Int64 in [5, 9_007_199_254_740_992, -1 << 60] {
                try o.insert("A", values: ["serial": .integer(value)])
            }
        }
        #expect(try exact.plan().warnings.isEmpty)
    }
}

/// A new required to-one relationship: Core Data's inferred mapping exists, and its
/// validation refuses only objects left without a destination (issue 35: BookPlayer
/// 7 → 8 was refused on an empty store).
@Suite struct RequiredRelationshipDataTests {
    static let versions = [
        "entities:\n  Item:\n    attributes: { name: string }\n",
        """
        entities:
          Item:
            attributes: { name: string }
            relationships:
              owner: { destination: Owner, inverse: items, optional: false }
          Owner:
            attributes: { name: string }
            relationships:
              items: { destination: Item, toMany: true, inverse: owner }

        """,
    ]

    @Test func anEmptyEntityMigrates() throws {
        let s = try MigrationScenario("Owned", versions: Self.versions)
        defer { s.remove() }
        try Migrator().apply(try s.plan())
        #expect(try s.storeVersion() == 2)
    }

    @Test func storedObjectsWithoutADestinationAreRefusedWhenPlanned() throws {
        let s = try MigrationScenario("Owned", versions: Self.versions)
        defer { s.remove() }
        try s.withObjects { try $0.insert("Item", values: ["name": .string("pen")]) }
        let before = FileSnapshot(s.storePath).fingerprint
        #expect {
            try s.plan()
        } throws: { error in
            let planning = PlanningError(classifying: error)
            return planning.kind == .noPath
                && planning.message.contains(
                    """
                    Item.owner is a new required to-one relationship, and stored Item objects would have no destination
                    """
                )
        }
        #expect(FileSnapshot(s.storePath).fingerprint == before)
    }
}

/// A new required attribute without a default on an entity the store holds no
/// objects of: Core Data's inferred mapping migrates it (nil on no object); with
/// objects, inference refuses it as before (fuzzer case new-required-empty).
@Suite struct RequiredAttributeOnEmptyEntityTests {
    static let versions = [
        "entities: {A: {attributes: {key: string}}, B: {attributes: {key: string}}}",
        "entities: {A: {attributes: {key: string, x: integer16}}, B: {attributes: {key: string}}}",
    ]

    @Test(arguments: [MigrationPath.Preference.automatic, .chain, .direct])
    func anEmptyEntityMigrates(path: MigrationPath.Preference) throws {
        let s = try MigrationScenario("Fz", versions: Self.versions)
        defer { s.remove() }
        try s.withObjects { try $0.insert("B", values: ["key": .string("B1")]) }
        try s.migrate(path: path)
        #expect(try s.storeVersion() == 2)
        #expect(try s.columns("ZA").contains("ZX"))
    }

    @Test func storedObjectsAreRefusedByInference() throws {
        let s = try MigrationScenario("Fz", versions: Self.versions)
        defer { s.remove() }
        try s.withObjects { try $0.insert("A", values: ["key": .string("A1")]) }
        #expect {
            try s.plan()
        } throws: { error in
            "\(error)".contains("A.x: new required attribute without a default or source")
        }
    }
}

/// Rules a hop tightens are checked against the stored data, as Core Data's
/// validation stage checks every migrated object (found by Scripts/migration_diff.py).
@Suite struct TightenedRuleTests {
    static func refuses(_ versions: [String], seed: (ObjectAccess) throws -> Void, _ summary: String) throws {
        let s = try MigrationScenario("Tight", versions: versions)
        defer { s.remove() }
        try s.withObjects(seed)
        let before = FileSnapshot(s.storePath).fingerprint
        #expect {
            try s.plan()
        } throws: { error in
            let planning = PlanningError(classifying: error)
            return planning.kind == .noPath && planning.message.contains(summary)
        }
        #expect(FileSnapshot(s.storePath).fingerprint == before)
    }

    static let pair = """
        entities:
          A:
            attributes: { name: string }
            relationships:
              b: { destination: B, inverse: as, optional: RB }
          B:
            attributes: { name: string }
            relationships:
              as: { destination: A, toMany: true, inverse: b MIN }

        """

    static func pair(required: Bool, min: Int? = nil) -> String {
        pair.replacingOccurrences(of: "RB", with: required ? "false" : "true")
            .replacingOccurrences(of: " MIN", with: min.map { ", minCount: \($0)" } ?? "")
    }

    @Test func aToOneMadeRequiredRefusesObjectsWithoutOne() throws {
        try Self.refuses(
            [Self.pair(required: false), Self.pair(required: true)],
            seed: { o in
                try o.insert("B", values: ["name": .string("b")])
                try o.insert("A", values: ["name": .string("with")], relationships: ["b": [1]])
                try o.insert("A", values: ["name": .string("without")])
            }, "A.b becomes required, and stored objects have none")
    }

    @Test func aLargerMinCountRefusesObjectsWithFewer() throws {
        try Self.refuses(
            [Self.pair(required: false), Self.pair(required: false, min: 2)],
            seed: { o in
                try o.insert("B", values: ["name": .string("b")])
                try o.insert("A", values: ["name": .string("one")], relationships: ["b": [1]])
            }, "B.as needs at least 2 objects, and stored objects have fewer")
    }

    /// Optional → required with a default fills nils, and a new `max` still binds
    /// the values that were there (32767 passed).
    @Test func aMaxAddedWithADefaultStillChecksStoredValues() throws {
        try Self.refuses(
            [
                "entities:\n  A:\n    attributes:\n      n: integer16?\n",
                "entities:\n  A:\n    attributes:\n      n: { type: integer16, default: 5, max: 5 }\n",
            ],
            seed: { o in try o.insert("A", values: ["n": .integer(32767)]) }, "A.n")
    }
}

/// Found by the long differential run (seed 20): a fused run and a mapping file's
/// copy, each held to what one version at a time gives.
@Suite struct LongRunFindingsTests {
    /// Version 2 adds x without a default, version 3 gives it one: objects made
    /// before keep nil (a default fills only objects made after it).
    @Test(arguments: [MigrationPath.Preference.automatic, .chain])
    func aLaterDefaultDoesNotFillEarlierObjects(path: MigrationPath.Preference) throws {
        let s = try MigrationScenario(
            "Fz",
            versions: [
                "entities: {A: {attributes: {key: string}}}",
                "entities: {A: {attributes: {key: string, x: integer16?}}}",
                "entities: {A: {attributes: {key: string, x: {type: integer16, optional: true, default: 5}}}}",
            ])
        defer { s.remove() }
        try s.withObjects { try $0.insert("A", values: ["key": .string("A1")]) }
        try s.migrate(path: path)
        #expect(try s.rows("SELECT ZX FROM ZA").map { $0[0] } == [.null])
    }

    /// `m: $source.n` of the same type into a required attribute, kept in place (a
    /// column rename): a nil is refused, as validation refuses it.
    @Test func aCopiedNilIntoARequiredAttributeIsRefusedInPlace() throws {
        let s = try MigrationScenario(
            "Fz",
            versions: [
                "entities: {A: {attributes: {key: string, n: integer64?}}}",
                "entities: {A: {attributes: {key: string, m: {type: integer64, default: 5}}}}",
            ])
        defer { s.remove() }
        try s.withObjects { try $0.insert("A", values: ["key": .string("A1")]) }
        try s.writeMapping("1-to-2.yaml", "entities:\n  A:\n    properties:\n      m: $source.n\n")
        #expect(throws: (any Error).self) { try s.migrate() }
        #expect(try s.storeVersion() == 1)
    }
}

/// A mapping file that swaps two entities' objects (`C: { source: D }`, `D: { source:
/// C }`): each table ends with the other's objects (found by the long differential
/// run, seed 42 trial 45, where the new D was renamed into C).
@Suite struct EntitySwapTests {
    @Test func swappedEntitiesTakeEachOthersObjects() throws {
        let version =
            """
            entities: {C: {attributes: {key: string, n: integer16?}, uniqueness: [[key]]}, D: {attributes: {key: \
            string}}}
            """
        let s = try MigrationScenario("Fz", versions: [version, version])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("C", values: ["key": .string("C1"), "n": .integer(1)])
            try o.insert("C", values: ["key": .string("C2"), "n": .integer(2)])
            try o.insert("D", values: ["key": .string("D1")])
        }
        try s.writeMapping("1-to-2.yaml", "entities:\n  C:\n    source: D\n  D:\n    source: C\n")
        try s.migrate(verify: true)
        #expect(try s.fetch("C").map { $0.values["key"] } == [.string("D1")])
        #expect(try s.fetch("D").map { $0.values["key"] } == [.string("C1"), .string("C2")])
    }
}
