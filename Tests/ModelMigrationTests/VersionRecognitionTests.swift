import DataModel
import Foundation
import SQLiteStore
import TestSupport
import Testing

@testable import ModelMigration

@Suite struct VersionRecognitionTests {
    /// Metadata as Apple's Core Data writes it: hashes only, none of our keys.
    static func appleMetadata(_ version: CompiledVersion) -> StoreMetadata {
        var metadata = StoreMetadata(version: version, storeUUID: "753753D3-A961-4901-AB05-8CC48B1D3853")
        metadata.modelName = nil
        metadata.modelVersion = nil
        metadata.layoutHash = nil
        metadata.frameworkVersion = 1044
        return metadata
    }

    static let edited = VersionHash(bytes: Array(repeating: 0xAB, count: 32))

    @Test func everyVersionIsRecognisedExactly() throws {
        let contacts = try TestModels.contacts()
        for version in contacts.versions {
            for metadata in [StoreMetadata(version: version, storeUUID: "X"), Self.appleMetadata(version)] {
                let recognition = VersionRecognition.recognize(metadata, in: contacts)
                #expect(recognition.model == "Contacts")
                #expect(recognition.outcome == .version(version.version))
                #expect(recognition.version == version.version)
                #expect(recognition.closestVersion == version.version)
                #expect(recognition.entities.map(\.name) == version.versionHashes.keys.sorted())
                #expect(recognition.entities.allSatisfy { $0.matches && $0.matchingVersions.contains(version.version) })
                #expect(recognition.differences == [])
                #expect(!recognition.layoutDiffers)
            }
        }
        let v1 = VersionRecognition.recognize(
            StoreMetadata(version: contacts.versions[0], storeUUID: "X"), in: contacts)
        #expect(
            v1.entities == [
                .init(
                    name: "Person", storedHash: contacts.versions[0].versionHashes["Person"],
                    versionHash: contacts.versions[0].versionHashes["Person"],
                    matchingVersions: [1]),
                .init(
                    name: "Post", storedHash: contacts.versions[0].versionHashes["Post"],
                    versionHash: contacts.versions[0].versionHashes["Post"],
                    matchingVersions: [1]),
            ])
    }

    @Test func anEditedHashIsUnknownWithTheClosestVersionAndTheDifference() throws {
        let contacts = try TestModels.contacts()
        let v2 = contacts.versions[1]
        var metadata = StoreMetadata(version: v2, storeUUID: "X")
        metadata.versionHashes["Tag"] = Self.edited
        let recognition = VersionRecognition.recognize(metadata, in: contacts)
        #expect(recognition.outcome == .unknown)
        #expect(recognition.version == nil)
        #expect(recognition.closestVersion == 2)
        #expect(!recognition.layoutDiffers)
        #expect(
            recognition.differences == [
                .init(name: "Tag", storedHash: Self.edited, versionHash: v2.versionHashes["Tag"], matchingVersions: [])
            ])
        #expect(
            recognition.unknownExplanation == """
                the store's entity hashes match no version of model Contacts (closest is version 2)
                  Tag: hash abababab differs from \(v2.versionHashes["Tag"]!.short) (no version has its hash)
                a shipped version was edited, the store comes from elsewhere, or it is newer than this deployment
                """)
    }

    @Test func missingExtraAndMovedEntitiesAreExplained() throws {
        let contacts = try TestModels.contacts()
        let (v1, v2) = (contacts.versions[0], contacts.versions[1])
        var metadata = Self.appleMetadata(v1)
        metadata.versionHashes["Post"] = nil
        metadata.versionHashes["Robot"] = Self.edited
        let recognition = VersionRecognition.recognize(metadata, in: contacts)
        #expect(recognition.closestVersion == 1)
        #expect(
            recognition.unknownExplanation == """
                the store's entity hashes match no version of model Contacts (closest is version 1)
                  Post: in version 1, not in the store
                  Robot: in the store, not in version 1
                a shipped version was edited, the store comes from elsewhere, or it is newer than this deployment
                """)

        // Version 1's Post with version 2's Person: closest is still 1.
        var mixed = Self.appleMetadata(v1)
        mixed.versionHashes["Person"] = v2.versionHashes["Person"]
        let recognised = VersionRecognition.recognize(mixed, in: contacts)
        #expect(recognised.outcome == .unknown)
        #expect(
            recognised.unknownExplanation == """
                the store's entity hashes match no version of model Contacts (closest is version 1)
                  Person: hash \(v2.versionHashes["Person"]!.short) differs from \(v1.versionHashes["Person"]!.short) \
                (its hash matches version 2)
                a shipped version was edited, the store comes from elsewhere, or it is newer than this deployment
                """)
    }

    /// Two versions that differ only in a default value have the same Core Data hashes;
    /// our layout hash tells them apart, and Apple's stores (no layout hash) get the lower.
    @Test func theLayoutHashBreaksTiesBetweenVersionsWithEqualHashes() throws {
        let model = try TestModels.compile(
            "Counter",
            versions: [
                "entities:\n  Item:\n    attributes:\n      count: { type: integer32, default: 0 }\n",
                "entities:\n  Item:\n    attributes:\n      count: { type: integer32, default: 5 }\n",
                """
                entities:\n  Item:\n    attributes:\n      count: { type: integer32, default: 5 }\n      label: \
                string?\n
                """,
            ])
        let (v1, v2, v3) = (model.versions[0], model.versions[1], model.versions[2])
        #expect(v1.versionHashes == v2.versionHashes)
        #expect(v1.layoutHash != v2.layoutHash)
        #expect(v2.versionHashes != v3.versionHashes)

        func recognize(_ metadata: StoreMetadata) -> (Int?, Bool) {
            let recognition = VersionRecognition.recognize(metadata, in: model)
            return (recognition.version, recognition.layoutDiffers)
        }
        #expect(recognize(StoreMetadata(version: v1, storeUUID: "X")) == (1, false))
        #expect(recognize(StoreMetadata(version: v2, storeUUID: "X")) == (2, false))
        #expect(recognize(StoreMetadata(version: v3, storeUUID: "X")) == (3, false))
        #expect(recognize(Self.appleMetadata(v2)) == (1, false))

        // The layout hash outranks the stamped number.
        var stampedOne = StoreMetadata(version: v2, storeUUID: "X")
        stampedOne.modelVersion = 1
        #expect(recognize(stampedOne) == (2, false))
        // A layout hash of neither: the stamped version, else the lower; flagged.
        var edited = StoreMetadata(version: v2, storeUUID: "X")
        edited.layoutHash = Self.edited
        #expect(recognize(edited) == (2, true))
        edited.modelVersion = nil
        #expect(recognize(edited) == (1, true))
    }

    @Test func theModelIsChosenByNameThenByHashes() throws {
        let contacts = try TestModels.contacts()
        let sample = try TestModels.appleParity("SampleModel")
        let models = [contacts, sample]
        #expect(
            VersionRecognition.recognize(Self.appleMetadata(sample.versions[1]), among: models).map {
                "\($0.model) \($0.version ?? 0)"
            }
                == "SampleModel 2")
        #expect(
            VersionRecognition.recognize(StoreMetadata(version: contacts.versions[2], storeUUID: "X"), among: models)
                .map { "\($0.model) \($0.version ?? 0)" } == "Contacts 3")
        // Named but unknown: still that model.
        var edited = StoreMetadata(version: contacts.versions[0], storeUUID: "X")
        edited.versionHashes = sample.versions[0].versionHashes
        let named = try #require(VersionRecognition.recognize(edited, among: models))
        #expect(named.model == "Contacts")
        #expect(named.version == nil)
        // No name, no match: the model with most matching entities.
        var unknown = Self.appleMetadata(sample.versions[0])
        unknown.versionHashes["Car"] = Self.edited
        let closest = try #require(VersionRecognition.recognize(unknown, among: models))
        #expect(closest.model == "SampleModel")
        #expect(closest.closestVersion == 1)
        #expect(VersionRecognition.recognize(unknown, among: []) == nil)
    }
}
