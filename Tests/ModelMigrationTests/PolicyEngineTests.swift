import DataModel
import Foundation
import MigrationPolicies
import Migrations
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// Overrides nothing: every phase's default, which must do what inference does.
struct Passthrough: EntityMigrationPolicy {}

/// Creates people by default, but refuses source object 3 (after 1 and 2 were
/// inserted into the rebuilt table).
struct FailOnSourceKey: EntityMigrationPolicy {
    mutating func createDestinationInstances(for source: SourceObject, in manager: MigrationManager) throws {
        if source.primaryKey == 3 {
            throw PolicyError("refusing '\(source.string("fullName") ?? source.string("firstName") ?? "?")'")
        }
        try manager.insert(try manager.createDestinationInstance(for: source))
    }
}

/// Reads a property Person does not have in version 1 (declares nothing).
struct ReadsAMissingProperty: EntityMigrationPolicy {
    mutating func createDestinationInstances(for source: SourceObject, in manager: MigrationManager) throws {
        var person = try manager.createDestinationInstance(for: source)
        person["firstName"] = .string(source.string("givenName") ?? "")
        person["lastName"] = .string("")
        try manager.insert(person)
    }
}

/// Declares that it reads `givenName`, which version 1 does not have.
struct DeclaresAMissingProperty: EntityMigrationPolicy {
    static var sourceProperties: [String] { ["fullName", "givenName"] }
}

/// A skeleton `migrate import --mapping-models` wrote, not ported yet.
struct NotWrittenYet: EntityMigrationPolicy {
    static var unwritten: [String] {
        ["splitName(_:) for FUNCTION($entityPolicy, 'splitName:', …)", "what Core Data's class does"]
    }
}

/// Fails while setting the relationships of destination object 2.
struct FailInRelationshipPhase: EntityMigrationPolicy {
    mutating func createRelationships(for destination: DestinationObject, in manager: MigrationManager) throws {
        if destination.primaryKey == 2 { throw PolicyError("no relationship for \(destination.entity) 2") }
    }
}

/// Fails last, after every object was created.
struct FailAtEnd: EntityMigrationPolicy {
    mutating func end(_ manager: MigrationManager) throws { throw PolicyError("changed my mind") }
}

/// Inserts each destination object twice.
struct InsertTwice: EntityMigrationPolicy {
    mutating func createDestinationInstances(for source: SourceObject, in manager: MigrationManager) throws {
        let object = try manager.createDestinationInstance(for: source)
        try manager.insert(object)
        try manager.insert(object)
    }
}

/// Logs every phase; the default relationship phase.
struct PhaseLog: EntityMigrationPolicy {
    mutating func begin(_ manager: MigrationManager) throws { PolicyLog.record("begin") }
    mutating func createDestinationInstances(for source: SourceObject, in manager: MigrationManager) throws {
        PolicyLog.record("create \(source.entity) \(source.primaryKey)")
        try manager.insert(try manager.createDestinationInstance(for: source))
    }
    mutating func endInstanceCreation(_ manager: MigrationManager) throws { PolicyLog.record("endInstanceCreation") }
    mutating func createRelationships(for destination: DestinationObject, in manager: MigrationManager) throws {
        PolicyLog.record("relationships \(destination.entity) \(destination.primaryKey)")
    }
    mutating func endRelationshipCreation(_ manager: MigrationManager) throws {
        PolicyLog.record("endRelationshipCreation")
    }
    mutating func end(_ manager: MigrationManager) throws { PolicyLog.record("end") }
}

/// `PhaseLog` without the relationship phase.
struct PhaseLogWithoutRelationships: EntityMigrationPolicy {
    static var usesRelationshipPhase: Bool { false }
    var inner = PhaseLog()
    mutating func begin(_ manager: MigrationManager) throws { try inner.begin(manager) }
    mutating func createDestinationInstances(for source: SourceObject, in manager: MigrationManager) throws {
        try inner.createDestinationInstances(for: source, in: manager)
    }
    mutating func endInstanceCreation(_ manager: MigrationManager) throws { try inner.endInstanceCreation(manager) }
    mutating func createRelationships(for destination: DestinationObject, in manager: MigrationManager) throws {
        try inner.createRelationships(for: destination, in: manager)
    }
    mutating func endRelationshipCreation(_ manager: MigrationManager) throws {
        try inner.endRelationshipCreation(manager)
    }
    mutating func end(_ manager: MigrationManager) throws { try inner.end(manager) }
}

/// Records `manager.progress` as the objects go by.
struct ProgressProbe: EntityMigrationPolicy {
    mutating func begin(_ manager: MigrationManager) throws { PolicyLog.record("begin \(manager.progress)") }
    mutating func createDestinationInstances(for source: SourceObject, in manager: MigrationManager) throws {
        if source.primaryKey <= 2 || source.primaryKey == manager.progress.total {
            PolicyLog.record("\(source.primaryKey): \(manager.progress)")
        }
        try manager.insert(try manager.createDestinationInstance(for: source))
    }
    mutating func endInstanceCreation(_ manager: MigrationManager) throws {
        PolicyLog.record("endInstanceCreation \(manager.progress)")
    }
}

/// The policy engine: phases in Core Data's order, all-or-nothing failures naming
/// the entity, source key and message, chains of policy and inferred hops,
/// defaults that equal inference, progress.
@Suite struct PolicyEngineTests {
    /// Contacts 1 → 2 with `policy` in place of SplitFullName.
    static func contactsWithPolicy(_ policy: String) throws -> MigrationScenario {
        let s = try MigrationScenario.contacts(mappings: ["3-to-4.yaml"])
        try s.writeMapping(
            "1-to-2.yaml",
            """
            entities:\n  Person:\n    policy: \(policy)\n    properties:\n      firstName: policy\n      lastName: \
            policy\n
            """
        )
        try ContactsData.seed(s)
        return s
    }

    /// Applies, expecting a `MigrationError` with `kind` and `message`; the store must
    /// be byte-identical afterwards with no side file.
    func expectFailure(
        _ s: MigrationScenario, to target: Int? = nil, _ kind: MigrationError.Kind, _ message: String,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws {
        let plan = try s.planWithPolicies(to: target)
        let dump = try StoreDump.dump(s.storePath)
        try ModelMigrationTests.expectFailure(
            s, plan, migrator: Migrator(policyRunner: PolicyEngine(catalog: testPolicies)), kind, message,
            sourceLocation: sourceLocation)
        #expect(try StoreDump.dump(s.storePath) == dump, sourceLocation: sourceLocation)
    }

    // MARK: Failures roll everything back

    @Test func aPolicyThrowingMidwayLeavesTheStoreByteIdentical() throws {
        let s = try Self.contactsWithPolicy("FailOnSourceKey")
        defer { s.remove() }
        try expectFailure(
            s, to: 2, .stepFailed,
            """
            policy FailOnSourceKey failed on Person (source primary key 3) in createDestinationInstances: \
            refusing 'Ana María García'; nothing was changed
            """)
        #expect(try s.storeVersion() == 1)
    }

    /// A policy reading a property its source entity lacks would write what it made
    /// of nil into every row: the first object stops the migration.
    @Test func readingAPropertyTheSourceLacksFailsOnTheFirstObject() throws {
        let s = try Self.contactsWithPolicy("ReadsAMissingProperty")
        defer { s.remove() }
        try expectFailure(
            s, to: 2, .stepFailed,
            """
            policy ReadsAMissingProperty failed on Person (source primary key 1) in createDestinationInstances: read \
            Person.givenName, which version 1 does not have (Person has: age, city, createdAt, email, fullName, \
            posts); is the mapping file meant for another hop?; nothing was changed
            """)
    }

    /// A policy declaring inputs the hop's source entity lacks is refused by the plan.
    @Test func declaredInputsAreCheckedWhenPlanning() throws {
        let s = try Self.contactsWithPolicy("DeclaresAMissingProperty")
        defer { s.remove() }
        let store = try Store.open(path: s.storePath)
        defer { try? store.close() }
        var planner = MigrationPlanner(
            models: [try s.model()], migrationsFolder: s.migrationsFolder, knownPolicies: Set(testPolicies.names),
            options: PlanningOptions(target: 2))
        planner.policyInputs = testPolicies.declaredInputs
        #expect {
            try planner.plan(store: store)
        } throws: { error in
            (error as? PlanningError)?.isNoPath == true
                && "\(error)" == """
                    policy DeclaresAMissingProperty reads Person.givenName, which version 1 does not have: \
                    is the mapping file (\(s.migrationsFolder)/Contacts/1-to-2.yaml) meant for another hop?
                    """
        }
    }

    /// A policy whose `unwritten` list is not empty is refused by the plan, naming what is left.
    @Test func unwrittenPoliciesAreRefusedWhenPlanning() throws {
        let s = try Self.contactsWithPolicy("NotWrittenYet")
        defer { s.remove() }
        let store = try Store.open(path: s.storePath)
        defer { try? store.close() }
        var planner = MigrationPlanner(
            models: [try s.model()], migrationsFolder: s.migrationsFolder, knownPolicies: Set(testPolicies.names),
            options: PlanningOptions(target: 2))
        planner.policyUnwritten = testPolicies.unwritten
        #expect(testPolicies.unwritten.keys.sorted() == ["NotWrittenYet"])
        #expect {
            try planner.plan(store: store)
        } throws: { error in
            (error as? PlanningError)?.isNoPath == true
                && "\(error)" == """
                    policy NotWrittenYet (named in \(s.migrationsFolder)/Contacts/1-to-2.yaml) is not written yet: \
                    splitName(_:) for FUNCTION($entityPolicy, 'splitName:', …); what Core Data's class does
                    """
        }
    }

    @Test func aPolicyThrowingInTheRelationshipPhaseNamesTheKey() throws {
        let s = try Self.contactsWithPolicy("FailInRelationshipPhase")
        defer { s.remove() }
        try expectFailure(
            s, to: 2, .stepFailed,
            """
            policy FailInRelationshipPhase failed on Person (source primary key 2) in createRelationships: \
            no relationship for Person 2; nothing was changed
            """)
    }

    @Test func aPolicyThrowingAtTheEndNamesNoKey() throws {
        let s = try Self.contactsWithPolicy("FailAtEnd")
        defer { s.remove() }
        try expectFailure(
            s, to: 2, .stepFailed, "policy FailAtEnd failed on Person in end: changed my mind; nothing was changed")
    }

    @Test func insertingAnObjectTwiceIsAPolicyError() throws {
        let s = try Self.contactsWithPolicy("InsertTwice")
        defer { s.remove() }
        try expectFailure(
            s, to: 2, .stepFailed,
            """
            policy InsertTwice failed on Person (source primary key 1) in createDestinationInstances: \
            Person with primary key 1 already exists (create each destination object once); nothing was changed
            """)
    }

    /// The last hop of three fails: the first two (policy functions and an inferred
    /// hop) are rolled back with it.
    @Test func aPolicyFailingInTheLastHopRollsBackTheEarlierHops() throws {
        let s = try MigrationScenario.contacts(mappings: ["1-to-2.yaml"])
        defer { s.remove() }
        try s.writeMapping("3-to-4.yaml", "entities:\n  Person:\n    policy: FailOnSourceKey\n")
        try ContactsData.seed(s)
        let plan = try s.planWithPolicies()
        #expect(
            plan.allSteps.filter { $0.kind == .policy }.map(\.summary) == ["policy FailOnSourceKey: Person → Person"])
        #expect(plan.allSteps.flatMap(\.policyFunctions).map(\.selector) == ["firstNameFrom:", "lastNameFrom:"])
        try expectFailure(
            s, .stepFailed,
            """
            policy FailOnSourceKey failed on Person (source primary key 3) in createDestinationInstances: \
            refusing 'Ana María'; nothing was changed
            """)
        #expect(try s.storeVersion() == 1)
    }

    /// A policy planned without a catalog check but missing at apply time.
    @Test func aPolicyMissingAtApplyTimeChangesNothing() throws {
        let s = try Self.contactsWithPolicy("SplitFullName")
        defer { s.remove() }
        let plan = try s.plan(to: 2)
        let before = FileSnapshot(s.storePath)
        #expect {
            try Migrator(policyRunner: PolicyEngine(catalog: PolicyCatalog([MoveCityToEntity.self]))).apply(plan)
        } throws: { error in
            (error as? MigrationError)?.kind == .stepFailed
                && "\(error)"
                    == """
                    policy 'SplitFullName' is not compiled into this migrate (available: MoveCityToEntity); nothing \
                    was changed
                    """
        }
        #expect {
            try Migrator().apply(plan)
        } throws: { error in
            "\(error)" == """
                step 4 (policy SplitFullName: Person → Person) needs policy 'SplitFullName', \
                and no policies are available to this migrator; nothing was changed
                """
        }
        #expect(FileSnapshot(s.storePath).fingerprint == before.fingerprint)
    }

    // MARK: Chains

    /// Contacts 1 → 4: a hop of policy functions, an inferred hop, a policy hop, in one transaction.
    @Test func aChainMixesPolicyAndInferredHops() throws {
        let s = try MigrationScenario.contacts()
        defer { s.remove() }
        try ContactsData.seed(s)
        let createdAt = try #require(try s.fetch("Person").first?.values["createdAt"])
        let plan = try s.planWithPolicies()
        #expect(plan.hops.map { [$0.from, $0.to] } == [[1, 2], [2, 3], [3, 4]])
        #expect(plan.hops.map { $0.mapping.mappingFile != nil } == [true, false, true])
        #expect(
            plan.allSteps.filter { $0.kind == .policy }.map(\.summary) == ["policy MoveCityToEntity: Person → Person"])
        #expect(
            plan.hops[0].steps.flatMap(\.policyFunctions).map(\.sqlName)
                == ["SplitFullName.firstNameFrom: → Person.firstName", "SplitFullName.lastNameFrom: → Person.lastName"])
        let result = try Migrator(policyRunner: PolicyEngine(catalog: testPolicies)).apply(plan)
        #expect(result.from == 1 && result.to == 4)
        #expect(try s.storeVersion() == 4)

        let cityOf: [Int64: Int64] = [1: 1, 2: 1, 3: 2, 4: 1, 7: 3]
        let postsOf: [Int64: [Int64]] = [1: [1, 3], 3: [2], 5: [4]]
        let expectedPeople = ContactsData.people.enumerated().map { offset, person in
            let key = Int64(offset + 1)
            return StoredObject(
                entity: "Person", primaryKey: key,
                values: [
                    "firstName": .string(ContactsData.split[offset].0),
                    "lastName": .string(ContactsData.split[offset].1),
                    "email": .string(person.1), "age": .integer(person.2), "createdAt": createdAt,
                ],
                relationships: [
                    "posts": postsOf[key] ?? [], "favorites": [], "livesIn": cityOf[key].map { [$0] } ?? [],
                ])
        }
        #expect(try s.fetch("Person") == expectedPeople)
        #expect(
            try s.fetch("City") == [
                StoredObject(
                    entity: "City", primaryKey: 1, values: ["name": .string("Zürich")],
                    relationships: ["residents": [1, 2, 4]]),
                StoredObject(
                    entity: "City", primaryKey: 2, values: ["name": .string("Bern")],
                    relationships: [
                        """
                        residents
                        """: [3]
                    ]),
                StoredObject(
                    entity: "City", primaryKey: 3, values: ["name": .string("new york")],
                    relationships: ["residents": [7]]),
            ])
        func post(_ key: Int64, _ title: String, _ author: Int64, _ extra: [String: AttributeValue] = [:])
            -> StoredObject
        {
            StoredObject(
                entity: "Post", primaryKey: key,
                values: ["title": .string(title), "wordCount": .integer(0), "isDraft": .boolean(false)]
                    .merging(extra) { a, _ in a }, relationships: ["author": [author], "tags": []])
        }
        #expect(
            try s.fetch("Post") == [
                post(1, "Hello", 1, ["text": .string("First post"), "rating": .double(4.5)]),
                post(2, "Hola", 3),
                post(3, "Again", 1, ["publishedAt": .date(800_000_000)]),
                post(4, "Hej", 5),
            ])
        let store = try Store.open(path: s.storePath)
        defer { try? store.close() }
        #expect(try store.readMetadata().history.map { [$0.fromVersion, $0.toVersion] } == [[1, 4]])
    }

    /// Hops without a mapping file are fused, on either side of a policy hop.
    @Test func inferredHopsAroundAPolicyHopAreFused() throws {
        let s = try MigrationScenario.contacts(mappings: ["3-to-4.yaml"])
        defer { s.remove() }
        try ContactsData.seed(s)
        let plan = try s.planWithPolicies()
        #expect(plan.hops.map { [$0.from, $0.to] } == [[1, 3], [3, 4]])
        try Migrator(policyRunner: PolicyEngine(catalog: testPolicies)).apply(plan)
        let people = try s.fetch("Person")
        #expect(people.map { $0.values["firstName"] } == Array(repeating: .string(""), count: 7))
        #expect(people.map { $0.relationships["livesIn"] } == [[1], [1], [2], [1], [], [], [3]])
        #expect(try s.fetch("Post").map { $0.relationships["author"] } == [[1], [3], [1], [5]])
    }

    // MARK: Defaults

    /// Kennel v2: both tables rebuilt by inference (a required double filled with a
    /// default, a widened integer), so that inference and a policy write the same tables.
    static let kennel = [
        Kennel.v1,
        try! edit(
            edit(Kennel.v1, "      age: integer16?\n", "      age: { type: double, default: 18 }\n"),
            "      weight: integer16?\n", "      weight: { type: double, default: 1 }\n      born: date?\n"),
    ]

    /// A policy overriding nothing copies every row exactly as inference does:
    /// values, converted values, filled defaults, to-one keys, Z_ENT and Z_OPT.
    @Test func aPolicyOverridingNothingWritesWhatInferenceWrites() throws {
        struct Result: Equatable {
            var tables: [[String]]
            var people: [StoredObject]
            var pets: [StoredObject]
        }
        func migrated(_ mapping: String?) throws -> Result {
            let s = try MigrationScenario("Kennel", versions: Self.kennel)
            defer { s.remove() }
            try Pets.seed(s)
            try s.withObjects { try $0.store.connection.execute("UPDATE ZPET SET ZWEIGHT = 7 WHERE Z_PK = 2") }
            if let mapping { try s.writeMapping("1-to-2.yaml", mapping) }
            let plan = try s.planWithPolicies()
            // One step, the hop's stages running over both mappings.
            #expect(plan.allSteps.filter { $0.kind == .policy }.map(\.policies.count) == (mapping == nil ? [] : [2]))
            try Migrator(policyRunner: PolicyEngine(catalog: testPolicies)).apply(plan)
            return Result(
                tables: [
                    try s.table("ZPERSON"), try s.table("ZPET"), try s.columns("ZPERSON"), try s.columns("ZPET"),
                    try s.keys(),
                ],
                people: try s.fetch("Person"), pets: try s.fetch("Pet"))
        }
        let inferred = try migrated(nil)
        let policy = try migrated("entities:\n  Person:\n    policy: Passthrough\n  Pet:\n    policy: Passthrough\n")
        #expect(policy == inferred)
        #expect(
            inferred.tables[0] == ["1 | 1 | 1 | 30.0 | 'Ann'", "2 | 1 | 1 | 18.0 | 'Bob'", "3 | 1 | 1 | 41.0 | 'Cy'"])
        #expect(
            inferred.tables[1] == [
                "1 | 2 | 1 | 1 | NULL | 1.0 | 'Rex'", "2 | 2 | 1 | 3 | NULL | 7.0 | 'Tom'",
                "3 | 2 | 1 | 1 | NULL | 1.0 | 'Kit'", "4 | 2 | 1 | NULL | NULL | 1.0 | 'Zed'",
            ])
    }

    /// Z_OPT (Core Data's optimistic-locking version) of a row changed since it was
    /// inserted: inference copies it.
    @Test func aPolicyOverridingNothingKeepsZOPTAsInferenceDoes() throws {
        func migrated(_ mapping: String?) throws -> [String] {
            let s = try MigrationScenario("Kennel", versions: Self.kennel)
            defer { s.remove() }
            try Pets.seed(s)
            try s.withObjects { try $0.store.connection.execute("UPDATE ZPERSON SET Z_OPT = 5 WHERE Z_PK = 2") }
            if let mapping { try s.writeMapping("1-to-2.yaml", mapping) }
            try s.migrateWithPolicies()
            return try s.rows("SELECT Z_PK, Z_OPT FROM ZPERSON ORDER BY Z_PK").map {
                $0.map { "\($0)" }.joined(separator: " ")
            }
        }
        let inferred = try migrated(nil)
        #expect(inferred == ["1 1", "2 5", "3 1"])
        let policy = try migrated("entities:\n  Person:\n    policy: Passthrough\n")
        #expect(policy == inferred)
    }

    // MARK: Phases

    @Test func phasesRunInCoreDataOrder() throws {
        let s = try MigrationScenario("Kennel", versions: Self.kennel)
        defer { s.remove() }
        try Pets.seed(s)
        try s.writeMapping("1-to-2.yaml", "entities:\n  Person:\n    policy: PhaseLog\n")
        let log = try PolicyLog.capture { try s.migrateWithPolicies() }
        #expect(
            log == [
                "begin", "create Person 1", "create Person 2", "create Person 3", "endInstanceCreation",
                "relationships Person 1", "relationships Person 2", "relationships Person 3", "endRelationshipCreation",
                "end",
            ])
    }

    @Test func usesRelationshipPhaseFalseSkipsCreateRelationships() throws {
        let s = try MigrationScenario("Kennel", versions: Self.kennel)
        defer { s.remove() }
        try Pets.seed(s)
        try s.writeMapping("1-to-2.yaml", "entities:\n  Person:\n    policy: PhaseLogWithoutRelationships\n")
        let log = try PolicyLog.capture { try s.migrateWithPolicies() }
        #expect(
            log == [
                "begin", "create Person 1", "create Person 2", "create Person 3", "endInstanceCreation",
                "endRelationshipCreation", "end",
            ])
        #expect(log.filter { $0.hasPrefix("relationships") }.count == 0)
        #expect(try s.fetch("Person").map(\.primaryKey) == [1, 2, 3])
        #expect(
            SplitFullName.usesRelationshipPhase == false && MoveCityToEntity.usesRelationshipPhase
                && Passthrough.usesRelationshipPhase)
    }

    @Test func policyNamesDefaultToTheTypeName() {
        #expect(SplitFullName.name == "SplitFullName")
        #expect(
            testPolicies.policy(named: "Passthrough").map { ObjectIdentifier($0) } == ObjectIdentifier(Passthrough.self)
        )
        #expect(testPolicies.policy(named: "Nope") == nil)
        #expect(
            PolicyCatalog([SplitFullName.self, MoveCityToEntity.self, SplitFullName.self]).names == [
                "MoveCityToEntity", "SplitFullName",
            ])
        #expect(examplePolicies.names == ["MergeMembersByEmail", "MoveCityToEntity", "RepointLoans", "SplitFullName"])
    }

    // MARK: Progress

    @Test func progressReportsRowsOfThePolicyStep() throws {
        let s = try MigrationScenario("Kennel", versions: Self.kennel)
        defer { s.remove() }
        try Pets.seed(s)
        try s.writeMapping("1-to-2.yaml", "entities:\n  Person:\n    policy: ProgressProbe\n")
        var events: [String] = []
        let log = try PolicyLog.capture {
            try s.migrateWithPolicies { event in
                switch event {
                case .rows(let done, let total): events.append("rows \(done)/\(total)")
                case .stepStarted(let index, let count, let summary, let cost):
                    events.append("step \(index)/\(count) \(summary) [\(cost)]")
                default: break
                }
            }
        }
        #expect(events.filter { $0.hasPrefix("rows") } == ["rows 3/3"])
        #expect(
            events.prefix(4) == [
                "step 1/10 create the new ZPERSON (its rows come from a policy) [O(1)]",
                "step 2/10 rebuild ZPET from ZPET (SQLite's 12-step procedure) [rewrite of 4 rows]",
                "step 3/10 policy ProgressProbe: Person → Person [policy over 3 rows]",
                "rows 3/3",
            ])
        #expect(
            log == [
                "begin (done: 0, total: 3)", "1: (done: 0, total: 3)", "2: (done: 1, total: 3)",
                "3: (done: 2, total: 3)",
                "endInstanceCreation (done: 3, total: 3)",
            ])
    }

    /// Rows are reported every 4096 objects and at the end.
    @Test func progressIsReportedEvery4096Rows() throws {
        let s = try MigrationScenario("Kennel", versions: Self.kennel)
        defer { s.remove() }
        try s.withObjects { o in
            try o.store.connection.execute(
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
                INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZNAME) SELECT i, 1, 1, 'P' || i FROM n;
                UPDATE Z_PRIMARYKEY SET Z_MAX = 5000 WHERE Z_ENT = 1
                """)
        }
        try s.writeMapping("1-to-2.yaml", "entities:\n  Person:\n    policy: Passthrough\n")
        var rows: [String] = []
        try s.migrateWithPolicies { event in
            if case .rows(let done, let total) = event { rows.append("\(done)/\(total)") }
        }
        #expect(rows == ["4096/5000", "5000/5000"])
        #expect(try s.rows("SELECT count(*), max(ZAGE) FROM ZPERSON").first == [.integer(5000), .real(18)])
    }
}

/// People and pets with a weight: Pets.v1 and an optional integer on Pet, so that
/// a later version can rebuild both tables.
enum Kennel {
    static let v1 = """
        entities:
          Person:
            attributes:
              name: string
              age: integer16?
            relationships:
              pets: { destination: Pet, toMany: true, inverse: owner }
          Pet:
            attributes:
              name: string
              weight: integer16?
            relationships:
              owner: { destination: Person, inverse: pets, optional: true }

        """
}
