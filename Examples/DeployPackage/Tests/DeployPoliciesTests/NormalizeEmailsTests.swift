import DataModel
import DeployPolicies
import ModelMigration
import TestSupport
import Testing

/// A deploy package tests its own policy end to end on a small store, with
/// ModelMigration's TestSupport: models and a mapping file in a temporary folder,
/// objects inserted, the migration run with the package's catalog, rows read back.
@Suite struct NormalizeEmailsTests {
    static let versions = [
        """
        entities:
          Person:
            attributes: { name: string, email: string? }

        """,
        """
        entities:
          Person:
            attributes: { name: string, email: string?, nickname: string? }

        """,
    ]

    @Test func emailsAreTrimmedAndLowerCased() throws {
        let scenario = try MigrationScenario("People", versions: Self.versions)
        defer { scenario.remove() }
        try scenario.writeMapping("1-to-2.yaml", "entities:\n  Person:\n    policy: NormalizeEmails\n")
        _ = try scenario.withObjects { access in
            try access.insert(
                "Person", values: ["name": .string("Ann"), "email": .string("  Ann@Example.COM ")], primaryKey: 1)
            try access.insert("Person", values: ["name": .string("Bob"), "email": nil], primaryKey: 2)
        }
        try scenario.migrate(policies: deployPolicies)
        #expect(try scenario.storeVersion() == 2)
        let people = try scenario.fetch("Person")
        #expect(people.map(\.primaryKey) == [1, 2])
        #expect(
            people.map(\.values) == [
                ["name": .string("Ann"), "email": .string("ann@example.com")], ["name": .string("Bob")],
            ])
    }

    @Test func aDuplicateAddressRefusesAndChangesNothing() throws {
        let scenario = try MigrationScenario("People", versions: Self.versions)
        defer { scenario.remove() }
        try scenario.writeMapping("1-to-2.yaml", "entities:\n  Person:\n    policy: NormalizeEmails\n")
        _ = try scenario.withObjects { access in
            try access.insert(
                "Person", values: ["name": .string("Ann"), "email": .string("ann@example.com")], primaryKey: 1)
            try access.insert(
                "Person", values: ["name": .string("Ann B"), "email": .string("ANN@example.com")], primaryKey: 2)
        }
        let before = try StoreDump.dump(scenario.storePath)
        #expect(throws: (any Error).self) { try scenario.migrate(policies: deployPolicies) }
        #expect(try scenario.storeVersion() == 1)
        #expect(try StoreDump.dump(scenario.storePath) == before)
    }
}
