import DataModel
import Foundation
import TestSupport
import Testing

@testable import SQLiteStore

@Suite struct StoreInspectionTests {
    @Test func inspectingAToolkitStore() throws {
        let directory = try TemporaryDirectory(prefix: "StoreInspectionTests")
        defer { directory.remove() }
        let v2 = try TestModels.contacts().versions[1]
        let created = try directory.createStore(version: v2)
        let access = try ObjectAccess(store: created, version: v2)
        let ann = try access.insert("Person", values: ["email": .string("ann@example.com")])
        try access.insert("Person", values: ["email": .string("bob@example.com")])
        let tag = try access.insert("Tag", values: ["name": .string("news")])
        try access.insert("Post", values: ["title": .string("Hello")], relationships: ["author": [ann], "tags": [tag]])
        try created.close()

        let before = FileSnapshot(created.path)
        let store = try Store.open(path: created.path)
        let inspection = try store.inspect()
        try store.close()
        #expect(FileSnapshot(created.path) == before)

        #expect(inspection.path == created.path)
        #expect(inspection.metadata.modelName == "Contacts")
        #expect(inspection.metadata.modelVersion == 2)
        #expect(!inspection.isAppleStore)
        #expect(inspection.cachedModel == v2)
        #expect(inspection.journalMode == "delete")
        #expect(inspection.fileSize == Int64(before.bytes?.count ?? -1))
        #expect(
            inspection.entities == [
                .init(
                    name: "Person", number: 1, parent: nil, maxKey: 2, rowCount: 2,
                    storedHash: v2.versionHashes["Person"]),
                .init(
                    name: "Post", number: 2, parent: nil, maxKey: 1, rowCount: 1, storedHash: v2.versionHashes["Post"]),
                .init(name: "Tag", number: 3, parent: nil, maxKey: 1, rowCount: 1, storedHash: v2.versionHashes["Tag"]),
            ])
        #expect(
            inspection.tables.map(\.name) == [
                "MM_MODELCACHE", "ZPERSON", "ZPOST", "ZTAG", "Z_2TAGS", "Z_METADATA", "Z_PRIMARYKEY",
            ])
        #expect(inspection.tables.map(\.rowCount) == [1, 2, 1, 1, 1, 1, 3])
        let join = try #require(inspection.tables.first { $0.name == "Z_2TAGS" })
        #expect(join.columns == [.init(name: "Z_2POSTS", type: "INTEGER"), .init(name: "Z_3TAGS", type: "INTEGER")])
        #expect(
            join.indexes == [.init(name: "Z_2TAGS_Z_3TAGS_INDEX", columns: ["Z_3TAGS", "Z_2POSTS"], isUnique: false)])
        let people = try #require(inspection.tables.first { $0.name == "ZPERSON" })
        #expect(
            people.indexes.sorted { $0.name < $1.name } == [
                .init(name: "ZPERSON_ZEMAIL_INDEX", columns: ["ZEMAIL"], isUnique: false),
                .init(name: "Z_Person_UNIQUE_email", columns: ["ZEMAIL"], isUnique: true),
            ])
    }

    /// Subentities share their root's table; each entity counts its own rows.
    @Test func rowCountsPerEntityInAHierarchy() throws {
        let directory = try TemporaryDirectory(prefix: "StoreInspectionTests")
        defer { directory.remove() }
        let v1 = try TestModels.appleParity("SampleModel").versions[0]
        let store = try directory.createStore(version: v1)
        let access = try ObjectAccess(store: store, version: v1)
        try access.insert("Car", values: ["numberPlate": .string("A-1")])
        try access.insert("SportCar", values: ["numberPlate": .string("S-1")])
        try access.insert("SportCar", values: ["numberPlate": .string("S-2")])
        try access.insert(
            "ExpensiveSportCar", values: ["numberPlate": .string("E-1"), "isLimitedEdition": .boolean(true)])
        let inspection = try store.inspect()
        #expect(
            inspection.entities.map { "\($0.number) \($0.name) \($0.parent ?? "-") \($0.maxKey) \($0.rowCount ?? -1)" }
                == [
                    "1 Car - 4 1", "2 SportCar Car 0 2", "3 ExpensiveSportCar SportCar 0 1", "4 Person - 0 0",
                ])
        #expect(try access.count("Car") == 4)
        #expect(try access.count("SportCar") == 3)
        #expect(try access.count("SportCar", includeSubentities: false) == 2)
        #expect(
            try access.fetch("SportCar") == [
                StoredObject(
                    entity: "SportCar", primaryKey: 2, values: ["numberPlate": .string("S-1")],
                    relationships: ["owner": []]),
                StoredObject(
                    entity: "SportCar", primaryKey: 3, values: ["numberPlate": .string("S-2")],
                    relationships: ["owner": []]),
                StoredObject(
                    entity: "ExpensiveSportCar", primaryKey: 4,
                    values: ["numberPlate": .string("E-1"), "isLimitedEdition": .boolean(true)],
                    relationships: ["owner": []]),
            ])
    }
}
