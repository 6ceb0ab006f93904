import DataModel
import Foundation
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// People and their pets, the model most migration tests change: rows on both sides
/// of a one-to-many relationship, an optional attribute holding some nils.
enum Pets {
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
            relationships:
              owner: { destination: Person, inverse: pets, optional: true }

        """

    /// Ann (30) owns Rex and Kit, Bob (no age) owns nothing, Cy (41) owns Tom; Zed
    /// has no owner. Primary keys follow insertion order.
    static func seed(_ scenario: MigrationScenario) throws {
        try scenario.withObjects { o in
            try o.insert("Person", values: ["name": .string("Ann"), "age": .integer(30)])
            try o.insert("Person", values: ["name": .string("Bob")])
            try o.insert("Person", values: ["name": .string("Cy"), "age": .integer(41)])
            try o.insert("Pet", values: ["name": .string("Rex")], relationships: ["owner": [1]])
            try o.insert("Pet", values: ["name": .string("Tom")], relationships: ["owner": [3]])
            try o.insert("Pet", values: ["name": .string("Kit")], relationships: ["owner": [1]])
            try o.insert("Pet", values: ["name": .string("Zed")])
        }
    }

    /// The people as seeded, with `age` read under `ageName` (nil: not there).
    static func people(
        ageName: String? = "age", extra: [String: AttributeValue] = [:], bobAge: AttributeValue? = nil,
        pets: String = "pets"
    ) -> [StoredObject] {
        func person(_ key: Int64, _ name: String, _ age: AttributeValue?, _ owned: [Int64]) -> StoredObject {
            var values: [String: AttributeValue] = ["name": .string(name)].merging(extra) { a, _ in a }
            if let ageName, let age { values[ageName] = age }
            return StoredObject(entity: "Person", primaryKey: key, values: values, relationships: [pets: owned])
        }
        return [
            person(1, "Ann", .integer(30), [1, 3]), person(2, "Bob", bobAge, []), person(3, "Cy", .integer(41), [2]),
        ]
    }

    /// The pets as seeded, under entity `entity` with the owner relationship `owner`.
    static func pets(entity: String = "Pet", owner: String = "owner") -> [StoredObject] {
        [("Rex", [1]), ("Tom", [3]), ("Kit", [1]), ("Zed", [])].enumerated().map { offset, pet in
            StoredObject(
                entity: entity, primaryKey: Int64(offset + 1), values: ["name": .string(pet.0)],
                relationships: [owner: pet.1])
        }
    }

    /// `Z_PRIMARYKEY` after seeding: Person 1 (3 keys used), Pet 2 (4 keys used).
    static let keys = ["1 Person super 0 max 3", "2 Pet super 0 max 4"]

    /// The SQL of the step that keeps `Z_PRIMARYKEY` in step with the tables, for
    /// plans where Person (1) and Pet (2) keep their tables.
    static let keySQL = [
        "UPDATE Z_PRIMARYKEY SET Z_NAME = 'Person', Z_SUPER = 0 WHERE Z_ENT = 1",
        "UPDATE Z_PRIMARYKEY SET Z_NAME = 'Pet', Z_SUPER = 0 WHERE Z_ENT = 2",
        #"UPDATE Z_PRIMARYKEY SET Z_MAX = max(Z_MAX, coalesce((SELECT max(Z_PK) FROM "ZPERSON"), 0)) WHERE Z_ENT = 1"#,
        #"UPDATE Z_PRIMARYKEY SET Z_MAX = max(Z_MAX, coalesce((SELECT max(Z_PK) FROM "ZPET"), 0)) WHERE Z_ENT = 2"#,
    ]
}

/// `text` with `old` replaced by `new`; fails when `old` is not there (so that a
/// test never silently migrates between two equal versions).
func edit(_ text: String, _ old: String, _ new: String, sourceLocation: Testing.SourceLocation = #_sourceLocation)
    throws -> String
{
    try #require(text.contains(old), "\(old) not found", sourceLocation: sourceLocation)
    return text.replacingOccurrences(of: old, with: new)
}

extension MigrationScenario {
    /// A scenario of the Pets model (v1 plus later versions) with the seeded rows.
    static func pets(_ later: String...) throws -> MigrationScenario {
        let scenario = try MigrationScenario("Pets", versions: [Pets.v1] + later)
        try Pets.seed(scenario)
        return scenario
    }

    /// `Z_PRIMARYKEY` as "number name super parent max maxKey" lines, by number.
    func keys() throws -> [String] {
        try entityKeys().map { "\($0.number) \($0.name) super \($0.parent) max \($0.maxKey)" }
    }

    /// Index names on a table, sorted.
    func indexes(on table: String) throws -> [String] {
        try rows(
            """
            SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = '\(table)' AND name NOT LIKE \
            'sqlite_autoindex%' ORDER BY name
            """
        )
        .map { $0[0].string ?? "" }
    }

    /// User table names, sorted.
    func tables() throws -> [String] {
        try rows("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").map { $0[0].string ?? "" }
    }
}

extension MigrationPlan {
    /// Kinds of every step, in order.
    var kinds: [MigrationStep.Kind] { allSteps.map(\.kind) }

    /// Every SQL statement of every step, in order.
    var allSQL: [String] { allSteps.flatMap(\.sql) }
}

/// Applies `plan`, expecting a `MigrationError` of `kind` with `message` (and the
/// failed SQL `statement`, kept apart from the message); the store
/// must be exactly as before, with no side file.
func expectFailure(
    _ s: MigrationScenario, _ plan: MigrationPlan, options: Migrator.Options = Migrator.Options(),
    migrator: Migrator = Migrator(),
    _ kind: MigrationError.Kind, _ message: String, statement: String? = nil,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) throws {
    let before = FileSnapshot(s.storePath)
    #expect(before.sideFiles == [], sourceLocation: sourceLocation)
    #expect(sourceLocation: sourceLocation) {
        try migrator.apply(plan, options: options)
    } throws: { error in
        guard let error = error as? MigrationError else { return false }
        #expect(error.kind == kind, sourceLocation: sourceLocation)
        #expect(error.message == message, sourceLocation: sourceLocation)
        #expect(error.statement == statement, sourceLocation: sourceLocation)
        return true
    }
    #expect(
        FileSnapshot(s.storePath).fingerprint == before.fingerprint, "the store changed", sourceLocation: sourceLocation
    )
    #expect(try s.directory.contents() == ["Migrations", "Models", "store.sqlite"], sourceLocation: sourceLocation)
}

extension MigrationStep {
    /// The copy of a table built anew (`rebuildTable`, `fillJoinTable`), else nil.
    var tableCopy: TableCopy? {
        switch self {
        case .rebuildTable(let copy), .fillJoinTable(let copy): copy
        default: nil
        }
    }

    /// The policy functions a copy calls (none for other steps).
    var policyFunctions: [PolicyFunctionCall] { tableCopy?.policyFunctions ?? [] }

    /// The count query a copy's rows are checked against.
    var expectedRowsSQL: String? { tableCopy?.expectedRows?.sql }

    /// The invocations of a policy step (none for other steps).
    var policies: [PolicyInvocation] {
        if case .policy(let stage) = self { stage.policies } else { [] }
    }
}
