import DataModel
import Foundation
import TestSupport
import Testing

@testable import SQLiteStore

@Suite struct StoreTests {
    // MARK: Creating

    @Test func createWritesCoreDataTablesAndBookkeeping() throws {
        let directory = try TemporaryDirectory(prefix: "StoreTests")
        defer { directory.remove() }
        let v1 = try TestModels.contacts().versions[0]
        let store = try Store.create(path: directory.file("store.sqlite"), version: v1)
        let schema = try store.connection.prepare("SELECT sql FROM sqlite_schema ORDER BY rowid").rows().map { $0[0] }
        #expect(
            schema == [
                .text(
                    """
                    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX \
                    INTEGER)
                    """
                ),
                .text("CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)"),
                .text("CREATE TABLE MM_MODELCACHE (Z_VERSION INTEGER PRIMARY KEY, Z_CONTENT BLOB)"),
                .text(
                    #"""
                    CREATE TABLE "ZPERSON" ( "Z_PK" INTEGER PRIMARY KEY, "Z_ENT" INTEGER, "Z_OPT" INTEGER, "ZAGE" \#
                    INTEGER, "ZCREATEDAT" TIMESTAMP, \#
                    "ZCITY" VARCHAR, "ZEMAIL" VARCHAR, "ZFULLNAME" VARCHAR )
                    """#),
                .text(
                    #"""
                    CREATE TABLE "ZPOST" ( "Z_PK" INTEGER PRIMARY KEY, "Z_ENT" INTEGER, "Z_OPT" INTEGER, "ZAUTHOR" \#
                    INTEGER, "ZPUBLISHEDAT" TIMESTAMP, "ZRATING" FLOAT, "ZBODY" VARCHAR, "ZTITLE" VARCHAR )
                    """#),
                .text(#"CREATE INDEX "ZPERSON_ZEMAIL_INDEX" ON "ZPERSON" ("ZEMAIL" COLLATE BINARY ASC)"#),
                .text(#"CREATE UNIQUE INDEX "Z_Person_UNIQUE_email" ON "ZPERSON" ("ZEMAIL" COLLATE BINARY ASC)"#),
                .text(#"CREATE INDEX "ZPOST_ZAUTHOR_INDEX" ON "ZPOST" ("ZAUTHOR" COLLATE BINARY ASC)"#),
            ])
        #expect(
            try store.entityKeyRows() == [
                EntityKeyRow(number: 1, name: "Person", parent: 0, maxKey: 0),
                EntityKeyRow(number: 2, name: "Post", parent: 0, maxKey: 0),
            ])
        #expect(try store.connection.scalarString("PRAGMA journal_mode") == "delete")
        let metadata = try store.readMetadata()
        #expect(metadata == StoreMetadata(version: v1, storeUUID: metadata.storeUUID))
        #expect(try store.connection.scalarString("SELECT Z_UUID FROM Z_METADATA") == metadata.storeUUID)
        #expect(UUID(uuidString: metadata.storeUUID) != nil)
        try store.close()
        #expect(try directory.contents() == ["store.sqlite"])
    }

    @Test func subentitiesRecordTheirParentInZPrimaryKey() throws {
        let directory = try TemporaryDirectory(prefix: "StoreTests")
        defer { directory.remove() }
        let store = try directory.createStore(version: try TestModels.appleParity("SampleModel").versions[0])
        #expect(
            try store.entityKeyRows() == [
                EntityKeyRow(number: 1, name: "Car", parent: 0, maxKey: 0),
                EntityKeyRow(number: 2, name: "SportCar", parent: 1, maxKey: 0),
                EntityKeyRow(number: 3, name: "ExpensiveSportCar", parent: 2, maxKey: 0),
                EntityKeyRow(number: 4, name: "Person", parent: 0, maxKey: 0),
            ])
        #expect(try store.entityNumbers() == ["Car": 1, "SportCar": 2, "ExpensiveSportCar": 3, "Person": 4])
    }

    @Test func createRefusesAnExistingFileUnlessOverwriting() throws {
        let directory = try TemporaryDirectory(prefix: "StoreTests")
        defer { directory.remove() }
        let v1 = try TestModels.contacts().versions[0]
        let path = try directory.write("store.sqlite", "keep me")
        let error = try #require(throws: StoreError.self) { try Store.create(path: path, version: v1) }
        #expect(error.kind == .alreadyExists)
        #expect(error.description == "\(path): a file already exists here (use --force to replace it)")
        #expect(FileSnapshot(path).bytes == Array("keep me".utf8))
        let store = try Store.create(path: path, version: v1, overwrite: true)
        #expect(try store.readMetadata().modelVersion == 1)
    }

    @Test func theModelCacheHoldsTheCompiledVersion() throws {
        let directory = try TemporaryDirectory(prefix: "StoreTests")
        defer { directory.remove() }
        for version in try TestModels.contacts().versions + TestModels.appleParity("SampleModel").versions {
            let store = try directory.createStore("\(version.model)-\(version.version).sqlite", version: version)
            #expect(try store.readModelCache() == version)
            #expect(
                try store.connection.prepare("SELECT Z_VERSION FROM MM_MODELCACHE").rows() == [
                    [.integer(Int64(version.version))]
                ])
        }
    }

    // MARK: Opening

    @Test func openingReadOnlyNeverWrites() throws {
        let directory = try TemporaryDirectory(prefix: "StoreTests")
        defer { directory.remove() }
        let path = try directory.createStore(version: try TestModels.contacts().versions[0]).path
        let before = FileSnapshot(path)
        let store = try Store.open(path: path)
        #expect(store.connection.isReadOnly)
        let error = try #require(throws: SQLiteError.self) { try store.connection.execute("DELETE FROM Z_PRIMARYKEY") }
        #expect(error.kind == .readOnly)
        _ = try store.inspect()
        try store.close()
        #expect(FileSnapshot(path) == before)
    }

    @Test func openingSomethingElseFailsWithAReason() throws {
        let directory = try TemporaryDirectory(prefix: "StoreTests")
        defer { directory.remove() }
        let real = try directory.createStore(version: try TestModels.contacts().versions[0])
        let pages = try #require(try real.connection.scalarInt64("PRAGMA page_count"))
        try real.close()
        let realBytes = try #require(FileSnapshot(real.path).bytes)
        try directory.write("truncated.sqlite", bytes: Array(realBytes.prefix(3000)))
        try directory.write("empty.sqlite", bytes: [])
        try directory.write("notes.txt", String(repeating: "not a database\n", count: 20))
        let other = try Connection(path: directory.file("other.sqlite"), mode: .readWriteCreate)
        try other.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); CREATE TABLE tags (name TEXT)")
        try other.close()
        try FileManager.default.createDirectory(
            atPath: directory.file("folder.sqlite"), withIntermediateDirectories: false)

        let cases: [(String, StoreError.Kind, String)] = [
            ("missing.sqlite", .notFound, "no such file"),
            ("folder.sqlite", .notFound, "is a folder, not a store"),
            ("empty.sqlite", .notADatabase, "the file is empty, not an SQLite database"),
            ("notes.txt", .notADatabase, "not an SQLite database (the file does not start with SQLite's header)"),
            (
                "truncated.sqlite", .corrupt,
                "the file is truncated (3000 bytes; its header promises \(pages) pages of 4096 bytes)"
            ),
            (
                "other.sqlite", .notAStore,
                """
                an SQLite database, but not a Core Data store (no Z_METADATA and Z_PRIMARYKEY tables; found notes, tags)
                """
            ),
        ]
        for (name, kind, message) in cases {
            let path = directory.file(name)
            let before = FileSnapshot(path)
            for access in [Store.Access.readOnly, .readWrite] {
                let error = try #require(throws: StoreError.self, "\(name)") {
                    try Store.open(path: path, access: access)
                }
                #expect(error.kind == kind, "\(name)")
                #expect(error.message == message, "\(name)")
                #expect(error.path == path)
            }
            #expect(FileSnapshot(path) == before, "\(name)")
        }
    }

    // MARK: Entity numbers

    /// Entity numbers are the store's for life: a later version keeps the numbers of
    /// the entities the store has and numbers new ones after the highest.
    @Test func entityNumbersAreStableAcrossVersions() throws {
        let directory = try TemporaryDirectory(prefix: "StoreTests")
        defer { directory.remove() }
        let contacts = try TestModels.contacts()
        let v1Store = try directory.createStore("v1.sqlite", version: contacts.versions[0])
        #expect(
            try v1Store.connection.prepare("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
                .rows() == [
                    [.integer(1), .text("Person"), .integer(0), .integer(0)],
                    [.integer(2), .text("Post"), .integer(0), .integer(0)],
                ])
        let v3 = contacts.versions[2]
        let fromV1 = v3.layout(entityNumbers: try v1Store.entityNumbers())
        #expect(fromV1.entityNumbers == ["Person": 1, "Post": 2, "Product": 3, "FavoriteProduct": 4, "Tag": 5])
        // The store's layout of a version it does not hold: the numbers, and v3's tables missing.
        let binding = try v1Store.binding(for: v3)
        #expect(binding.layout.entityNumbers == fromV1.entityNumbers)
        #expect(binding.problems.contains("table ZPRODUCT is missing"))

        // A store of version 2 already numbers Tag 3; a new store of version 3 would number it 5.
        let v2Store = try directory.createStore("v2.sqlite", version: contacts.versions[1])
        #expect(try v2Store.entityNumbers() == ["Person": 1, "Post": 2, "Tag": 3])
        #expect(v3.layout.entityNumbers == ["Person": 1, "Post": 2, "Product": 3, "FavoriteProduct": 4, "Tag": 5])
        let fromV2 = try v2Store.layout(for: v3)
        #expect(fromV2.entityNumbers == ["Person": 1, "Post": 2, "Tag": 3, "Product": 4, "FavoriteProduct": 5])
        // Join tables are named after the numbers.
        #expect(
            fromV2.tables.filter { $0.joinRelationship != nil }.map {
                "\($0.name)(\($0.columns.map(\.name).joined(separator: ",")))"
            }
                == ["Z_1FAVORITES(Z_1FANS,Z_5FAVORITES)", "Z_2TAGS(Z_2POSTS,Z_3TAGS)"])
        #expect(v3.layout.tables.filter { $0.joinRelationship != nil }.map(\.name) == ["Z_1FAVORITES", "Z_2TAGS"])

        // Recording the new entities keeps the existing rows and counters.
        let access = try ObjectAccess(store: v2Store, version: contacts.versions[1])
        try access.insert("Tag", values: ["name": .string("swift")])
        try v2Store.writeEntityNumbers(layout: fromV2, version: v3)
        #expect(
            try v2Store.entityKeyRows() == [
                EntityKeyRow(number: 1, name: "Person", parent: 0, maxKey: 0),
                EntityKeyRow(number: 2, name: "Post", parent: 0, maxKey: 0),
                EntityKeyRow(number: 3, name: "Tag", parent: 0, maxKey: 1),
                EntityKeyRow(number: 4, name: "Product", parent: 0, maxKey: 0),
                EntityKeyRow(number: 5, name: "FavoriteProduct", parent: 4, maxKey: 0),
            ])
        #expect(try v2Store.layout(for: v3) == fromV2)
    }

    /// An entity renamed with `renamedFrom` keeps its old number (and its rows).
    @Test func aRenamedEntityKeepsItsNumber() throws {
        let directory = try TemporaryDirectory(prefix: "StoreTests")
        defer { directory.remove() }
        let model = try TestModels.compile(
            "Notes",
            versions: [
                """
                entities:
                  Note: { attributes: { text: string } }
                  Person: { attributes: { name: string } }
                """,
                """
                entities:
                  Archive: { attributes: { title: string } }
                  Memo: { renamedFrom: Note, attributes: { text: string } }
                  Person: { attributes: { name: string } }
                """,
            ])
        let store = try directory.createStore(version: model.versions[0])
        #expect(try store.entityNumbers() == ["Note": 1, "Person": 2])
        let v2 = model.versions[1]
        #expect(v2.layout.entityNumbers == ["Archive": 1, "Memo": 2, "Person": 3])
        let layout = try store.layout(for: v2)
        #expect(layout.entityNumbers == ["Memo": 1, "Person": 2, "Archive": 3])
        #expect(layout.tables.map(\.name) == ["ZMEMO", "ZPERSON", "ZARCHIVE"])

        try store.writeEntityNumbers(layout: layout, version: v2)
        #expect(
            try store.entityKeyRows() == [
                EntityKeyRow(number: 1, name: "Memo", parent: 0, maxKey: 0),
                EntityKeyRow(number: 2, name: "Person", parent: 0, maxKey: 0),
                EntityKeyRow(number: 3, name: "Archive", parent: 0, maxKey: 0),
            ])
        #expect(try store.layout(for: v2) == layout)
    }
}
