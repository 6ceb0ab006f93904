import Foundation
import Mapping
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// The chain of hops a plan takes, fusion of adjacent inferred hops (a table rebuilt
/// at most once per run of them), mapping files splitting the chain, and the model
/// cached in the store standing in for an edited version.
@Suite struct MigrationPlannerTests {
    // MARK: Chains and fusion

    /// A rename chained across two versions (age → years → yearsOld) is one RENAME COLUMN.
    @Test func chainedRenamesFuseIntoOneRenameColumn() throws {
        let v2 = try edit(
            Pets.v1, "      age: integer16?\n", "      years: { type: integer16, optional: true, renamedFrom: age }\n")
        let v3 = try edit(
            Pets.v1, "      age: integer16?\n",
            "      yearsOld: { type: integer16, optional: true, renamedFrom: years }\n")
        let s = try MigrationScenario.pets(v2, v3)
        defer { s.remove() }
        let plan = try s.plan()
        #expect(plan.hops.map { [$0.from, $0.to] } == [[1, 3]])
        #expect(plan.kinds == [.renameColumn, .entityNumbers])
        #expect(plan.allSteps[0].sql == [#"ALTER TABLE "ZPERSON" RENAME COLUMN "ZAGE" TO "ZYEARSOLD""#])
        try Migrator().apply(plan)
        #expect(try s.storeVersion() == 3)
        #expect(try s.fetch("Person") == Pets.people(ageName: "yearsOld"))
        #expect(try s.fetch("Pet") == Pets.pets())
    }

    /// Renaming an attribute of an indexed table is O(1): SQLite's RENAME COLUMN
    /// rewrites the indexes that name the column, so only the renamed column's own
    /// index (its name carries the column's) is built again; the others stay.
    @Test func aRenameRebuildsOnlyTheRenamedColumnsIndex() throws {
        let v1 = try edit(
            Pets.v1, "      name: string\n      age: integer16?\n",
            """
                  name: { type: string, indexed: true }\n      age: { type: integer16, optional: true, indexed: true \
            }\n      notes: string?\n
            """
        )
        let v2 = try edit(
            v1, "      notes: string?\n",
            "      remarks: { type: string, optional: true, renamedFrom: notes }\n      phone: string?\n")
        let v3 = try edit(
            v2, "      age: { type: integer16, optional: true, indexed: true }\n",
            "      years: { type: integer16, optional: true, indexed: true, renamedFrom: age }\n")
        let s = try MigrationScenario("Pets", versions: [v1, v2, v3])
        defer { s.remove() }
        try Pets.seed(s)
        let plan = try s.plan(to: 2)
        #expect(
            plan.allSteps.flatMap(\.sql) == [
                #"ALTER TABLE "ZPERSON" RENAME COLUMN "ZNOTES" TO "ZREMARKS""#,
                #"ALTER TABLE "ZPERSON" ADD COLUMN "ZPHONE" VARCHAR"#,
            ] + plan.allSteps.filter { $0.kind == .entityNumbers }.flatMap(\.sql))
        #expect(plan.allSteps.allSatisfy { $0.cost == .constant })
        try Migrator().apply(plan)

        // The indexed column renamed: its index is renamed (rebuilt), ZNAME's stays.
        let next = try s.plan(verify: true)
        #expect(
            next.allSteps.filter { $0.kind != .entityNumbers }.map(\.summary) == [
                "rename ZPERSON.ZAGE to ZYEARS", "drop index ZPERSON_ZAGE_INDEX",
                "create index ZPERSON_ZYEARS_INDEX on ZPERSON",
            ])
        try Migrator().apply(next)
        #expect(try s.storeVersion() == 3)
    }

    // Version 2 changes age's column type, version 3 drops an indexed column: each
    // needs a rebuild of ZPERSON on its own.
    static let fusionV1 = try! edit(
        Pets.v1, "      age: integer16?\n",
        "      age: integer16?\n      legacy: { type: string, optional: true, indexed: true }\n")
    static let fusionV2 = try! edit(fusionV1, "age: integer16?", "age: double?")
    static let fusionV3 = try! edit(
        edit(fusionV2, "      legacy: { type: string, optional: true, indexed: true }\n", ""),
        "      name: string\n    relationships:\n      owner:",
        "      name: string\n      species: string?\n    relationships:\n      owner:")

    /// ZPERSON changes in both hops (integer16 → double, then a dropped attribute):
    /// fused, it is rebuilt once; ZPET only gains a column.
    @Test func aTableChangedInTwoConsecutiveHopsIsRebuiltOnce() throws {
        let s = try MigrationScenario("Pets", versions: [Self.fusionV1, Self.fusionV2, Self.fusionV3])
        defer { s.remove() }
        try Pets.seed(s)
        try s.withObjects { try $0.store.connection.execute(#"UPDATE "ZPERSON" SET "ZLEGACY" = 'old' WHERE Z_PK = 2"#) }

        let plan = try s.plan()
        #expect(plan.hops.map { [$0.from, $0.to] } == [[1, 3]])
        #expect(plan.kinds == [.rebuildTable, .dropTable, .renameTable, .addColumn, .entityNumbers])
        #expect(
            plan.allSQL.filter { $0.hasPrefix("CREATE TABLE") } == [
                #"""
                CREATE TABLE "MM_NEW_ZPERSON" ( "Z_PK" INTEGER PRIMARY KEY, "Z_ENT" INTEGER, "Z_OPT" INTEGER, \#
                "ZAGE" FLOAT, "ZNAME" VARCHAR )
                """#
            ])
        #expect(
            plan.allSteps[0].sql[1] == #"""
                INSERT INTO "MM_NEW_ZPERSON" ("Z_PK", "Z_ENT", "Z_OPT", "ZAGE", "ZNAME") \#
                SELECT s.Z_PK, 1, s.Z_OPT, CAST(s."ZAGE" AS REAL), s."ZNAME" FROM "ZPERSON" AS s WHERE s.Z_ENT = 1
                """#)
        #expect(plan.allSteps[3].sql == [#"ALTER TABLE "ZPET" ADD COLUMN "ZSPECIES" VARCHAR"#])
        #expect(
            plan.warnings.map(\.description) == ["destructive: Person.legacy is dropped: 1 non-nil value will be lost"])

        // What ran: one rebuild, seen from the migrator's progress events.
        var started: [String] = []
        try Migrator().apply(plan) { event in
            if case .stepStarted(_, _, let summary, _) = event { started.append(summary) }
        }
        #expect(
            started.filter { $0.hasPrefix("rebuild") } == ["rebuild ZPERSON from ZPERSON (SQLite's 12-step procedure)"])
        #expect(started.count == 5)

        #expect(try s.storeVersion() == 3)
        #expect(
            try s.fetch("Person") == [
                StoredObject(
                    entity: "Person", primaryKey: 1, values: ["name": .string("Ann"), "age": .double(30)],
                    relationships: ["pets": [1, 3]]),
                StoredObject(
                    entity: "Person", primaryKey: 2, values: ["name": .string("Bob")], relationships: ["pets": []]),
                StoredObject(
                    entity: "Person", primaryKey: 3, values: ["name": .string("Cy"), "age": .double(41)],
                    relationships: ["pets": [2]]),
            ])
        #expect(try s.fetch("Pet") == Pets.pets())
        #expect(try s.keys() == Pets.keys)
    }

    /// The same versions applied one hop at a time rebuild ZPERSON twice: fusion is
    /// what saves the second rewrite.
    @Test func hopByHopTheSameTableIsRebuiltTwice() throws {
        let s = try MigrationScenario("Pets", versions: [Self.fusionV1, Self.fusionV2, Self.fusionV3])
        defer { s.remove() }
        try Pets.seed(s)
        let first = try s.plan(to: 2)
        try Migrator().apply(first)
        let second = try s.plan(to: 3)
        try Migrator().apply(second)
        #expect((first.allSQL + second.allSQL).filter { $0.hasPrefix(#"CREATE TABLE "MM_NEW_ZPERSON""#) }.count == 2)
        #expect(try s.fetch("Person").map { $0.values["age"] } == [.double(30), nil, .double(41)])
    }

    /// 1 → 2 has a mapping file (inference refuses the new required `rank`), 2 → 3 → 4
    /// are inferred and fused: two hops.
    @Test func aMappingFileSplitsTheChain() throws {
        let v2 = try edit(Pets.v1, "      age: integer16?\n", "      age: integer16?\n      rank: integer32\n")
        let v3 = try edit(v2, "      age: integer16?\n", "")
        let v4 = try edit(
            v3, "      name: string\n    relationships:\n      owner:",
            "      name: string\n      color: string?\n    relationships:\n      owner:")
        let s = try MigrationScenario.pets(v2, v3, v4)
        defer { s.remove() }

        // Without the file: refused, naming the entity, the property and the remedy.
        #expect {
            try s.plan()
        } throws: { error in
            let text = "\(error)"
            // The fused run 1 → 4 names the single hop whose change is refused.
            return error is InferenceFailure
                && text.hasPrefix(
                    "no lightweight mapping from Pets version 1 to 2 (1 change inference cannot cover):\n")
                && text.contains("\n  Person.rank: new required attribute without a default or source\n")
        }

        try s.directory.write(
            "Migrations/Pets/1-to-2.yaml",
            """
            entities:
              Person:
                properties:
                  rank: { default: 5 }

            """)
        let plan = try s.plan()
        #expect(plan.hops.map { [$0.from, $0.to] } == [[1, 2], [2, 4]])
        #expect(plan.hops[0].mapping.mappingFile != nil)
        #expect(plan.hops[1].mapping.mappingFile == nil)
        #expect(plan.hops[0].steps.map(\.sql).first == [#"ALTER TABLE "ZPERSON" ADD COLUMN "ZRANK" INTEGER DEFAULT 5"#])
        #expect(plan.hops[1].steps.map(\.kind) == [.dropColumn, .addColumn, .entityNumbers])
        #expect(plan.hops[1].steps[0].sql == [#"ALTER TABLE "ZPERSON" DROP COLUMN "ZAGE""#])
        #expect(
            plan.warnings.map(\.description) == ["destructive: Person.age is dropped: 2 non-nil values will be lost"])
        try Migrator().apply(plan)

        #expect(try s.storeVersion() == 4)
        #expect(try s.fetch("Person") == Pets.people(ageName: nil, extra: ["rank": .integer(5)]))
        #expect(try s.fetch("Pet") == Pets.pets())
        #expect(try s.columns("ZPET") == ["Z_PK", "Z_ENT", "Z_OPT", "ZOWNER", "ZNAME", "ZCOLOR"])
    }

    /// A store at the target: an empty plan, and apply changes nothing.
    @Test func aCurrentStoreHasAnEmptyPlan() throws {
        let s = try MigrationScenario.pets()
        defer { s.remove() }
        let before = FileSnapshot(s.storePath)
        let plan = try s.plan()
        #expect(plan.isEmpty)
        #expect(plan.sourceVersion == 1 && plan.targetVersion == 1)
        try Migrator().apply(plan)
        #expect(FileSnapshot(s.storePath).fingerprint == before.fingerprint)
    }

    @Test func downgradesAreRefusedAsNoPath() throws {
        let s = try MigrationScenario(
            "Pets", versions: [Pets.v1, try edit(Pets.v1, "      age: integer16?\n", "")], storeVersion: 2)
        defer { s.remove() }
        #expect {
            try s.plan(to: 1)
        } throws: { error in
            (error as? PlanningError)?.isNoPath == true
                && "\(error)" == "the store is at version 2, newer than the target 1; downgrades are not supported"
        }
    }

    // MARK: The model cached in the store

    /// Someone edited version 1 after the store was created: its hashes match no
    /// version any more, and the store's own record of version 1 (its model cache)
    /// differs from the YAML of version 1: drift, refused with every difference.
    @Test func anEditedSourceVersionIsDrift() throws {
        let v2 = try edit(
            edit(Pets.v1, "      age: integer16?\n", "      age: integer16?\n      nickname: string?\n"),
            "      name: string\n    relationships:\n      owner:",
            "      name: string\n      species: string?\n    relationships:\n      owner:")
        let s = try MigrationScenario.pets(v2)
        defer { s.remove() }
        // The edits: Pet.name given a hash modifier, Person.age made integer32 in the
        // shipped version 1.
        try s.writeVersions([
            try edit(
                edit(
                    Pets.v1, "      name: string\n    relationships:\n      owner:",
                    "      name: { type: string, hashModifier: edited }\n    relationships:\n      owner:"),
                "age: integer16?", "age: integer32?"), v2,
        ])
        let store = try Store.open(path: s.storePath)
        let recognition = try #require(VersionRecognition.recognize(try store.readMetadata(), among: [try s.model()]))
        try store.close()
        #expect(recognition.version == nil)
        #expect(recognition.closestVersion == 1)
        #expect(recognition.differences.map(\.name) == ["Person", "Pet"])

        #expect {
            try s.plan()
        } throws: { error in
            guard let error = error as? UnknownVersionError, let drift = error.drift else { return false }
            #expect(drift.version == 1)
            #expect(
                drift.differences == [
                    "Person.age: integer16? in the store's version, integer32? in the YAML",
                    "Pet.name: string in the store's version, string hashModifier edited in the YAML",
                ])
            return true
        }
        // Reading objects as the store's version refuses the same way.
        #expect(throws: UnknownVersionError.self) { try s.storeVersion() }
    }

    /// Without the cache (a store from elsewhere), an edited version is unknown: the
    /// error names the closest version and the entity whose hash differs.
    @Test func anEditedVersionWithoutTheCacheIsUnknown() throws {
        let s = try MigrationScenario.pets()
        defer { s.remove() }
        try s.withObjects { try $0.store.connection.execute("DROP TABLE MM_MODELCACHE") }
        try s.writeVersions([try edit(Pets.v1, "age: integer16?", "age: integer32?")])
        #expect {
            try s.plan()
        } throws: { error in
            guard let unknown = error as? UnknownVersionError else { return false }
            let lines = "\(unknown)".components(separatedBy: "\n")
            return lines.count == 3
                && lines[0]
                    == "\(s.storePath): the store's entity hashes match no version of model Pets (closest is version 1)"
                && lines[1].hasPrefix("  Person: hash ") && lines[1].hasSuffix("(no version has its hash)")
                && lines[2]
                    == """
                    a shipped version was edited, the store comes from elsewhere, or it is newer than this deployment
                    """
        }
    }

    /// Version 3 reverts version 2 (its hash set equals version 1's). After a
    /// migration to 3 the store should be current; recognition picks the first
    /// version with those hashes (1); the stamped number tells them apart.
    @Test func aVersionEqualToAnEarlierOneIsCurrentAfterMigrating() throws {
        let s = try MigrationScenario.pets(
            try edit(Pets.v1, "      age: integer16?\n", "      age: integer16?\n      nickname: string?\n"), Pets.v1)
        defer { s.remove() }
        try Migrator().apply(try s.plan())
        #expect(try s.fetch("Person") == Pets.people())
        let version = try s.storeVersion()
        let again = try s.plan()
        // Among versions that look the same, the stamped number decides.
        #expect(version == 3)
        #expect(again.isEmpty)
    }
}
