import Foundation
import Testing

@testable import DataModel

/// The fixtures are YAML transcriptions of public Core Data models; the expected values
/// come from `Z_METADATA` and the schema of SQLite stores that Apple's Core Data wrote
/// for them (framework versions 1044 and 1344).
@Suite struct AppleParityTests {
    private static let folder = ModelText.fixtures + "/AppleParity"

    private func model(_ name: String) throws -> CompiledModel {
        try ModelLoader.loadModel(path: Self.folder, named: name)
    }

    private func hashes(_ version: CompiledVersion?) -> [String: String]? {
        version?.versionHashes.mapValues(\.hex)
    }

    @Test func fixturesLoadWithoutDiagnostics() {
        let result = ModelLoader.load(path: Self.folder)
        #expect(result.diagnostics == [])
        #expect(result.models.map(\.name) == ["SampleModel", "SampleModel3"])
    }

    @Test func sampleModelVersion1() throws {
        let version = try model("SampleModel").version(1)
        #expect(
            hashes(version) == [
                "SportCar": "514ec1907a568299f9fb6851106516136f0755f45fa53a823a0e4d44013d5313",
                "Person": "164268551b45108ae763aa2ba61ff32d32d32323850987c3e21607c8da44b72b",
                "ExpensiveSportCar": "3dc7e32b1be45b5a4c795ac9af3e1d10aa7222d3c69ae805bbeb4408bdeba480",
                "Car": "9e555529072158220d1bacd2f80a3dad4919f74a32aa8be9ee22a6a7b4126c8f",
            ])
        #expect(
            version?.versionHashesDigest
                == "fACvwxty0QWritKFX3/LTtXZvI64UnFcRtP6qcjW1Yl0owr+rH+SpCvzy/uDYRpknMXbgacd3srn9wmE2KkL8Q==")
        #expect(version?.identifier == "1")
    }

    @Test func sampleModelVersion2() throws {
        let version = try model("SampleModel").version(2)
        #expect(
            hashes(version) == [
                "SportCar": "722a55b5bbcd51d74876a4dd8f8f7bbde57ddc61cb65a577ec5b0fbe978d7b8c",
                "Person": "067ae62e1bd1014cb6559d990803ae58f354dd1b7ba7b7722a361c0c39f2134e",
                "LuxuryCar": "a873c5590010e4ea3f7bdf846786dfbf5cb095526b86aa0de2c569c4bb121886",
                "Car": "7e503efbf4b63cd93ff729e9675e21c63c65262d85a9889f59a2440af6481b93",
            ])
        #expect(
            version?.versionHashesDigest
                == "gA/GyOCh8sMDKPJBWGZpv2usq+rU1r4MjgwPc9tbafDh4RTvoBOjSnmanNvWopksmy/criJNqsnPcAZkTmEa7Q==")
        #expect(version?.entity(named: "LuxuryCar")?.renamedFrom == "ExpensiveSportCar")
    }

    @Test func sampleModel3Version1() throws {
        let version = try model("SampleModel3").version(1)
        #expect(hashes(version) == ["User": "6b31f4e97b691d16c4c820bae55f89408d47013bd42151ecfde1eac7fe4be798"])
        #expect(
            version?.versionHashesDigest
                == "0KLB/FnL8roMcgeszeCxnPnvYqnn4VzB2DpFP6csqrDKzLB6fyG5rrVfjY5DtnQxx4355oWuKFublPf2Jo1UWg==")
    }

    /// `SampleModel_V1.sqlite`, as Core Data wrote it:
    /// `CREATE TABLE ZCAR ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZOWNER INTEGER,
    /// ZISLIMITEDEDITION INTEGER, ZMARKEDFORDELETIONASOF TIMESTAMP, ZMAKER VARCHAR, ZMODEL VARCHAR,
    /// ZNUMBERPLATE VARCHAR, ZCOLOR BLOB )`, and so on.
    @Test func sampleModelVersion1LayoutMatchesCoreDatasStore() throws {
        let layout = try #require(try model("SampleModel").version(1)).layout
        #expect(layout.tables.map(\.name) == ["ZCAR", "ZPERSON"])
        #expect(
            layout.table(named: "ZCAR")?.columns.map { "\($0.name) \($0.type)" } == [
                "Z_PK INTEGER", "Z_ENT INTEGER", "Z_OPT INTEGER", "ZOWNER INTEGER", "ZISLIMITEDEDITION INTEGER",
                "ZMARKEDFORDELETIONASOF TIMESTAMP", "ZMAKER VARCHAR", "ZMODEL VARCHAR", "ZNUMBERPLATE VARCHAR",
                "ZCOLOR BLOB",
            ])
        #expect(
            layout.table(named: "ZPERSON")?.columns.map { "\($0.name) \($0.type)" } == [
                "Z_PK INTEGER", "Z_ENT INTEGER", "Z_OPT INTEGER", "ZUPDATEDAT TIMESTAMP", "ZFIRSTNAME VARCHAR",
                "ZLASTNAME VARCHAR", "ZID BLOB",
            ])
        #expect(layout.tables.map(\.primaryKey) == [["Z_PK"], ["Z_PK"]])
        // Z_PRIMARYKEY: 1|Car|0, 2|SportCar|1, 3|ExpensiveSportCar|2, 4|Person|0.
        #expect(layout.entityNumbers == ["Car": 1, "SportCar": 2, "ExpensiveSportCar": 3, "Person": 4])
        #expect(
            layout.indexes.map {
                """
                \($0.isUnique ? "UNIQUE " : "")\($0.name) ON \($0.table) \
                (\($0.columns.map(\.name).joined(separator: ", ")))
                """
            } == [
                "ZCAR_ZOWNER_INDEX ON ZCAR (ZOWNER)",
                "ZCAR_Z_ENT_INDEX ON ZCAR (Z_ENT)",
                "UNIQUE Z_Car_UNIQUE_numberPlate ON ZCAR (ZNUMBERPLATE)",
                "UNIQUE Z_Person_UNIQUE_firstName_lastName ON ZPERSON (ZFIRSTNAME, ZLASTNAME)",
            ])
        #expect(layout.indexes.allSatisfy { $0.condition == nil && $0.columns.allSatisfy { !$0.isDescending } })
    }

    /// `SampleModel_V2.sqlite` adds `Z_Car_byMakerAndNumberPlate ON ZCAR (ZMAKER, ZNUMBERPLATE)`
    /// and drops `ZCOLOR` and `ZID`.
    @Test func sampleModelVersion2LayoutMatchesCoreDatasStore() throws {
        let layout = try #require(try model("SampleModel").version(2)).layout
        #expect(
            layout.tables.map { "\($0.name): \($0.columns.map(\.name).joined(separator: " "))" } == [
                "ZCAR: Z_PK Z_ENT Z_OPT ZOWNER ZISLIMITEDEDITION ZMARKEDFORDELETIONASOF ZMAKER ZMODEL ZNUMBERPLATE",
                "ZPERSON: Z_PK Z_ENT Z_OPT ZUPDATEDAT ZFIRSTNAME ZLASTNAME",
            ])
        #expect(layout.entityNumbers == ["Car": 1, "SportCar": 2, "LuxuryCar": 3, "Person": 4])
        #expect(
            Set(layout.indexes.map(\.name)) == [
                "ZCAR_ZOWNER_INDEX", "ZCAR_Z_ENT_INDEX", "Z_Car_byMakerAndNumberPlate", "Z_Car_UNIQUE_numberPlate",
                "Z_Person_UNIQUE_firstName_lastName",
            ])
        #expect(
            layout.indexes.first { $0.name == "Z_Car_byMakerAndNumberPlate" }?.columns.map(\.name) == [
                "ZMAKER", "ZNUMBERPLATE",
            ])
    }

    @Test func sampleModel3Version1LayoutMatchesCoreDatasStore() throws {
        let layout = try #require(try model("SampleModel3").version(1)).layout
        #expect(
            layout.tables.map { "\($0.name): \($0.columns.map { "\($0.name) \($0.type)" }.joined(separator: ", "))" }
                == [
                    "ZUSER: Z_PK INTEGER, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR, ZPETNAME VARCHAR"
                ])
        #expect(layout.entityNumbers == ["User": 1])
        #expect(layout.indexes == [])
    }
}
