import DataModel
import Foundation
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// A stages-form policy on an entity whose attribute changes type in a way inference
/// refuses (narrowing, unrelated): the default destination instance carries the
/// source value, as Core Data's default `createDestinationInstances` applies the
/// property mapping `$source.x`, converted where it fits; a value that does not fit
/// fails the apply naming entity, attribute and source row, the store unchanged.
@Suite struct PolicyTypeChangeTests {
    static let policyMapping = "entities:\n  Item:\n    policy: Passthrough\n"

    /// Version 1 with `attribute` of type `from`, version 2 with `to`; rows of values.
    func scenario(from: String, to: String, values: [AttributeValue?]) throws -> MigrationScenario {
        let s = try MigrationScenario(
            "Stock",
            versions: [
                "entities:\n  Item:\n    attributes:\n      label: string\n      count: \(from)\n",
                "entities:\n  Item:\n    attributes:\n      label: string\n      count: \(to)\n",
            ])
        try s.withObjects { o in
            for (i, value) in values.enumerated() {
                var row: [String: AttributeValue] = ["label": .string("item \(i + 1)")]
                if let value { row["count"] = value }
                try o.insert("Item", values: row)
            }
        }
        try s.writeMapping("1-to-2.yaml", Self.policyMapping)
        return s
    }

    func counts(_ s: MigrationScenario) throws -> [String] {
        try s.rows("SELECT Z_PK, ZCOUNT, typeof(ZCOUNT) FROM ZITEM ORDER BY Z_PK").map {
            $0.map { "\($0)" }.joined(separator: " ")
        }
    }

    /// Applies and expects the failure `message`, with the store byte for byte as before.
    func expectRefusal(_ s: MigrationScenario, _ message: String) throws {
        let before = FileSnapshot(s.storePath).fingerprint
        let plan = try s.planWithPolicies()
        #expect {
            try Migrator(policyRunner: PolicyEngine(catalog: testPolicies)).apply(plan)
        } throws: { error in
            "\(error)" == message
        }
        #expect(FileSnapshot(s.storePath).fingerprint == before)
        #expect(try s.storeVersion() == 1)
    }

    @Test func aNarrowedIntegerThatFitsIsCarried() throws {
        let s = try scenario(
            from: "integer32", to: "integer16", values: [.integer(7), .integer(-32768), .integer(32767)])
        defer { s.remove() }
        try s.migrateWithPolicies()
        #expect(try s.storeVersion() == 2)
        #expect(try counts(s) == ["1 7 'integer'", "2 -32768 'integer'", "3 32767 'integer'"])
    }

    @Test func aNarrowedIntegerOutOfRangeFailsNamingItsRow() throws {
        let s = try scenario(from: "integer32", to: "integer16", values: [.integer(7), .integer(70000)])
        defer { s.remove() }
        try expectRefusal(
            s,
            """
            policy Passthrough failed on Item (source primary key 2) in createDestinationInstances: \
            Item.count: 70000 is out of range for integer16 (-32768...32767); nothing was changed
            """)
    }

    @Test func aNumericStringBecomesAnIntegerAndAnotherTextFails() throws {
        let ok = try scenario(
            from: "string", to: "integer32", values: [.string("12"), .string(" -3 "), .string("4.0")])
        defer { ok.remove() }
        try ok.migrateWithPolicies()
        #expect(try counts(ok) == ["1 12 'integer'", "2 -3 'integer'", "3 4 'integer'"])

        let bad = try scenario(from: "string", to: "integer32", values: [.string("12"), .string("many")])
        defer { bad.remove() }
        try expectRefusal(
            bad,
            """
            policy Passthrough failed on Item (source primary key 2) in createDestinationInstances: \
            Item.count: "many" is not a value of type integer32; nothing was changed
            """)
    }

    @Test func aDoubleWithAFractionFailsAndAWholeOneIsCarried() throws {
        let ok = try scenario(from: "double", to: "integer64", values: [.double(3), .double(-2e15)])
        defer { ok.remove() }
        try ok.migrateWithPolicies()
        #expect(try counts(ok) == ["1 3 'integer'", "2 -2000000000000000 'integer'"])

        let bad = try scenario(from: "double", to: "integer64", values: [.double(3), .double(2.5)])
        defer { bad.remove() }
        try expectRefusal(
            bad,
            """
            policy Passthrough failed on Item (source primary key 2) in createDestinationInstances: \
            Item.count: 2.5 is not a whole number, which integer64 holds; nothing was changed
            """)
    }

    @Test func aNilForANowRequiredNarrowedAttributeFailsNamingItsRow() throws {
        let s = try scenario(from: "integer32?", to: "integer16", values: [.integer(5), nil])
        defer { s.remove() }
        try expectRefusal(
            s,
            """
            policy Passthrough: Item 2 has no value for required Item.count (its source object had none, or the policy \
            set none: set it in the policy, or give the attribute a default); nothing was changed
            """)
        // With a default, the nil takes it, as inference fills an optional → required change.
        let filled = try scenario(
            from: "integer32?", to: "{ type: integer16, default: 9 }", values: [.integer(5), nil])
        defer { filled.remove() }
        try filled.migrateWithPolicies()
        #expect(try counts(filled) == ["1 5 'integer'", "2 9 'integer'"])
    }
}
