import DataModel
import Foundation
import MigrationPolicies
import SQLiteStore
import TestSupport
import Testing

@testable import ModelMigration

// MARK: - Policies of these tests

/// On Dog (a subentity sharing ZANIMAL with Cat): each dog's nick is its name, its
/// friend's name (loaded through `object("friend")`, a second statement over the
/// same table, rows of other entities) and the name of the dog before it (a
/// SourceObject kept across rows); every kept source object is read again at the end.
struct DogNicker: EntityMigrationPolicy {
    var previous: SourceObject?
    var kept: [SourceObject] = []
    var destinations: [DestinationObject] = []

    mutating func createDestinationInstances(for source: SourceObject, in manager: MigrationManager) throws {
        var dog = try manager.createDestinationInstance(for: source)
        let friend = try source.object("friend")
        let nick = [
            source.string("name") ?? "nil",
            friend.map { "\($0.entity):\($0.string("name") ?? "nil"):\($0.integer("a17") ?? -1)" } ?? "none",
            previous?.string("name") ?? "first",
        ].joined(separator: "|")
        dog["nick"] = .string(nick)
        try manager.insert(dog)
        previous = source
        kept.append(source)
        if let friend { kept.append(friend) }
    }

    mutating func endInstanceCreation(_ manager: MigrationManager) throws {
        PolicyLog.record(
            kept.map {
                """
                \($0.entity) \($0.primaryKey) \($0.string("name") ?? "nil") \($0.integer("a1") ?? -1) \
                \($0.integer("a17") ?? -1)
                """
            }
            .joined(separator: "; "))
    }
}

/// On Wide (18 attributes, the dictionary path of ObjectShape): sets w17 (the
/// last) from w0 and w16 and reads them back from the destination object.
struct WideFiller: EntityMigrationPolicy {
    mutating func createDestinationInstances(for source: SourceObject, in manager: MigrationManager) throws {
        var wide = try manager.createDestinationInstance(for: source)
        if source.entity == "Wide" {
            wide["w17"] = .integer((source.integer("w0") ?? 0) + (source.integer("w16") ?? 0))
        }
        wide["w0"] = .integer((wide["w0"].flatMap { if case .integer(let v) = $0 { v } else { nil } } ?? 0) * 10)
        try manager.insert(wide)
    }
}

/// Reads an unknown name only on the second row (the fast path must still see it).
struct ReadsUnknownOnSecondRow: EntityMigrationPolicy {
    mutating func createDestinationInstances(for source: SourceObject, in manager: MigrationManager) throws {
        if source.primaryKey == 2 { _ = source["nope"] }
        try manager.insert(try manager.createDestinationInstance(for: source))
    }
}

let edgeCasePolicies = PolicyCatalog([DogNicker.self, WideFiller.self, ReadsUnknownOnSecondRow.self])

/// Edges of three speed-ups, each held to the data: required-value checks sharing
/// one scan still name the failing attribute, the policy row loop's caches read
/// every row's own values, and a plan that leaves large tables to `apply` still
/// refuses (or warns about) what only planning checks.
@Suite struct EdgeCaseRegressionTests {
    // MARK: 1. Required checks sharing one probe

    /// A hierarchy sharing one table: required values of the parent (every row) and
    /// of one child (its rows only), the table rebuilt. The probe finds a violation
    /// only in the second check's column; the first check's own count finds none
    /// and passes; the second names its attribute. Then only the child's column is
    /// nil in a row of the *other* child (allowed): the migration passes.
    @Test func aProbeFindingOneColumnNamesThatColumnOnly() throws {
        let v1 = """
            entities:
              Shape:
                attributes:
                  label: string?
                  mid: integer32?
              Circle:
                parent: Shape
                attributes:
                  radius: integer32?
              Square:
                parent: Shape
                attributes:
                  side: integer32?

            """
        let v2 = try edit(
            edit(
                edit(v1, "label: string?", #"label: { type: string, default: "?" }"#),
                "radius: integer32?", "radius: { type: integer32, default: 1 }"),
            "mid: integer32?", "mid: double?")
        let s = try MigrationScenario("Shapes", versions: [v1, v2])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Circle", values: ["label": .string("c"), "radius": .integer(3), "mid": .integer(1)])
            try o.insert("Square", values: ["side": .integer(2)])
            try o.insert("Circle", values: [:])
        }
        let plan = try s.plan()
        let required = plan.hops[0].checks.filter { $0.summary.hasPrefix("required") }
        #expect(
            required.map(\.summary) == [
                "required Circle.radius has a value in every row", "required Shape.label has a value in every row",
            ])
        #expect(Set(required.map(\.probeSQL)).count == 1 && required[0].probeSQL != nil)

        // Break only label's fill: radius's own count is 0, label's 3 (every row but none had one... only 2 lack it).
        let step = plan.hops[0].steps.firstIndex { $0.kind == .rebuildTable }!
        let insert = plan.hops[0].steps[step].sql.joined(separator: "\n")
        let fill = #"coalesce(s."ZLABEL", '?')"#
        #expect(insert.contains(fill), "\(insert)")
        var broken = plan
        broken.hops[0].steps[step].sql = broken.hops[0].steps[step].sql.map {
            $0.replacingOccurrences(of: fill, with: #"s."ZLABEL""#)
        }
        try expectFailure(
            s, broken, .checkFailed,
            "check failed: required Shape.label has a value in every row: 2 rows violate it; nothing was changed")

        // Break only radius's fill: the Square row's radius column is nil and allowed.
        let radiusFill = #"coalesce(s."ZRADIUS", 1)"#
        #expect(insert.contains(radiusFill), "\(insert)")
        var radius = plan
        radius.hops[0].steps[step].sql = radius.hops[0].steps[step].sql.map {
            $0.replacingOccurrences(of: radiusFill, with: #"s."ZRADIUS""#)
        }
        try expectFailure(
            s, radius, .checkFailed,
            "check failed: required Circle.radius has a value in every row: 1 row violates it; nothing was changed")

        try Migrator().apply(try s.plan(verify: true))
        #expect(
            try s.rows(#"SELECT Z_PK, Z_ENT, "ZLABEL", "ZRADIUS", "ZSIDE", "ZMID" FROM "ZSHAPE" ORDER BY Z_PK"#) == [
                [.integer(1), .integer(2), .text("c"), .integer(3), .null, .real(1)],
                [.integer(2), .integer(3), .text("?"), .null, .integer(2), .null],
                [.integer(3), .integer(2), .text("?"), .integer(1), .null, .null],
            ])
    }

    /// `--verify` checks every table with the shared probes: a table the hop does
    /// not touch, with a nil required value the store already had, fails --verify
    /// naming the attribute (the second of two sharing the probe), store unchanged.
    @Test func verifyStillFindsANilRequiredValueThroughTheSharedProbe() throws {
        let v1 = """
            entities:
              Box:
                attributes:
                  height: integer32
                  name: string
              Other:
                attributes:
                  size: integer16?

            """
        let v2 = try edit(v1, "size: integer16?", "size: double?")
        let s = try MigrationScenario("Boxes", versions: [v1, v2])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Box", values: ["height": .integer(1), "name": .string("a")])
            try o.insert("Box", values: ["height": .integer(2), "name": .string("b")])
            try o.insert("Other", values: ["size": .integer(7)])
        }
        let connection = try Connection(path: s.storePath)
        try connection.execute(#"UPDATE ZBOX SET ZNAME = NULL WHERE Z_PK = 2"#)
        try connection.close()
        let plan = try s.plan(verify: true)
        let layout = plan.hops.last!.destinationLayout
        let boxChecks = CheckBuilder.relationshipChecks(plan.target, layout: layout).filter {
            $0.sql.sql.contains(#""ZBOX""#)
        }
        #expect(
            boxChecks.map(\.summary) == [
                "required Box.height has a value in every row", "required Box.name has a value in every row",
            ])
        #expect(boxChecks.allSatisfy { $0.probeSQL != nil })
        try expectFailure(
            s, plan, .verifyFailed,
            "--verify: required Box.name has a value in every row: 1 row violates it; nothing was changed")
    }

    // MARK: 2. The policy row loop

    static let animals1 = """
        entities:
          Animal:
            attributes:
              name: string?
              a1: integer32?
              a17: integer32?
          Cat:
            parent: Animal
            attributes:
              meow: string?
          Dog:
            parent: Animal
            attributes:
              bark: string?
            relationships:
              friend: { destination: Animal, optional: true }

        """
    static let animals2 = animals1.replacingOccurrences(
        of: "      bark: string?\n", with: "      bark: string?\n      nick: string?\n")

    /// A policy on a subentity of a shared table: its rows, interleaved with other
    /// entities' rows in the table, read with a second statement for the friend (a
    /// Cat, a Dog, itself, nobody), and source objects kept across rows and read
    /// again later: every value is the row's own.
    @Test func aPolicyOnASubentityReadsEachRowsOwnValues() throws {
        let s = try MigrationScenario("Animals", versions: [Self.animals1, Self.animals2])
        defer { s.remove() }
        try s.writeMapping(
            "1-to-2.yaml", "entities:\n  Dog:\n    policy: DogNicker\n    properties:\n      nick: policy\n")
        try s.withObjects { o in
            try o.insert(
                "Cat",
                values: [
                    """
                    name
                    """: .string("Tom"), "a1": .integer(1), "a17": .integer(17), "meow": .string("m"),
                ])  // 1
            try o.insert(
                "Dog", values: ["name": .string("Rex"), "a1": .integer(2), "a17": .integer(27)],
                relationships: ["friend": [1]])  // 2
            try o.insert("Animal", values: ["name": .string("Gen"), "a1": .integer(3), "a17": .integer(37)])  // 3
            try o.insert(
                "Dog", values: ["name": .string("Fido"), "a1": .integer(4)],
                relationships: [
                    """
                    friend
                    """: [2]
                ])  // 4
            try o.insert("Dog", values: ["a1": .integer(5), "a17": .integer(57)], relationships: ["friend": [3]])  // 5
            try o.insert("Dog", values: ["name": .string("Solo"), "a1": .integer(6), "a17": .integer(67)])  // 6
        }
        let log = try PolicyLog.capture {
            let store = try Store.open(path: s.storePath)
            var planner = MigrationPlanner(
                models: [try s.model()], migrationsFolder: s.migrationsFolder,
                knownPolicies: Set(edgeCasePolicies.names))
            planner.policyInputs = edgeCasePolicies.declaredInputs
            planner.options.verify = true
            let plan = try planner.plan(store: store)
            try store.close()
            try Migrator(policyRunner: PolicyEngine(catalog: edgeCasePolicies)).apply(plan)
        }
        #expect(
            log == [
                """
                Dog 2 Rex 2 27; Cat 1 Tom 1 17; Dog 4 Fido 4 -1; Dog 2 Rex 2 27; Dog 5 nil 5 57; Animal 3 Gen 3 37; \
                Dog 6 Solo 6 67
                """
            ])
        let rows = try s.rows(
            #"SELECT Z_PK, Z_ENT, "ZNAME", "ZA1", "ZA17", "ZNICK", "ZMEOW", "ZFRIEND" FROM "ZANIMAL" ORDER BY Z_PK"#)
        #expect(
            rows == [
                [.integer(1), .integer(2), .text("Tom"), .integer(1), .integer(17), .null, .text("m"), .null],
                [
                    .integer(2), .integer(3), .text("Rex"), .integer(2), .integer(27), .text("Rex|Cat:Tom:17|first"),
                    .null, .integer(1),
                ],
                [.integer(3), .integer(1), .text("Gen"), .integer(3), .integer(37), .null, .null, .null],
                [
                    .integer(4), .integer(3), .text("Fido"), .integer(4), .null, .text("Fido|Dog:Rex:27|Rex"), .null,
                    .integer(2),
                ],
                [
                    .integer(5), .integer(3), .null, .integer(5), .integer(57), .text("nil|Animal:Gen:37|Fido"), .null,
                    .integer(3),
                ],
                [
                    .integer(6), .integer(3), .text("Solo"), .integer(6), .integer(67), .text("Solo|none|first"), .null,
                    .null,
                ],
            ], "\(rows)")
    }

    /// An entity of 18 attributes (ObjectShape's dictionary path) and one of 16
    /// (the comparing path): values read, set and read back by name.
    @Test func wideEntitiesOnBothSidesOfSixteenNames() throws {
        func entity(_ name: String, _ count: Int) -> String {
            "  \(name):\n    attributes:\n" + (0..<count).map { "      w\($0): integer32?\n" }.joined()
        }
        let v1 = "entities:\n" + entity("Wide", 17) + entity("Narrow", 16)
        let v2 =
            "entities:\n" + entity("Wide", 18)
            + entity("Narrow", 16).replacingOccurrences(of: "      w15: integer32?\n", with: "      w15: integer64?\n")
        let s = try MigrationScenario("Wides", versions: [v1, v2])
        defer { s.remove() }
        try s.writeMapping(
            "1-to-2.yaml",
            """
            entities:\n  Wide:\n    policy: WideFiller\n    properties:\n      w17: policy\n  Narrow:\n    policy: \
            WideFiller\n
            """
        )
        try s.withObjects { o in
            var wide: [String: AttributeValue] = [:]
            var narrow: [String: AttributeValue] = [:]
            for i in 0..<17 { wide["w\(i)"] = .integer(Int64(100 + i)) }
            for i in 0..<16 { narrow["w\(i)"] = .integer(Int64(200 + i)) }
            try o.insert("Wide", values: wide)
            try o.insert("Narrow", values: narrow)
        }
        let store = try Store.open(path: s.storePath)
        var planner = MigrationPlanner(
            models: [try s.model()], migrationsFolder: s.migrationsFolder, knownPolicies: Set(edgeCasePolicies.names))
        planner.policyInputs = edgeCasePolicies.declaredInputs
        let plan = try planner.plan(store: store)
        try store.close()
        try Migrator(policyRunner: PolicyEngine(catalog: edgeCasePolicies)).apply(plan)
        let wide = try s.fetch("Wide")[0].values
        #expect(wide["w0"] == .integer(1000))
        #expect(wide["w16"] == .integer(116))
        #expect(wide["w17"] == .integer(216))  // 100 + 116
        #expect((1..<16).allSatisfy { wide["w\($0)"] == .integer(Int64(100 + $0)) })
        let narrow = try s.fetch("Narrow")[0].values
        #expect(narrow["w0"] == .integer(2000))
        #expect(narrow["w15"] == .integer(215))
        #expect((1..<15).allSatisfy { narrow["w\($0)"] == .integer(Int64(200 + $0)) })
    }

    /// An unknown name read on a later row (not the first) still fails the step,
    /// naming it, store unchanged.
    @Test func anUnknownReadOnALaterRowStillFails() throws {
        let s = try MigrationScenario("Animals", versions: [Self.animals1, Self.animals2])
        defer { s.remove() }
        try s.writeMapping("1-to-2.yaml", "entities:\n  Animal:\n    policy: ReadsUnknownOnSecondRow\n")
        try s.withObjects { o in
            try o.insert("Animal", values: ["name": .string("a")])
            try o.insert("Animal", values: ["name": .string("b")])
        }
        let store = try Store.open(path: s.storePath)
        let plan = try MigrationPlanner(
            models: [try s.model()], migrationsFolder: s.migrationsFolder, knownPolicies: Set(edgeCasePolicies.names)
        )
        .plan(store: store)
        try store.close()
        let before = FileSnapshot(s.storePath)
        #expect {
            try Migrator(policyRunner: PolicyEngine(catalog: edgeCasePolicies)).apply(plan)
        } throws: { error in
            "\(error)".hasPrefix(
                """
                policy ReadsUnknownOnSecondRow failed on Animal (source primary key 2) in createDestinationInstances: \
                read Animal.nope
                """
            )
        }
        #expect(FileSnapshot(s.storePath).fingerprint == before.fingerprint)
    }

    // MARK: 3. plan leaves large tables to apply

    /// StoreBindingBreakTests' swapped ZTEXT / ZTEXT1 store with SystemMessage 4's
    /// text in ZTEXT: the rows do not decide the binding, and planning refuses it
    /// (`siblingColumnsTheRowsDoNotDecideAreRefused`): a stray-values refusal.
    static let mixed = StoreBindingBreakTests.swappedSchema
        .replacingOccurrences(of: "(4, 2, 1, 40, NULL, 'sys four')", with: "(4, 2, 1, 40, 'sys four', NULL)")

    /// StoreBindingBreakTests' Core Data store whose sibling columns are bound the
    /// wrong way round (ZTEXT / ZTEXT1): planning refuses it (a stray-values
    /// refusal, which for a store from Core Data is not among the preconditions
    /// `apply` checks). With ZMESSAGE over the count limit, planning still
    /// scans it for such values (nothing in `apply` would): the texts are never dropped.
    @Test func swappedSuffixesInALargeCoreDataTableAreNotMigratedAway() throws {
        let directory = try TemporaryDirectory(prefix: "EdgeCaseRegressionTests")
        defer { directory.remove() }
        let model = try TestModels.compile(
            "Chat", versions: [StoreBindingBreakTests.chat1, StoreBindingBreakTests.chat2])
        let path = directory.file("Chat.sqlite")
        try CoreDataLayoutTests.createStore(at: path, version: model.versions[0], schema: Self.mixed)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let expected: [Int64: String?] = [1: "sys one", 2: "text two", 3: "text three", 4: "sys four"]

        // With the default limit, planning refuses.
        do {
            let reader = try Store.open(path: path, access: .readOnly)
            defer { try? reader.close() }
            #expect(throws: PlanningError.self) {
                _ = try MigrationPlanner(models: [model], migrationsFolder: directory.file("none")).plan(store: reader)
            }
        }
        // ZMESSAGE (4 rows) over a limit of 2.
        var planner = MigrationPlanner(models: [model], migrationsFolder: directory.file("none"))
        planner.options.countLimit = 2
        planner.options.verify = true
        try StoreBindingBreakTests.expectRefusedOrKept(path, model, before: before, expected) {
            let plan: MigrationPlan
            do {
                let reader = try Store.open(path: path, access: .readOnly)
                defer { try? reader.close() }
                plan = try planner.plan(store: reader)
            }
            try Migrator().apply(plan)
        }
    }

    /// The same through `StoreOpener` (default limit, a million rows): one row with
    /// a key over a million makes ZMESSAGE "large" by its highest row id.
    @Test func storeOpenerDoesNotMigrateAwaySwappedSuffixesOfASparseTable() throws {
        let directory = try TemporaryDirectory(prefix: "EdgeCaseRegressionTests")
        defer { directory.remove() }
        let model = try TestModels.compile(
            "Chat", versions: [StoreBindingBreakTests.chat1, StoreBindingBreakTests.chat2])
        let path = directory.file("Chat.sqlite")
        let schema = Self.mixed
            .replacingOccurrences(of: "(1, 'Message', 0, 4)", with: "(1, 'Message', 0, 2000000)")
            .replacingOccurrences(of: "(4, 2, 1, 40, 'sys four', NULL)", with: "(2000000, 2, 1, 40, 'sys four', NULL)")
        #expect(schema.contains("2000000, 2, 1, 40"))
        try CoreDataLayoutTests.createStore(at: path, version: model.versions[0], schema: schema)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        try StoreBindingBreakTests.expectRefusedOrKept(
            path, model, before: before,
            [1: "sys one", 2: "text two", 3: "text three", 2000000: "sys four"]
        ) {
            try StoreOpener(model: model, migrationsFolder: directory.file("none")).open(path: path).close()
        }
    }

    /// A store from Core Data with a value left in another entity's column: `plan`
    /// warns that the rebuild does not carry it. Over the count limit the warning
    /// must not silently vanish from `plan` (apply's own plan still shows it).
    @Test func strayValueWarningOfALargeTableIsStillGiven() throws {
        let directory = try TemporaryDirectory(prefix: "EdgeCaseRegressionTests")
        defer { directory.remove() }
        let v1 = """
            entities:
              Message:
                attributes: { stamp: integer32? }
              SystemMessage:
                parent: Message
                attributes: { code: integer32? }
              TextMessage:
                parent: Message
                attributes: { body: string? }
            """
        let v2 =
            v1 + """

                  Attachment:
                    attributes: { size: integer64? }
                """
        let model = try TestModels.compile("Msg", versions: [v1, v2])
        let path = directory.file("Msg.sqlite")
        let schema = """
            CREATE TABLE ZMESSAGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZSTAMP INTEGER, ZCODE \
            INTEGER, ZBODY VARCHAR );
            CREATE INDEX ZMESSAGE_Z_ENT_INDEX ON ZMESSAGE (Z_ENT);
            CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
            CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
            INSERT INTO Z_PRIMARYKEY VALUES (1, 'Message', 0, 3), (2, 'SystemMessage', 1, 0), (3, 'TextMessage', 1, 0);
            INSERT INTO ZMESSAGE VALUES (1, 2, 1, 10, 5, NULL), (2, 3, 1, 20, 7, 'hello'), (3, 3, 1, 30, NULL, 'bye');
            """
        try CoreDataLayoutTests.createStore(at: path, version: model.versions[0], schema: schema)
        func warnings(_ limit: Int64?) throws -> [String] {
            var planner = MigrationPlanner(models: [model], migrationsFolder: directory.file("none"))
            if let limit { planner.options.countLimit = limit }
            let reader = try Store.open(path: path, access: .readOnly)
            defer { try? reader.close() }
            return try planner.plan(store: reader).warnings.map(\.description).filter {
                $0.contains("left there by an earlier version")
            }
        }
        let full = try warnings(nil)
        #expect(full.count == 1, "\(full)")
        let limited = try warnings(2)
        #expect(limited == full, "\(limited)")
    }
}
