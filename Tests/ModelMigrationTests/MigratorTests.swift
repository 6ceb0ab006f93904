import Foundation
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// `Migrator.apply`: all of the plan or nothing. A failure anywhere — a step, a row
/// count, a check, the lock, a backup path — leaves the store byte-identical with no
/// journal beside it; a dry run does everything and changes nothing.
@Suite struct MigratorTests {
    /// Pets v2: Person.age made a required double (a rebuild of ZPERSON that fills
    /// nil ages with 18).
    static let ageDouble = try! edit(Pets.v1, "      age: integer16?\n", "      age: { type: double, default: 18 }\n")

    /// Pets v2: the same, then a uniqueness constraint on Pet.name (a unique index
    /// built after the rebuild).
    static let uniqueNames = try! edit(
        ageDouble, "      owner: { destination: Person, inverse: pets, optional: true }\n",
        "      owner: { destination: Person, inverse: pets, optional: true }\n    uniqueness: [[name]]\n")

    /// A duplicate under a new uniqueness constraint: the data decides. The plan
    /// refuses it naming the value and the objects; a duplicate written after the
    /// plan is caught by apply before any step; and if CREATE UNIQUE INDEX still
    /// fails (the check taken out of a tampered plan) after ZPERSON was already
    /// rebuilt, everything is rolled back.
    @Test func aDuplicateUnderANewUniquenessConstraintFailsMidPlan() throws {
        let s = try MigrationScenario.pets(Self.uniqueNames)
        defer { s.remove() }
        var plan = try s.plan()
        _ = try s.withObjects { try $0.insert("Pet", values: ["name": .string("Rex")]) }
        #expect {
            try s.plan()
        } throws: { error in
            (error as? PlanningError)?.isNoPath == true
                && "\(error)" == """
                    \(s.storePath): hop 1 → 2 of Pets cannot migrate this store's data:
                      unique index Z_Pet_UNIQUE_name (ZNAME) is new on ZPET, and stored values are held by several \
                    objects: 1 row: 'Rex' × 2 (Z_PK 1, 5)
                        remedy: make those values unique first, or write Migrations/Pets/1-to-2.yaml with a policy \
                    that merges or renames them (see Docs/Policies.md)
                    """
        }
        #expect(throws: MigrationError.self) { try Migrator().apply(plan) }
        #expect(try s.storeVersion() == 1)
        plan.hops[0].requirements = []
        #expect(plan.kinds == [.rebuildTable, .dropTable, .renameTable, .createIndex, .entityNumbers])
        #expect(
            plan.allSteps[3].sql == [#"CREATE UNIQUE INDEX "Z_Pet_UNIQUE_name" ON "ZPET" ("ZNAME" COLLATE BINARY ASC)"#]
        )
        // SQLite refuses the index: the data's refusal, naming the objects.
        try expectFailure(
            s, plan, .dataRefused,
            """
            hop 1 → 2 cannot migrate this store's data:
              unique index Z_Pet_UNIQUE_name (ZNAME) on ZPET: the values this hop writes are held by several objects: \
            1 row: 'Rex' × 2 (Z_PK 1, 5)
                remedy: make those values unique first, or write Migrations/Pets/1-to-2.yaml with a policy that merges \
            or renames them (see Docs/Policies.md); nothing was changed
            """)
        #expect(try s.storeVersion() == 1)
        #expect(try s.columns("ZPERSON") == ["Z_PK", "Z_ENT", "Z_OPT", "ZAGE", "ZNAME"])
        #expect(try s.fetch("Person") == Pets.people())

        // Without the duplicate the same plan goes through.
        try s.withObjects { try $0.store.connection.execute(#"DELETE FROM "ZPET" WHERE Z_PK = 5"#) }
        try Migrator().apply(try s.plan())
        #expect(try s.storeVersion() == 2)
        #expect(try s.fetch("Pet") == Pets.pets())
        #expect(try s.fetch("Person").map { $0.values["age"] } == [.double(30), .double(18), .double(41)])
    }

    /// A plan tampered so that its rebuild leaves a nil in a required column without
    /// filling the default: the check before commit catches it.
    @Test func aFailingCheckRollsBackEveryStep() throws {
        let s = try MigrationScenario.pets(Self.ageDouble)
        defer { s.remove() }
        var plan = try s.plan()
        let insert = plan.hops[0].steps[0].sql[1]
        #expect(insert.contains(#"coalesce(CAST(s."ZAGE" AS REAL), 18.0)"#))
        plan.hops[0].steps[0].sql[1] = insert.replacingOccurrences(of: "coalesce(", with: "nullif(")
        try expectFailure(
            s, plan, .checkFailed,
            "check failed: required Person.age has a value in every row: 1 row violates it; nothing was changed")
        #expect(try s.fetch("Person") == Pets.people())
    }

    /// A rebuilt table's required values are checked by one scan for all the columns
    /// no index leads (one probe shared by their checks), and each check counts its
    /// own rows only when that scan finds something: the failure still names the
    /// attribute, and the store is left as it was.
    @Test func requiredChecksOfARebuiltTableShareOneScan() throws {
        // a, b and c become required (nil values take the default) while mid's
        // widening rebuilds the table: three required checks, c's column indexed.
        let v1 = """
            entities:
              Thing:
                attributes:
                  a: string?
                  b: integer32?
                  c: { type: string, optional: true, indexed: true }
                  mid: integer32?

            """
        let v2 = try edit(
            edit(
                edit(
                    edit(v1, "a: string?", #"a: { type: string, default: "-" }"#), "b: integer32?",
                    "b: { type: integer32, default: 0 }"),
                "c: { type: string, optional: true, indexed: true }",
                #"c: { type: string, default: "", indexed: true }"#),
            "mid: integer32?", "mid: double?")
        let s = try MigrationScenario("Things", versions: [v1, v2])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert(
                "Thing", values: ["a": .string("x"), "b": .integer(1), "c": .string("k1"), "mid": .integer(5)])
            try o.insert("Thing", values: ["c": .string("k2")])
        }
        var plan = try s.plan()
        let checks = plan.hops[0].checks.filter { $0.summary.hasPrefix("required") }
        // In the table's column order (Core Data's: integers before strings).
        let probe =
            #"SELECT count(*) FROM "ZTHING" WHERE (Z_ENT IN (1) AND "ZB" IS NULL) OR (Z_ENT IN (1) AND "ZA" IS NULL)"#
        #expect(
            checks.map(\.summary) == [
                "required Thing.b has a value in every row", "required Thing.a has a value in every row",
                "required Thing.c has a value in every row",
            ])
        #expect(checks.map(\.probeSQL?.sql) == [probe, probe, nil])
        #expect(
            checks.map(\.sql.sql) == [
                #"SELECT count(*) FROM "ZTHING" WHERE Z_ENT IN (1) AND "ZB" IS NULL"#,
                #"SELECT count(*) FROM "ZTHING" WHERE Z_ENT IN (1) AND "ZA" IS NULL"#,
                #"SELECT count(*) FROM "ZTHING" WHERE Z_ENT IN (1) AND "ZC" IS NULL"#,
            ])

        // A rebuild that loses b's default: the shared scan finds the row, b's own count names it.
        let insert = plan.hops[0].steps.first { $0.kind == .rebuildTable }?.sql.last ?? ""
        let fill = #"coalesce(s."ZB", 0)"#
        #expect(insert.contains(fill), "\(insert)")
        var broken = plan
        let step = broken.hops[0].steps.firstIndex { $0.kind == .rebuildTable } ?? 0
        broken.hops[0].steps[step].sql = broken.hops[0].steps[step].sql.map {
            $0.replacingOccurrences(of: fill, with: #"s."ZB""#)
        }
        try expectFailure(
            s, broken, .checkFailed,
            "check failed: required Thing.b has a value in every row: 1 row violates it; nothing was changed")

        plan = try s.plan()
        try Migrator().apply(plan)
        #expect(
            try s.rows(#"SELECT "ZA", "ZB", "ZC", "ZMID" FROM "ZTHING" ORDER BY Z_PK"#) == [
                [.text("x"), .integer(1), .text("k1"), .real(5)], [.text("-"), .integer(0), .text("k2"), .null],
            ])
    }

    /// A statement failing in the last step, after a table was rebuilt, dropped and renamed.
    @Test func aStepFailingAtTheEndRollsBackEveryEarlierStep() throws {
        let s = try MigrationScenario.pets(Self.ageDouble)
        defer { s.remove() }
        var plan = try s.plan()
        #expect(plan.kinds == [.rebuildTable, .dropTable, .renameTable, .entityNumbers])
        plan.hops[0].steps[3].sql.append("INSERT INTO MM_NO_SUCH_TABLE VALUES (1)")
        try expectFailure(
            s, plan, .stepFailed,
            """
            step 4 (update Z_PRIMARYKEY (entity numbers stay; new entities get new ones)) failed: \
            SQLite error 1 (SQLITE_ERROR): no such table: MM_NO_SUCH_TABLE; nothing was changed
            """,
            statement: "INSERT INTO MM_NO_SUCH_TABLE VALUES (1)")
    }

    /// The rebuilt table must hold the rows the plan expected.
    @Test func aRowCountMismatchFailsTheRebuild() throws {
        let s = try MigrationScenario.pets(Self.ageDouble)
        defer { s.remove() }
        var plan = try s.plan()
        plan.hops[0].steps[0].sql[1] += " AND s.Z_PK > 1"
        try expectFailure(
            s, plan, .checkFailed, "ZPERSON: the rebuilt table holds 2 rows, 3 expected; nothing was changed")
    }

    /// A plan made before another migration ran is refused.
    @Test func aPlanForAStoreThatChangedIsRefused() throws {
        let s = try MigrationScenario.pets(
            try edit(Pets.v1, "      age: integer16?\n", "      age: integer16?\n      nickname: string?\n"))
        defer { s.remove() }
        let plan = try s.plan()
        try Migrator().apply(plan)
        try expectFailure(
            s, plan, .storeChanged,
            """
            \(s.storePath): the store changed since it was planned (another migration ran?); plan again; nothing was \
            changed
            """
        )
        #expect(try s.plan().isEmpty)
    }

    /// Another connection holds the write lock: apply waits `timeout`, then gives up.
    @Test func aLockedStoreFailsAfterTheTimeout() throws {
        let s = try MigrationScenario.pets(try edit(Pets.v1, "      age: integer16?\n", ""))
        defer { s.remove() }
        let plan = try s.plan()
        let holder = try Connection(path: s.storePath)
        try holder.execute("BEGIN IMMEDIATE")
        let started = Date()
        #expect {
            try Migrator().apply(plan, options: Migrator.Options(timeout: 0.2))
        } throws: { error in
            (error as? MigrationError)?.kind == .locked
                && "\(error)"
                    == """
                    \(s.storePath): another migration, writer or reader holds the store; waited 0.2 s (--timeout); \
                    nothing was changed
                    """
        }
        #expect(Date().timeIntervalSince(started) >= 0.2)
        try holder.execute("ROLLBACK")
        try holder.close()
        #expect(try s.storeVersion() == 1)
        try Migrator().apply(plan)
        #expect(try s.storeVersion() == 2)
    }

    @Test func aDryRunRunsEverythingAndChangesNothing() throws {
        let s = try MigrationScenario.pets(Self.ageDouble)
        defer { s.remove() }
        let before = FileSnapshot(s.storePath)
        let result = try Migrator().apply(try s.plan(), options: Migrator.Options(dryRun: true))
        #expect(result.dryRun)
        #expect(result.from == 1 && result.to == 2)
        #expect(result.checksPassed == 2)
        // The rebuild copies Ann, Bob and Cy: rows written count the steps' rows, no bookkeeping.
        #expect(result.rowsTouched == 3)
        #expect(FileSnapshot(s.storePath).fingerprint == before.fingerprint)
        #expect(try s.storeVersion() == 1)
    }

    @Test func aBackupIsAConsistentCopyAndNeverOverwritesAFile() throws {
        let s = try MigrationScenario.pets(try edit(Pets.v1, "      age: integer16?\n", ""))
        defer { s.remove() }
        let original = try StoreDump.dump(s.storePath)
        let backup = s.directory.file("backup.sqlite")
        try s.directory.write("backup.sqlite", "keep me")
        let before = FileSnapshot(s.storePath)
        #expect {
            try Migrator().apply(try s.plan(), options: Migrator.Options(backupPath: backup))
        } throws: { error in
            (error as? MigrationError)?.kind == .backupFailed
                && "\(error)" == "\(backup): the backup file already exists; choose a new path"
        }
        #expect(FileSnapshot(s.storePath).fingerprint == before.fingerprint)
        #expect(try String(contentsOfFile: backup, encoding: .utf8) == "keep me")

        try FileManager.default.removeItem(atPath: backup)
        let result = try Migrator().apply(try s.plan(), options: Migrator.Options(backupPath: backup))
        #expect(result.backup == backup)
        #expect(try StoreDump.dump(backup) == original)
        #expect(try s.storeVersion() == 2)
        #expect(try s.fetch("Person") == Pets.people(ageName: nil))
    }

    /// The new metadata: stamped version, hashes, layout hash, a history record and
    /// the model cache of the new version.
    @Test func theStoreIsStampedWithTheNewVersionAndItsHistory() throws {
        let s = try MigrationScenario.pets(
            try edit(Pets.v1, "      age: integer16?\n", "      age: integer16?\n      nickname: string?\n"))
        defer { s.remove() }
        let plan = try s.plan()
        try Migrator().apply(plan)
        let store = try Store.open(path: s.storePath)
        defer { try? store.close() }
        let metadata = try store.readMetadata()
        let v2 = try #require(try s.model().version(2))
        #expect(metadata.modelVersion == 2)
        #expect(metadata.versionHashes == v2.versionHashes)
        #expect(metadata.layoutHash == v2.layoutHash)
        #expect(metadata.history.map { [$0.fromVersion, $0.toVersion] } == [[1, 2]])
        #expect(metadata.history.first?.mappingDigests == plan.hops.map(\.digest))
        #expect(try store.readModelCache() == v2)
    }
}
