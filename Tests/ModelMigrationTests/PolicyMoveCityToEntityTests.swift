import DataModel
import Foundation
import Migrations
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// `MoveCityToEntity` (Contacts 3 → 4, `Migrations/Contacts/3-to-4.yaml`): one City
/// per distinct trimmed, case-insensitive name, named as first seen; empty and
/// missing cities give no City; `Person.livesIn` and `City.residents` agree.
@Suite struct PolicyMoveCityToEntityTests {
    /// Cities of people 1 to 11, in key order.
    static let cities: [String?] = [
        " zürich ", "Zürich", "ZÜRICH", "Bern", "", nil, "   \t", "New   York", "new york", "bern\n", "Genève",
    ]

    /// A Contacts 3 store with a person per city (keys 1 to 11), two posts by
    /// person 4 and a favourite product of people 1 and 4.
    static func scenario() throws -> MigrationScenario {
        let s = try MigrationScenario.contacts(storeVersion: 3, mappings: ["3-to-4.yaml"])
        try s.withObjects { o in
            for (offset, city) in cities.enumerated() {
                var values: [String: AttributeValue?] = [
                    "firstName": .string("P\(offset + 1)"), "email": .string("p\(offset + 1)@example.com"),
                ]
                if let city { values["city"] = .string(city) }
                try o.insert("Person", values: values)
            }
            try o.insert("Post", values: ["title": .string("One")], relationships: ["author": [4]])
            try o.insert(
                "Post", values: ["title": .string("Two"), "text": .string("…")], relationships: ["author": [4]])
            try o.insert(
                "FavoriteProduct", values: ["name": .string("Tea"), "sku": .string("T-1")],
                relationships: ["fans": [1, 4]])
        }
        return s
    }

    @Test func oneCityPerDistinctNameAndEveryPersonPointsAtIt() throws {
        let s = try Self.scenario()
        defer { s.remove() }
        let before = try s.fetch("Person")
        let plan = try s.planWithPolicies()
        #expect(plan.hops.map { [$0.from, $0.to] } == [[3, 4]])
        #expect(
            plan.allSteps.filter { $0.kind == .policy }.map(\.summary) == ["policy MoveCityToEntity: Person → Person"])
        try Migrator(policyRunner: PolicyEngine(catalog: testPolicies)).apply(plan)
        #expect(try s.storeVersion() == 4)

        // Trimmed, collapsed, case-insensitive; named as first seen (person 1's " zürich ").
        #expect(
            try s.fetch("City") == [
                StoredObject(
                    entity: "City", primaryKey: 1, values: ["name": .string("zürich")],
                    relationships: ["residents": [1, 2, 3]]),
                StoredObject(
                    entity: "City", primaryKey: 2, values: ["name": .string("Bern")],
                    relationships: ["residents": [4, 10]]),
                StoredObject(
                    entity: "City", primaryKey: 3, values: ["name": .string("New York")],
                    relationships: ["residents": [8, 9]]),
                StoredObject(
                    entity: "City", primaryKey: 4, values: ["name": .string("Genève")],
                    relationships: ["residents": [11]]),
            ])
        let people = try s.fetch("Person")
        #expect(people.map { $0.relationships["livesIn"] } == [[1], [1], [1], [2], [], [], [], [3], [3], [2], [4]])
        // Everything else of a person is as before, city aside.
        #expect(
            people.map { person in
                var person = person
                person.relationships["livesIn"] = nil
                return person
            }
                == before.map { person in
                    var person = person
                    person.values["city"] = nil
                    return person
                })
        #expect(people[3].relationships["posts"] == [1, 2])
        #expect(people[0].relationships["favorites"] == [1] && people[3].relationships["favorites"] == [1])
        #expect(try s.fetch("Post").map { $0.relationships["author"] } == [[4], [4]])
        #expect(try s.fetch("FavoriteProduct").first?.relationships["fans"] == [1, 4])

        // City keys are in Z_PRIMARYKEY: the next City gets 5.
        #expect(try s.keys().contains { $0.hasSuffix(" City super 0 max 4") })
        let key = try s.withObjects { try $0.insert("City", values: ["name": .string("Basel")]) }
        #expect(key == 5)
    }

    @Test func peopleWithoutACityGetNoCity() throws {
        let s = try MigrationScenario.contacts(storeVersion: 3, mappings: ["3-to-4.yaml"])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Person", values: ["email": .string("a@example.com")])
            try o.insert("Person", values: ["email": .string("b@example.com"), "city": .string(" \u{00A0}\n")])
        }
        try s.migrateWithPolicies()
        #expect(try s.fetch("City") == [])
        #expect(try s.fetch("Person").map { $0.relationships["livesIn"] } == [[], []])
    }

    @Test func anEmptyStoreMigrates() throws {
        let s = try MigrationScenario.contacts(storeVersion: 3, mappings: ["3-to-4.yaml"])
        defer { s.remove() }
        try s.migrateWithPolicies()
        #expect(try s.storeVersion() == 4)
        #expect(try s.fetch("Person") == [] && s.fetch("City") == [])
    }
}
