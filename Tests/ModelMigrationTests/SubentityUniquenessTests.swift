import DataModel
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// A new uniqueness constraint on a subentity binds that subentity's objects only,
/// as the partial unique index the toolkit builds (`WHERE Z_ENT IN (…)`) and `load`
/// do: the parent's and siblings' objects sharing the table's column are not
/// compared (outside tester's finding F5).
@Suite struct SubentityUniquenessTests {
    static let v1 =
        "entities: {P: {attributes: {key: string}}, C: {parent: P, attributes: {y: string?}}, D: {parent: P}}"
    static let v2 =
        """
        entities: {P: {attributes: {key: string}}, C: {parent: P, attributes: {y: string?}, uniqueness: [[key]]}, D: \
        {parent: P}}
        """

    static func scenario(_ objects: [(String, String)]) throws -> MigrationScenario {
        let s = try MigrationScenario("U", versions: [v1, v2])
        try s.withObjects { o in
            for (entity, key) in objects { try o.insert(entity, values: ["key": .string(key)]) }
        }
        return s
    }

    @Test func onlyTheSubentitysObjectsAreCompared() throws {
        let s = try Self.scenario([("P", "k"), ("C", "k"), ("D", "k"), ("C", "j")])
        defer { s.remove() }
        try s.migrate(verify: true)
        #expect(try s.rows("SELECT Z_PK, ZKEY FROM ZP ORDER BY Z_PK").map { $0[1].string } == ["k", "k", "k", "j"])
    }

    @Test func theSubentitysOwnDuplicatesStillRefuse() throws {
        let s = try Self.scenario([("P", "k"), ("C", "k"), ("C", "k")])
        defer { s.remove() }
        let error = try #require(throws: (any Error).self) { try s.plan() }
        #expect(
            "\(error)".contains(
                "is new on ZP, and stored values are held by several objects: 1 row: 'k' × 2 (Z_PK 2, 3)"), "\(error)")
    }
}
