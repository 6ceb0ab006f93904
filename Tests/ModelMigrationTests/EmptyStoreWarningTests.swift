import Foundation
import ModelMigration
import TestSupport
import Testing

/// A store that holds no objects loses nothing: the destructive warnings no count can
/// back (a to-many made one side of a one-to-one: "other pairings are cleared") are
/// gone from its plan, so a deploy's `--fail-on-destructive` passes a new, empty store
/// (pecunia-client's history from version 3 to 19 was refused on one). With objects,
/// the warning stays (one pet each: several would refuse the hop).
@Suite struct EmptyStoreWarningTests {
    static let v1 = """
        entities:
          Owner:
            attributes: { name: string? }
            relationships:
              pets: { destination: Pet, toMany: true, inverse: owner }
          Pet:
            attributes: { name: string? }
            relationships:
              owner: { destination: Owner, optional: true, inverse: pets }

        """
    static let v2 = v1.replacingOccurrences(
        of: "pets: { destination: Pet, toMany: true, inverse: owner }",
        with: "pets: { destination: Pet, optional: true, inverse: owner }")

    static let warning = "become a one-to-one: each object keeps at most one partner"

    @Test func anEmptyStoreHasNoDestructiveWarning() throws {
        let s = try MigrationScenario("Owners", versions: [Self.v1, Self.v2])
        defer { s.remove() }
        let plan = try s.plan()
        #expect(!plan.warnings.contains { $0.isDestructive }, "\(plan.warnings)")
        let gate = try CommandRunner.migrate([
            "apply", s.storePath, "--models", s.modelsFolder, "--migrations", s.migrationsFolder,
            "--fail-on-destructive",
        ])
        #expect(gate.status == 0, "\(gate)")
        #expect(try s.storeVersion() == 2)
    }

    @Test func aStoreWithObjectsKeepsTheWarning() throws {
        let s = try MigrationScenario("Owners", versions: [Self.v1, Self.v2])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Owner", values: ["name": .string("Ann")])
            try o.insert("Pet", values: ["name": .string("Rex")], relationships: ["owner": [1]])
            try o.insert("Pet", values: ["name": .string("Tom")])
        }
        let plan = try s.plan()
        #expect(plan.warnings.contains { $0.isDestructive && $0.message.contains(Self.warning) }, "\(plan.warnings)")
        let gate = try CommandRunner.migrate([
            "apply", s.storePath, "--models", s.modelsFolder, "--migrations", s.migrationsFolder,
            "--fail-on-destructive",
        ])
        #expect(gate.status == 6, "\(gate)")
        #expect(try s.storeVersion() == 1)
    }
}
