import DataModel
import Foundation
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// A unique index over values no requirement can read before the hop (a mapping
/// file's computed `value:`, or siblings' values moved up to their parent): SQLite
/// refuses to create it, and the apply refuses the store's data (exit 4), naming
/// the objects, with the store unchanged (outside tester's F2).
@Suite struct UniqueIndexRefusalTests {
    func expectRefused(_ s: MigrationScenario, naming rows: String) throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: s.storePath))
        let error = try #require(throws: MigrationError.self) { try s.migrate() }
        #expect(error.kind == .dataRefused)
        #expect(
            "\(error)".contains("the values this hop writes are held by several objects: 1 row: \(rows)"), "\(error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: s.storePath)) == before)
    }

    @Test func aComputedValueUnderANewUniquenessConstraintIsRefusedNamingTheObjects() throws {
        let s = try MigrationScenario(
            "U",
            versions: [
                "entities: {P: {attributes: {key: string}}, C: {parent: P, attributes: {y: string?}}}",
                """
                entities: {P: {attributes: {key: string}}, C: {parent: P, attributes: {y: string?, k: string?}, \
                uniqueness: [[k]]}}
                """,
            ])
        defer { s.remove() }
        try s.writeMapping(
            "1-to-2.yaml", "entities:\n  C:\n    properties:\n      k: { value: \"lowercase:($source.key)\" }\n")
        try s.withObjects { o in
            try o.insert("P", values: ["key": .string("a")])
            try o.insert("C", values: ["key": .string("A")])
            try o.insert("C", values: ["key": .string("a")])
        }
        try expectRefused(s, naming: "'a' × 2 (Z_PK 2, 3)")
    }

    @Test func siblingsValuesMovedUpUnderAUniquenessConstraintAreRefusedNamingTheObjects() throws {
        let s = try MigrationScenario(
            "U",
            versions: [
                """
                entities: {P: {attributes: {key: string}}, C: {parent: P, attributes: {k: string?}}, D: {parent: P, \
                attributes: {k: string?}}}
                """,
                """
                entities: {P: {attributes: {key: string, k: string?}, uniqueness: [[k]]}, C: {parent: P}, D: {parent: \
                P}}
                """,
            ])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("C", values: ["key": .string("c1"), "k": .string("same")])
            try o.insert("D", values: ["key": .string("d2"), "k": .string("same")])
        }
        try expectRefused(s, naming: "'same' × 2 (Z_PK 1, 2)")
    }

    /// The same move with a default on the moved attribute and distinct values
    /// (fuzzer case move-up-unique): it migrates with the values; the plan counted
    /// the parent's default for every row and refused it.
    @Test func distinctValuesMovedUpWithADefaultMigrate() throws {
        let x = "x: {type: integer16, optional: true, default: 5}"
        let s = try MigrationScenario(
            "U",
            versions: [
                """
                entities: {P: {attributes: {key: string}}, C: {parent: P, attributes: {\(x)}}, D: {parent: P, \
                attributes: {x: integer16?}}}
                """,
                "entities: {P: {attributes: {key: string, \(x)}, uniqueness: [[x]]}, C: {parent: P}, D: {parent: P}}",
            ])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("C", values: ["key": .string("c1"), "x": .integer(1)])
            try o.insert("D", values: ["key": .string("d1"), "x": .integer(2)])
        }
        try s.migrate(verify: true)
        #expect(try s.fetch("P").map { $0.values["x"] } == [.integer(1), .integer(2)])
    }
}
