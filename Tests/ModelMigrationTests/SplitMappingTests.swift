import DataModel
import Foundation
import Migrations
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// One source entity feeding several destination entities (Core Data's "a third split
/// into two"): the entity that continues keeps its objects, number and keys; each other
/// mapping makes its own objects, in a table of its own under a new number.
@Suite struct SplitMappingTests {
    static let v1 = """
        entities:
          Record:
            attributes:
              artist: string
              title: string
              notes: string?
        """
    static let v2 = """
        entities:
          Record:
            attributes:
              artist: string
              title: string
              notes: string?
            relationships:
              listenings: { destination: Listening, toMany: true, inverse: record }
          Listening:
            attributes:
              note: string?
            relationships:
              record: { destination: Record, inverse: listenings, optional: true }
        """
    static let linkedMapping = """
        entities:
          Listening:
            source: Record
            properties:
              note: $source.notes
              record: { value: "FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', \
        'RecordToRecord', $source)" }
        """

    /// Three records (one without notes) at version 1.
    static func scenario(_ versions: [String] = [v1, v2], mapping: String) throws -> MigrationScenario {
        let s = try MigrationScenario("Music", versions: versions)
        try s.writeMapping("1-to-2.yaml", mapping)
        try s.withObjects { access in
            try access.insert(
                "Record", values: ["artist": .string("A"), "title": .string("T1"), "notes": .string("great")])
            try access.insert("Record", values: ["artist": .string("B"), "title": .string("T2")])
            try access.insert(
                "Record", values: ["artist": .string("C"), "title": .string("T3"), "notes": .string("loud")])
        }
        return s
    }

    static let records: [[String: AttributeValue]] = [
        ["artist": .string("A"), "title": .string("T1"), "notes": .string("great")],
        ["artist": .string("B"), "title": .string("T2")],
        ["artist": .string("C"), "title": .string("T3"), "notes": .string("loud")],
    ]

    @Test func theSplitKeepsEveryRecordAndMakesOneListeningPerRecordLinkedToIt() throws {
        let s = try Self.scenario(mapping: Self.linkedMapping)
        defer { s.remove() }
        let numberBefore = try #require(try s.entityKeys().first { $0.name == "Record" }?.number)
        let plan = try s.plan(verify: true)
        let build = try #require(plan.allSteps.first { $0.table == "ZLISTENING" && $0.cost.movesRows })
        #expect(
            build.summary
                == "create ZLISTENING from ZRECORD: a Listening for each Record (entity mapping RecordToListening)")
        #expect(build.cost == .rewrite(rows: 3))
        #expect(
            build.sql.last == """
                INSERT INTO "ZLISTENING" ("Z_PK", "Z_ENT", "Z_OPT", "ZRECORD", "ZNOTE") SELECT s.Z_PK, 2, s.Z_OPT, \
                s.Z_PK, s."ZNOTES" FROM "ZRECORD" AS s WHERE s.Z_ENT = 1
                """)
        #expect(plan.warnings.isEmpty, "\(plan.warnings)")
        try Migrator().apply(plan)

        #expect(try s.storeVersion() == 2)
        let records = try s.fetch("Record")
        #expect(records.map(\.values) == Self.records)
        #expect(records.map(\.primaryKey) == [1, 2, 3])
        #expect(records.map { $0.relationships["listenings"] ?? [] } == [[1], [2], [3]])
        let listenings = try s.fetch("Listening")
        #expect(listenings.map(\.values) == [["note": .string("great")], [:], ["note": .string("loud")]])
        #expect(listenings.map { $0.relationships["record"] ?? [] } == [[1], [2], [3]])
        let keys = try s.entityKeys().map { "\($0.number) \($0.name) \($0.parent) \($0.maxKey)" }
        #expect(keys == ["\(numberBefore) Record 0 3", "2 Listening 0 3"])
    }

    /// The inverse written instead (`listenings` of the kept Record), with the kept
    /// mapping spelled out: the same store.
    @Test func theInverseFormAndAnExplicitKeptMappingGiveTheSameStore() throws {
        let s = try Self.scenario(
            mapping: """
                entities:
                  Record:
                    source: Record
                    properties:
                      listenings: { value: "FUNCTION($manager, \
                'destinationInstancesForEntityMappingNamed:sourceInstances:', 'RecordToListening', $source)" }
                  Listening:
                    source: Record
                    properties:
                      note: $source.notes
                """)
        defer { s.remove() }
        try s.migrate(verify: true)
        #expect(try s.fetch("Record").map(\.values) == Self.records)
        #expect(try s.fetch("Record").map { $0.relationships["listenings"] ?? [] } == [[1], [2], [3]])
        #expect(try s.fetch("Listening").map { $0.relationships["record"] ?? [] } == [[1], [2], [3]])
        #expect(try s.rows("SELECT Z_ENT, count(*) FROM ZLISTENING GROUP BY Z_ENT") == [[.integer(2), .integer(3)]])
    }

    /// Without a relationship value the sessions are made unlinked, as Core Data leaves
    /// a relationship mapping without an expression.
    @Test func withoutARelationshipValueTheNewObjectsAreUnlinked() throws {
        let s = try Self.scenario(
            mapping: """
                entities:
                  Listening:
                    source: Record
                    properties:
                      note: $source.notes
                """)
        defer { s.remove() }
        try s.migrate(verify: true)
        #expect(try s.fetch("Record").map(\.values) == Self.records)
        #expect(try s.fetch("Listening").map { $0.relationships["record"] ?? [] } == [[], [], []])
        #expect(try s.fetch("Listening").count == 3)
    }

    /// One entity split into two new ones: the first keeps the rows and number (renamed
    /// in place), the second is built from them before.
    @Test func oneEntitySplitIntoTwoNewEntities() throws {
        let s = try MigrationScenario(
            "S2",
            versions: [
                "entities:\n  Old:\n    attributes: { t: string?, n: string? }\n",
                "entities:\n  X:\n    attributes: { t: string? }\n  Y:\n    attributes: { n: string? }\n",
            ])
        defer { s.remove() }
        try s.writeMapping("1-to-2.yaml", "entities:\n  X:\n    source: Old\n  Y:\n    source: Old\n")
        try s.withObjects { access in
            try access.insert("Old", values: ["t": .string("tee"), "n": .string("enn")])
            try access.insert("Old", values: ["t": .string("two")])
        }
        let plan = try s.plan(verify: true)
        #expect(plan.warnings.isEmpty, "\(plan.warnings)")
        try Migrator().apply(plan)
        #expect(try s.fetch("X").map(\.values) == [["t": .string("tee")], ["t": .string("two")]])
        #expect(try s.fetch("Y").map(\.values) == [["n": .string("enn")], [:]])
        #expect(try s.entityKeys().map { "\($0.number) \($0.name) \($0.maxKey)" } == ["1 X 2", "2 Y 2"])
    }

    /// Two mappings of one source entity into one table would give two rows one key.
    @Test func twoMappingsOfOneSourceIntoOneHierarchyAreRefused() throws {
        let s = try MigrationScenario(
            "S3",
            versions: [
                "entities:\n  Old:\n    attributes: { t: string? }\n",
                """
                entities:\n  Base:\n    abstract: true\n    attributes: { t: string? }\n  X:\n    parent: Base\n  Y:\n \
                   parent: Base\n
                """,
            ])
        defer { s.remove() }
        try s.writeMapping("1-to-2.yaml", "entities:\n  X:\n    source: Old\n  Y:\n    source: Old\n")
        #expect {
            try s.plan()
        } throws: { error in
            "\(error)".contains(
                "X and Y are all made from each Old and share table ZBASE: their objects would take the same keys")
        }
    }

    /// The checks after the hop catch a plan whose Z_PRIMARYKEY step went missing:
    /// the new entity would have rows under a number Z_PRIMARYKEY does not know.
    @Test func theChecksCatchAPlanThatLosesTheNewEntitysKeyRow() throws {
        let s = try Self.scenario(mapping: Self.linkedMapping)
        defer { s.remove() }
        var plan = try s.plan()
        plan.hops[0].steps.removeAll { $0.kind == .entityNumbers }
        let before = FileSnapshot(s.storePath).fingerprint
        #expect {
            try Migrator().apply(plan)
        } throws: { error in
            "\(error)" == """
                check failed: Z_PRIMARYKEY agrees with the rows (each entity under its planned number: Record 1, \
                Listening 2; Z_MAX of each root entity at least the highest key of its table): 2 rows violate it; \
                nothing was changed
                """
        }
        #expect(FileSnapshot(s.storePath).fingerprint == before)
    }

    /// The new objects made by a policy (Passthrough: the default instance of each
    /// source object): the kept Records are untouched, each Listening is the policy's.
    @Test func aPolicyMakesTheNewObjectsBesideTheKeptOnes() throws {
        let s = try Self.scenario(
            mapping: """
                entities:
                  Listening:
                    source: Record
                    policy: Passthrough
                """)
        defer { s.remove() }
        try s.migrate(policies: testPolicies, verify: true)
        #expect(try s.fetch("Record").map(\.values) == Self.records)
        let listenings = try s.fetch("Listening")
        #expect(listenings.map(\.values) == [[:], [:], [:]] && listenings.map(\.primaryKey) == [1, 2, 3])
        #expect(listenings.map { $0.relationships["record"] ?? [] } == [[], [], []])
        #expect(try s.entityKeys().map { "\($0.number) \($0.name) \($0.maxKey)" } == ["1 Record 3", "2 Listening 3"])
    }

    /// A one-to-one between the two objects of one source object (WordPress-iOS's
    /// `BlogSettings.blog`, whose inverse `Blog.settings` is a to-one): both sides are
    /// filled set-based, each with the other's key, the source row's; a filter on the
    /// new entity would leave some records pointing at nothing, and is refused.
    @Test func aOneToOneBetweenTheObjectsOfOneSourceObjectFillsBothSides() throws {
        let v2 = Self.v2.replacingOccurrences(
            of: "listenings: { destination: Listening, toMany: true, inverse: record }",
            with: "listening: { destination: Listening, optional: true, inverse: record }"
        ).replacingOccurrences(of: "inverse: listenings, optional: true", with: "inverse: listening, optional: true")
        let s = try Self.scenario([Self.v1, v2], mapping: Self.linkedMapping)
        defer { s.remove() }
        try s.migrate(verify: true)
        #expect(try s.fetch("Record").map { $0.relationships["listening"] ?? [] } == [[1], [2], [3]])
        #expect(try s.fetch("Listening").map { $0.relationships["record"] ?? [] } == [[1], [2], [3]])
        #expect(try s.fetch("Listening").map { $0.values["note"] } == [.string("great"), nil, .string("loud")])
        let filtered = try Self.scenario([Self.v1, v2], mapping: Self.linkedMapping + "\n    filter: notes != nil\n")
        defer { filtered.remove() }
        #expect {
            try filtered.plan()
        } throws: { error in
            "\(error)".contains("Listening's filter makes some of them alone: fill both in a policy")
        }
    }

    /// The same one-to-one inherited from an abstract parent: the filter that leaves
    /// records alone is the subentity's mapping's, and is refused too.
    @Test func aFilterOnASubentityOfTheOneToOnesDeclarerIsRefused() throws {
        let v2 = """
            entities:
              Record:
                attributes:
                  artist: string
                  title: string
                  notes: string?
                relationships:
                  session: { destination: Session, optional: true, inverse: record }
              Session:
                abstract: true
                relationships:
                  record: { destination: Record, inverse: session, optional: true }
              Listening:
                parent: Session
                attributes:
                  note: string?
            """
        let s = try Self.scenario([Self.v1, v2], mapping: Self.linkedMapping + "\n    filter: notes != nil\n")
        defer { s.remove() }
        #expect {
            try s.plan()
        } throws: { error in
            "\(error)".contains("Listening's filter makes some of them alone: fill both in a policy")
        }
    }
}
