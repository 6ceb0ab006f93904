import Foundation
import SQLiteStore
import TestSupport
import Testing

@testable import ModelMigration

/// The application entry point: Core Data's `shouldMigrateStoreAutomatically` and
/// `shouldInferMappingModelAutomatically`.
@Suite struct StoreOpenerTests {
    static let v2 = Pets.v1.replacingOccurrences(
        of: "      age: integer16?\n", with: "      age: integer16?\n      nickname: string?\n")

    @Test func aMissingStoreIsCreatedAtTheCurrentVersion() throws {
        let s = try MigrationScenario.pets(Self.v2)
        defer { s.remove() }
        let path = s.directory.file("new.sqlite")
        let store = try StoreOpener(model: try s.model()).open(path: path)
        defer { try? store.close() }
        #expect(try store.readMetadata().modelVersion == 2)
        #expect(try ObjectAccess(store: store, version: try s.model().current).count("Person") == 0)
    }

    @Test func anOlderStoreIsMigratedAndReturnedReadyToUse() throws {
        let s = try MigrationScenario.pets(Self.v2)
        defer { s.remove() }
        let store = try StoreOpener(model: try s.model(), migrationsFolder: s.migrationsFolder).open(path: s.storePath)
        defer { try? store.close() }
        #expect(try store.readMetadata().modelVersion == 2)
        let access = try ObjectAccess(store: store, version: try s.model().current)
        #expect(try access.fetch("Person") == Pets.people())
        try access.insert("Person", values: ["name": .string("Dee"), "nickname": .string("D")])
        #expect(try access.count("Person") == 4)
    }

    @Test func withAutomaticMigrationOffTheStoreIsLeftAsItWas() throws {
        let s = try MigrationScenario.pets(Self.v2)
        defer { s.remove() }
        let before = try Data(contentsOf: URL(fileURLWithPath: s.storePath))
        var opener = StoreOpener(model: try s.model())
        opener.shouldMigrateStoreAutomatically = false
        let error = try #require(throws: StoreOpenError.self) { try opener.open(path: s.storePath) }
        #expect(error.kind == .migrationNeeded)
        #expect(
            error.message
                == """
                \(s.storePath): the store is at version 1 of Pets; version 2 needs a migration (automatic migration is \
                off)
                """
        )
        #expect(try Data(contentsOf: URL(fileURLWithPath: s.storePath)) == before)
    }

    @Test func withInferenceOffAHopWithoutAMappingFileIsRefused() throws {
        let s = try MigrationScenario.pets(Self.v2)
        defer { s.remove() }
        var opener = StoreOpener(model: try s.model())
        opener.shouldInferMappingModelAutomatically = false
        let error = try #require(throws: StoreOpenError.self) { try opener.open(path: s.storePath) }
        #expect(error.kind == .noPath)
        #expect(error.message == "\(s.storePath): hop 1 → 2 has no mapping file and inferring mappings is off")
        #expect(try s.storeVersion() == 1)
    }
}
