import DataModel
import DeployPolicies
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// An application opens its store through the public API alone (no SQLite type in
/// sight): models loaded from YAML, `StoreOpener` migrating automatically with the
/// package's policies, objects read back as model values.
@Suite struct ApplicationTests {
    @Test func openingAnOlderStoreMigratesItWithThePackagesPolicies() throws {
        let scenario = try MigrationScenario("People", versions: NormalizeEmailsTests.versions)
        defer { scenario.remove() }
        try scenario.writeMapping("1-to-2.yaml", "entities:\n  Person:\n    policy: NormalizeEmails\n")
        _ = try scenario.withObjects { access in
            try access.insert(
                "Person", values: ["name": .string("Ann"), "email": .string(" ANN@example.com")], primaryKey: 1)
        }
        let model = try ModelLoader.loadModel(path: scenario.modelsFolder, named: "People")
        let opener = StoreOpener(
            model: model, migrationsFolder: scenario.migrationsFolder,
            policyRunner: PolicyEngine(catalog: deployPolicies), policyNames: Set(deployPolicies.names))
        let store = try opener.open(path: scenario.storePath)
        defer { try? store.close() }
        #expect(try store.readMetadata().modelVersion == 2)
        let people = try ObjectAccess(store: store, version: model.current).fetch("Person")
        #expect(people.map(\.values) == [["name": .string("Ann"), "email": .string("ann@example.com")]])
    }
}
