import DataModel
import Foundation
import MigrationPolicies
import ModelMigration
import TestSupport
import Testing

/// On Person (Kennel 1 → 2, both tables rebuilt): keeps each person, gives each a
/// new toy Pet, and reports what the manager's association and lookup APIs return.
struct ManagerProbe: EntityMigrationPolicy {
    var sources: [SourceObject] = []

    mutating func begin(_ manager: MigrationManager) throws {
        let m = manager.currentEntityMapping
        PolicyLog.record(
            """
            begin \(m.name) \(m.source ?? "-") → \(m.destination ?? "-"), \
            versions \(manager.sourceVersion.version) → \(manager.destinationVersion.version)
            """)
        PolicyLog.record("lookup Ann: \(try manager.lookup("ann", in: "people").map(String.init) ?? "nil")")
        try manager.remember("ann", value: 42, in: "people")
        PolicyLog.record("lookup Ann: \(try manager.lookup("ann", in: "people").map(String.init) ?? "nil")")
        PolicyLog.record("lookup Ann elsewhere: \(try manager.lookup("ann", in: "pets").map(String.init) ?? "nil")")
        PolicyLog.record("lookup ANN: \(try manager.lookup("ANN", in: "people").map(String.init) ?? "nil")")
        try manager.remember("ann", value: 43, in: "people")
        PolicyLog.record("lookup Ann again: \(try manager.lookup("ann", in: "people").map(String.init) ?? "nil")")
    }

    mutating func createDestinationInstances(for source: SourceObject, in manager: MigrationManager) throws {
        sources.append(source)
        let person = try manager.createDestinationInstance(for: source)
        try manager.insert(person)
        // Another entity than the mapping's: an empty object with a new key.
        var toy = try manager.createDestinationInstance(for: source, entity: "Pet")
        #expect(toy.values == ["name": AttributeValue?.none, "weight": .double(1), "born": AttributeValue?.none])
        toy["name"] = .string("Toy of \(source.string("name") ?? "?")")
        toy.setRelationship("owner", to: person)
        try manager.insert(toy)
        PolicyLog.record("\(source.entity) \(source.primaryKey) → Person \(person.primaryKey), Pet \(toy.primaryKey)")
    }

    mutating func endInstanceCreation(_ manager: MigrationManager) throws {
        let name = manager.currentEntityMapping.name
        func list(_ found: [(entity: String, primaryKey: Int64)]) -> String {
            found.map { "\($0.entity) \($0.primaryKey)" }.joined(separator: ", ")
        }
        PolicyLog.record(
            "destinations: "
                + list(try manager.destinationInstances(forEntityMappingName: name, sourceInstances: sources)))
        PolicyLog.record(
            "destinations of Cy, Ann: "
                + list(
                    try manager.destinationInstances(
                        forEntityMappingName: name, sourceInstances: [sources[2], sources[0]])))
        PolicyLog.record(
            "destinations elsewhere: "
                + list(try manager.destinationInstances(forEntityMappingName: "PetToPet", sourceInstances: sources)))
        sources = []
    }

    mutating func createRelationships(for destination: DestinationObject, in manager: MigrationManager) throws {
        let name = manager.currentEntityMapping.name
        let found = try manager.sourceInstances(forEntityMappingName: name, destination: destination)
        let elsewhere = try manager.sourceInstances(forEntityMappingName: "PetToPet", destination: destination)
        PolicyLog.record(
            """
            \(destination.entity) \(destination.primaryKey) ← \
            \(found.map { "\($0.entity) \($0.primaryKey) \($0.string("name") ?? "?")" }) elsewhere \(elsewhere.count)
            """)
    }
}

/// On Person: keeps each person and adds a copy of it, of the same entity.
struct CloneEachPerson: EntityMigrationPolicy {
    mutating func createDestinationInstances(for source: SourceObject, in manager: MigrationManager) throws {
        try manager.insert(try manager.createDestinationInstance(for: source))
        var copy = try manager.createDestinationInstance(entity: "Person")
        copy["name"] = .string("\(source.string("name") ?? "?") (copy)")
        try manager.insert(copy)
    }
}

/// On Person: one new Pet per person, owned by it.
struct PetFactory: EntityMigrationPolicy {
    static var usesRelationshipPhase: Bool { false }
    mutating func createDestinationInstances(for source: SourceObject, in manager: MigrationManager) throws {
        try manager.insert(try manager.createDestinationInstance(for: source))
        var pet = try manager.createDestinationInstance(entity: "Pet")
        pet["name"] = .string("Toy")
        pet.setRelationship("owner", toKey: source.primaryKey)
        try manager.insert(pet)
    }
}

/// `PetFactory` for a hop that keeps Pet's table: refused.
struct StrayPetFactory: EntityMigrationPolicy {
    mutating func createDestinationInstances(for source: SourceObject, in manager: MigrationManager) throws {
        var factory = PetFactory()
        try factory.createDestinationInstances(for: source, in: manager)
    }
}

/// `MigrationManager`: creating objects (mapped values, new keys above the
/// table's), associations both ways including the implicit one-to-one, keyed lookups.
@Suite struct PolicyMigrationManagerTests {
    static func kennel(_ policy: String) throws -> MigrationScenario {
        let s = try MigrationScenario("Kennel", versions: PolicyEngineTests.kennel)
        try Pets.seed(s)
        try s.writeMapping("1-to-2.yaml", "entities:\n  Person:\n    policy: \(policy)\n")
        return s
    }

    @Test func associationsLookupsAndNewKeys() throws {
        let s = try Self.kennel("ManagerProbe")
        defer { s.remove() }
        let log = try PolicyLog.capture { try s.migrateWithPolicies() }
        #expect(
            log == [
                "begin PersonToPerson Person → Person, versions 1 → 2",
                "lookup Ann: nil", "lookup Ann: 42", "lookup Ann elsewhere: nil", "lookup ANN: nil",
                "lookup Ann again: 43",
                // Pet's table is rebuilt with its 4 pets: new keys start above them.
                "Person 1 → Person 1, Pet 5", "Person 2 → Person 2, Pet 6", "Person 3 → Person 3, Pet 7",
                // The implicit one-to-one association first, then the recorded ones.
                "destinations: Person 1, Pet 5, Person 2, Pet 6, Person 3, Pet 7",
                "destinations of Cy, Ann: Person 3, Pet 7, Person 1, Pet 5",
                "destinations elsewhere: ",
                // Own objects first, then the others, each traced back to its source.
                #"Person 1 ← ["Person 1 Ann"] elsewhere 0"#, #"Person 2 ← ["Person 2 Bob"] elsewhere 0"#,
                #"Person 3 ← ["Person 3 Cy"] elsewhere 0"#,
                #"Pet 5 ← ["Person 1 Ann"] elsewhere 0"#, #"Pet 6 ← ["Person 2 Bob"] elsewhere 0"#,
                #"Pet 7 ← ["Person 3 Cy"] elsewhere 0"#,
            ])
        #expect(
            try s.fetch("Pet").map {
                "\($0.primaryKey) \($0.values["name"]!) \($0.values["weight"]!) \($0.relationships["owner"]!)"
            } == [
                "1 Rex 1.0 [1]", "2 Tom 1.0 [3]", "3 Kit 1.0 [1]", "4 Zed 1.0 []", "5 Toy of Ann 1.0 [1]",
                "6 Toy of Bob 1.0 [2]", "7 Toy of Cy 1.0 [3]",
            ])
        #expect(try s.fetch("Person").map { $0.relationships["pets"]! } == [[1, 3, 5], [6], [2, 7]])
        #expect(try s.keys() == ["1 Person super 0 max 3", "2 Pet super 0 max 7"])
    }

    /// New keys go above the highest key already in the table, also when keys have gaps.
    @Test func newKeysGoAboveTheTablesHighestKey() throws {
        let s = try Self.kennel("PetFactory")
        defer { s.remove() }
        try s.withObjects { try $0.store.connection.execute("UPDATE ZPET SET Z_PK = 40 WHERE Z_PK = 2") }
        try s.migrateWithPolicies()
        #expect(
            try s.fetch("Pet").map { "\($0.primaryKey) \($0.values["name"]!) \($0.relationships["owner"]!)" } == [
                "1 Rex [1]", "3 Kit [1]", "4 Zed []", "40 Tom [3]", "41 Toy [1]", "42 Toy [2]", "43 Toy [3]",
            ])
        #expect(try s.keys().last == "2 Pet super 0 max 43")
    }

    /// A policy may create objects of its own entity (Docs/Policies.md): their keys must not
    /// take the keys later source objects keep.
    @Test func newObjectsOfThePolicysOwnEntityDoNotTakeLaterSourceKeys() throws {
        let s = try Self.kennel("CloneEachPerson")
        defer { s.remove() }
        try s.migrateWithPolicies()
        #expect(
            try s.fetch("Person").map { "\($0.primaryKey) \($0.values["name"]!)" } == [
                "1 Ann", "2 Bob", "3 Cy", "4 Ann (copy)", "5 Bob (copy)", "6 Cy (copy)",
            ])
    }

    @Test func objectsOfATableTheHopKeepsAreRefused() throws {
        let s = try MigrationScenario.pets(MigratorTests.ageDouble)
        defer { s.remove() }
        try s.writeMapping("1-to-2.yaml", "entities:\n  Person:\n    policy: StrayPetFactory\n")
        let plan = try s.planWithPolicies()
        let before = FileSnapshot(s.storePath)
        #expect {
            try Migrator(policyRunner: PolicyEngine(catalog: testPolicies)).apply(plan)
        } throws: { error in
            "\(error)" == """
                policy StrayPetFactory failed on Person (source primary key 1) in createDestinationInstances: \
                a policy can create objects of entities whose table this hop creates or rebuilds; \
                Pet's table is not one of them; nothing was changed
                """
        }
        #expect(FileSnapshot(s.storePath).fingerprint == before.fingerprint)
    }
}
