import DataModel
import ModelMigration
import TestSupport
import Testing

/// After every apply, references resolve and counts hold, whatever removed or
/// re-keyed the objects they point to: a mapping file's filter, a policy's merge.
@Suite struct ReferenceIntegrityTests {
    static let member =
        """
        Member: {attributes: {name: string}, relationships: {loans: {destination: Loan, toMany: true, inverse: \
        member%@}}}
        """
    static let loan =
        "Loan: {attributes: {title: string}, relationships: {member: {destination: Member, inverse: loans}}}"

    static func library(loans rule: String) throws -> MigrationScenario {
        let versions = ["", rule].map { "entities: {\(member.replacingOccurrences(of: "%@", with: $0)), \(loan)}" }
        let s = try MigrationScenario("Library", versions: versions)
        try s.withObjects { o in
            try o.insert("Member", values: ["name": .string("Ann")])
            try o.insert("Member", values: ["name": .string("Bob")])
            try o.insert("Loan", values: ["title": .string("old")], relationships: ["member": [1]])
            try o.insert("Loan", values: ["title": .string("new")], relationships: ["member": [2]])
        }
        try s.writeMapping("1-to-2.yaml", "entities:\n  Loan:\n    filter: \"title != 'old'\"\n")
        return s
    }

    /// A filter that leaves a member fewer loans than its `minCount` refuses the hop
    /// at plan (the members the filter keeps are counted), as Core Data's validation
    /// stage refuses it; nothing is changed.
    @Test func aFilterCannotEmptyARequiredToMany() throws {
        let s = try Self.library(loans: ", optional: false, minCount: 1")
        defer { s.remove() }
        let error = try #require(throws: PlanningError.self) { try s.migrate() }
        #expect(
            "\(error)".contains("Member.loans needs at least 1 objects, and stored objects have fewer: 1 row: Z_PK 1"),
            "\(error)")
        #expect(try s.storeVersion() == 1)
        #expect(try s.rows("SELECT count(*) FROM ZLOAN")[0][0].int64 == 2)
    }

    /// An optional to-many with a `minCount` may be left empty (Docs/Objects.md).
    @Test func aFilterMayEmptyAnOptionalToMany() throws {
        let s = try Self.library(loans: ", minCount: 1")
        defer { s.remove() }
        try s.migrate()
        #expect(try s.rows("SELECT Z_PK, ZMEMBER FROM ZLOAN ORDER BY Z_PK").map { $0.map(\.int64) } == [[2, 2]])
    }
}

/// A mapping file's values are set as computed, as `NSPropertyMapping.valueExpression`
/// is: only inference turns a nil into the default of a required attribute.
@Suite struct MappingFileValueTests {
    static func scenario(n: AttributeValue?) throws -> MigrationScenario {
        let version = "entities: {A: {attributes: {key: string, n: integer16?, m: {type: integer32, default: 5}}}}"
        let s = try MigrationScenario("Fz", versions: [version, version])
        try s.withObjects { o in try o.insert("A", values: ["key": .string("A1"), "n": n, "m": .integer(7)]) }
        try s.writeMapping("1-to-2.yaml", "entities:\n  A:\n    properties:\n      m: $source.n\n")
        return s
    }

    /// `m: $source.n` with n nil: validation refuses the nil (nothing changed), where
    /// it used to put m's default.
    @Test func aWidenedCopyOfNilIntoARequiredAttributeIsRefused() throws {
        let s = try Self.scenario(n: nil)
        defer { s.remove() }
        #expect(throws: (any Error).self) { try s.migrate() }
        #expect(try s.storeVersion() == 1)
    }

    @Test func aWidenedCopyOfAValueIsCopied() throws {
        let s = try Self.scenario(n: .integer(3))
        defer { s.remove() }
        try s.migrate()
        #expect(try s.rows("SELECT ZM FROM ZA").map { $0[0].int64 } == [3])
    }
}
