import DataModel
package import PropertyList
import SQLiteStore

/// A store laid out exactly as Apple's Core Data writes one for SampleModel version 1
/// (schema as in CoreDataPlus's `SampleModel_V1.sqlite`, framework version 1044),
/// built here from the documented layout.
package enum AppleSampleStore {
    package static let uuid = "753753D3-A961-4901-AB05-8CC48B1D3853"

    /// `NSStoreModelVersionHashes` of SampleModel version 1, as Core Data wrote them.
    package static let hashes = [
        "Car": "9e555529072158220d1bacd2f80a3dad4919f74a32aa8be9ee22a6a7b4126c8f",
        "SportCar": "514ec1907a568299f9fb6851106516136f0755f45fa53a823a0e4d44013d5313",
        "ExpensiveSportCar": "3dc7e32b1be45b5a4c795ac9af3e1d10aa7222d3c69ae805bbeb4408bdeba480",
        "Person": "164268551b45108ae763aa2ba61ff32d32d32323850987c3e21607c8da44b72b",
    ]

    package static let schema = """
        CREATE TABLE ZCAR ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZOWNER INTEGER, ZISLIMITEDEDITION \
        INTEGER, ZMARKEDFORDELETIONASOF TIMESTAMP, ZMAKER VARCHAR, ZMODEL VARCHAR, ZNUMBERPLATE VARCHAR, ZCOLOR BLOB );
        CREATE TABLE ZPERSON ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZUPDATEDAT TIMESTAMP, \
        ZFIRSTNAME VARCHAR, ZLASTNAME VARCHAR, ZID BLOB );
        CREATE INDEX ZCAR_ZOWNER_INDEX ON ZCAR (ZOWNER);
        CREATE INDEX ZCAR_Z_ENT_INDEX ON ZCAR (Z_ENT);
        CREATE UNIQUE INDEX Z_Car_UNIQUE_numberPlate ON ZCAR (ZNUMBERPLATE COLLATE BINARY ASC);
        CREATE UNIQUE INDEX Z_Person_UNIQUE_firstName_lastName ON ZPERSON (ZFIRSTNAME COLLATE BINARY ASC, ZLASTNAME \
        COLLATE BINARY ASC);
        CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
        CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
        CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);
        """

    package static let rows = """
        INSERT INTO Z_PRIMARYKEY VALUES (1, 'Car', 0, 5), (2, 'SportCar', 1, 0), (3, 'ExpensiveSportCar', 2, 0), (4, \
        'Person', 0, 2);
        INSERT INTO ZPERSON VALUES (1, 4, 3, 797062028.5, 'Ann', 'Lee', X'0F8FAD5BD9CB469FA16570867728950E');
        INSERT INTO ZPERSON VALUES (2, 4, 1, 700000000, 'Bob', NULL, X'6BA7B8109DAD11D180B400C04FD430C8');
        INSERT INTO ZCAR VALUES (1, 1, 1, 1, NULL, NULL, 'FIAT', 'Panda', 'AB123CD', NULL);
        INSERT INTO ZCAR VALUES (2, 2, 1, 2, NULL, NULL, 'Alfa Romeo', 'Giulia', 'SP-1', NULL);
        INSERT INTO ZCAR VALUES (3, 3, 2, NULL, 1, 797000000.25, 'Lamborghini', 'Countach', 'LX-1', \
        X'62706C697374303008');
        INSERT INTO ZCAR VALUES (4, 1, 1, 1, NULL, NULL, 'FIAT', 'Panda', 'ZZ999ZZ', NULL);
        INSERT INTO ZCAR VALUES (5, 2, 1, NULL, NULL, NULL, 'Alfa Romeo', NULL, 'SP-2', NULL);
        INSERT INTO Z_MODELCACHE VALUES (X'1F8B0800');
        """

    package static var plist: PropertyListValue {
        .dictionary([
            "NSStoreType": "SQLite",
            "NSStoreModelVersionHashes": .dictionary(hashes.mapValues { .data(VersionHash(hex: $0)!.bytes) }),
            "NSStoreModelVersionHashesVersion": .integer(3),
            "NSStoreModelVersionIdentifiers": .array(["1"]),
            "NSPersistenceFrameworkVersion": .integer(1044),
            "_NSAutoVacuumLevel": "2",
        ])
    }

    /// Writes the store in WAL mode, as Core Data does, and closes it (which
    /// checkpoints and removes the -wal file).
    package static func create(at path: String) throws {
        let db = try Connection(path: path, mode: .readWriteCreate)
        _ = try db.scalarString("PRAGMA journal_mode = WAL")
        try db.execute("PRAGMA synchronous = OFF")
        try db.transaction {
            try db.execute(schema)
            try db.execute(rows)
            let insert = try db.cachedStatement("INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)")
            try insert.bind([.text(uuid), .blob(BinaryPropertyList.encode(plist))])
            try insert.execute()
        }
        try db.close()
    }
}
