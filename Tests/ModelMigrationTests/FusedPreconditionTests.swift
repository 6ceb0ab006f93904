import DataModel
import Foundation
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// A precondition left to a rebuild's own scan (`MigrationCheck.checkedByRebuildOf`)
/// is held to the separate scan before any step: every store either refuses with
/// the same error, its file unchanged, or migrates to the same data.
@Suite struct FusedPreconditionTests {
    /// Animals and dogs share ZANIMAL; a person's dog points into it. Version 2
    /// widens a number in each table: ZANIMAL (two copies, one per entity) and
    /// ZPERSON are rebuilt, reading every row. Entity numbers: Animal 1, Dog 2, Person 3.
    static let v1 = """
        entities:
          Animal:
            attributes:
              name: string
              weight: integer16?
          Dog:
            parent: Animal
            attributes:
              breed: string?
          Person:
            attributes:
              name: string
              age: integer16?
            relationships:
              dog: { destination: Dog, optional: true }

        """
    static let v2 = v1.replacingOccurrences(of: "integer16?", with: "double?")

    /// The three ways a store contradicts the plan, as SQL, and the summary of the
    /// precondition that finds each.
    enum Corruption: String, CaseIterable, Sendable {
        case personOfNoEntity, animalWithoutEntity, strayValue, wrongReference

        func sql(animals: Int, people: Int) -> String {
            switch self {
            case .personOfNoEntity: "UPDATE ZPERSON SET Z_ENT = 99 WHERE Z_PK = \(people)"
            case .animalWithoutEntity: "UPDATE ZANIMAL SET Z_ENT = NULL WHERE Z_PK = \(animals)"
            // Animal 1 is a plain Animal: a breed there is a Dog's column.
            case .strayValue: "UPDATE ZANIMAL SET ZBREED = 'stray' WHERE Z_PK = 1"
            // Animal 1 is no Dog.
            case .wrongReference: "UPDATE ZPERSON SET ZDOG = 1 WHERE Z_PK = 1"
            }
        }
    }

    /// A scenario of `animals` animals (odd keys plain animals, even keys dogs) and
    /// `people` people, each with the dog of `dogOf` (nil: none).
    static func kennel(animals: Int = 4, people: Int = 3, dogOf: (Int) -> Int? = { $0 % 2 == 0 ? 2 : nil }) throws
        -> MigrationScenario
    {
        let s = try MigrationScenario("Kennel", versions: [v1, v2])
        try s.withObjects { o in
            for k in 1...animals {
                let dog = k % 2 == 0
                var values: [String: AttributeValue] = ["name": .string("animal \(k)")]
                if k % 3 != 0 { values["weight"] = .integer(Int64(k * 7 % 40)) }
                if dog, k % 4 == 0 { values["breed"] = .string("breed \(k)") }
                try o.insert(dog ? "Dog" : "Animal", values: values)
            }
            for k in 1...people {
                var values: [String: AttributeValue] = ["name": .string("person \(k)")]
                if k % 2 == 1 { values["age"] = .integer(Int64(20 + k)) }
                try o.insert("Person", values: values, relationships: dogOf(k).map { ["dog": [Int64($0)]] } ?? [:])
            }
        }
        return s
    }

    static func execute(_ path: String, _ sql: String) throws {
        let connection = try Connection(path: path)
        try connection.execute(sql)
        try connection.close()
    }

    /// A plan with every table over the count limit (audited by `apply`), the
    /// entity-number checks left to the rebuilds or not.
    static func plan(_ path: String, model: CompiledModel, migrations: String, fused: Bool) throws -> MigrationPlan {
        let store = try Store.open(path: path)
        defer { try? store.close() }
        var planner = MigrationPlanner(models: [model], migrationsFolder: migrations)
        planner.options.countLimit = 2
        planner.fusesPreconditions = fused
        return try planner.plan(store: store)
    }

    /// What `apply` did: the error's kind and message, or the store's data.
    enum Outcome: Equatable, CustomStringConvertible {
        case refused(MigrationError.Kind?, String)
        case migrated(String)

        var description: String {
            switch self {
            case .refused(let kind, let message):
                "refused (\(kind.map { "\($0)" } ?? "not a MigrationError")): \(message)"
            case .migrated(let data): "migrated:\n\(data)"
            }
        }
    }

    /// Plans and applies on the store at `path`; the store's path in a message is
    /// written `STORE`, and a refused store must be unchanged on disk.
    static func apply(_ path: String, model: CompiledModel, migrations: String, fused: Bool) throws -> (
        MigrationPlan, Outcome
    ) {
        let plan = try plan(path, model: model, migrations: migrations, fused: fused)
        let before = FileSnapshot(path)
        do {
            try Migrator().apply(plan)
        } catch {
            #expect(FileSnapshot(path).fingerprint == before.fingerprint, "the refused store changed")
            return (
                plan,
                .refused((error as? MigrationError)?.kind, "\(error)".replacingOccurrences(of: path, with: "STORE"))
            )
        }
        return (plan, .migrated(try dataDump(path)))
    }

    /// Every table's schema and rows but the metadata's (which holds the time).
    static func dataDump(_ path: String) throws -> String {
        var skipping = false
        return try StoreDump.dump(path).split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            if line.hasPrefix("-- ") { skipping = line.hasPrefix("-- Z_METADATA:") }
            return !skipping
        }.joined(separator: "\n")
    }

    /// Applies fused on one copy and unfused on another of the scenario's store.
    static func bothWays(_ s: MigrationScenario) throws -> (
        fused: (MigrationPlan, Outcome), separate: (MigrationPlan, Outcome)
    ) {
        let model = try s.model()
        let copy = s.storePath + ".separate.sqlite"
        try FileManager.default.copyItem(atPath: s.storePath, toPath: copy)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let fused = try apply(s.storePath, model: model, migrations: s.migrationsFolder, fused: true)
        let separate = try apply(copy, model: model, migrations: s.migrationsFolder, fused: false)
        return (fused, separate)
    }

    @Test func rebuildsReadingEveryRowCheckTheirTablesRows() throws {
        let s = try Self.kennel()
        defer { s.remove() }
        let model = try s.model()
        let fused = try Self.plan(s.storePath, model: model, migrations: s.migrationsFolder, fused: true)
        let separate = try Self.plan(s.storePath, model: model, migrations: s.migrationsFolder, fused: false)
        // The same checks, in the same order; only where two of them run differs.
        #expect(fused.preconditions.map(\.summary) == separate.preconditions.map(\.summary))
        #expect(fused.preconditions.map(\.sql) == separate.preconditions.map(\.sql))
        #expect(separate.preconditions.allSatisfy { $0.checkedByRebuildOf == nil })
        #expect(
            fused.preconditions.map { "\($0.checkedByRebuildOf ?? "-"): \($0.summary)" } == [
                """
                ZANIMAL: ZANIMAL holds rows whose Z_ENT is no entity of Animal's hierarchy (Z_ENT 1, 2, as \
                Z_PRIMARYKEY numbers them)
                """,
                """
                ZPERSON: ZPERSON holds rows whose Z_ENT is no entity of Person's hierarchy (Z_ENT 3, as Z_PRIMARYKEY \
                numbers them)
                """,
                """
                ZANIMAL: ZANIMAL holds values in columns of another entity than the row's (the rows' Z_ENT do not fit \
                what they hold)
                """,
                "ZPERSON: ZPERSON.ZDOG points at rows that are not Dog objects",
            ])
        #expect(
            fused.warnings.map(\.description) == [
                "ZANIMAL (about 4 rows), ZPERSON (about 3 rows): not audited while planning; `apply` checks their "
                    + "rows' entity numbers "
                    + "(and, where it can, their values and references) within the step that rebuilds each, which "
                    + "reads every row "
                    + "(a failure rolls back and refuses the store as a scan before any step would), and the rest "
                    + "under its lock "
                    + "before any step (`migrate plan --exact-counts` checks them now)"
            ])
        #expect(
            separate.warnings.map(\.description) == [
                "ZANIMAL (about 4 rows), ZPERSON (about 3 rows): not audited while planning; `apply` checks their "
                    + "rows' entity numbers "
                    + "and references under its lock before any step (`migrate plan --exact-counts` checks them now)"
            ])
        // The copies check each row's values and references on the check's own
        // condition; every other statement is the same.
        let copies = fused.allSteps.flatMap(\.sql).filter { $0.contains("mm_audit") }
        #expect(
            copies.map { $0.components(separatedBy: " FROM ").last ?? "" } == [
                #"""
                "ZANIMAL" AS s WHERE s.Z_ENT = 1 AND mm_audit(((Z_ENT NOT IN (2) AND "ZBREED" IS NOT NULL)), s.Z_PK)
                """#,
                #"""
                "ZANIMAL" AS s WHERE s.Z_ENT = 2 AND mm_audit(((Z_ENT NOT IN (2) AND "ZBREED" IS NOT NULL)), s.Z_PK)
                """#,
                #""ZANIMAL" AS d WHERE d.Z_PK = s."ZDOG" AND d.Z_ENT NOT IN (2))), s.Z_PK)"#,
            ])
        let unaudited = fused.allSteps.flatMap(\.sql).map {
            $0.replacingOccurrences(of: #" AND mm_audit\(.*\)$"#, with: "", options: .regularExpression)
        }
        #expect(unaudited == separate.allSteps.flatMap(\.sql))
    }

    /// Each corruption alone and all of them at once: the same refusal, fused or
    /// not, and the store unchanged (checked in `apply`).
    @Test(arguments: Corruption.allCases.map { [$0] } + [Corruption.allCases])
    func corruptStoresAreRefusedAlikeFusedOrNot(_ corruptions: [Corruption]) throws {
        let s = try Self.kennel()
        defer { s.remove() }
        for corruption in corruptions { try Self.execute(s.storePath, corruption.sql(animals: 4, people: 3)) }
        let (fused, separate) = try Self.bothWays(s)
        // Every check of both tables is left to their rebuilds.
        #expect(fused.0.preconditions.count == 4 && fused.0.preconditions.allSatisfy { $0.checkedByRebuildOf != nil })
        #expect(fused.1 == separate.1)
        guard case .refused(let kind, let message) = fused.1 else {
            Issue.record("not refused: \(fused.1)")
            return
        }
        #expect(kind == .inconsistentStore)
        #expect(
            message.hasPrefix(
                """
                STORE: the store is inconsistent with Kennel version 1, and migrating it would lose or misfile rows; \
                nothing was changed.
                """
            ))
        let named = [
            Corruption.personOfNoEntity:
                "ZPERSON holds rows whose Z_ENT is no entity of Person's hierarchy (Z_ENT 3, as Z_PRIMARYKEY numbers "
                + "them): "
                + "1 row: Z_PK 3 has Z_ENT 99 (no entity of this table)",
            .animalWithoutEntity:
                "ZANIMAL holds rows whose Z_ENT is no entity of Animal's hierarchy (Z_ENT 1, 2, as Z_PRIMARYKEY "
                + "numbers them): "
                + "1 row: Z_PK 4 has Z_ENT NULL (no entity of this table)",
            .strayValue:
                "ZANIMAL holds values in columns of another entity than the row's (the rows' Z_ENT do not fit what "
                + "they hold): "
                + "1 row: Z_PK 1 has Z_ENT 1 (Animal) and a value in ZBREED of Dog",
            .wrongReference:
                """
            ZPERSON.ZDOG points at rows that are not Dog objects: 1 row: Z_PK 1 points to ZANIMAL Z_PK 1, Z_ENT 1 \
            (Animal)
            """,
        ]
        for corruption in corruptions {
            #expect(message.contains("  - " + named[corruption]!), "\(corruption)")
        }
    }

    @Test func aGoodStoreMigratesToTheSameDataFusedOrNot() throws {
        let s = try Self.kennel(animals: 9, people: 7)
        defer { s.remove() }
        let (fused, separate) = try Self.bothWays(s)
        #expect(fused.0.preconditions.filter { $0.checkedByRebuildOf != nil }.count == 4)
        guard case .migrated(let data) = fused.1 else {
            Issue.record("not migrated: \(fused.1)")
            return
        }
        #expect(fused.1 == separate.1)
        #expect(data.contains("-- ZPERSON: 7 rows") && data.contains("-- ZANIMAL: 9 rows"))
    }

    /// A step before the rebuilds that writes rows (here the removal of a dangling
    /// reference from ZPERSON) may change the rows the audit reads, in its table or,
    /// through a trigger, in another: every check keeps its scan before any step.
    @Test func rowsWrittenBeforeTheRebuildsKeepEveryScan() throws {
        let s = try Self.kennel()
        defer { s.remove() }
        try Self.execute(s.storePath, "UPDATE ZPERSON SET ZDOG = 77 WHERE Z_PK = 1")
        let store = try Store.open(path: s.storePath)
        defer { try? store.close() }
        var planner = MigrationPlanner(models: [try s.model()], migrationsFolder: s.migrationsFolder)
        planner.options.countLimit = 2
        planner.options.removesDanglingReferences = true
        let plan = try planner.plan(store: store)
        #expect(plan.allSteps.first?.kind == .updateRows && plan.allSteps.first?.table == "ZPERSON")
        #expect(plan.preconditions.count == 4 && plan.preconditions.allSatisfy { $0.checkedByRebuildOf == nil })
    }

    /// Random small stores, some corrupted in random ways (rows of no entity, stray
    /// values, references to the wrong entity, dangling references, which are
    /// carried): fused and separate agree on every one.
    @Test func randomStoresAgreeFusedOrNot() throws {
        var random = SplitMix64(seed: 38_07)
        var refused = 0
        for trial in 0..<30 {
            let animals = Int.random(in: 3...9, using: &random)
            let people = Int.random(in: 3...9, using: &random)
            let dogs = (1...animals).filter { $0 % 2 == 0 }
            let choices: [Int?] = dogs + [nil]
            let dogOf = (1...people).map { _ in choices.randomElement(using: &random)! }
            let s = try Self.kennel(animals: animals, people: people, dogOf: { dogOf[$0 - 1] })
            defer { s.remove() }
            var applied: [String] = []
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                let sql: String
                switch Int.random(in: 0..<6, using: &random) {
                case 0:
                    let value = ["NULL", "99", "3", "0", "'x'"].randomElement(using: &random)!
                    sql =
                        """
                        UPDATE ZANIMAL SET Z_ENT = \(value) WHERE Z_PK = \(Int.random(in: 1...animals, using: &random))
                        """
                case 1:
                    let value = ["NULL", "1", "2", "99"].randomElement(using: &random)!
                    sql =
                        "UPDATE ZPERSON SET Z_ENT = \(value) WHERE Z_PK = \(Int.random(in: 1...people, using: &random))"
                case 2:
                    sql =
                        """
                        UPDATE ZANIMAL SET ZBREED = 'stray' WHERE Z_PK = \(Int.random(in: 1...animals, using: &random))
                        """
                case 3:
                    sql =
                        """
                        UPDATE ZPERSON SET ZDOG = \(Int.random(in: 1...animals, using: &random)) WHERE Z_PK = \
                        \(Int.random(in: 1...people, using: &random))
                        """
                case 4:
                    // Dangling: carried, not refused.
                    sql =
                        """
                        UPDATE ZPERSON SET ZDOG = \(animals + 50) WHERE Z_PK = \
                        \(Int.random(in: 1...people, using: &random))
                        """
                default:
                    sql =
                        """
                        UPDATE ZANIMAL SET Z_ENT = \(Bool.random(using: &random) ? 1 : 2) WHERE Z_PK = \
                        \(Int.random(in: 1...animals, using: &random))
                        """
                }
                try Self.execute(s.storePath, sql)
                applied.append(sql)
            }
            let (fused, separate) = try Self.bothWays(s)
            #expect(fused.0.preconditions.allSatisfy { $0.checkedByRebuildOf != nil }, "trial \(trial)")
            #expect(fused.1 == separate.1, "trial \(trial): \(applied)")
            if case .refused = separate.1 { refused += 1 }
        }
        // Both kinds of outcome were exercised.
        #expect(refused > 5 && refused < 25)
    }
}
