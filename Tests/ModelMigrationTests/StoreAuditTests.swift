import Foundation
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// Stores that contradict what a plan relies on are refused with the rows named;
/// references that already dangle are carried as they are; numbers read from a
/// store never trap the planner.
@Suite struct StoreAuditTests {
    /// Pets v2: Person.age widens to a required double with a default (a rebuild of
    /// ZPERSON) and Pet gains a required `legs` with a default.
    static let v2 = try! edit(
        edit(Pets.v1, "      age: integer16?\n", "      age: { type: double, default: 18 }\n"),
        "    attributes:\n      name: string\n    relationships:\n      owner:",
        """
            attributes:\n      name: string\n      legs: { type: double, default: 4 }\n    relationships:\n      owner:
        """
    )

    /// Pets with an optional `legs` on Pet, widened from integer16 to double in
    /// version 2: ZPET is rebuilt, and Pet.owner checked after the copy.
    static func legs() throws -> MigrationScenario {
        let v1 = try edit(
            Pets.v1, "    attributes:\n      name: string\n    relationships:\n      owner:",
            "    attributes:\n      name: string\n      legs: integer16?\n    relationships:\n      owner:")
        let s = try MigrationScenario("Pets", versions: [v1, try edit(v1, "legs: integer16?", "legs: double?")])
        try Pets.seed(s)
        return s
    }

    func execute(_ s: MigrationScenario, _ sql: String) throws {
        let connection = try Connection(path: s.storePath)
        try connection.execute(sql)
        try connection.close()
    }

    @Test func swappedEntityNamesAreRefusedBeforeAnythingRuns() throws {
        let s = try MigrationScenario.pets(Self.v2)
        defer { s.remove() }
        try execute(s, "UPDATE Z_PRIMARYKEY SET Z_NAME = CASE Z_ENT WHEN 1 THEN 'Pet' ELSE 'Person' END")
        let before = FileSnapshot(s.storePath)
        #expect {
            try s.plan()
        } throws: { error in
            "\(error)" == """
                \(s.storePath): the store is inconsistent with Pets version 1, and migrating it would lose or misfile \
                rows; nothing was changed. Repair the store (or restore a backup) first:
                  - ZPERSON holds rows whose Z_ENT is no entity of Person's hierarchy (Z_ENT 2, as Z_PRIMARYKEY \
                numbers them): 3 rows: Z_PK 1 has Z_ENT 1 (Pet); Z_PK 2 has Z_ENT 1 (Pet); Z_PK 3 has Z_ENT 1 (Pet)
                """
        }
        #expect(FileSnapshot(s.storePath).fingerprint == before.fingerprint)
    }

    /// The plan is made on a consistent store; a row of no entity appears before
    /// `apply` takes the lock: the preconditions run again in the transaction.
    @Test func aRowOfNoEntityIsRefusedInsideTheApplyTransaction() throws {
        let s = try MigrationScenario.pets(Self.v2)
        defer { s.remove() }
        let plan = try s.plan()
        // Only ZPERSON's rows move (a rebuild); ZPET gains a column in place.
        #expect(
            plan.preconditions.map(\.summary) == [
                """
                ZPERSON holds rows whose Z_ENT is no entity of Person's hierarchy (Z_ENT 1, as Z_PRIMARYKEY numbers \
                them)
                """
            ])
        try execute(s, "UPDATE ZPERSON SET Z_ENT = 99 WHERE Z_PK = 3")
        let before = FileSnapshot(s.storePath)
        #expect {
            try Migrator().apply(plan)
        } throws: { error in
            (error as? MigrationError)?.kind == .inconsistentStore
                && "\(error)".hasSuffix(
                    """
                      - ZPERSON holds rows whose Z_ENT is no entity of Person's hierarchy (Z_ENT 1, as Z_PRIMARYKEY \
                    numbers them): 1 row: Z_PK 3 has Z_ENT 99 (no entity of this table)
                    """)
        }
        #expect(FileSnapshot(s.storePath).fingerprint == before.fingerprint)
        #expect(before.sideFiles == [] && FileSnapshot(s.storePath).sideFiles == [])
    }

    /// Planning does not scan tables too large to count (`countLimit`, a million
    /// rows by the highest row id): it says their audit is left to `apply`, which
    /// runs it under its lock and refuses the store unchanged; `--exact-counts`
    /// audits them while planning.
    @Test func largeTablesAreAuditedByApplyNotByPlan() throws {
        let s = try MigrationScenario.pets(Self.v2)
        defer { s.remove() }
        try execute(s, "UPDATE ZPERSON SET Z_ENT = 99 WHERE Z_PK = 3")
        let store = try Store.open(path: s.storePath)
        defer { try? store.close() }
        var planner = MigrationPlanner(models: [try s.model()], migrationsFolder: s.migrationsFolder)
        planner.options.countLimit = 2
        let plan = try planner.plan(store: store)
        #expect(
            plan.preconditions.map(\.summary) == [
                """
                ZPERSON holds rows whose Z_ENT is no entity of Person's hierarchy (Z_ENT 1, as Z_PRIMARYKEY numbers \
                them)
                """
            ])
        #expect(
            plan.warnings.map(\.description) == [
                "Pet.owner: 1 row already points to objects the store does not have (carried as they are)",
                "ZPERSON (about 3 rows): not audited while planning; `apply` checks its rows' entity numbers "
                    + "(and, where it can, their values and references) within the step that rebuilds it, which reads "
                    + "every row "
                    + "(a failure rolls back and refuses the store as a scan before any step would), and the rest "
                    + "under its lock "
                    + "before any step (`migrate plan --exact-counts` checks them now)",
            ])
        // The rebuild of ZPERSON reads every row: it checks their entity numbers (FusedPreconditionTests).
        #expect(plan.preconditions.map(\.checkedByRebuildOf) == ["ZPERSON"])
        try store.close()
        let before = FileSnapshot(s.storePath)
        #expect {
            try Migrator().apply(plan)
        } throws: { error in
            (error as? MigrationError)?.kind == .inconsistentStore
                && "\(error)".hasSuffix("1 row: Z_PK 3 has Z_ENT 99 (no entity of this table)")
        }
        #expect(FileSnapshot(s.storePath).fingerprint == before.fingerprint)

        let again = try Store.open(path: s.storePath)
        defer { try? again.close() }
        planner.options.exactCounts = true
        #expect {
            try planner.plan(store: again)
        } throws: { error in
            (error as? PlanningError)?.kind == .storeMismatch
                && "\(error)".hasSuffix("1 row: Z_PK 3 has Z_ENT 99 (no entity of this table)")
        }
    }

    /// A reference into a table shared by a hierarchy that points at a row of the
    /// wrong entity would be misfiled by a rebuild: refused.
    @Test func aReferenceToARowOfTheWrongEntityIsRefused() throws {
        let v1 = """
            entities:
              Animal:
                attributes:
                  name: string
              Dog:
                parent: Animal
                attributes:
                  breed: string?
              Person:
                attributes:
                  name: string
                relationships:
                  dog: { destination: Dog, optional: true }

            """
        let v2 = try edit(
            v1, "      breed: string?\n", "      breed: string?\n      size: { type: integer16, default: 1 }\n")
        let s = try MigrationScenario("Kennel", versions: [v1, v2])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Animal", values: ["name": .string("Cat")])
            try o.insert("Dog", values: ["name": .string("Rex")])
            try o.insert("Person", values: ["name": .string("Ann")], relationships: ["dog": [2]])
            try o.insert("Person", values: ["name": .string("Bob")], relationships: ["dog": [2]])
        }
        try execute(s, "UPDATE ZPERSON SET ZDOG = 1 WHERE Z_PK = 2")
        #expect {
            try s.plan()
        } throws: { error in
            "\(error)".hasSuffix(
                """
                  - ZPERSON.ZDOG points at rows that are not Dog objects: 1 row: Z_PK 2 points to ZANIMAL Z_PK 1, \
                Z_ENT 1 (Animal)
                """
            )
        }
    }

    /// References that already point at no object are counted by the plan, carried
    /// by `apply` (checks and `--verify` pass), and still there afterwards.
    @Test func danglingReferencesAreCarriedAsTheyAre() throws {
        let s = try MigrationScenario.pets(Self.v2)
        defer { s.remove() }
        try execute(s, "UPDATE ZPET SET ZOWNER = 77 WHERE Z_PK = 4")
        let plan = try s.plan(verify: true)
        #expect(
            plan.danglingReferences.map(\.description) == [
                "Pet.owner: 1 row already points to objects the store does not have (carried as they are)"
            ])
        let result = try Migrator().apply(plan)
        #expect(
            result.carriedDanglingReferences == [
                """
                Pet.owner: 1 row already pointed to objects the store does not have, and still does (carried as they \
                were)
                """
            ])
        #expect(try s.storeVersion() == 2)
        #expect(
            try s.rows("SELECT Z_PK, ZOWNER FROM ZPET ORDER BY Z_PK").map { $0.map(\.int64) } == [
                [1, 1], [2, 3], [3, 1], [4, 77],
            ])
    }

    /// A migration that adds a dangling reference to those already there fails,
    /// saying how many were there before.
    @Test func aMigrationMakingDanglingReferencesWorseFails() throws {
        let s = try Self.legs()
        defer { s.remove() }
        try execute(s, "UPDATE ZPET SET ZOWNER = 77 WHERE Z_PK = 4")
        var plan = try s.plan()
        let hop = try #require(plan.hops.first)
        let rebuild = try #require(hop.steps.firstIndex { $0.kind == .rebuildTable && $0.table == "ZPET" })
        plan.hops[0].steps[rebuild].sql[1] = hop.steps[rebuild].sql[1]
            .replacingOccurrences(of: #"s."ZOWNER""#, with: #"CASE s.Z_PK WHEN 2 THEN 88 ELSE s."ZOWNER" END"#)
        let before = FileSnapshot(s.storePath)
        #expect {
            try Migrator().apply(plan)
        } throws: { error in
            (error as? MigrationError)?.kind == .checkFailed
                && "\(error)" == """
                    check failed: Pet.owner points to existing Person objects: 2 rows violate it \
                    (1 of them already did before the migration); nothing was changed
                    """
        }
        #expect(FileSnapshot(s.storePath).fingerprint == before.fingerprint)
    }

    /// Primary keys near Int64.max: the highest key is no row count (a scan of at
    /// most a million rows finds the tables small), so the plan counts the rows it
    /// moves, and nothing traps.
    @Test func hugePrimaryKeysDoNotOverflowThePlan() throws {
        let s = try MigrationScenario.pets(Self.v2)
        defer { s.remove() }
        try execute(
            s,
            """
            UPDATE ZPERSON SET Z_PK = 9223372036854775000 + Z_PK WHERE Z_PK = 3; UPDATE ZPET SET Z_PK = \
            9223372036854775800 + Z_PK WHERE Z_PK = 4
            """
        )
        let stored = try #require(
            try s.rows("SELECT (SELECT count(*) FROM ZPERSON) + (SELECT count(*) FROM ZPET)")[0][0].int64)
        let plan = try s.plan()
        #expect(plan.allSteps.allSatisfy { $0.cost.rows <= stored }, "\(plan.allSteps.map(\.cost))")
        let result = try Migrator().apply(plan)
        #expect(result.rowsTouched <= stored * 2)
        #expect(try s.storeVersion() == 2)
    }

    /// A huge entity number in Z_PRIMARYKEY (or stamped as the highest used) is
    /// refused or clamped, never overflowed when numbering a new entity.
    @Test func hugeEntityNumbersAreRefused() throws {
        let s = try MigrationScenario.pets(
            try edit(Pets.v1, "  Pet:\n", "  Toy:\n    attributes:\n      name: string\n  Pet:\n"))
        defer { s.remove() }
        try execute(
            s,
            """
            UPDATE ZPET SET Z_ENT = 9223372036854775807; UPDATE Z_PRIMARYKEY SET Z_ENT = 9223372036854775807 WHERE \
            Z_NAME = 'Pet'
            """
        )
        #expect {
            try s.plan()
        } throws: { error in
            "\(error)".contains("  - Z_PRIMARYKEY numbers entity Pet 9223372036854775807, outside 1…2147483647")
        }
    }

    // MARK: Found by Scripts/hostile.py

    static let zoo = """
        entities:
          Animal:
            attributes:
              name: string?
            relationships:
              owners: { destination: Owner, toMany: true, inverse: pet }
          Cat:
            parent: Animal
            attributes:
              lives: integer16?
          Dog:
            parent: Animal
            attributes:
              bark: integer16?
          Owner:
            attributes:
              name: string?
            relationships:
              pet: { destination: Animal, inverse: owners, optional: true }

        """

    /// Sibling subentities' names swapped in Z_PRIMARYKEY: every Z_ENT is still of
    /// the hierarchy, but the rows hold values in the other sibling's columns, which
    /// a rebuild would drop.
    @Test func swappedSiblingEntitiesAreRefused() throws {
        let s = try MigrationScenario(
            "Zoo", versions: [Self.zoo, try edit(Self.zoo, "bark: integer16?", "bark: double?")])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Cat", values: ["name": .string("tom"), "lives": .integer(9)])
            try o.insert("Dog", values: ["name": .string("rex"), "bark": .integer(5)])
        }
        try execute(
            s,
            """
            UPDATE Z_PRIMARYKEY SET Z_NAME = CASE Z_NAME WHEN 'Cat' THEN 'Dog' ELSE 'Cat' END WHERE Z_NAME IN ('Cat', \
            'Dog')
            """
        )
        #expect {
            try s.plan()
        } throws: { error in
            "\(error)".hasSuffix(
                """
                  - ZANIMAL holds values in columns of another entity than the row's (the rows' Z_ENT do not fit what \
                they hold): 2 rows: Z_PK 1 has Z_ENT 2 (Dog) and a value in ZLIVES of Cat; Z_PK 2 has Z_ENT 3 (Cat) \
                and a value in ZBARK of Dog
                """)
        }
    }

    /// A Z_PRIMARYKEY without a row for an entity: the migration writes the row with
    /// the number it used, so the next open reads the store as migrated.
    @Test func aMissingEntityKeyRowIsWritten() throws {
        let v2 = Self.zoo + "  Note:\n    attributes:\n      text: string?\n"
        let s = try MigrationScenario("Zoo", versions: [Self.zoo, v2])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Dog", values: ["name": .string("rex")])
        }
        let before = try s.keys()
        try execute(s, "DELETE FROM Z_PRIMARYKEY WHERE Z_NAME = 'Owner'")
        try s.migrate(verify: true)
        #expect(try s.storeVersion() == 2)
        #expect(try s.keys() == before + ["5 Note super 0 max 0"])
        #expect(try s.plan().isEmpty)
    }

    /// A dangling to-one into a hierarchy: its entity column has no destination to
    /// agree with; it is carried, and `--verify` passes, now and once current.
    @Test func aDanglingReferenceIntoAHierarchyPassesVerify() throws {
        let s = try MigrationScenario(
            "Zoo",
            versions: [
                Self.zoo,
                try edit(
                    Self.zoo, "      name: string?\n    relationships:\n      pet:",
                    "      name: string?\n      nick: string?\n    relationships:\n      pet:"),
            ])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Cat", values: ["name": .string("tom")])
            try o.insert("Owner", values: ["name": .string("ann")], relationships: ["pet": [1]])
        }
        try execute(s, "UPDATE ZOWNER SET ZPET = 99")
        let result = try Migrator().apply(try s.plan(verify: true))
        #expect(
            result.carriedDanglingReferences == [
                """
                Owner.pet: 1 row already pointed to objects the store does not have, and still does (carried as they \
                were)
                """
            ])
        let current = try Migrator().apply(try s.plan(verify: true))
        #expect(current.carriedDanglingReferences == ["Owner.pet: 1 row points to objects the store does not have"])
    }
}
