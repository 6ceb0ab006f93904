import Foundation
import ModelMigration
import TestSupport
import Testing

/// Where Core Data's validation, not the model, decides, the stored data decides
/// here too: a change migrates when the data allows it and is refused, naming the
/// objects and the remedies, when it does not.
@Suite struct DataDecidesTests {
    /// Pets v2: age made required without a default.
    static let requiredAge = try! edit(Pets.v1, "      age: integer16?\n", "      age: integer16\n")

    @Test func optionalToRequiredWithoutDefaultMigratesWhenNoValueIsNil() throws {
        let s = try MigrationScenario.pets(Self.requiredAge)
        defer { s.remove() }
        // Bob (2) has no age.
        #expect {
            try s.plan()
        } throws: { error in
            (error as? PlanningError)?.isNoPath == true
                && "\(error)" == """
                    \(s.storePath): hop 1 → 2 of Pets cannot migrate this store's data:
                      Person.age becomes required without a default, and stored Person objects hold nil: 1 row: Z_PK 2
                        remedy: add a default (`age: { …, default: … }`) so that nil values take it, set the values \
                    first, or write Migrations/Pets/1-to-2.yaml with a policy for Person
                    """
        }
        try s.withObjects { try $0.store.connection.execute("UPDATE ZPERSON SET ZAGE = 25 WHERE Z_PK = 2") }
        let plan = try s.plan(verify: true)
        // No table changes (SQLite columns carry no NOT NULL here): apply checks the
        // requirement again inside its transaction, before the hop.
        #expect(
            plan.hops[0].requirements.map(\.summary) == [
                "Person.age becomes required without a default, and stored Person objects hold nil"
            ])
        #expect(plan.kinds == [.entityNumbers])
        try Migrator().apply(plan)
        #expect(try s.storeVersion() == 2)
        #expect(try s.fetch("Person").map { $0.values["age"] } == [.integer(30), .integer(25), .integer(41)])
    }

    @Test func aTightenedMaximumMigratesWhenEveryValueFits() throws {
        let v1 = try edit(
            Pets.v1, "      age: integer16?\n", "      age: { type: integer16, optional: true, max: 200 }\n")
        let v2 = try edit(
            Pets.v1, "      age: integer16?\n", "      age: { type: integer16, optional: true, max: 40 }\n")
        let s = try MigrationScenario("Pets", versions: [v1, v2])
        defer { s.remove() }
        try Pets.seed(s)
        #expect {
            try s.plan()
        } throws: { error in
            "\(error)".contains(
                """
                  Person.age gets max 40, and stored values are outside it: 1 row: Z_PK 3: 41
                    remedy: correct those values first, loosen the limit, or write Migrations/Pets/1-to-2.yaml with a \
                policy for Person
                """)
        }
        try s.withObjects { try $0.store.connection.execute("UPDATE ZPERSON SET ZAGE = 40 WHERE Z_PK = 3") }
        try s.migrate()
        #expect(try s.storeVersion() == 2)
    }

    /// A string's new maximum length counts UTF-16 units, as NSString.length (and
    /// Core Data's validation) does: two emoji are four.
    @Test func aStringMaximumCountsUTF16Units() throws {
        let v2 = try edit(Pets.v1, "      age: integer16?\n", "      age: integer16?\n      nick: string?\n")
        let v3 = try edit(
            Pets.v1, "      age: integer16?\n",
            "      age: integer16?\n      nick: { type: string, optional: true, max: 3 }\n")
        let s = try MigrationScenario("Pets", versions: [v2, v3])
        defer { s.remove() }
        try Pets.seed(s)
        try s.withObjects {
            try $0.store.connection.execute("UPDATE ZPERSON SET ZNICK = '😀😀' WHERE Z_PK = 2")
            try $0.store.connection.execute("UPDATE ZPERSON SET ZNICK = 'e\u{301}x' WHERE Z_PK = 3")
        }
        #expect {
            try s.plan()
        } throws: { error in
            "\(error)".contains("Person.nick gets max 3 (length), and stored values are outside it: 1 row: Z_PK 2")
        }
        // A sample value shows its control characters: SQLite's quote() ended it at the
        // NUL, and an ESC would reach the terminal.
        try s.withObjects {
            try $0.store.connection.execute("UPDATE ZPERSON SET ZNICK = 'ab' || char(0, 27) || 'cd' WHERE Z_PK = 2")
        }
        #expect {
            try s.plan()
        } throws: { error in
            "\(error)".contains(#"stored values are outside it: 1 row: Z_PK 2: 'ab\u0000\u001bcd'"#)
        }
        try s.withObjects { try $0.store.connection.execute("UPDATE ZPERSON SET ZNICK = '😀' WHERE Z_PK = 2") }
        try s.migrate()
        #expect(try s.storeVersion() == 2)
    }

    /// A limit tightened twice, in two versions: the first hop leaves every row as it
    /// was, so the plan checks the second hop's limit on the store now, as `apply`
    /// would (the plan said "run migrate apply" and `apply` then exited 4).
    @Test func aSecondTighteningAfterAHopThatWritesNothingIsCheckedByThePlan() throws {
        func age(_ max: Int) throws -> String {
            try edit(
                Pets.v1, "      age: integer16?\n", "      age: { type: integer16, optional: true, max: \(max) }\n")
        }
        let s = try MigrationScenario("Pets", versions: [Pets.v1, try age(50), try age(40)])
        defer { s.remove() }
        try Pets.seed(s)
        #expect {
            try s.plan()
        } throws: { error in
            (error as? PlanningError)?.isNoPath == true
                && "\(error)".hasPrefix("\(s.storePath): hop 2 → 3 of Pets cannot migrate this store's data:\n")
                && "\(error)".contains("Person.age gets max 40, and stored values are outside it: 1 row: Z_PK 3: 41")
        }
        try s.withObjects { try $0.store.connection.execute("UPDATE ZPERSON SET ZAGE = 40 WHERE Z_PK = 3") }
        try s.migrate()
        #expect(try s.storeVersion() == 3)
    }

    /// Through the CLI: exit 4, store unchanged, the remedy on stderr.
    @Test func theCLIExits4() throws {
        let s = try MigrationScenario.pets(Self.requiredAge)
        defer { s.remove() }
        let before = FileSnapshot(s.storePath)
        for command in ["status", "plan", "apply"] {
            let result = try CommandRunner.migrate([
                command, "--models", s.modelsFolder, "--migrations", s.migrationsFolder, s.storePath,
            ])
            #expect(result.status == 4, "\(command): \(result)")
            #expect(
                result.stderr.contains(
                    "Person.age becomes required without a default, and stored Person objects hold nil: 1 row: Z_PK 2"),
                "\(command)")
        }
        #expect(FileSnapshot(s.storePath).fingerprint == before.fingerprint)
    }
}
