import DataModel
import MigrationPolicies
import ModelMigration
import TestSupport
import Testing

/// A real app's custom `NSEntityMigrationPolicy`, ported to Swift from the app's own
/// source and run as its mapping models call it: Delta (rileytestut/Delta,
/// `Delta/Database/Model/Migrations/Policies/SaveStateMigrationPolicy.swift`). Its
/// mapping models `DeltaToDelta2` and `Delta5ToDelta6` set `SaveState.type` with
/// `FUNCTION($entityPolicy, 'migrateSaveStateType:', $source.type)` and
/// `SaveState.coreIdentifier` with
/// `FUNCTION($entityPolicy, 'defaultCoreIdentifierForGameType:', $source.game.type)`;
/// `migrate import --mapping-models` writes exactly these values into the mapping
/// files below, and a skeleton of this policy. The model here is our own, of the
/// same shape (the app's model stays in its repository).
@Suite struct RealPolicyPortTests {
    /// The port, line for line. `SaveStateType` is `@objc enum SaveStateType: Int16
    /// { case auto, quick, general, locked }` in the app (`SaveState.swift`).
    struct SaveStateToSaveStateMigrationPolicy: EntityMigrationPolicy {
        static var functions: [PolicyFunction] {
            [
                // switch rawValue.intValue { case 0: .auto; case 1: .general; case 2: .locked; default: rawValue }
                PolicyFunction("migrateSaveStateType:") { arguments in
                    guard let raw = arguments.integer(0) else { return nil }
                    switch raw {
                    case 0: return .integer(0)  // SaveStateType.auto
                    case 1: return .integer(2)  // SaveStateType.general
                    case 2: return .integer(3)  // SaveStateType.locked
                    default: return .integer(raw)
                    }
                },
                // guard let system = System(gameType:) else { return nil };
                // .ds → Delta.desmumeCoreID ("com.rileytestut.DSDeltaCore"), else the
                // system's core identifier (kept out of this test: the cores live in other packages).
                PolicyFunction("defaultCoreIdentifierForGameType:") { arguments in
                    switch arguments.string(0) {
                    case "com.rileytestut.delta.game.ds": return .string("com.rileytestut.DSDeltaCore")
                    default: return nil
                    }
                },
            ]
        }
        init() {}
    }

    /// Version 1 and 2 have the same shape (Delta's hop only remaps the values of
    /// `SaveState.type`); version 3 adds `coreIdentifier`.
    static func version(coreIdentifier: Bool) -> String {
        """
        entities:
          Game:
            attributes: { name: string, type: string }
            relationships: { saveStates: { destination: SaveState, toMany: true, inverse: game } }
          SaveState:
            attributes: { name: string?, type: integer16\(coreIdentifier ? ", coreIdentifier: string?" : "") }
            relationships: { game: { destination: Game, inverse: saveStates } }

        """
    }

    static let versions = [
        version(coreIdentifier: false), version(coreIdentifier: false), version(coreIdentifier: true),
    ]

    @Test func delta_saveStatesMigrateAsTheAppsPolicyWould() throws {
        let scenario = try MigrationScenario("Delta", versions: Self.versions)
        defer { scenario.remove() }
        try scenario.writeMapping(
            "1-to-2.yaml",
            """
            entities:
              SaveState:
                policy: SaveStateToSaveStateMigrationPolicy
                properties:
                  type: { value: "FUNCTION($entityPolicy, 'migrateSaveStateType:', $source.type)" }

            """)
        try scenario.writeMapping(
            "2-to-3.yaml",
            """
            entities:
              SaveState:
                policy: SaveStateToSaveStateMigrationPolicy
                properties:
                  coreIdentifier: { value: "FUNCTION($entityPolicy, 'defaultCoreIdentifierForGameType:', \
            $source.game.type)" }

            """)
        _ = try scenario.withObjects { access in
            try access.insert(
                "Game", values: ["name": .string("Pokémon"), "type": .string("com.rileytestut.delta.game.ds")],
                primaryKey: 1)
            try access.insert(
                "Game", values: ["name": .string("Zelda"), "type": .string("com.rileytestut.delta.game.gba")],
                primaryKey: 2)
            for (key, type, game) in [(1, 0, 1), (2, 1, 1), (3, 2, 2), (4, 7, 2)] as [(Int64, Int64, Int64)] {
                try access.insert(
                    "SaveState", values: ["type": .integer(type)], relationships: ["game": [game]], primaryKey: key)
            }
        }
        try scenario.migrate(policies: PolicyCatalog([SaveStateToSaveStateMigrationPolicy.self]))
        #expect(try scenario.storeVersion() == 3)
        let states = try scenario.fetch("SaveState")
        #expect(states.map(\.primaryKey) == [1, 2, 3, 4])
        // 0 → auto (0), 1 → general (2), 2 → locked (3), anything else unchanged.
        #expect(states.map { $0.values["type"] } == [.integer(0), .integer(2), .integer(3), .integer(7)])
        // A DS game's save states get DeSmuME's core; a system the port does not know, nil.
        #expect(
            states.map { $0.values["coreIdentifier"] } == [
                .string("com.rileytestut.DSDeltaCore"), .string("com.rileytestut.DSDeltaCore"), nil, nil,
            ])
        #expect(states.map { $0.relationships["game"] } == [[1], [1], [2], [2]])
    }
}
