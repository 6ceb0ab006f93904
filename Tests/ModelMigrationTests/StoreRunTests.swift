import Foundation
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// `StoreRun`: the one single-store run (open → plan → gate → apply → outcome) that
/// `apply`, `plan`, `status` and the fleet runner share, with one rule each for a
/// current store, the gate, a failure and a store another process migrated meanwhile.
@Suite struct StoreRunTests {
    /// Pets v2: Pet.name dropped (a destructive step: the names are lost).
    static let namesDropped = try! edit(Pets.v1, "  Pet:\n    attributes:\n      name: string\n", "  Pet:\n")

    static func run(_ s: MigrationScenario, verify: Bool = false) throws -> StoreRun {
        StoreRun(
            planner: MigrationPlanner(
                models: [try s.model()], migrationsFolder: s.migrationsFolder, options: PlanningOptions(verify: verify))
        )
    }

    @Test func migratesAStoreThatNeedsIt() throws {
        let s = try MigrationScenario.pets(MigratorTests.ageDouble)
        defer { s.remove() }
        let ending = try Self.run(s).apply(s.storePath, options: Migrator.Options())
        guard case .ran(let plan, let result) = ending else {
            Issue.record("\(ending)")
            return
        }
        #expect(ending.kind == .migrated)
        #expect((plan.sourceVersion, result.to) == (1, 2))
        #expect(try s.storeVersion() == 2)
        #expect(try s.fetch("Pet") == Pets.pets())
    }

    /// Nothing to do at the target; with `--verify` the store is checked and stays
    /// `current` (a fleet skipped it unverified, `apply` verified it).
    @Test func aCurrentStoreIsCurrentAndVerifiedWhenAsked() throws {
        let s = try MigrationScenario.pets()
        defer { s.remove() }
        let before = FileSnapshot(s.storePath)
        let plain = try Self.run(s).apply(s.storePath, options: Migrator.Options())
        guard case .current = plain else {
            Issue.record("\(plain)")
            return
        }
        let verified = try Self.run(s, verify: true).apply(s.storePath, options: Migrator.Options())
        guard case .ran(let plan, let result) = verified else {
            Issue.record("\(verified)")
            return
        }
        #expect(plan.isEmpty && result.checksPassed > 0)
        #expect(verified.kind == .current)
        #expect(FileSnapshot(s.storePath) == before)
    }

    /// The gate refuses a plan that loses data unless the loss is accepted; the store
    /// is unchanged, and `willMigrate` is never told.
    @Test func theGateRefusesUnacceptedLosses() throws {
        let s = try MigrationScenario.pets(Self.namesDropped)
        defer { s.remove() }
        let before = FileSnapshot(s.storePath)
        var run = try Self.run(s)
        run.refusesDestructivePlans = true
        var told = false
        let refused = run.apply(s.storePath, options: Migrator.Options(), willMigrate: { _ in told = true })
        guard case .refused(_, let refusal) = refused else {
            Issue.record("\(refused)")
            return
        }
        #expect(refusal.kind == .destructive && !told)
        #expect(FileSnapshot(s.storePath) == before)
        let migrations = s.migrationsFolder
        run.acceptedLosses = { _ in
            try AcceptedLosses.load(accept: ["Pet.name"], migrationsFolder: migrations, model: "Pets")
        }
        let accepted = run.apply(s.storePath, options: Migrator.Options(), willMigrate: { _ in told = true })
        #expect(accepted.kind == .migrated && told, "\(accepted)")
    }

    /// Another process migrates the store between the plan and the lock: the run
    /// ends `migratedByAnother`, not a failure, and keeps no backup.
    @Test func aStoreMigratedMeanwhileIsCurrent() throws {
        let s = try MigrationScenario.pets(MigratorTests.ageDouble)
        defer { s.remove() }
        let backups = s.directory.file("backups")
        var options = Migrator.Options()
        options.backupDirectory = backups
        let ending = try Self.run(s).apply(s.storePath, options: options, willMigrate: { _ in _ = try? s.migrate() })
        guard case .migratedByAnother(let plan) = ending else {
            Issue.record("\(ending)")
            return
        }
        #expect(plan.targetVersion == 2 && ending.kind == .current)
        #expect(try s.storeVersion() == 2)
        #expect(
            (try? FileManager.default.contentsOfDirectory(atPath: backups))?.filter { $0.hasSuffix(".sqlite") } ?? []
                == [])
    }

    /// Planning failures are outcomes: a backup copy's name, a file that is no store.
    @Test func whatCannotBePlannedIsAnOutcome() throws {
        let s = try MigrationScenario.pets(MigratorTests.ageDouble)
        defer { s.remove() }
        let kept = try s.directory.write(".replaced/store.replaced.20261129T040000Z.sqlite", "x")
        let garbage = try s.directory.write("garbage.sqlite", "not a store")
        let run = try Self.run(s)
        guard case .notPlanned(let outcome) = run.apply(kept, options: Migrator.Options()) else {
            Issue.record("kept copy planned")
            return
        }
        #expect(outcome.kind == .failed && outcome.message.contains("never a store to migrate"))
        #expect(run.apply(garbage, options: Migrator.Options()).kind == .failed)
        #expect(run.apply(garbage, options: Migrator.Options()).plan == nil)
    }
}
