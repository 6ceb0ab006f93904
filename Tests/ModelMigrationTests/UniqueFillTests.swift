import DataModel
import ModelMigration
import TestSupport
import Testing

/// Uniqueness and the nils a hop fills with a default: the filled value is what is
/// compared, and a constraint the hop removes does not refuse the fill.
@Suite struct UniqueFillTests {
    static let composite = [
        "entities: {B: {attributes: {key: string, s: string?, n: integer16}}}",
        "entities: {B: {attributes: {key: string, s: {type: string, default: a}, n: integer16}, uniqueness: [[s, n]]}}",
    ]

    /// Uniqueness [s, n] added while s's nils take 'a': (x, 1) and (a, 1) differ.
    @Test func aCompositeConstraintComparesTheFilledValue() throws {
        let s = try MigrationScenario(
            "Fz",
            versions: Self.composite)
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("B", values: ["key": .string("B1"), "s": .string("x"), "n": .integer(1)])
            try o.insert("B", values: ["key": .string("B2"), "s": nil, "n": .integer(1)])
        }
        try s.migrate()
        #expect(try s.rows("SELECT ZKEY || ' ' || ZS FROM ZB ORDER BY Z_PK").map { $0[0].string } == ["B1 x", "B2 a"])
    }

    /// The same with B2 holding ('a', 1) already: the fill makes a duplicate, refused
    /// at plan naming the values.
    @Test func aCompositeDuplicateMadeByTheFillIsRefused() throws {
        let s = try MigrationScenario(
            "Fz",
            versions: Self.composite)
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("B", values: ["key": .string("B1"), "s": .string("a"), "n": .integer(1)])
            try o.insert("B", values: ["key": .string("B2"), "s": nil, "n": .integer(1)])
        }
        let error = try #require(throws: (any Error).self) { try s.migrate() }
        #expect("\(error)".contains("'a', 1 × 2 (Z_PK 1, 2)"), "\(error)")
        #expect(try s.storeVersion() == 1)
    }

    /// Uniqueness on n dropped while n's nils take 5: two objects may hold 5 now.
    @Test func aConstraintTheHopRemovesDoesNotRefuseTheFill() throws {
        let s = try MigrationScenario(
            "Fz",
            versions: [
                "entities: {A: {attributes: {key: string, n: integer16?}, uniqueness: [[n]]}}",
                "entities: {A: {attributes: {key: string, n: {type: integer16, default: 5}}}}",
            ])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("A", values: ["key": .string("A1"), "n": nil])
            try o.insert("A", values: ["key": .string("A2"), "n": nil])
        }
        try s.migrate()
        #expect(try s.rows("SELECT ZN FROM ZA ORDER BY Z_PK").map { $0[0].int64 } == [5, 5])
    }

    /// Widened and made required with a default in one go, under a new constraint:
    /// (nil → 7, 1) equals (7, 1), refused at plan (found by an outside tester).
    @Test func aWidenedFillIsComparedAsItsDefault() throws {
        let s = try MigrationScenario(
            "Fz",
            versions: [
                "entities: {E: {attributes: {b: integer32?, c: integer16?}}}",
                "entities: {E: {attributes: {b: integer32?, c: {type: integer32, default: 7}}, uniqueness: [[c, b]]}}",
            ])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("E", values: ["b": .integer(1), "c": nil])
            try o.insert("E", values: ["b": .integer(1), "c": .integer(7)])
        }
        let error = try #require(throws: (any Error).self) { try s.plan() }
        #expect("\(error)".contains("7, 1 × 2 (Z_PK 1, 2)"), "\(error)")
    }

    /// A constraint kept as it is, whose attributes' nils the hop fills: the filled
    /// values are compared, refused at plan rather than by SQLite during the apply.
    @Test func aKeptConstraintOverFilledNilsIsChecked() throws {
        let s = try MigrationScenario(
            "Fz",
            versions: [
                "entities: {E: {attributes: {a: string?, b: integer64?}, uniqueness: [[a, b]]}}",
                """
                entities: {E: {attributes: {a: {type: string, default: x}, b: {type: integer64, default: 1}}, \
                uniqueness: [[a, b]]}}
                """,
            ])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("E", values: ["a": nil, "b": nil])
            try o.insert("E", values: ["a": .string("x"), "b": nil])
        }
        let error = try #require(throws: (any Error).self) { try s.plan() }
        #expect("\(error)".contains("the nils this hop fills with defaults make stored values equal"), "\(error)")
    }
}
