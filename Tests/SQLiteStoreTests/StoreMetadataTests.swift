import DataModel
import Foundation
import TestSupport
import Testing

@testable import SQLiteStore

@Suite struct StoreMetadataTests {
    static let history = [
        MigrationRecord(
            fromVersion: 1, toVersion: 2, date: 797_062_028.123456, duration: 0.125, rowsTouched: 1_234_567,
            mappingDigests: [String(repeating: "ab", count: 32)], tool: "migrate 0.1.0"),
        MigrationRecord(
            fromVersion: 2, toVersion: 3, date: 797_150_000.5, duration: 12.75, rowsTouched: 0,
            mappingDigests: [String(repeating: "01", count: 32), String(repeating: "fe", count: 32)],
            tool: "migrate 0.2.0"),
    ]

    static let otherKeys: [String: PropertyListValue] = [
        "_NSAutoVacuumLevel": "2",
        "NSStoreModelVersionChecksumKey": "fAlXTd/2u1Wg4VOiKXsCPQ==",
        "com.example.app.settings": .dictionary([
            "launches": .integer(-42),
            "ratio": .real(0.1),
            "enabled": .boolean(true),
            "since": .date(797_062_028.5),
            "token": .data([0x00, 0xFF, 0x10]),
            "list": .array(["a", .integer(Int64.max), .array([])]),
            "ünïcödé 🎉": .string(""),
        ]),
    ]

    @Test func metadataRoundTripsWithHistoryAndUnknownKeys() throws {
        let directory = try TemporaryDirectory(prefix: "StoreMetadataTests")
        defer { directory.remove() }
        let contacts = try TestModels.contacts()
        let store = try directory.createStore(version: contacts.versions[0])
        var metadata = try store.readMetadata()
        metadata.stamp(contacts.versions[2])
        metadata.history = Self.history
        metadata.otherKeys = Self.otherKeys
        try store.writeMetadata(metadata)
        #expect(try store.readMetadata() == metadata)
        try store.close()

        let reopened = try Store.open(path: store.path)
        let read = try reopened.readMetadata()
        #expect(read == metadata)
        #expect(read.history == Self.history)
        #expect(read.otherKeys == Self.otherKeys)
        #expect(read.modelName == "Contacts")
        #expect(read.modelVersion == 3)
        #expect(read.versionIdentifiers == ["2026.3"])
        #expect(read.layoutHash == contacts.versions[2].layoutHash)
        #expect(read.versionHashes == contacts.versions[2].versionHashes)
        #expect(read.hashesDigest == contacts.versions[2].versionHashesDigest)
        #expect(read.hashesVersion == 3)
        #expect(read.storeType == "SQLite")
        #expect(read.frameworkVersion == nil)
        #expect(read.isManagedByToolkit)
    }

    @Test func toolkitStoresKeepTheUUIDInThePlistAndInZUUID() throws {
        let directory = try TemporaryDirectory(prefix: "StoreMetadataTests")
        defer { directory.remove() }
        let v1 = try TestModels.contacts().versions[0]
        let store = try directory.createStore(version: v1)
        let plist = try Self.storedPlist(store)
        let uuid = try #require(try store.connection.scalarString("SELECT Z_UUID FROM Z_METADATA"))
        #expect(plist["NSStoreUUID"] == .string(uuid))
        #expect(
            Set(plist.dictionaryValue?.keys ?? [:].keys) == [
                "NSStoreType", "NSStoreUUID", "NSStoreModelVersionHashes", "NSStoreModelVersionHashesVersion",
                "NSStoreModelVersionHashesDigest", "NSStoreModelVersionIdentifiers", "MMModelName", "MMModelVersion",
                "MMLayoutHash",
            ])
        #expect(plist["NSStoreModelVersionHashes"] == .dictionary(v1.versionHashes.mapValues { .data($0.bytes) }))
        #expect(plist["MMLayoutHash"] == .string(v1.layoutHash.hex))
        #expect(plist["MMModelVersion"] == .integer(1))
        #expect(plist["NSStoreModelVersionIdentifiers"] == .array(["2026.1"]))
        #expect(try store.connection.scalarInt64("SELECT Z_VERSION FROM Z_METADATA") == 1)
    }

    /// Core Data keeps the store UUID in `Z_UUID` only; metadata read from such a store
    /// is written back the same way, unknown keys and all.
    @Test func appleMetadataRoundTripsWithoutAUUIDInThePlist() throws {
        let directory = try TemporaryDirectory(prefix: "StoreMetadataTests")
        defer { directory.remove() }
        let store = try directory.createStore(version: try TestModels.contacts().versions[0])
        let applePlist: PropertyListValue = .dictionary([
            "NSStoreType": "SQLite",
            "NSStoreModelVersionHashes": .dictionary(["Person": .data(Array(repeating: 7, count: 32))]),
            "NSStoreModelVersionHashesVersion": .integer(3),
            "NSStoreModelVersionIdentifiers": .array([.string("1")]),
            "NSPersistenceFrameworkVersion": .integer(1044),
            "_NSAutoVacuumLevel": "2",
        ])
        let metadata = try StoreMetadata(plist: applePlist, storeUUID: "753753D3-A961-4901-AB05-8CC48B1D3853")
        #expect(metadata.frameworkVersion == 1044)
        #expect(!metadata.isManagedByToolkit)
        #expect(metadata.otherKeys == ["_NSAutoVacuumLevel": "2"])
        try store.writeMetadata(metadata)
        #expect(try Self.storedPlist(store) == applePlist)
        #expect(
            try store.connection.scalarString("SELECT Z_UUID FROM Z_METADATA") == "753753D3-A961-4901-AB05-8CC48B1D3853"
        )
        #expect(try store.readMetadata() == metadata)
        #expect(
            metadata.plist
                == .dictionary(
                    applePlist.dictionaryValue!.merging(["NSStoreUUID": "753753D3-A961-4901-AB05-8CC48B1D3853"]) {
                        a, _ in a
                    }))
    }

    @Test func malformedMetadataIsReported() throws {
        let cases: [(PropertyListValue, String?, String)] = [
            (.array([]), "X", "metadata: the plist's root is not a dictionary"),
            (.dictionary(["NSStoreType": "SQLite"]), nil, "metadata: NSStoreUUID is missing"),
            (
                .dictionary(["NSStoreUUID": "X", "NSStoreModelVersionHashes": .dictionary(["Car": "abc"])]), nil,
                "metadata: the version hash of 'Car' is not data"
            ),
        ]
        for (plist, uuid, message) in cases {
            let error = try #require(throws: StoreError.self) { try StoreMetadata(plist: plist, storeUUID: uuid) }
            #expect(error.kind == .invalidMetadata)
            #expect(error.message == message)
        }

        let directory = try TemporaryDirectory(prefix: "StoreMetadataTests")
        defer { directory.remove() }
        let store = try directory.createStore(version: try TestModels.contacts().versions[0])
        try store.connection.execute("UPDATE Z_METADATA SET Z_PLIST = X'62706C6973743030FFFF'")
        let garbled = try #require(throws: StoreError.self) { try store.readMetadata() }
        #expect(garbled.kind == .invalidMetadata)
        #expect(
            garbled.message
                == """
                the metadata plist is malformed: trailer: 10 bytes are too few for the 8-byte header and the 32-byte \
                trailer
                """
        )
        try store.connection.execute("DELETE FROM Z_METADATA")
        let empty = try #require(throws: StoreError.self) { try store.readMetadata() }
        #expect(empty.description == "\(store.path): Z_METADATA holds no metadata plist")
    }

    static func storedPlist(_ store: Store) throws -> PropertyListValue {
        let bytes = try #require(try store.connection.scalar("SELECT Z_PLIST FROM Z_METADATA")?.blob)
        return try BinaryPropertyList.decode(bytes)
    }
}
