import DataModel
import Foundation
import JSONLines
import MigrateCommands
import PropertyList
import SQLiteStore
import TestSupport
import Testing

@testable import ModelMigration

@Suite struct StoreReportTests {
    @Test func anAppleStoreIsRecognisedAndRead() throws {
        let directory = try TemporaryDirectory(prefix: "StoreReportTests")
        defer { directory.remove() }
        let path = directory.file("SampleModel.sqlite")
        try AppleSampleStore.create(at: path)
        let before = FileSnapshot(path)
        #expect(before.sideFiles == [])
        let sample = try TestModels.appleParity("SampleModel")
        let v1 = sample.versions[0]
        #expect(v1.versionHashes.mapValues(\.hex) == AppleSampleStore.hashes)

        let store = try Store.open(path: path, access: .readOnly)
        let inspection = try store.inspect()
        #expect(inspection.isAppleStore)
        #expect(inspection.journalMode == "wal")
        #expect(inspection.cachedModel == nil)
        #expect(inspection.metadata.storeUUID == AppleSampleStore.uuid)
        let report = StoreReport(inspection: inspection, models: [try TestModels.contacts(), sample])
        #expect(report.writtenBy == "core-data")
        #expect(report.frameworkVersion == 1044)
        #expect(report.storeUUID == AppleSampleStore.uuid)
        #expect(report.storeType == "SQLite")
        #expect(report.model == "SampleModel")
        #expect(report.stampedVersion == nil)
        #expect(report.recognizedVersion == 1)
        #expect(report.closestVersion == 1)
        #expect(report.versionIdentifiers == ["1"])
        #expect(report.hashesVersion == 3)
        #expect(report.layoutHash == nil)
        #expect(report.journalMode == "wal")
        #expect(report.fileSize == Int64(before.bytes?.count ?? -1))
        #expect(report.history == [])
        #expect(report.otherMetadata == ["_NSAutoVacuumLevel": "2"])
        #expect(report.problem == nil)
        #expect(
            report.entities.map {
                "\($0.number) \($0.name) \($0.parent ?? "-") \($0.rows ?? -1) \($0.storedHash ?? "-") "
                    + "\($0.matches.map(String.init) ?? "-") "
                    + "\($0.matchingVersions)"
            } == [
                "1 Car - 2 \(AppleSampleStore.hashes["Car"]!) true [1]",
                "2 SportCar Car 2 \(AppleSampleStore.hashes["SportCar"]!) true [1]",
                "3 ExpensiveSportCar SportCar 1 \(AppleSampleStore.hashes["ExpensiveSportCar"]!) true [1]",
                "4 Person - 2 \(AppleSampleStore.hashes["Person"]!) true [1]",
            ])
        #expect(
            report.tables.map { "\($0.name) \($0.rowCount)" } == [
                "ZCAR 5", "ZPERSON 2", "Z_METADATA 1", "Z_MODELCACHE 1", "Z_PRIMARYKEY 4",
            ])
        #expect(try store.currentVersion(among: [sample]) == v1)

        // Objects, through the store's own entity numbers.
        let access = try ObjectAccess(store: store, version: v1)
        #expect(try access.count("Car") == 5)
        #expect(try access.count("SportCar") == 3)
        #expect(
            try access.fetch("Car") == [
                StoredObject(
                    entity: "Car", primaryKey: 1,
                    values: ["maker": .string("FIAT"), "model": .string("Panda"), "numberPlate": .string("AB123CD")],
                    relationships: ["owner": [1]]),
                StoredObject(
                    entity: "SportCar", primaryKey: 2,
                    values: [
                        "maker": .string("Alfa Romeo"), "model": .string("Giulia"), "numberPlate": .string("SP-1"),
                    ],
                    relationships: ["owner": [2]]),
                StoredObject(
                    entity: "ExpensiveSportCar", primaryKey: 3,
                    values: [
                        "maker": .string("Lamborghini"), "model": .string("Countach"), "numberPlate": .string("LX-1"),
                        "isLimitedEdition": .boolean(true), "markedForDeletionAsOf": .date(797_000_000.25),
                        "color": .binary(Array("bplist00".utf8) + [8]),
                    ],
                    relationships: ["owner": []]),
                StoredObject(
                    entity: "Car", primaryKey: 4,
                    values: ["maker": .string("FIAT"), "model": .string("Panda"), "numberPlate": .string("ZZ999ZZ")],
                    relationships: ["owner": [1]]),
                StoredObject(
                    entity: "SportCar", primaryKey: 5,
                    values: ["maker": .string("Alfa Romeo"), "numberPlate": .string("SP-2")],
                    relationships: ["owner": []]),
            ])
        #expect(
            try access.fetch("Person") == [
                StoredObject(
                    entity: "Person", primaryKey: 1,
                    values: [
                        "firstName": .string("Ann"), "lastName": .string("Lee"), "updatedAt": .date(797_062_028.5),
                        "id": .uuid("0f8fad5b-d9cb-469f-a165-70867728950e"),
                    ],
                    relationships: ["cars": [1, 4]]),
                StoredObject(
                    entity: "Person", primaryKey: 2,
                    values: [
                        "firstName": .string("Bob"), "updatedAt": .date(700_000_000),
                        "id": .uuid("6ba7b810-9dad-11d1-80b4-00c04fd430c8"),
                    ],
                    relationships: ["cars": [2]]),
            ])
        var lines: [String] = []
        try ObjectJSONLines.dump(access, entity: "SportCar") { lines.append($0) }
        #expect(
            lines == [
                #"{"_pk":2,"_entity":"SportCar","color":null,"maker":"Alfa "#
                    + #"Romeo","markedForDeletionAsOf":null,"model":"Giulia","numberPlate":"SP-1","owner":2}"#,
                #"""
                {"_pk":3,"_entity":"ExpensiveSportCar","color":"YnBsaXN0MDAI","isLimitedEdition":true,\#
                "maker":"Lamborghini",\#
                "markedForDeletionAsOf":"2026-04-04T12:53:20.25Z","model":"Countach","numberPlate":"LX-1","owner":null}
                """#,
                #"{"_pk":5,"_entity":"SportCar","color":null,"maker":"Alfa "#
                    + #"Romeo","markedForDeletionAsOf":null,"model":null,"numberPlate":"SP-2","owner":null}"#,
            ])
        try store.close()

        // Reading wrote nothing: same bytes, no journal, no -wal or -shm.
        #expect(FileSnapshot(path) == before)
        #expect(try directory.contents() == ["SampleModel.sqlite"])
    }

    @Test func aToolkitStoreReport() throws {
        let directory = try TemporaryDirectory(prefix: "StoreReportTests")
        defer { directory.remove() }
        let contacts = try TestModels.contacts()
        let store = try directory.createStore(version: contacts.versions[1])
        var metadata = try store.readMetadata()
        metadata.history = [
            MigrationRecord(
                fromVersion: 1, toVersion: 2, date: 797_062_028, duration: 1.5, rowsTouched: 10,
                mappingDigests: ["00"], tool: "migrate 0.1.0")
        ]
        metadata.otherKeys = [
            "level": .integer(2), "flags": .array([.boolean(true), .real(0.5)]), "blob": .data([1, 2, 3]),
        ]
        try store.writeMetadata(metadata)
        let report = StoreReport(inspection: try store.inspect(), models: [contacts])
        #expect(report.writtenBy == "toolkit")
        #expect(report.model == "Contacts")
        #expect(report.stampedVersion == 2)
        #expect(report.recognizedVersion == 2)
        #expect(report.layoutHash == contacts.versions[1].layoutHash.hex)
        #expect(report.history == metadata.history)
        #expect(report.otherMetadata == ["level": "2", "flags": "[true, 0.5]", "blob": "<3 bytes>"])
        #expect(
            report.entities.map { "\($0.name) \($0.matches == true) \($0.matchingVersions)" } == [
                "Person true [2]", "Post true [2]", "Tag true [2]",
            ])

        let none = StoreReport(inspection: try store.inspect(), models: [])
        #expect(none.problem == "no models to compare with (see --models)")
        #expect(none.recognizedVersion == nil)
        #expect(none.model == "Contacts")
        #expect(none.entities.allSatisfy { $0.matches == nil && $0.matchingVersions == [] })

        var editedMetadata = metadata
        editedMetadata.versionHashes["Tag"] = VersionHash(bytes: Array(repeating: 0xAB, count: 32))
        try store.writeMetadata(editedMetadata)
        let unknown = StoreReport(inspection: try store.inspect(), models: [contacts])
        #expect(unknown.recognizedVersion == nil)
        #expect(unknown.closestVersion == 2)
        #expect(
            unknown.problem == """
                the store's entity hashes match no version of model Contacts (closest is version 2)
                  Tag: hash abababab differs from \(contacts.versions[1].versionHashes["Tag"]!.short) (no version has \
                its hash)
                a shipped version was edited, the store comes from elsewhere, or it is newer than this deployment
                """)
        #expect(
            unknown.entities.map { "\($0.name) \($0.matches == true)" } == ["Person true", "Post true", "Tag false"])
    }
}

@Suite struct StoreCurrentVersionTests {
    @Test func aToolkitStoreKnowsItsVersionWithoutModels() throws {
        let directory = try TemporaryDirectory(prefix: "StoreCurrentVersionTests")
        defer { directory.remove() }
        let contacts = try TestModels.contacts()
        let store = try directory.createStore(version: contacts.versions[1])
        #expect(try store.currentVersion(among: [contacts]) == contacts.versions[1])
        #expect(try store.currentVersion(among: []) == contacts.versions[1])
    }

    @Test func anAppleStoreNeedsItsModel() throws {
        let directory = try TemporaryDirectory(prefix: "StoreCurrentVersionTests")
        defer { directory.remove() }
        let path = directory.file("SampleModel.sqlite")
        try AppleSampleStore.create(at: path)
        let store = try Store.open(path: path)
        let error = try #require(throws: UnknownVersionError.self) { try store.currentVersion(among: []) }
        #expect(error.description == "\(path): no model under --models describes this store")
        let contacts = try #require(throws: UnknownVersionError.self) {
            try store.currentVersion(among: [try TestModels.contacts()])
        }
        #expect(contacts.recognition?.model == "Contacts")
        #expect(contacts.recognition?.version == nil)
    }
}
