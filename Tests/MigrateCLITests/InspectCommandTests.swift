import Foundation
import TestSupport
import Testing

@Suite struct InspectCommandTests {
    /// Files that are not stores: the exact reason, exit 1, and the file left as it was
    /// (same bytes, no journal, -wal or -shm beside it).
    @Test func filesThatAreNotStoresAreRefusedWithoutBeingTouched() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let store = try f.createContacts(version: 1)
        let storeBytes = try #require(f.snapshot(store).bytes)
        try f.directory.write("truncated.sqlite", bytes: Array(storeBytes.prefix(3000)))
        // SQLite's header: the page size at offset 16, the page count at offset 28 (big-endian).
        let pageSize = Int(storeBytes[16]) << 8 | Int(storeBytes[17])
        let pageCount = storeBytes[28..<32].reduce(0) { $0 << 8 | Int($1) }
        #expect(pageSize * pageCount == storeBytes.count)
        try f.directory.write("empty.sqlite", bytes: [])
        try f.directory.write("notes.txt", String(repeating: "Not a database, only notes.\n", count: 10))
        try f.directory.createDatabase(
            "plain.sqlite",
            sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('x')")

        let cases = [
            (
                "plain.sqlite",
                "an SQLite database, but not a Core Data store (no Z_METADATA and Z_PRIMARYKEY tables; found notes)"
            ),
            ("notes.txt", "not an SQLite database (the file does not start with SQLite's header)"),
            ("empty.sqlite", "the file is empty, not an SQLite database"),
            (
                "truncated.sqlite",
                "the file is truncated (3000 bytes; its header promises \(pageCount) pages of \(pageSize) bytes)"
            ),
            ("missing.sqlite", "no such file"),
        ]
        for (name, reason) in cases {
            let before = f.snapshot(name)
            let result = try f.migrate("inspect", name)
            #expect(result.status == 1, "\(name)")
            #expect(result.stderr == "error: \(name): \(reason)\n")
            #expect(result.stdout == "")
            // By absolute path, as JSON: the error is a JSON object on stdout.
            let absolute = try f.migrate("inspect", "--json", f.path(name))
            #expect(absolute.stderr == "")
            let error = try #require(try StockFixture.object(absolute.stdout)["error"] as? [String: Any])
            #expect(error["message"] as? String == "\(f.path(name)): \(reason)")
            #expect(error["exitCode"] as? Int == 1)
            #expect(absolute.status == 1)
            #expect(f.snapshot(name) == before, "\(name)")
            #expect(f.snapshot(name).sideFiles == [], "\(name)")
        }
        #expect(
            try f.directory.contents() == [
                "Models", "contacts.sqlite", "empty.sqlite", "notes.txt", "plain.sqlite", "truncated.sqlite",
            ])
    }

    @Test func aCreatedStoreAsJSON() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let store = try f.createContacts(version: 1)
        let before = f.snapshot(store)
        let result = try f.migrate(["inspect", "--json"] + f.models + [store])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(f.snapshot(store) == before)
        let report = try CLIFixture.object(result.stdout)

        // What `migrate compile` says version 1 is.
        let compiled = try f.migrate("compile", "Models/Contacts")
        let document = try CLIFixture.object(compiled.stdout)
        let model = try #require((document["models"] as? [[String: Any]])?.first)
        let v1 = try #require((model["versions"] as? [[String: Any]])?.first)
        let hashes = try #require(v1["versionHashes"] as? [String: String])

        #expect(
            Set(report.keys) == [
                "path", "writtenBy", "storeUUID", "storeType", "model", "stampedVersion", "recognizedVersion",
                "closestVersion",
                "versionIdentifiers", "hashesVersion", "layoutHash", "journalMode", "fileSize", "entities", "tables",
                "history", "otherMetadata",
                "metadata",
            ])
        // The metadata property list as JSON: Core Data's keys, hashes as hex.
        let metadata = try #require(report["metadata"] as? [String: Any])
        #expect(metadata["NSStoreUUID"] as? String == report["storeUUID"] as? String)
        #expect(metadata["NSStoreModelVersionHashes"] as? [String: String] == hashes)
        #expect(report["path"] as? String == store)
        #expect(report["writtenBy"] as? String == "toolkit")
        #expect(report["storeType"] as? String == "SQLite")
        #expect(report["model"] as? String == "Contacts")
        #expect(report["stampedVersion"] as? Int == 1)
        #expect(report["recognizedVersion"] as? Int == 1)
        #expect(report["closestVersion"] as? Int == 1)
        #expect(report["versionIdentifiers"] as? [String] == ["2026.1"])
        #expect(report["hashesVersion"] as? Int == 3)
        #expect(report["layoutHash"] as? String == v1["layoutHash"] as? String)
        #expect(report["journalMode"] as? String == "delete")
        #expect(report["fileSize"] as? Int == before.bytes?.count)
        #expect((report["history"] as? [Any])?.isEmpty == true)
        #expect((report["otherMetadata"] as? [String: Any])?.isEmpty == true)
        let uuid = try #require(report["storeUUID"] as? String)
        #expect(UUID(uuidString: uuid) != nil)

        let entities = try #require(report["entities"] as? [[String: Any]])
        #expect(entities.count == 2)
        for (entity, (name, number)) in zip(entities, [("Person", 1), ("Post", 2)]) {
            #expect(entity["name"] as? String == name)
            #expect(entity["number"] as? Int == number)
            #expect(entity["rows"] as? Int == 0)
            #expect(entity["storedHash"] as? String == hashes[name])
            #expect(entity["matches"] as? Bool == true)
            #expect(entity["matchingVersions"] as? [Int] == [1])
            #expect(entity["parent"] == nil)
        }
        let tables = try #require(report["tables"] as? [[String: Any]])
        #expect(
            tables.map { "\($0["name"] as? String ?? "?") \($0["rowCount"] as? Int ?? -1)" } == [
                "MM_MODELCACHE 1", "ZPERSON 0", "ZPOST 0", "Z_METADATA 1", "Z_PRIMARYKEY 2",
            ])
        let person = try #require(tables.first { $0["name"] as? String == "ZPERSON" })
        #expect(
            (person["columns"] as? [[String: String]])?.map { "\($0["name"]!) \($0["type"]!)" } == [
                "Z_PK INTEGER", "Z_ENT INTEGER", "Z_OPT INTEGER", "ZAGE INTEGER", "ZCREATEDAT TIMESTAMP",
                "ZCITY VARCHAR", "ZEMAIL VARCHAR",
                "ZFULLNAME VARCHAR",
            ])
    }

    @Test func aCreatedStoreAsText() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let store = try f.createContacts(version: 2)
        let json = try CLIFixture.object(try f.migrate(["inspect", "--json", store]).stdout)
        let uuid = try #require(json["storeUUID"] as? String)
        let layoutHash = try #require(json["layoutHash"] as? String)
        let hashes = try #require(json["entities"] as? [[String: Any]]).map {
            ($0["storedHash"] as? String ?? "").prefix(8)
        }
        let size = try #require(f.snapshot(store).bytes?.count)

        let result = try f.migrate(["inspect", "--layout"] + f.models + [store])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == """
                store:      contacts.sqlite (\(size) bytes, journal delete)
                written by: this toolkit
                uuid:       \(uuid)
                model:      Contacts version 2 (identifiers: 2026.2)
                layout:     \(layoutHash.prefix(16))…

                  Z_ENT  entity       rows  hash      matches
                      1  Person          0  \(hashes[0])  yes (versions 2)
                      2  Post            0  \(hashes[1])  yes (versions 2)
                      3  Tag             0  \(hashes[2])  yes (versions 2)

                tables:
                  MM_MODELCACHE (1 rows, 2 columns, 0 indexes)
                    columns: Z_VERSION INTEGER, Z_CONTENT BLOB
                  ZPERSON (0 rows, 9 columns, 2 indexes)
                    columns: Z_PK INTEGER, Z_ENT INTEGER, Z_OPT INTEGER, ZAGE INTEGER, ZCREATEDAT TIMESTAMP, ZCITY \
                VARCHAR, ZEMAIL VARCHAR, ZFIRSTNAME VARCHAR, ZLASTNAME VARCHAR
                    index ZPERSON_ZEMAIL_INDEX (ZEMAIL)
                    unique index Z_Person_UNIQUE_email (ZEMAIL)
                  ZPOST (0 rows, 8 columns, 1 indexes)
                    columns: Z_PK INTEGER, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHOR INTEGER, ZPUBLISHEDAT TIMESTAMP, \
                ZRATING FLOAT, ZBODY VARCHAR, ZTITLE VARCHAR
                    index ZPOST_ZAUTHOR_INDEX (ZAUTHOR)
                  ZTAG (0 rows, 4 columns, 1 indexes)
                    columns: Z_PK INTEGER, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR
                    unique index Z_Tag_UNIQUE_name (ZNAME)
                  Z_2TAGS (0 rows, 2 columns, 1 indexes)
                    columns: Z_2POSTS INTEGER, Z_3TAGS INTEGER
                    index Z_2TAGS_Z_3TAGS_INDEX (Z_3TAGS, Z_2POSTS)
                  Z_METADATA (1 rows, 3 columns, 0 indexes)
                    columns: Z_VERSION INTEGER, Z_UUID VARCHAR(255), Z_PLIST BLOB
                  Z_PRIMARYKEY (3 rows, 4 columns, 0 indexes)
                    columns: Z_ENT INTEGER, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER

                history:    no migrations recorded

                hash: each entity's version hash (Core Data's NSEntityDescription.versionHash), first 8 hex digits; \
                matches: the model versions with that hash. \
                layout: this toolkit's hash of indexes, defaults and other layout facts Core Data does not hash.

                """)
    }
}
