import Foundation
import SQLiteStore
import TestSupport
import Testing

@testable import ModelMigration

/// A store written by Apple's Core Data migrates like one of ours, keeping Core
/// Data's naming, entity numbers, WAL mode and metadata keys.
@Suite struct AppleStoreMigrationTests {
    @Test func anAppleStoreMigratesToTheNextVersionWithCoreDatasNaming() throws {
        let directory = try TemporaryDirectory(prefix: "AppleStoreMigrationTests")
        defer { directory.remove() }
        let path = directory.file("SampleModel.sqlite")
        try AppleSampleStore.create(at: path)
        let model = try TestModels.appleParity("SampleModel")

        let reader = try Store.open(path: path, access: .readOnly)
        let plan = try MigrationPlanner(models: [model], migrationsFolder: directory.file("none")).plan(store: reader)
        try reader.close()
        #expect(plan.sourceVersion == 1)
        #expect(plan.targetVersion == 2)
        // Version 2 drops Car.color and Person.id in place, renames the entity
        // ExpensiveSportCar to LuxuryCar (same number) and adds a fetch index.
        #expect(plan.allSteps.map(\.kind) == [.dropColumn, .dropColumn, .createIndex, .entityNumbers])
        try Migrator().apply(plan)

        let store = try Store.open(path: path, access: .readOnly)
        defer { try? store.close() }
        // The tables are exactly those Core Data wrote for version 2 (CoreDataPlus's SampleModel_V2.sqlite).
        #expect(
            try store.connection.columns(of: "ZCAR").map(\.name) == [
                "Z_PK", "Z_ENT", "Z_OPT", "ZOWNER", "ZISLIMITEDEDITION", "ZMARKEDFORDELETIONASOF", "ZMAKER", "ZMODEL",
                "ZNUMBERPLATE",
            ])
        #expect(
            try store.connection.columns(of: "ZPERSON").map(\.name) == [
                "Z_PK", "Z_ENT", "Z_OPT", "ZUPDATEDAT", "ZFIRSTNAME", "ZLASTNAME",
            ])
        #expect(
            Set(try store.connection.indexes(of: "ZCAR").map(\.name)) == [
                "ZCAR_ZOWNER_INDEX", "ZCAR_Z_ENT_INDEX", "Z_Car_UNIQUE_numberPlate", "Z_Car_byMakerAndNumberPlate",
            ])
        #expect(
            try store.entityKeyRows().map { "\($0.number) \($0.name) \($0.parent) \($0.maxKey)" } == [
                "1 Car 0 5", "2 SportCar 1 0", "3 LuxuryCar 2 0", "4 Person 0 2",
            ])
        #expect(try store.inspect().journalMode == "wal")
        // Core Data's model cache would describe version 1: emptied.
        #expect(try store.connection.scalarInt64("SELECT count(*) FROM Z_MODELCACHE") == 0)

        // Apple's hashes of version 2, as Core Data stamped them in SampleModel_V2.sqlite.
        let metadata = try store.readMetadata()
        #expect(
            metadata.versionHashes.mapValues(\.hex) == [
                "Car": "7e503efbf4b63cd93ff729e9675e21c63c65262d85a9889f59a2440af6481b93",
                "SportCar": "722a55b5bbcd51d74876a4dd8f8f7bbde57ddc61cb65a577ec5b0fbe978d7b8c",
                "LuxuryCar": "a873c5590010e4ea3f7bdf846786dfbf5cb095526b86aa0de2c569c4bb121886",
                "Person": "067ae62e1bd1014cb6559d990803ae58f354dd1b7ba7b7722a361c0c39f2134e",
            ])
        #expect(metadata.versionIdentifiers == ["2"])
        #expect(metadata.frameworkVersion == 1044)
        #expect(metadata.otherKeys["_NSAutoVacuumLevel"] == "2")
        #expect(metadata.storeUUID == AppleSampleStore.uuid)

        // Every row kept; the renamed entity's row under its new name.
        let access = try ObjectAccess(store: store, version: model.version(2)!)
        #expect(
            try access.fetch("Car").map { "\($0.primaryKey) \($0.entity) \($0.values["numberPlate"]!)" } == [
                "1 Car AB123CD", "2 SportCar SP-1", "3 LuxuryCar LX-1", "4 Car ZZ999ZZ", "5 SportCar SP-2",
            ])
        #expect(try access.object("LuxuryCar", primaryKey: 3)?.values["isLimitedEdition"] == .boolean(true))
        #expect(try access.fetch("Person").map { $0.relationships["cars"] ?? [] } == [[1, 4], [2]])
    }
}
