import DataModel
import Foundation
import PropertyList
import SQLiteStore
import TestSupport
import Testing

@testable import ModelMigration

/// A store laid out the way Core Data lays one out (the conventions of real stores:
/// AddressBook's `ZCONTAINER`/`ZCONTAINER1` and `Z22_CONTACT` columns and
/// `Z_22PARENTGROUPS (Z_22CONTACTS, Z_19PARENTGROUPS1)`, Photos' `Z_FOK_` join
/// columns), built here by hand in SQL, recognised by its hashes and migrated with
/// Core Data's naming and numbering kept.
@Suite struct CoreDataLayoutTests {
    static let version1 = """
        entities:
          Container:
            attributes: { name: string? }
            relationships:
              groups: { destination: AbstractGroup, toMany: true, inverse: container }
              contacts: { destination: Contact, toMany: true, inverse: container }
              notes: { destination: Note, toMany: true }
          Note:
            attributes: { text: string? }
            relationships:
              record: { destination: Record, optional: true }
              tags: { destination: Tag, toMany: true, inverse: notes }
          Phone:
            attributes: { number: string?, cost: decimal? }
            relationships:
              owner: { destination: Contact, optional: true, inverse: phones }
          Record:
            abstract: true
            attributes: { uniqueId: string? }
          AbstractGroup:
            parent: Record
            abstract: true
            relationships:
              container: { destination: Container, optional: true, inverse: groups }
              parentGroups: { destination: Group, toMany: true, inverse: childGroups }
          Group:
            parent: AbstractGroup
            attributes: { name: string? }
            relationships:
              childGroups: { destination: AbstractGroup, toMany: true, inverse: parentGroups }
              contacts: { destination: Contact, toMany: true, inverse: parentGroups }
          Contact:
            parent: Record
            attributes: { firstName: string? }
            relationships:
              container: { destination: Container, optional: true, inverse: contacts }
              parentGroups: { destination: Group, toMany: true, inverse: contacts }
              phones: { destination: Phone, toMany: true, ordered: true, inverse: owner }
          SubscribedContact:
            parent: Contact
          Tag:
            attributes: { name: string? }
            relationships:
              notes: { destination: Note, toMany: true, inverse: tags }
        """

    /// Version 2 adds `Address`, whose name sorts first: Core Data numbers every
    /// other entity one higher.
    static let version2 =
        version1 + """

              Address:
                attributes: { street: string? }
            """

    static func model() throws -> CompiledModel {
        try TestModels.compile("Book", versions: [version1, version2])
    }

    /// Version 1's tables as Core Data writes them. Two join tables are on the side
    /// this toolkit's rules do not pick (`Z_9NOTES` on Tag's side, `Z_5PARENTGROUPS`
    /// where the hash order of `ZRECORD` says `Z_6CHILDGROUPS`): the store is read as
    /// it is, and a migration gives it the destination version's names.
    static let schema = """
        CREATE TABLE ZCONTAINER ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
        CREATE TABLE ZNOTE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, Z1NOTES INTEGER, ZRECORD INTEGER, \
        Z4_RECORD INTEGER, ZTEXT VARCHAR );
        CREATE TABLE ZPHONE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZOWNER INTEGER, Z7_OWNER \
        INTEGER, Z_FOK_OWNER INTEGER, ZCOST DECIMAL, ZNUMBER VARCHAR );
        CREATE TABLE ZRECORD ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCONTAINER INTEGER, ZCONTAINER1 \
        INTEGER, ZUNIQUEID VARCHAR, ZNAME VARCHAR, ZFIRSTNAME VARCHAR );
        CREATE TABLE Z_5PARENTGROUPS ( Z_5CHILDGROUPS INTEGER, Z_6PARENTGROUPS INTEGER, PRIMARY KEY (Z_5CHILDGROUPS, \
        Z_6PARENTGROUPS) );
        CREATE TABLE Z_7PARENTGROUPS ( Z_7CONTACTS INTEGER, Z_6PARENTGROUPS1 INTEGER, PRIMARY KEY (Z_7CONTACTS, \
        Z_6PARENTGROUPS1) );
        CREATE TABLE ZTAG ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR, ZLEGACY VARCHAR );
        CREATE TABLE Z_9NOTES ( Z_9TAGS INTEGER, Z_2NOTES INTEGER, PRIMARY KEY (Z_9TAGS, Z_2NOTES) );
        CREATE INDEX ZNOTE_ZRECORD_INDEX ON ZNOTE (ZRECORD);
        CREATE INDEX ZNOTE_Z1NOTES_INDEX ON ZNOTE (Z1NOTES);
        CREATE INDEX ZPHONE_ZOWNER_INDEX ON ZPHONE (ZOWNER);
        CREATE INDEX ZRECORD_ZCONTAINER_INDEX ON ZRECORD (ZCONTAINER);
        CREATE INDEX ZRECORD_ZCONTAINER1_INDEX ON ZRECORD (ZCONTAINER1);
        CREATE INDEX ZRECORD_Z_ENT_INDEX ON ZRECORD (Z_ENT);
        CREATE INDEX Z_5PARENTGROUPS_Z_6PARENTGROUPS_INDEX ON Z_5PARENTGROUPS (Z_6PARENTGROUPS, Z_5CHILDGROUPS);
        CREATE INDEX Z_7PARENTGROUPS_Z_6PARENTGROUPS1_INDEX ON Z_7PARENTGROUPS (Z_6PARENTGROUPS1, Z_7CONTACTS);
        CREATE INDEX Z_9NOTES_Z_2NOTES_INDEX ON Z_9NOTES (Z_2NOTES, Z_9TAGS);
        CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
        CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
        CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);
        -- Persistent history, as Core Data keeps it (its own entities, numbered from 16001).
        CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY \
        INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB );
        INSERT INTO ACHANGE VALUES (1, 16001, 1, 0, 7, 3, 1, NULL), (2, 16001, 1, 0, 9, 1, 1, NULL);
        INSERT INTO Z_PRIMARYKEY VALUES (1, 'Container', 0, 1), (2, 'Note', 0, 2), (3, 'Phone', 0, 2), (4, 'Record', \
        0, 5),
            (5, 'AbstractGroup', 4, 0), (6, 'Group', 5, 0), (7, 'Contact', 4, 0), (8, 'SubscribedContact', 7, 0), (9, \
        'Tag', 0, 1),
            (16001, 'CHANGE', 0, 2), (16002, 'TRANSACTION', 0, 1);
        INSERT INTO ZCONTAINER VALUES (1, 1, 1, 'iCloud');
        -- Records: groups 1 and 2 (2 inside 1), contact 3, subscribed contact 4, contact 5.
        INSERT INTO ZRECORD VALUES (1, 6, 1, 1, NULL, 'G1', 'Friends', NULL);
        INSERT INTO ZRECORD VALUES (2, 6, 1, 1, NULL, 'G2', 'Close friends', NULL);
        INSERT INTO ZRECORD VALUES (3, 7, 1, NULL, 1, 'C3', NULL, 'Ada');
        INSERT INTO ZRECORD VALUES (4, 8, 1, NULL, 1, 'C4', NULL, 'Grace');
        INSERT INTO ZRECORD VALUES (5, 7, 1, NULL, NULL, 'C5', NULL, 'Alan');
        INSERT INTO Z_5PARENTGROUPS VALUES (2, 1);
        INSERT INTO Z_7PARENTGROUPS VALUES (3, 1), (4, 1), (4, 2);
        INSERT INTO ZPHONE VALUES (1, 3, 1, 4, 8, 2, 12.5, '555-0102'), (2, 3, 1, 4, 8, 1, NULL, '555-0101');
        INSERT INTO ZNOTE VALUES (1, 2, 1, 1, 4, 8, 'about Grace'), (2, 2, 1, NULL, 1, 6, 'about Friends');
        -- A column the model does not describe (another tool wrote it).
        INSERT INTO ZTAG VALUES (1, 9, 1, 'work', 'x');
        INSERT INTO Z_9NOTES VALUES (1, 1), (1, 2);
        """

    static func createStore(at path: String, version: CompiledVersion, schema: String = Self.schema) throws {
        let db = try Connection(path: path, mode: .readWriteCreate)
        _ = try db.scalarString("PRAGMA journal_mode = WAL")
        try db.transaction {
            try db.execute(schema)
            let plist: PropertyListValue = .dictionary([
                "NSStoreType": "SQLite",
                "NSStoreModelVersionHashes": .dictionary(version.versionHashes.mapValues { .data($0.bytes) }),
                "NSStoreModelVersionHashesVersion": .integer(3),
                "NSStoreModelVersionIdentifiers": .array([""]),
                "NSPersistenceFrameworkVersion": .integer(1344),
                "_NSAutoVacuumLevel": "2",
            ])
            let insert = try db.cachedStatement("INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)")
            try insert.bind([.text("0B9F3E2A-4C1D-4E8F-9A6B-7C5D3E2F1A0B"), .blob(BinaryPropertyList.encode(plist))])
            try insert.execute()
        }
        try db.close()
    }

    /// What the compiler derives for version 1 is exactly the schema above, but for
    /// the sides of the Tag–Note and group join tables.
    @Test func theLayoutFollowsCoreDatasNaming() throws {
        let layout = try Self.model().versions[0].layout
        #expect(
            layout.entityNumbers == [
                "Container": 1, "Note": 2, "Phone": 3, "Record": 4, "AbstractGroup": 5,
                "Group": 6, "Contact": 7, "SubscribedContact": 8, "Tag": 9,
            ])
        let describe = { (t: StorageLayout.Table) in "\(t.name)(\(t.columns.map(\.name).joined(separator: ",")))" }
        #expect(
            layout.tables.map(describe) == [
                "ZCONTAINER(Z_PK,Z_ENT,Z_OPT,ZNAME)",
                "ZNOTE(Z_PK,Z_ENT,Z_OPT,Z1NOTES,ZRECORD,Z4_RECORD,ZTEXT)",
                "ZPHONE(Z_PK,Z_ENT,Z_OPT,ZOWNER,Z7_OWNER,Z_FOK_OWNER,ZCOST,ZNUMBER)",
                "ZRECORD(Z_PK,Z_ENT,Z_OPT,ZCONTAINER,ZCONTAINER1,ZUNIQUEID,ZNAME,ZFIRSTNAME)",
                "ZTAG(Z_PK,Z_ENT,Z_OPT,ZNAME)",
                "Z_2TAGS(Z_2NOTES,Z_9TAGS)",
                "Z_6CHILDGROUPS(Z_6PARENTGROUPS,Z_5CHILDGROUPS)",
                "Z_7PARENTGROUPS(Z_7CONTACTS,Z_6PARENTGROUPS1)",
            ])
    }

    func rows(_ store: Store, _ sql: String) throws -> [[DatabaseValue]] {
        try store.connection.prepare(sql).rows()
    }

    @Test func entityNamesAreNumberedWithoutRegardToCase() throws {
        #expect(
            ModelCompiler.defaultEntityOrder([
                ("ABCDURLAddress", nil), ("ABCDUnknownProperty", nil), ("abc", nil), ("Abc", nil),
            ])
                == ["Abc", "abc", "ABCDUnknownProperty", "ABCDURLAddress"])
    }

    @Test func aStoreLaidOutByCoreDataIsReadAsItIs() throws {
        let directory = try TemporaryDirectory(prefix: "CoreDataLayoutTests")
        defer { directory.remove() }
        let model = try Self.model()
        let path = directory.file("Book.sqlite")
        try Self.createStore(at: path, version: model.versions[0])

        let store = try Store.open(path: path, access: .readOnly)
        defer { try? store.close() }
        let recognition = try #require(VersionRecognition.recognize(try store.readMetadata(), among: [model]))
        #expect(recognition.version == 1)
        let layout = try store.layout(for: model.versions[0])
        #expect(
            layout.tables.compactMap(\.joinRelationship).sorted() == [
                "AbstractGroup.parentGroups", "Contact.parentGroups", "Tag.notes",
            ])
        let access = try ObjectAccess(store: store, version: model.versions[0])
        #expect(try access.fetch("Note").map { $0.relationships["tags"] ?? [] } == [[1], [1]])
        #expect(
            try access.fetch("Contact").map {
                "\($0.primaryKey) \($0.entity) \($0.relationships["parentGroups"] ?? [])"
            }
                == ["3 Contact [1]", "4 SubscribedContact [1, 2]", "5 Contact []"])
        #expect(try access.object("Contact", primaryKey: 4)?.relationships["phones"] == [2, 1])
        #expect(try access.object("Container", primaryKey: 1)?.relationships["notes"] == [1])
    }

    @Test func migratingTakesCoreDatasNumberingAndNaming() throws {
        let directory = try TemporaryDirectory(prefix: "CoreDataLayoutTests")
        defer { directory.remove() }
        let model = try Self.model()
        let path = directory.file("Book.sqlite")
        try Self.createStore(at: path, version: model.versions[0])

        let reader = try Store.open(path: path, access: .readOnly)
        let plan = try MigrationPlanner(models: [model], migrationsFolder: directory.file("none")).plan(store: reader)
        try reader.close()
        #expect(plan.hops.last?.destinationLayout.entityNumbers == model.versions[1].layout.entityNumbers)
        #expect(
            plan.warnings.map(\.description) == [
                """
                destructive: ZTAG.ZLEGACY is not in the layout of the store's version: its 1 non-nil value will be \
                lost when ZTAG is rebuilt
                """
            ])
        try Migrator().apply(plan)

        let store = try Store.open(path: path, access: .readOnly)
        defer { try? store.close() }
        // Each entity keeps its key counter under its new number.
        #expect(
            try store.entityKeyRows().map { "\($0.number) \($0.name) \($0.parent) \($0.maxKey)" } == [
                "1 Address 0 0", "2 Container 0 1", "3 Note 0 2", "4 Phone 0 2", "5 Record 0 5", "6 AbstractGroup 5 0",
                "7 Group 6 0", "8 Contact 5 0", "9 SubscribedContact 8 0", "10 Tag 0 1",
                "16001 CHANGE 0 2", "16002 TRANSACTION 0 1",
            ])
        // History names the changed objects' entities by their new numbers.
        #expect(
            try rows(store, "SELECT ZENTITY, ZENTITYPK FROM ACHANGE ORDER BY Z_PK") == [
                [.integer(8), .integer(3)], [.integer(10), .integer(1)],
            ])
        let tables = try store.connection.tables().filter {
            !$0.hasPrefix("MM_") && !["Z_METADATA", "Z_MODELCACHE", "Z_PRIMARYKEY", "ACHANGE"].contains($0)
        }
        var described: [String] = []
        for table in tables.sorted() {
            described.append("\(table)(\(try store.connection.columns(of: table).map(\.name).joined(separator: ",")))")
        }
        #expect(
            described == [
                "ZADDRESS(Z_PK,Z_ENT,Z_OPT,ZSTREET)",
                "ZCONTAINER(Z_PK,Z_ENT,Z_OPT,ZNAME)",
                "ZNOTE(Z_PK,Z_ENT,Z_OPT,Z2NOTES,ZRECORD,Z5_RECORD,ZTEXT)",
                "ZPHONE(Z_PK,Z_ENT,Z_OPT,ZOWNER,Z8_OWNER,Z_FOK_OWNER,ZCOST,ZNUMBER)",
                "ZRECORD(Z_PK,Z_ENT,Z_OPT,ZCONTAINER,ZCONTAINER1,ZUNIQUEID,ZNAME,ZFIRSTNAME)",
                "ZTAG(Z_PK,Z_ENT,Z_OPT,ZNAME)",
                // Join tables renamed in place keep their column order, as in Core Data's
                // migrated stores (Wire's `Z_24TRUSTEDBYCLIENTS (Z_24TRUSTEDBYCLIENTS, …)`).
                "Z_3TAGS(Z_10TAGS,Z_3NOTES)",
                "Z_7CHILDGROUPS(Z_6CHILDGROUPS,Z_7PARENTGROUPS)",
                "Z_8PARENTGROUPS(Z_8CONTACTS,Z_7PARENTGROUPS1)",
            ])
        // Rows carry the new numbers, entity columns too; every pair is kept.
        #expect(
            try rows(store, "SELECT Z_PK, Z_ENT FROM ZRECORD ORDER BY Z_PK").map { "\($0[0]) \($0[1])" }
                == ["1 7", "2 7", "3 8", "4 9", "5 8"])
        #expect(
            try rows(store, "SELECT Z_PK, Z_ENT, ZRECORD, Z5_RECORD, Z2NOTES FROM ZNOTE ORDER BY Z_PK").map {
                $0.map(\.description).joined(separator: " ")
            }
                == ["1 3 4 9 1", "2 3 1 7 NULL"])
        #expect(
            try rows(store, "SELECT Z_PK, Z_ENT, ZOWNER, Z8_OWNER, Z_FOK_OWNER FROM ZPHONE ORDER BY Z_PK")
                .map { $0.map(\.description).joined(separator: " ") }
                == ["1 4 4 9 2", "2 4 4 9 1"])
        // Decimal columns stay declared as Core Data declares them, values as they were.
        #expect(try store.connection.columns(of: "ZPHONE").first { $0.name == "ZCOST" }?.declaredType == "DECIMAL")
        #expect(try rows(store, "SELECT ZCOST FROM ZPHONE ORDER BY Z_PK") == [[.real(12.5)], [.null]])
        #expect(
            try rows(store, "SELECT * FROM Z_8PARENTGROUPS ORDER BY 1, 2").map {
                $0.map(\.description).joined(separator: " ")
            }
                == ["3 1", "4 1", "4 2"])
        #expect(
            try rows(store, "SELECT Z_10TAGS, Z_3NOTES FROM Z_3TAGS ORDER BY 1, 2").map {
                $0.map(\.description).joined(separator: " ")
            }
                == ["1 1", "1 2"])
        #expect(
            try rows(store, "SELECT Z_6CHILDGROUPS, Z_7PARENTGROUPS FROM Z_7CHILDGROUPS").map {
                $0.map(\.description).joined(separator: " ")
            }
                == ["2 1"])
        let metadata = try store.readMetadata()
        #expect(metadata.versionHashes == model.versions[1].versionHashes)
        #expect(metadata.frameworkVersion == 1344)
        #expect(try store.inspect().journalMode == "wal")
    }
}

/// Migrations whose column names shift: suffixes moving when a property takes a
/// name before them, numbers changing with Core Data's renumbering, and stores
/// written before a to-many without an inverse kept its key on the destination.
@Suite struct ShiftingNamesTests {
    /// Marks a scenario's store as one that came from Core Data.
    static func markAsCoreDataStore(_ s: MigrationScenario) throws {
        let store = try Store.open(path: s.storePath, access: .readWrite)
        defer { try? store.close() }
        var metadata = try store.readMetadata()
        metadata.frameworkVersion = 1344
        try store.connection.transaction { try store.writeMetadata(metadata) }
    }

    static func indexColumns(_ s: MigrationScenario, _ table: String) throws -> [String] {
        try s.rows(
            """
            SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = '\(table)' AND name NOT LIKE 'sqlite_%' \
            ORDER BY name
            """
        ).map { row in
            guard case .text(let name) = row[0] else { return "?" }
            let columns = try s.rows("PRAGMA index_info(\"\(name)\")").map { row -> String in
                if case .text(let column) = row[2] { return column }
                return "?"
            }
            return "\(name)(\(columns.joined(separator: ",")))"
        }
    }

    /// Renumbering moves `Z2ITEMS` to `Z3ITEMS` while `Z3ITEMS` becomes `Z4ITEMS`:
    /// the renames go through temporary names and the indexes follow the names.
    @Test func keyColumnsSwapNamesWhenOwnersAreRenumbered() throws {
        let v1 = """
            entities:
              Item:
                attributes: { name: string? }
              Pa:
                attributes: { name: string? }
                relationships:
                  items: { destination: Item, toMany: true }
              Pb:
                attributes: { name: string? }
                relationships:
                  items: { destination: Item, toMany: true }

            """
        let v2 = v1 + "  Jay:\n    attributes: { name: string? }\n"
        let s = try MigrationScenario("Swap", versions: [v1, v2])
        defer { s.remove() }
        try Self.markAsCoreDataStore(s)
        try s.withObjects { o in
            try o.insert("Item", values: ["name": .string("one")])
            try o.insert("Item", values: ["name": .string("two")])
            try o.insert("Pa", values: [:], relationships: ["items": [1]])
            try o.insert("Pb", values: [:], relationships: ["items": [2]])
        }
        #expect(try s.columns("ZITEM") == ["Z_PK", "Z_ENT", "Z_OPT", "Z2ITEMS", "Z3ITEMS", "ZNAME"])
        try s.migrate()
        #expect(try s.columns("ZITEM") == ["Z_PK", "Z_ENT", "Z_OPT", "Z3ITEMS", "Z4ITEMS", "ZNAME"])
        #expect(
            try s.rows("SELECT Z3ITEMS, Z4ITEMS FROM ZITEM ORDER BY Z_PK") == [
                [.integer(1), .null], [.null, .integer(1)],
            ])
        let itemIndexes = try Self.indexColumns(s, "ZITEM")
        #expect(itemIndexes == ["ZITEM_Z3ITEMS_INDEX(Z3ITEMS)", "ZITEM_Z4ITEMS_INDEX(Z4ITEMS)"])
        #expect(try s.fetch("Pa").map { $0.relationships["items"] ?? [] } == [[1]])
        #expect(try s.fetch("Pb").map { $0.relationships["items"] ?? [] } == [[2]])
    }

    /// A to-many added on the first subentity takes the name `ZOWNER`: the to-ones of
    /// the next subentities move to `ZOWNER1` and `ZOWNER2`, values and all.
    @Test func suffixesShiftWhenAPropertyTakesANameBeforeThem() throws {
        let v1 = """
            entities:
              Person:
                attributes: { name: string? }
              Record:
                abstract: true
                attributes: { note: string? }
              A:
                parent: Record
              B:
                parent: Record
                relationships:
                  owner: { destination: Person, optional: true }
              C:
                parent: Record
                relationships:
                  owner: { destination: Person, optional: true }

            """
        let v2 = v1.replacingOccurrences(
            of: "  A:\n    parent: Record\n",
            with: """
                  A:
                    parent: Record
                    relationships:
                      owner: { destination: Person, toMany: true }

                """)
        let s = try MigrationScenario("Shift", versions: [v1, v2])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Person", values: ["name": .string("Ann")])
            try o.insert("Person", values: ["name": .string("Bob")])
            try o.insert("B", values: [:], relationships: ["owner": [1]])
            try o.insert("C", values: [:], relationships: ["owner": [2]])
        }
        #expect(try s.columns("ZRECORD") == ["Z_PK", "Z_ENT", "Z_OPT", "ZOWNER", "ZOWNER1", "ZNOTE"])
        try s.migrate()
        #expect(try s.columns("ZRECORD") == ["Z_PK", "Z_ENT", "Z_OPT", "ZOWNER1", "ZOWNER2", "ZNOTE"])
        #expect(try s.fetch("Record").map { "\($0.entity) \($0.relationships["owner"] ?? [])" } == ["B [1]", "C [2]"])
        #expect(try Self.indexColumns(s, "ZRECORD").contains("ZRECORD_ZOWNER1_INDEX(ZOWNER1)"))
        #expect(try Self.indexColumns(s, "ZRECORD").contains("ZRECORD_ZOWNER2_INDEX(ZOWNER2)"))
    }

    /// An ordered many-to-many whose inverse goes away keeps its order in the
    /// destination's `Z_FOK_` column.
    @Test func anOrderedManyToManyLosingItsInverseKeepsItsOrder() throws {
        let v1 = """
            entities:
              Person:
                attributes: { name: string? }
                relationships:
                  pets: { destination: Pet, toMany: true, ordered: true, inverse: owners }
              Pet:
                attributes: { name: string? }
                relationships:
                  owners: { destination: Person, toMany: true, inverse: pets }

            """
        let v2 = """
            entities:
              Person:
                attributes: { name: string? }
                relationships:
                  pets: { destination: Pet, toMany: true, ordered: true }
              Pet:
                attributes: { name: string? }

            """
        let s = try MigrationScenario("Order", versions: [v1, v2])
        defer { s.remove() }
        try s.withObjects { o in
            for name in ["Rex", "Tom", "Kit"] { try o.insert("Pet", values: ["name": .string(name)]) }
            try o.insert("Person", values: ["name": .string("Ann")], relationships: ["pets": [3, 1, 2]])
        }
        try s.migrate()
        #expect(try s.fetch("Person").map { $0.relationships["pets"] ?? [] } == [[3, 1, 2]])
    }

    /// A store written while to-many relationships without an inverse had a join
    /// table (`Z_1PETS`) is read as it is, and its next migration moves the pairs to
    /// the destination's key column.
    @Test func anOldJoinTableForAToManyWithoutInverseIsReadAndMoved() throws {
        let v1 = """
            entities:
              Person:
                attributes: { name: string? }
                relationships:
                  pets: { destination: Pet, toMany: true }
              Pet:
                attributes: { name: string? }

            """
        let v2 = v1.replacingOccurrences(
            of: "attributes: { name: string? }\n    relationships:",
            with: "attributes: { name: string?, age: integer16? }\n    relationships:")
        let s = try MigrationScenario("Legacy", versions: [v1, v2])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Pet", values: ["name": .string("Rex")])
            try o.insert("Pet", values: ["name": .string("Tom")])
            try o.insert("Person", values: ["name": .string("Ann")], relationships: ["pets": [1, 2]])
        }
        // Lay the pairs out the old way.
        let store = try Store.open(path: s.storePath, access: .readWrite)
        try store.connection.transaction {
            try store.connection.execute(
                """
                CREATE TABLE Z_1PETS ( Z_1PERSON INTEGER, Z_2PETS INTEGER, PRIMARY KEY (Z_1PERSON, Z_2PETS) );
                INSERT INTO Z_1PETS SELECT Z1PETS, Z_PK FROM ZPET WHERE Z1PETS IS NOT NULL;
                DROP INDEX ZPET_Z1PETS_INDEX;
                ALTER TABLE ZPET DROP COLUMN Z1PETS;
                """)
        }
        try store.close()
        #expect(try s.fetch("Person").map { $0.relationships["pets"] ?? [] } == [[1, 2]])
        try s.migrate()
        #expect(try s.columns("ZPET") == ["Z_PK", "Z_ENT", "Z_OPT", "Z1PETS", "ZNAME"])
        #expect(try s.rows("SELECT name FROM sqlite_master WHERE name = 'Z_1PETS'").isEmpty)
        #expect(try s.fetch("Person").map { $0.relationships["pets"] ?? [] } == [[1, 2]])
    }
}

/// `migrate create --for-core-data`: a store of ours that Core Data will open keeps
/// Core Data's numbering through migrations; other stores keep their numbers.
@Suite struct StoresForCoreDataTests {
    static let v1 = """
        entities:
          Person:
            attributes: { name: string?, balance: decimal? }

        """
    static let v2 = v1 + "  Account:\n    attributes: { iban: string? }\n"

    @Test(arguments: [false, true])
    func addingAnEntityThatSortsFirst(forCoreData: Bool) throws {
        let s = try MigrationScenario("Bank", versions: [Self.v1, Self.v2])
        defer { s.remove() }
        try Store.create(
            path: s.storePath, version: try s.model().versions[0], overwrite: true, forCoreData: forCoreData
        ).close()
        #expect(
            try s.rows("SELECT type FROM pragma_table_info('ZPERSON') WHERE name = 'ZBALANCE'") == [
                [.text(forCoreData ? "DECIMAL" : "TEXT")]
            ])
        try s.withObjects { try $0.insert("Person", values: ["name": .string("Ann"), "balance": .decimal("12.5")]) }
        try s.migrate()
        #expect(
            try s.entityKeys().map { "\($0.number) \($0.name)" }
                == (forCoreData ? ["1 Account", "2 Person"] : ["1 Person", "2 Account"]))
        #expect(try s.rows("SELECT Z_ENT FROM ZPERSON") == [[.integer(forCoreData ? 2 : 1)]])
        #expect(try s.fetch("Person").map { $0.values["name"] } == [.string("Ann")])
    }
}
