import DataModel
import Foundation
import SQLiteStore
import TestSupport
import Testing

@testable import ModelMigration

/// Hostile inputs for binding a store to its model version, stray values and
/// `--remove-dangling-references`, found by a break-it review. Each test states
/// what must hold.
@Suite struct StoreBindingBreakTests {
    // MARK: - Siblings whose suffixes are the other way round

    static let chat1 = """
        entities:
          Message:
            attributes: { stamp: integer32? }
          SystemMessage:
            parent: Message
            attributes: { text: string? }
          TextMessage:
            parent: Message
            attributes: { text: string? }
        """
    /// Adds `Attachment`, which sorts first: Core Data renumbers, ZMESSAGE is rebuilt.
    static let chat2 =
        chat1 + """

              Attachment:
                attributes: { size: integer64? }
            """

    /// Version 1 as Core Data leaves it when `TextMessage.text` existed before
    /// `SystemMessage.text` (Core Data keeps a column's name for the life of the
    /// store): TextMessage's values in ZTEXT, SystemMessage's in ZTEXT1, the other
    /// way round from the computed layout (SystemMessage, the lower number, ZTEXT).
    static let swappedSchema = """
        CREATE TABLE ZMESSAGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZSTAMP INTEGER, ZTEXT VARCHAR, \
        ZTEXT1 VARCHAR );
        CREATE INDEX ZMESSAGE_Z_ENT_INDEX ON ZMESSAGE (Z_ENT);
        CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
        CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
        INSERT INTO Z_PRIMARYKEY VALUES (1, 'Message', 0, 4), (2, 'SystemMessage', 1, 0), (3, 'TextMessage', 1, 0);
        INSERT INTO ZMESSAGE VALUES (1, 2, 1, 10, NULL, 'sys one'), (2, 3, 1, 20, 'text two', NULL),
            (3, 3, 1, 30, 'text three', NULL), (4, 2, 1, 40, NULL, 'sys four');
        """

    /// Every message's text, by primary key, as the store's objects hold them.
    static func texts(_ store: Store, _ version: CompiledVersion) throws -> [Int64: String?] {
        let access = try ObjectAccess(store: store, version: version)
        var texts: [Int64: String?] = [:]
        for entity in ["SystemMessage", "TextMessage"] {
            for object in try access.fetch(entity) {
                if case .string(let text)? = object.values["text"] {
                    texts[object.primaryKey] = text
                } else {
                    texts[object.primaryKey] = .some(nil)
                }
            }
        }
        return texts
    }

    /// Finding 1 (data loss, exit 0): the columns are bound by name because both
    /// names exist, so every text is read as "a value Core Data left in a sibling's
    /// column"; `plan` only warns and the rebuild drops all four texts. Either the
    /// migration keeps every text, or it refuses.
    @Test func swappedSiblingSuffixesLoseNoText() throws {
        let directory = try TemporaryDirectory(prefix: "StoreBindingBreakTests")
        defer { directory.remove() }
        let model = try TestModels.compile("Chat", versions: [Self.chat1, Self.chat2])
        let path = directory.file("Chat.sqlite")
        try CoreDataLayoutTests.createStore(at: path, version: model.versions[0], schema: Self.swappedSchema)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let expected: [Int64: String?] = [1: "sys one", 2: "text two", 3: "text three", 4: "sys four"]
        do {
            let reader = try Store.open(path: path, access: .readOnly)
            // Read as it is: each object's own text.
            let read = try Self.texts(reader, model.versions[0])
            try? reader.close()
            #expect(read == expected, "objects read from the store: \(read)")
        }

        try Self.expectRefusedOrKept(path, model, before: before, expected) {
            let plan: MigrationPlan
            do {
                let reader = try Store.open(path: path, access: .readOnly)
                defer { try? reader.close() }
                plan = try MigrationPlanner(
                    models: [model], migrationsFolder: directory.file("none"), options: PlanningOptions(verify: true)
                )
                .plan(store: reader)
            }
            try Migrator().apply(plan)
        }
    }

    /// Runs `migrate`: a refusal must leave the store's bytes as `before`; a
    /// migration must keep every message's text (read in the model's second version).
    static func expectRefusedOrKept(
        _ path: String, _ model: CompiledModel, before: Data, _ expected: [Int64: String?],
        sourceLocation: Testing.SourceLocation = #_sourceLocation, migrate: () throws -> Void
    ) throws {
        do {
            try migrate()
        } catch {
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: path)) == before, "refused (\(error)), and changed",
                sourceLocation: sourceLocation)
            return
        }
        let store = try Store.open(path: path, access: .readOnly)
        defer { try? store.close() }
        let after = try texts(store, model.versions[1])
        #expect(after == expected, "texts after the migration: \(after)", sourceLocation: sourceLocation)
    }

    // MARK: - Stray values in a store this toolkit created for Core Data

    /// Finding 2: `migrate create --for-core-data` makes a store of this toolkit
    /// (no NSPersistenceFrameworkVersion: Core Data never wrote it). A value in a
    /// sibling's column there means misfiled rows and must be refused, as for any
    /// store of this toolkit; it is warned about and dropped instead.
    @Test func strayValuesInAForCoreDataStoreOfThisToolkitAreRefused() throws {
        let directory = try TemporaryDirectory(prefix: "StoreBindingBreakTests")
        defer { directory.remove() }
        let model = try TestModels.compile("Chat", versions: [Self.chat1, Self.chat2])
        let path = directory.file("Chat.sqlite")
        do {
            let store = try Store.create(path: path, version: model.versions[0], forCoreData: true)
            // SystemMessage.text is ZTEXT, TextMessage.text ZTEXT1; row 2 is a TextMessage with a value in ZTEXT.
            try store.connection.execute(
                """
                INSERT INTO ZMESSAGE (Z_PK, Z_ENT, Z_OPT, ZSTAMP, ZTEXT, ZTEXT1) VALUES (1, 2, 1, 10, 'sys', NULL), \
                (2, 3, 1, 20, 'misfiled', 'txt');
                UPDATE Z_PRIMARYKEY SET Z_MAX = 2 WHERE Z_ENT = 1;
                """)
            try store.close()
        }
        #expect(try Store.open(path: path, access: .readOnly).readMetadata().frameworkVersion == nil)
        let reader = try Store.open(path: path, access: .readOnly)
        defer { try? reader.close() }
        #expect(throws: PlanningError.self) {
            _ = try MigrationPlanner(models: [model], migrationsFolder: directory.file("none")).plan(store: reader)
        }
    }

    // MARK: - Removing a dangling required to-one

    static let rel1 = """
        entities:
          Owner:
            attributes: { name: string? }
            relationships:
              items: { destination: Item, toMany: true, inverse: owner }
          Item:
            attributes: { title: string? }
            relationships:
              owner: { destination: Owner, inverse: items, optional: false }
        """
    static let rel2 = rel1.replacingOccurrences(
        of: "attributes: { title: string? }", with: "attributes: { title: string?, note: string? }")

    /// Finding 3: `apply --remove-dangling-references` on a hop that moves no rows
    /// sets a required to-one to nil and exits 0; the migrated store then fails
    /// `apply --verify` ("required Item.owner is set in every row") for good. The
    /// repair must be refused (or the hop's checks must catch it), leaving the store
    /// as it was. (On a hop that rebuilds ZITEM the checks do catch it.)
    @Test func removingADanglingRequiredToOneIsNotDoneSilently() throws {
        let directory = try TemporaryDirectory(prefix: "StoreBindingBreakTests")
        defer { directory.remove() }
        let model = try TestModels.compile("Rel", versions: [Self.rel1, Self.rel2])
        let path = directory.file("Rel.sqlite")
        do {
            let store = try Store.create(path: path, version: model.versions[0])
            try store.connection.execute(
                """
                INSERT INTO ZOWNER (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (1, 2, 1, 'o');
                INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZOWNER, ZTITLE) VALUES (1, 1, 1, 1, 'fine'), (2, 1, 1, 99, \
                'dangling');
                UPDATE Z_PRIMARYKEY SET Z_MAX = 2 WHERE Z_ENT = 1;
                UPDATE Z_PRIMARYKEY SET Z_MAX = 1 WHERE Z_ENT = 2;
                """)
            try store.close()
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        var planner = MigrationPlanner(models: [model], migrationsFolder: directory.file("none"))
        planner.options.removesDanglingReferences = true
        let plan: MigrationPlan
        do {
            let reader = try Store.open(path: path, access: .readOnly)
            defer { try? reader.close() }
            plan = try planner.plan(store: reader)
        } catch {
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            return
        }
        do {
            try Migrator().apply(plan)  // no --verify: the hop's own checks must hold
        } catch {
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            return
        }
        // Applied: then the store must still be a valid store of version 2.
        let store = try Store.open(path: path, access: .readOnly)
        defer { try? store.close() }
        let nils = try store.connection.scalarInt64("SELECT count(*) FROM ZITEM WHERE ZOWNER IS NULL") ?? 0
        #expect(nils == 0, "apply exited 0 leaving \(nils) Item with its required owner nil")
    }

    // MARK: - A partial unique index read as a full one

    static let person1 = """
        entities:
          Person:
            attributes:
              email: { type: string, optional: true, indexed: true }
              name: string?
            uniqueness: [[name]]
        """
    static let person2 = person1.replacingOccurrences(of: "name: string?", with: "name: string?\n      age: integer16?")

    /// Finding 4: a partial UNIQUE index whose `WHERE` follows a newline (or a tab)
    /// is read as a full unique index (`indexCondition` looks for " WHERE " with
    /// spaces), so it stands for `uniqueness: [[name]]`: the duplicates it lets in are
    /// never found and the migration passes `--verify`. With a space before WHERE the
    /// same store is refused (exit 4, 'dup' × 2).
    @Test func aPartialUniqueIndexIsNotTakenForTheConstraint() throws {
        let directory = try TemporaryDirectory(prefix: "StoreBindingBreakTests")
        defer { directory.remove() }
        let model = try TestModels.compile("P", versions: [Self.person1, Self.person2])
        let path = directory.file("P.sqlite")
        try CoreDataLayoutTests.createStore(
            at: path, version: model.versions[0],
            schema: """
                CREATE TABLE ZPERSON ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZEMAIL VARCHAR, ZNAME \
                VARCHAR );
                CREATE INDEX ZPERSON_ZEMAIL_INDEX ON ZPERSON (ZEMAIL);
                CREATE UNIQUE INDEX Z_Person_UNIQUE_name ON ZPERSON (ZNAME)
                WHERE ZNAME <> 'dup';
                CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                INSERT INTO Z_PRIMARYKEY VALUES (1, 'Person', 0, 2);
                INSERT INTO ZPERSON VALUES (1, 1, 1, 'a', 'dup'), (2, 1, 1, 'b', 'dup');
                """)
        let reader = try Store.open(path: path, access: .readOnly)
        defer { try? reader.close() }
        let binding = try reader.binding(for: model.versions[0])
        let unique = try #require(binding.layout.indexes.first { $0.name == "Z_Person_UNIQUE_name" })
        #expect(unique.condition != nil, "the store's partial index was read without its condition")
        #expect(throws: (any Error).self) {
            _ = try MigrationPlanner(models: [model], migrationsFolder: directory.file("none")).plan(store: reader)
        }
    }
}

extension StoreBindingBreakTests {
    /// Sibling columns neither bound by name nor clearly swapped (each entity's rows
    /// hold values in both): the store is refused, naming the rows, never migrated
    /// with some values dropped.
    @Test func siblingColumnsTheRowsDoNotDecideAreRefused() throws {
        let directory = try TemporaryDirectory(prefix: "StoreBindingBreakTests")
        defer { directory.remove() }
        let model = try TestModels.compile("Chat", versions: [Self.chat1, Self.chat2])
        let path = directory.file("Chat.sqlite")
        let mixed = Self.swappedSchema.replacingOccurrences(
            of: "(4, 2, 1, 40, NULL, 'sys four')", with: "(4, 2, 1, 40, 'sys four', NULL)")
        try CoreDataLayoutTests.createStore(at: path, version: model.versions[0], schema: mixed)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let reader = try Store.open(path: path, access: .readOnly)
        defer { try? reader.close() }
        #expect {
            _ = try MigrationPlanner(models: [model], migrationsFolder: directory.file("none")).plan(store: reader)
        } throws: { error in
            let planning = PlanningError(classifying: error)
            return planning.kind == .storeMismatch
                && planning.message.contains(
                    """
                    holds values in the column of a sibling entity whose name differs from the row's own column only \
                    by its suffix
                    """
                )
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}
