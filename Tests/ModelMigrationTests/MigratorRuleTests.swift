import Foundation
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// Every inference rule (Docs/Migrations.md) end to end: a store with rows at version 1,
/// the plan `migrate plan` would print (step kinds and SQL), `Migrator.apply`, then
/// every object read back through `ObjectAccess` — values exactly as they were,
/// relationships intact from both sides.
@Suite struct MigratorRuleTests {
    // MARK: Attributes

    @Test func addingAnOptionalAttributeIsOneAlterTable() throws {
        let s = try MigrationScenario.pets(
            try edit(Pets.v1, "      age: integer16?\n", "      age: integer16?\n      nickname: string?\n"))
        defer { s.remove() }
        let plan = try s.plan()
        #expect(plan.kinds == [.addColumn, .entityNumbers])
        #expect(plan.allSteps[0].sql == [#"ALTER TABLE "ZPERSON" ADD COLUMN "ZNICKNAME" VARCHAR"#])
        #expect(plan.allSteps.allSatisfy { $0.cost == .constant })
        #expect(plan.allSteps[1].sql == Pets.keySQL)
        #expect(plan.warnings.isEmpty)
        try Migrator().apply(plan)

        #expect(try s.storeVersion() == 2)
        #expect(try s.fetch("Person") == Pets.people())
        #expect(try s.fetch("Pet") == Pets.pets())
        #expect(try s.keys() == Pets.keys)
        // The new attribute takes values, and keys continue where they were.
        let key = try s.withObjects {
            try $0.insert("Person", values: ["name": .string("Dee"), "nickname": .string("D")])
        }
        #expect(key == 4)
        #expect(
            try s.fetch("Person").last
                == StoredObject(
                    entity: "Person", primaryKey: 4, values: ["name": .string("Dee"), "nickname": .string("D")],
                    relationships: ["pets": []]))
    }

    @Test func addingARequiredAttributeWithADefaultGivesExistingRowsTheDefault() throws {
        let s = try MigrationScenario.pets(
            try edit(
                Pets.v1, "      age: integer16?\n",
                "      age: integer16?\n      score: { type: integer32, default: 7 }\n"))
        defer { s.remove() }
        let plan = try s.plan()
        #expect(plan.kinds == [.addColumn, .entityNumbers])
        #expect(plan.allSteps[0].sql == [#"ALTER TABLE "ZPERSON" ADD COLUMN "ZSCORE" INTEGER DEFAULT 7"#])
        #expect(plan.allSteps[0].cost == .constant)
        try Migrator().apply(plan)

        #expect(try s.fetch("Person") == Pets.people(extra: ["score": .integer(7)]))
        #expect(try s.fetch("Pet") == Pets.pets())
        #expect(try s.rows(#"SELECT count(*) FROM "ZPERSON" WHERE "ZSCORE" = 7"#) == [[.integer(3)]])
    }

    /// SQLite drops the column in place (rewriting each row, no new table).
    @Test func removingAnAttributeDropsItsColumnAndWarnsWithTheCount() throws {
        let s = try MigrationScenario.pets(try edit(Pets.v1, "      age: integer16?\n", ""))
        defer { s.remove() }
        let plan = try s.plan()
        #expect(plan.kinds == [.dropColumn, .entityNumbers])
        #expect(plan.allSteps[0].sql == [#"ALTER TABLE "ZPERSON" DROP COLUMN "ZAGE""#])
        #expect(plan.allSteps[0].cost == .rewrite(rows: 3))
        #expect(
            plan.warnings.map(\.description) == ["destructive: Person.age is dropped: 2 non-nil values will be lost"])
        try Migrator().apply(plan)

        #expect(try s.columns("ZPERSON") == ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME"])
        #expect(try s.fetch("Person") == Pets.people(ageName: nil))
        #expect(try s.fetch("Pet") == Pets.pets())
        #expect(try s.indexes(on: "ZPET") == ["ZPET_ZOWNER_INDEX"])
        #expect(try s.keys() == Pets.keys)
    }

    /// An indexed column cannot be dropped in place: the table is rebuilt.
    @Test func removingAnIndexedAttributeRebuildsTheTable() throws {
        let v1 = try edit(
            Pets.v1, "      age: integer16?\n", "      age: { type: integer16, optional: true, indexed: true }\n")
        let s = try MigrationScenario("Pets", versions: [v1, try edit(Pets.v1, "      age: integer16?\n", "")])
        defer { s.remove() }
        try Pets.seed(s)
        #expect(try s.indexes(on: "ZPERSON") == ["ZPERSON_ZAGE_INDEX"])
        let plan = try s.plan()
        #expect(plan.kinds == [.rebuildTable, .dropTable, .renameTable, .entityNumbers])
        #expect(
            plan.allSteps[0].sql == [
                #"""
                CREATE TABLE "MM_NEW_ZPERSON" ( "Z_PK" INTEGER PRIMARY KEY, "Z_ENT" INTEGER, "Z_OPT" INTEGER, "ZNAME" \#
                VARCHAR )
                """#,
                #"""
                INSERT INTO "MM_NEW_ZPERSON" ("Z_PK", "Z_ENT", "Z_OPT", "ZNAME") SELECT s.Z_PK, 1, s.Z_OPT, s."ZNAME" \#
                FROM "ZPERSON" AS s WHERE s.Z_ENT = 1
                """#,
            ])
        #expect(plan.allSteps[0].cost == .rewrite(rows: 3))
        // Every row of ZPERSON is copied: the b-tree's row count is what the new table must hold.
        #expect(plan.allSteps[0].expectedRowsSQL == #"SELECT (SELECT count(*) FROM "ZPERSON")"#)
        #expect(plan.allSteps[1].sql == [#"DROP TABLE "ZPERSON""#])
        #expect(plan.allSteps[2].sql == [#"ALTER TABLE "MM_NEW_ZPERSON" RENAME TO "ZPERSON""#])
        #expect(
            plan.warnings.map(\.description) == ["destructive: Person.age is dropped: 2 non-nil values will be lost"])
        try Migrator().apply(plan)

        #expect(try s.columns("ZPERSON") == ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME"])
        #expect(try s.indexes(on: "ZPERSON") == [])
        #expect(try s.fetch("Person") == Pets.people(ageName: nil))
        #expect(try s.fetch("Pet") == Pets.pets())
        #expect(try s.keys() == Pets.keys)
    }

    @Test func renamingAnAttributeIsOneRenameColumn() throws {
        let s = try MigrationScenario.pets(
            try edit(
                Pets.v1, "      age: integer16?\n",
                "      years: { type: integer16, optional: true, renamedFrom: age }\n"))
        defer { s.remove() }
        let plan = try s.plan()
        #expect(plan.kinds == [.renameColumn, .entityNumbers])
        #expect(plan.allSteps[0].sql == [#"ALTER TABLE "ZPERSON" RENAME COLUMN "ZAGE" TO "ZYEARS""#])
        #expect(plan.allSteps[0].cost == .constant)
        #expect(plan.warnings.isEmpty)
        try Migrator().apply(plan)

        #expect(try s.fetch("Person") == Pets.people(ageName: "years"))
        #expect(try s.fetch("Pet") == Pets.pets())
    }

    /// integer16 → integer64 keeps the INTEGER column: no step touches a row.
    @Test func wideningAnIntegerTouchesNoRow() throws {
        let v1 = """
            entities:
              Thing:
                attributes:
                  small: integer16?
                  label: string?

            """
        let s = try MigrationScenario(
            "Numbers", versions: [v1, try edit(v1, "small: integer16?", "small: integer64?")])
        defer { s.remove() }
        try s.withObjects { o in
            for value: Int64 in [-32768, 32767, 0] {
                try o.insert("Thing", values: ["small": .integer(value), "label": .string("\(value)")])
            }
            try o.insert("Thing", values: ["label": .string("nil")])
        }
        let plan = try s.plan()
        #expect(plan.kinds == [.entityNumbers])
        try Migrator().apply(plan)
        #expect(try s.storeVersion() == 2)
        #expect(
            try s.fetch("Thing").map { [$0.values["small"], $0.values["label"]] } == [
                [.integer(-32768), .string("-32768")], [.integer(32767), .string("32767")],
                [.integer(0), .string("0")], [nil, .string("nil")],
            ])
        // An integer64 value the old type could not hold now fits.
        _ = try s.withObjects { try $0.insert("Thing", values: ["small": .integer(Int64.max)]) }
        #expect(try s.fetch("Thing").last?.values["small"] == .integer(Int64.max))
    }

    /// integer32 → double (and float → double, integer64 → decimal) change the column's
    /// type: a rebuild that converts with CAST, every value exact.
    @Test func wideningToDoubleAndDecimalConvertsEveryValueExactly() throws {
        let v1 = """
            entities:
              Thing:
                attributes:
                  mid: integer32?
                  f: float?
                  big: integer64?

            """
        let v2 = try edit(
            edit(edit(v1, "mid: integer32?", "mid: double?"), "f: float?", "f: double?"), "big: integer64?",
            "big: decimal?")
        let s = try MigrationScenario("Numbers", versions: [v1, v2])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert(
                "Thing",
                values: ["mid": .integer(2_147_483_647), "f": .double(1.5), "big": .integer(9_007_199_254_740_993)])
            try o.insert(
                "Thing", values: ["mid": .integer(-2_147_483_648), "f": .double(-0.25), "big": .integer(Int64.min)])
            try o.insert("Thing", values: [:])
        }
        let plan = try s.plan()
        #expect(plan.kinds == [.rebuildTable, .dropTable, .renameTable, .entityNumbers])
        #expect(
            plan.allSteps[0].sql == [
                #"""
                CREATE TABLE "MM_NEW_ZTHING" ( "Z_PK" INTEGER PRIMARY KEY, "Z_ENT" INTEGER, "Z_OPT" INTEGER, \#
                "ZBIG" TEXT, "ZF" FLOAT, "ZMID" FLOAT )
                """#,
                #"""
                INSERT INTO "MM_NEW_ZTHING" ("Z_PK", "Z_ENT", "Z_OPT", "ZBIG", "ZF", "ZMID") SELECT s.Z_PK, 1, \#
                s.Z_OPT, CAST(s."ZBIG" AS TEXT), s."ZF", CAST(s."ZMID" AS REAL) FROM "ZTHING" AS s WHERE s.Z_ENT = 1
                """#,
            ])
        #expect(plan.warnings.isEmpty)
        try Migrator().apply(plan)
        #expect(
            try s.fetch("Thing") == [
                StoredObject(
                    entity: "Thing", primaryKey: 1,
                    values: ["mid": .double(2_147_483_647), "f": .double(1.5), "big": .decimal("9007199254740993")]),
                StoredObject(
                    entity: "Thing", primaryKey: 2,
                    values: [
                        "mid": .double(-2_147_483_648), "f": .double(-0.25), "big": .decimal("-9223372036854775808"),
                    ]),
                StoredObject(entity: "Thing", primaryKey: 3),
            ])
        #expect(
            try s.rows(#"SELECT typeof("ZMID"), typeof("ZBIG") FROM "ZTHING" WHERE Z_PK = 1"#) == [
                [.text("real"), .text("text")]
            ])
    }

    @Test func optionalToRequiredWithADefaultFillsNilValues() throws {
        let s = try MigrationScenario.pets(
            try edit(Pets.v1, "      age: integer16?\n", "      age: { type: integer16, default: 18 }\n"))
        defer { s.remove() }
        let plan = try s.plan()
        #expect(plan.kinds == [.updateRows, .entityNumbers])
        #expect(plan.allSteps[0].sql == [#"UPDATE "ZPERSON" SET "ZAGE" = 18 WHERE "ZAGE" IS NULL"#])
        #expect(plan.allSteps[0].cost == .update(rows: 3))
        try Migrator().apply(plan)

        #expect(try s.fetch("Person") == Pets.people(bobAge: .integer(18)))
        #expect(try s.fetch("Pet") == Pets.pets())
    }

    /// Made required and widened in one version: nil values take the default too.
    @Test func optionalToRequiredAndWidenedFillsNilValues() throws {
        let s = try MigrationScenario.pets(
            try edit(Pets.v1, "      age: integer16?\n", "      age: { type: integer32, default: 18 }\n"))
        defer { s.remove() }
        try Migrator().apply(try s.plan())
        #expect(try s.fetch("Person") == Pets.people(bobAge: .integer(18)))
        #expect(try s.rows(#"SELECT count(*) FROM "ZPERSON" WHERE "ZAGE" IS NULL"#) == [[.integer(0)]])
    }

    // MARK: Entities

    @Test func addingAnEntityCreatesItsTableAndANewNumber() throws {
        let s = try MigrationScenario.pets(Pets.v1 + "  Toy:\n    attributes:\n      label: string\n")
        defer { s.remove() }
        let plan = try s.plan()
        #expect(plan.kinds == [.createTable, .entityNumbers])
        #expect(
            plan.allSteps[0].sql == [
                #"""
                CREATE TABLE "ZTOY" ( "Z_PK" INTEGER PRIMARY KEY, "Z_ENT" INTEGER, "Z_OPT" INTEGER, "ZLABEL" VARCHAR )
                """#
            ])
        #expect(
            plan.allSteps[1].sql.contains(
                "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (3, 'Toy', 0, 0)"))
        #expect(plan.entityNumbers == ["Person": 1, "Pet": 2, "Toy": 3])
        try Migrator().apply(plan)

        #expect(try s.keys() == Pets.keys + ["3 Toy super 0 max 0"])
        #expect(try s.fetch("Person") == Pets.people())
        #expect(try s.fetch("Pet") == Pets.pets())
        _ = try s.withObjects { try $0.insert("Toy", values: ["label": .string("ball")]) }
        #expect(
            try s.rows(#"SELECT Z_PK, Z_ENT, "ZLABEL" FROM "ZTOY""#) == [[.integer(1), .integer(3), .text("ball")]])
    }

    @Test func removingAnEntityDropsItsTableWithAWarning() throws {
        let v2 = """
            entities:
              Person:
                attributes:
                  name: string
                  age: integer16?

            """
        let s = try MigrationScenario.pets(v2)
        defer { s.remove() }
        let plan = try s.plan()
        #expect(plan.kinds == [.dropTable, .entityNumbers])
        #expect(plan.allSteps[0].sql == [#"DROP TABLE "ZPET""#])
        #expect(plan.allSteps[1].sql.first == "DELETE FROM Z_PRIMARYKEY WHERE Z_ENT = 2 -- Pet removed")
        #expect(
            plan.warnings.map(\.description) == [
                "destructive: table ZPET is dropped with its 4 rows (entity Pet removed)"
            ])
        try Migrator().apply(plan)

        #expect(try s.tables() == ["MM_MODELCACHE", "ZPERSON", "Z_METADATA", "Z_PRIMARYKEY"])
        #expect(try s.keys() == ["1 Person super 0 max 3"])
        #expect(
            try s.fetch("Person")
                == Pets.people().map {
                    var p = $0
                    p.relationships = [:]
                    return p
                })
    }

    /// A subentity's rows go with it; the rest of its hierarchy stays in place.
    @Test func removingASubentityDeletesOnlyItsRows() throws {
        let v1 = """
            entities:
              Animal:
                attributes:
                  name: string
              Dog:
                parent: Animal
                attributes:
                  breed: string?

            """
        let v2 = """
            entities:
              Animal:
                attributes:
                  name: string

            """
        let s = try MigrationScenario("Zoo", versions: [v1, v2])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Animal", values: ["name": .string("Generic")])
            try o.insert("Dog", values: ["name": .string("Rex"), "breed": .string("pug")])
            try o.insert("Animal", values: ["name": .string("Other")])
        }
        let plan = try s.plan()
        #expect(
            plan.warnings.map(\.description) == [
                "destructive: Dog.breed is dropped: 1 non-nil value will be lost",
                "destructive: entity Dog is removed: its 1 row is deleted",
            ])
        try Migrator().apply(plan)
        #expect(
            try s.fetch("Animal") == [
                StoredObject(entity: "Animal", primaryKey: 1, values: ["name": .string("Generic")]),
                StoredObject(entity: "Animal", primaryKey: 3, values: ["name": .string("Other")]),
            ])
        #expect(try s.rows(#"SELECT count(*) FROM "ZANIMAL""#) == [[.integer(2)]])
    }

    @Test func renamingAnEntityRenamesItsTableAndKeepsItsNumber() throws {
        let v2 = try edit(
            edit(Pets.v1, "  Pet:\n", "  Animal:\n    renamedFrom: Pet\n"), "destination: Pet", "destination: Animal")
        let s = try MigrationScenario.pets(v2)
        defer { s.remove() }
        let plan = try s.plan()
        #expect(plan.kinds == [.renameTable, .dropIndex, .createIndex, .entityNumbers])
        #expect(plan.allSteps[0].sql == [#"ALTER TABLE "ZPET" RENAME TO "ZANIMAL""#])
        #expect(plan.allSteps[1].sql == [#"DROP INDEX IF EXISTS "ZPET_ZOWNER_INDEX""#])
        #expect(
            plan.allSteps[2].sql == [#"CREATE INDEX "ZANIMAL_ZOWNER_INDEX" ON "ZANIMAL" ("ZOWNER" COLLATE BINARY ASC)"#]
        )
        #expect(plan.allSteps[3].sql.first == "UPDATE Z_PRIMARYKEY SET Z_NAME = 'Animal', Z_SUPER = 0 WHERE Z_ENT = 2")
        #expect(plan.warnings.isEmpty)
        try Migrator().apply(plan)

        #expect(try s.tables() == ["MM_MODELCACHE", "ZANIMAL", "ZPERSON", "Z_METADATA", "Z_PRIMARYKEY"])
        // The old table's index does not linger under its old name.
        #expect(try s.indexes(on: "ZANIMAL") == ["ZANIMAL_ZOWNER_INDEX"])
        #expect(try s.keys() == ["1 Person super 0 max 3", "2 Animal super 0 max 4"])
        #expect(try s.fetch("Person") == Pets.people())
        #expect(try s.fetch("Animal") == Pets.pets(entity: "Animal"))
    }

    // MARK: Relationships

    /// to-one → to-many without an inverse (the owner's key moves to the destination
    /// row, as Core Data stores it; a destination shared by several owners keeps the
    /// lowest, as the warning says) and back (objects with several destinations keep
    /// the lowest key).
    @Test func toOneBecomesToManyAndBack() throws {
        let v1 = """
            entities:
              Person:
                attributes:
                  name: string
                relationships:
                  best: { destination: Pet }
              Pet:
                attributes:
                  name: string

            """
        let v2 = try edit(v1, "best: { destination: Pet }", "best: { destination: Pet, toMany: true }")
        let v3 = try edit(v1, "best: { destination: Pet }", "best: { destination: Pet, hashModifier: again }")
        let s = try MigrationScenario("Best", versions: [v1, v2, v3])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Pet", values: ["name": .string("Rex")])
            try o.insert("Pet", values: ["name": .string("Tom")])
            try o.insert("Person", values: ["name": .string("Ann")], relationships: ["best": [2]])
            try o.insert("Person", values: ["name": .string("Bob")])
            try o.insert("Person", values: ["name": .string("Dee")], relationships: ["best": [2]])
        }
        let toMany = try s.plan(to: 2)
        #expect(
            toMany.warnings.map(\.description) == [
                """
                destructive: Person.best has no inverse: each Pet row keeps the key of one Person (as Core Data stores \
                it); a Pet shared by several keeps the one with the lowest primary key
                """
            ])
        let buildPet = try #require(toMany.allSteps.first { $0.summary.hasPrefix("rebuild ZPET") })
        #expect(
            buildPet.sql[1] == #"""
                INSERT INTO "MM_NEW_ZPET" ("Z_PK", "Z_ENT", "Z_OPT", "Z1BEST", "ZNAME") SELECT s.Z_PK, 2, s.Z_OPT, \#
                (SELECT t.Z_PK FROM "ZPERSON" AS t WHERE t."ZBEST" = s.Z_PK AND t.Z_ENT IN (1) ORDER BY t.Z_PK \#
                LIMIT 1), \#
                s."ZNAME" FROM "ZPET" AS s WHERE s.Z_ENT = 2
                """#)
        try Migrator().apply(toMany)
        #expect(
            try s.rows(#"SELECT Z_PK, "Z1BEST" FROM "ZPET" ORDER BY Z_PK"#) == [
                [.integer(1), .null], [.integer(2), .integer(1)],
            ])
        #expect(try s.columns("ZPERSON") == ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME"])
        #expect(try s.fetch("Person").map { $0.relationships["best"] ?? [] } == [[2], [], []])
        // Cy takes Rex; Tom already belongs to Ann.
        _ = try s.withObjects { try $0.insert("Person", values: ["name": .string("Cy")], relationships: ["best": [1]]) }
        #expect(throws: StoreError.self) {
            try s.withObjects {
                try $0.insert("Person", values: ["name": .string("Eve")], relationships: ["best": [2]])
            }
        }

        let toOne = try s.plan(to: 3)
        // Every person has one destination or none: the data allows it, nothing is lost.
        #expect(toOne.warnings.map(\.description) == [])
        #expect(
            toOne.hops.first?.requirements.map(\.summary) == [
                "Person.best becomes to-one, and stored Person objects have several destinations"
            ])
        try Migrator().apply(toOne)
        #expect(try s.storeVersion() == 3)
        #expect(try s.columns("ZPET") == ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME"])
        #expect(
            try s.fetch("Person").map { $0.values["name"] } == [
                .string("Ann"), .string("Bob"), .string("Dee"), .string("Cy"),
            ])
        #expect(try s.fetch("Person").map { $0.relationships["best"] ?? [] } == [[2], [], [], [1]])
        #expect(try s.fetch("Pet").map(\.values) == [["name": .string("Rex")], ["name": .string("Tom")]])
    }

    /// unordered → ordered: positions follow primary keys; and back.
    @Test func unorderedBecomesOrderedByPrimaryKeyAndBack() throws {
        let v2 = try edit(Pets.v1, "toMany: true, inverse: owner", "toMany: true, ordered: true, inverse: owner")
        let v3 = try edit(Pets.v1, "toMany: true, inverse: owner", "toMany: true, inverse: owner, hashModifier: again")
        let s = try MigrationScenario.pets(v2, v3)
        defer { s.remove() }
        let plan = try s.plan(to: 2)
        #expect(plan.kinds == [.rebuildTable, .dropTable, .renameTable, .createIndex, .entityNumbers])
        #expect(
            plan.allSteps[0].sql == [
                #"""
                CREATE TABLE "MM_NEW_ZPET" ( "Z_PK" INTEGER PRIMARY KEY, "Z_ENT" INTEGER, "Z_OPT" INTEGER, "ZOWNER" \#
                INTEGER, "Z_FOK_OWNER" INTEGER, "ZNAME" VARCHAR )
                """#,
                #"""
                INSERT INTO "MM_NEW_ZPET" ("Z_PK", "Z_ENT", "Z_OPT", "ZOWNER", "Z_FOK_OWNER", "ZNAME") \#
                SELECT s.Z_PK, 2, s.Z_OPT, s."ZOWNER", s.Z_PK, s."ZNAME" FROM "ZPET" AS s WHERE s.Z_ENT = 2
                """#,
            ])
        try Migrator().apply(plan)
        #expect(
            try s.rows(#"SELECT Z_PK, "ZOWNER", "Z_FOK_OWNER" FROM "ZPET" ORDER BY Z_PK"#) == [
                [.integer(1), .integer(1), .integer(1)], [.integer(2), .integer(3), .integer(2)],
                [.integer(3), .integer(1), .integer(3)], [.integer(4), .null, .integer(4)],
            ])
        #expect(try s.fetch("Person") == Pets.people())
        #expect(try s.fetch("Pet") == Pets.pets())
        // A pet added to Ann now comes last in her ordered list.
        _ = try s.withObjects { try $0.insert("Pet", values: ["name": .string("Ada")], relationships: ["owner": [1]]) }
        #expect(try s.fetch("Person")[0].relationships["pets"] == [1, 3, 5])

        try Migrator().apply(try s.plan(to: 3))
        #expect(try s.storeVersion() == 3)
        #expect(try s.columns("ZPET") == ["Z_PK", "Z_ENT", "Z_OPT", "ZOWNER", "ZNAME"])
        #expect(try s.fetch("Person")[0].relationships["pets"] == [1, 3, 5])
        #expect(try s.fetch("Pet").count == 5)
    }

    /// one-to-many → many-to-many: the join table holds exactly the old pairs.
    @Test func oneToManyBecomesManyToMany() throws {
        let v2 = try edit(
            edit(
                Pets.v1, "      owner: { destination: Person, inverse: pets, optional: true }",
                "      owners: { destination: Person, toMany: true, inverse: pets, renamedFrom: owner }"),
            "inverse: owner }", "inverse: owners }")
        let s = try MigrationScenario.pets(v2)
        defer { s.remove() }
        let plan = try s.plan()
        #expect(plan.kinds == [.rebuildTable, .fillJoinTable, .dropTable, .renameTable, .createIndex, .entityNumbers])
        #expect(
            plan.allSteps[1].sql == [
                #"""
                CREATE TABLE "Z_1PETS" ( "Z_1OWNERS" INTEGER, "Z_2PETS" INTEGER, PRIMARY KEY ("Z_1OWNERS", "Z_2PETS") )
                """#,
                #"""
                INSERT OR IGNORE INTO "Z_1PETS" ("Z_1OWNERS", "Z_2PETS") SELECT p.k1, p.k2 \#
                FROM (SELECT "ZOWNER" AS k1, Z_PK AS k2 FROM "ZPET" WHERE "ZOWNER" IS NOT NULL) AS p
                """#,
            ])
        try Migrator().apply(plan)

        #expect(
            try s.rows(#"SELECT "Z_1OWNERS", "Z_2PETS" FROM "Z_1PETS" ORDER BY 1, 2"#) == [
                [.integer(1), .integer(1)], [.integer(1), .integer(3)], [.integer(3), .integer(2)],
            ])
        #expect(try s.columns("ZPET") == ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME"])
        #expect(try s.fetch("Person") == Pets.people())
        #expect(try s.fetch("Pet") == Pets.pets(owner: "owners"))
        // Many-to-many now: a new pet with two owners.
        _ = try s.withObjects {
            try $0.insert("Pet", values: ["name": .string("Duo")], relationships: ["owners": [2, 3]])
        }
        #expect(try s.fetch("Person").map { $0.relationships["pets"] } == [[1, 3], [5], [2, 5]])
    }

    // MARK: Hierarchies

    static let owners = """
        entities:
          Owner:
            attributes:
              name: string
            relationships:
              pets: { destination: Pet, toMany: true, inverse: owner }
          Pet:
            attributes:
              name: string
              color: string?
            relationships:
              owner: { destination: Owner, inverse: pets, optional: true }

        """

    /// A new parent above an existing entity: its rows move into the parent's table
    /// with their keys, their entity number and every value.
    @Test func aNewParentAboveAnExistingEntityKeepsRowsKeysAndNumbers() throws {
        let v2 = try edit(
            Self.owners, "  Pet:\n",
            "  Animal:\n    attributes:\n      legs: { type: integer16, default: 4 }\n  Pet:\n    parent: Animal\n")
        let s = try MigrationScenario("Owners", versions: [Self.owners, v2])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Owner", values: ["name": .string("Ann")])
            try o.insert("Owner", values: ["name": .string("Bob")])
            try o.insert(
                "Pet", values: ["name": .string("Rex"), "color": .string("red")], relationships: ["owner": [2]])
            try o.insert("Pet", values: ["name": .string("Tom")], relationships: ["owner": [1]])
            try o.insert("Pet", values: ["name": .string("Kit")])
        }
        let plan = try s.plan()
        #expect(plan.entityNumbers == ["Owner": 1, "Pet": 2, "Animal": 3])
        try Migrator().apply(plan)
        #expect(
            try s.fetch("Pet") == [
                StoredObject(
                    entity: "Pet", primaryKey: 1,
                    values: ["name": .string("Rex"), "color": .string("red"), "legs": .integer(4)],
                    relationships: ["owner": [2]]),
                StoredObject(
                    entity: "Pet", primaryKey: 2, values: ["name": .string("Tom"), "legs": .integer(4)],
                    relationships: ["owner": [1]]),
                StoredObject(
                    entity: "Pet", primaryKey: 3, values: ["name": .string("Kit"), "legs": .integer(4)],
                    relationships: ["owner": []]),
            ])
        #expect(try s.fetch("Animal") == s.fetch("Pet"))
        #expect(try s.fetch("Owner").map { $0.relationships["pets"] } == [[2], [1]])
        #expect(try s.tables() == ["MM_MODELCACHE", "ZANIMAL", "ZOWNER", "Z_METADATA", "Z_PRIMARYKEY"])
        #expect(try s.rows(#"SELECT DISTINCT Z_ENT FROM "ZANIMAL""#) == [[.integer(2)]])
        #expect(try s.keys() == ["1 Owner super 0 max 2", "2 Pet super 3 max 3", "3 Animal super 0 max 3"])
        // Animals of the new parent entity take keys after the pets'.
        #expect(try s.withObjects { try $0.insert("Animal", values: ["legs": .integer(8)]) } == 4)
    }

    static let zoo = """
        entities:
          Owner:
            attributes:
              name: string
            relationships:
              animals: { destination: Animal, toMany: true, inverse: owner }
          Animal:
            attributes:
              name: string
            relationships:
              owner: { destination: Owner, inverse: animals, optional: true }
          Dog:
            parent: Animal
            attributes:
              breed: string?
          Cat:
            parent: Animal
            attributes:
              lives: { type: integer16, default: 9 }

        """

    static func seedZoo(_ s: MigrationScenario) throws {
        try s.withObjects { o in
            try o.insert("Owner", values: ["name": .string("Ann")])
            try o.insert("Animal", values: ["name": .string("Generic")], relationships: ["owner": [1]])
            try o.insert(
                "Dog", values: ["name": .string("Rex"), "breed": .string("pug")], relationships: ["owner": [1]])
            try o.insert("Cat", values: ["name": .string("Tom"), "lives": .integer(7)], relationships: ["owner": [1]])
            try o.insert("Cat", values: ["name": .string("Kit")])
        }
    }

    /// Cat leaves the Animal hierarchy: its rows move to their own table with their
    /// keys and number; what Cat inherited and no longer has is dropped, with a warning.
    @Test func anEntityLeavingAHierarchyMovesToItsOwnTable() throws {
        let v2 = try edit(
            Self.zoo, "  Cat:\n    parent: Animal\n    attributes:\n", "  Cat:\n    attributes:\n      name: string\n")
        let s = try MigrationScenario("Zoo", versions: [Self.zoo, v2])
        defer { s.remove() }
        try Self.seedZoo(s)
        let plan = try s.plan()
        #expect(
            plan.kinds == [
                .rebuildTable, .rebuildTable, .dropTable, .renameTable, .renameTable, .createIndex, .createIndex,
                .entityNumbers,
            ])
        #expect(
            plan.allSteps[1].sql == [
                #"""
                CREATE TABLE "MM_NEW_ZCAT" ( "Z_PK" INTEGER PRIMARY KEY, "Z_ENT" INTEGER, "Z_OPT" INTEGER, \#
                "ZLIVES" INTEGER, "ZNAME" VARCHAR )
                """#,
                #"""
                INSERT INTO "MM_NEW_ZCAT" ("Z_PK", "Z_ENT", "Z_OPT", "ZLIVES", "ZNAME") \#
                SELECT s.Z_PK, 2, s.Z_OPT, s."ZLIVES", s."ZNAME" FROM "ZANIMAL" AS s WHERE s.Z_ENT = 2
                """#,
            ])
        #expect(plan.warnings.map(\.description) == ["destructive: Cat.owner is dropped: 1 non-nil value will be lost"])
        try Migrator().apply(plan)

        #expect(
            try s.fetch("Cat") == [
                StoredObject(entity: "Cat", primaryKey: 3, values: ["name": .string("Tom"), "lives": .integer(7)]),
                StoredObject(entity: "Cat", primaryKey: 4, values: ["name": .string("Kit"), "lives": .integer(9)]),
            ])
        #expect(
            try s.fetch("Animal") == [
                StoredObject(
                    entity: "Animal", primaryKey: 1, values: ["name": .string("Generic")], relationships: ["owner": [1]]
                ),
                StoredObject(
                    entity: "Dog", primaryKey: 2, values: ["name": .string("Rex"), "breed": .string("pug")],
                    relationships: ["owner": [1]]),
            ])
        #expect(
            try s.fetch("Owner") == [
                StoredObject(
                    entity: "Owner", primaryKey: 1, values: ["name": .string("Ann")],
                    relationships: ["animals": [1, 2]])
            ])
        #expect(
            try s.rows(#"SELECT Z_PK, Z_ENT FROM "ZCAT" ORDER BY Z_PK"#) == [
                [.integer(3), .integer(2)], [.integer(4), .integer(2)],
            ])
        #expect(
            try s.keys() == [
                "1 Animal super 0 max 4", "2 Cat super 0 max 4", "3 Dog super 1 max 0", "4 Owner super 0 max 1",
            ])
        // New cats continue after the moved keys.
        #expect(try s.withObjects { try $0.insert("Cat", values: ["name": .string("New")]) } == 5)
    }

    /// Dog.breed moves up into Animal: Dogs keep their breed, other animals have none.
    @Test func aPropertyMovingUpIntoTheParentKeepsItsValues() throws {
        let v2 = try edit(
            edit(
                Self.zoo, "  Dog:\n    parent: Animal\n    attributes:\n      breed: string?\n",
                "  Dog:\n    parent: Animal\n"),
            "      name: string\n    relationships:\n      owner:",
            "      name: string\n      breed: string?\n    relationships:\n      owner:")
        let s = try MigrationScenario("Zoo", versions: [Self.zoo, v2])
        defer { s.remove() }
        try Self.seedZoo(s)
        let plan = try s.plan()
        #expect(plan.warnings.isEmpty)
        try Migrator().apply(plan)

        #expect(try s.storeVersion() == 2)
        #expect(
            try s.fetch("Animal") == [
                StoredObject(
                    entity: "Animal", primaryKey: 1, values: ["name": .string("Generic")], relationships: ["owner": [1]]
                ),
                StoredObject(
                    entity: "Dog", primaryKey: 2, values: ["name": .string("Rex"), "breed": .string("pug")],
                    relationships: ["owner": [1]]),
                StoredObject(
                    entity: "Cat", primaryKey: 3, values: ["name": .string("Tom"), "lives": .integer(7)],
                    relationships: ["owner": [1]]),
                StoredObject(
                    entity: "Cat", primaryKey: 4, values: ["name": .string("Kit"), "lives": .integer(9)],
                    relationships: ["owner": []]),
            ])
        #expect(try s.fetch("Owner").first?.relationships["animals"] == [1, 2, 3])
        #expect(
            try s.keys() == [
                "1 Animal super 0 max 4", "2 Cat super 1 max 0", "3 Dog super 1 max 0", "4 Owner super 0 max 1",
            ])
        // Any animal may have a breed now.
        _ = try s.withObjects { try $0.insert("Cat", values: ["name": .string("Sia"), "breed": .string("siamese")]) }
        #expect(try s.fetch("Cat").last?.values["breed"] == .string("siamese"))
    }
}
