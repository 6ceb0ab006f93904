import DataModel
import Foundation
import SQLiteStore
import TestSupport
import Testing

@testable import ModelMigration

/// Stores Core Data wrote are read as they are: the computed names are the first
/// guess, the store's tables decide. The patterns are Wire's (86 public fixture
/// stores): a join column keeping a suffix from years before (`Z_16USERS
/// (Z_16SYSTEMMESSAGES, Z_24USERS1)` while `Z_20USERS` took `Z_24USERS`), an index
/// named after older entity numbers, an index the store already has, and values
/// Core Data left in a sibling entity's column.
@Suite struct StoreBindingTests {
    static let version1 = """
        entities:
          Message:
            attributes: { text: string? }
          SystemMessage:
            parent: Message
            attributes: { code: integer32? }
            relationships:
              users: { destination: User, toMany: true, inverse: systemMessages }
          TextMessage:
            parent: Message
            attributes: { body: string? }
          Reaction:
            attributes: { emoji: string? }
            relationships:
              users: { destination: User, toMany: true, inverse: reactions }
          User:
            attributes: { name: string? }
            relationships:
              systemMessages: { destination: SystemMessage, toMany: true, inverse: users }
              reactions: { destination: Reaction, toMany: true, inverse: users }
        """

    /// Version 2 indexes `User.name` (the store already has that index) and adds a
    /// TextMessage attribute: no data moves.
    static let version2 =
        version1
        .replacingOccurrences(
            of: "attributes: { name: string? }",
            with: "attributes: { name: { type: string, optional: true, indexed: true } }"
        )
        .replacingOccurrences(
            of: "attributes: { body: string? }", with: "attributes: { body: string?, edited: boolean? }")

    /// Version 3 adds `Attachment`, which sorts first: Core Data numbers every other
    /// entity one higher, so tables and columns carrying numbers are rewritten.
    static let version3 =
        version2 + """

              Attachment:
                attributes: { size: integer64? }
            """

    static func model() throws -> CompiledModel {
        try TestModels.compile("Chat", versions: [version1, version2, version3])
    }

    /// Version 1 as Core Data left it after years of migrations.
    static let schema = """
        CREATE TABLE ZMESSAGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCODE INTEGER, ZTEXT VARCHAR, \
        ZBODY VARCHAR );
        CREATE TABLE ZREACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZEMOJI VARCHAR );
        CREATE TABLE ZUSER ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
        CREATE TABLE Z_2USERS ( Z_2SYSTEMMESSAGES INTEGER, Z_5USERS INTEGER, PRIMARY KEY (Z_2SYSTEMMESSAGES, Z_5USERS) \
        );
        CREATE TABLE Z_4USERS ( Z_4REACTIONS INTEGER, Z_5USERS1 INTEGER, PRIMARY KEY (Z_4REACTIONS, Z_5USERS1) );
        CREATE INDEX ZMESSAGE_Z_ENT_INDEX ON ZMESSAGE (Z_ENT);
        CREATE INDEX Z_1USERS_Z_4USERS_INDEX ON Z_2USERS (Z_5USERS, Z_2SYSTEMMESSAGES);
        CREATE INDEX Z_4USERS_Z_5USERS1_INDEX ON Z_4USERS (Z_5USERS1, Z_4REACTIONS);
        CREATE INDEX ZUSER_ZNAME_INDEX ON ZUSER (ZNAME);
        CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
        CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
        INSERT INTO Z_PRIMARYKEY VALUES (1, 'Message', 0, 3), (2, 'SystemMessage', 1, 0), (3, 'TextMessage', 1, 0),
            (4, 'Reaction', 0, 1), (5, 'User', 0, 2);
        INSERT INTO ZMESSAGE VALUES (1, 2, 1, 7, 'joined', NULL);
        -- A text message still holding a code, as Core Data leaves values behind.
        INSERT INTO ZMESSAGE VALUES (2, 3, 1, 9, 'hi', 'hello');
        INSERT INTO ZMESSAGE VALUES (3, 1, 1, NULL, 'plain', NULL);
        INSERT INTO ZREACTION VALUES (1, 4, 1, '👍');
        INSERT INTO ZUSER VALUES (1, 5, 1, 'Ada'), (2, 5, 1, 'Grace');
        INSERT INTO Z_2USERS VALUES (1, 1), (1, 2);
        INSERT INTO Z_4USERS VALUES (1, 2);
        """

    static func createStore(at path: String, version: CompiledVersion) throws {
        try CoreDataLayoutTests.createStore(at: path, version: version, schema: schema)
    }

    /// A store of version 1 as Core Data left it, in a new folder, and the plan to `target`.
    static func planned(
        to target: Int? = nil, removingDangling: Bool = false, verify: Bool = true,
        setUp: (String) throws -> Void = { _ in }
    )
        throws -> (directory: TemporaryDirectory, path: String, model: CompiledModel, plan: MigrationPlan)
    {
        let directory = try TemporaryDirectory(prefix: "StoreBindingTests")
        let model = try Self.model()
        let path = directory.file("Chat.sqlite")
        try Self.createStore(at: path, version: model.versions[0])
        try setUp(path)
        let reader = try Store.open(path: path, access: .readOnly)
        defer { try? reader.close() }
        let options = PlanningOptions(target: target, removesDanglingReferences: removingDangling, verify: verify)
        return (
            directory, path, model,
            try MigrationPlanner(models: [model], migrationsFolder: directory.file("none"), options: options).plan(
                store: reader)
        )
    }

    static func describe(_ store: Store) throws -> [String] {
        var described: [String] = []
        for table in try store.connection.tables().sorted()
        where !table.hasPrefix("MM_") && !["Z_METADATA", "Z_PRIMARYKEY"].contains(table) {
            described.append("\(table)(\(try store.connection.columns(of: table).map(\.name).joined(separator: ",")))")
        }
        return described
    }

    static func indexes(_ store: Store) throws -> [String] {
        try store.connection.prepare(
            "SELECT name, tbl_name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"
        ).rows()
            .map { "\($0[0].string ?? "") on \($0[1].string ?? "")" }
    }

    @Test func theStoresOwnNamesAreBound() throws {
        let directory = try TemporaryDirectory(prefix: "StoreBindingTests")
        defer { directory.remove() }
        let model = try Self.model()
        let path = directory.file("Chat.sqlite")
        try Self.createStore(at: path, version: model.versions[0])
        let store = try Store.open(path: path, access: .readOnly)
        defer { try? store.close() }

        let binding = try store.binding(for: model.versions[0])
        #expect(binding.problems.isEmpty)
        // Core Data's rule gives SystemMessage's the suffix; this store has it the other way round.
        #expect(binding.renamed == ["Z_2USERS.Z_5USERS1 is Z_5USERS", "Z_4USERS.Z_5USERS is Z_5USERS1"])
        let join = try #require(binding.layout.table(named: "Z_2USERS"))
        #expect(join.columns.map(\.name) == ["Z_2SYSTEMMESSAGES", "Z_5USERS"])
        #expect(join.primaryKey == ["Z_2SYSTEMMESSAGES", "Z_5USERS"])
        // The store's indexes, under the store's names, including one the version does not declare.
        #expect(
            binding.layout.indexes.map(\.name).sorted()
                == ["ZMESSAGE_Z_ENT_INDEX", "ZUSER_ZNAME_INDEX", "Z_1USERS_Z_4USERS_INDEX", "Z_4USERS_Z_5USERS1_INDEX"])

        let access = try ObjectAccess(store: store, version: model.versions[0])
        #expect(try access.fetch("SystemMessage").map { $0.relationships["users"] ?? [] } == [[1, 2]])
        #expect(try access.fetch("User").map { $0.relationships["systemMessages"] ?? [] } == [[1], [1]])
    }

    @Test func whatCannotBeBoundIsNamed() throws {
        let model = try Self.model()
        let layout = model.versions[0].layout
        var tables = Dictionary(uniqueKeysWithValues: layout.tables.map { ($0.name, $0.columns.map(\.name)) })
        tables["ZMESSAGE"] = ["Z_PK", "Z_ENT", "Z_OPT", "ZCODE", "ZBODY", "ZTEXT1", "ZTEXT2"]
        tables["Z_4USERS"] = nil
        let binding = layout.bound(to: ExistingSchema(tables: tables, indexes: []))
        #expect(
            binding.problems == [
                "ZMESSAGE has no column ZTEXT, and ZTEXT1, ZTEXT2 could each be it",
                "table Z_4USERS is missing",
            ])
        #expect(binding.layout.indexes.isEmpty)
    }

    /// The store has its join columns' suffixes the other way round from Core Data's
    /// names for the version: the hop gives them the version's names (Core Data's own
    /// migrations rename them too), renaming the columns in place; every step is O(1),
    /// and the indexes keep the store's names.
    @Test func anAdditiveHopGivesJoinColumnsTheVersionsNames() throws {
        let (directory, path, _, plan) = try Self.planned(to: 2)
        defer { directory.remove() }
        #expect(
            plan.allSteps.map(\.summary) == [
                "add ZMESSAGE.ZEDITED", "rename column Z_2USERS.Z_5USERS to Z_5USERS1",
                "rename column Z_4USERS.Z_5USERS1 to Z_5USERS",
                "update Z_PRIMARYKEY (entity numbers stay; new entities get new ones)",
            ])
        #expect(plan.allSteps.allSatisfy { $0.cost == .constant })
        let result = try Migrator().apply(plan)
        #expect(result.to == 2)

        let store = try Store.open(path: path, access: .readOnly)
        defer { try? store.close() }
        #expect(try Self.describe(store).contains("Z_2USERS(Z_2SYSTEMMESSAGES,Z_5USERS1)"))
        #expect(try Self.describe(store).contains("Z_4USERS(Z_4REACTIONS,Z_5USERS)"))
        #expect(
            try Self.indexes(store) == [
                "ZMESSAGE_Z_ENT_INDEX on ZMESSAGE", "ZUSER_ZNAME_INDEX on ZUSER",
                "Z_1USERS_Z_4USERS_INDEX on Z_2USERS", "Z_4USERS_Z_5USERS1_INDEX on Z_4USERS",
            ])
        // The stray code stays where Core Data left it (nothing moved).
        #expect(try store.connection.prepare("SELECT ZCODE FROM ZMESSAGE WHERE Z_PK = 2").rows() == [[.integer(9)]])
    }

    @Test func renumberingGivesTheVersionsSuffixesAndWarnsAboutStrayValues() throws {
        let (directory, path, model, plan) = try Self.planned()
        defer { directory.remove() }
        #expect(
            plan.warnings.map(\.description) == [
                "ZMESSAGE holds values in columns the row's entity does not have, left there by an earlier version (no "
                    + "object has them; "
                        + """
                        a rebuild of ZMESSAGE does not carry them): 1 row: Z_PK 2 has Z_ENT 3 (TextMessage) and a \
                        value in ZCODE of SystemMessage
                        """
            ])
        try Migrator().apply(plan)

        let store = try Store.open(path: path, access: .readOnly)
        defer { try? store.close() }
        #expect(
            try store.entityKeyRows().map { "\($0.number) \($0.name)" }
                == ["1 Attachment", "2 Message", "3 SystemMessage", "4 TextMessage", "5 Reaction", "6 User"])
        // The join columns take the version's names, suffixes included, under the new numbers.
        #expect(
            try Self.describe(store) == [
                "ZATTACHMENT(Z_PK,Z_ENT,Z_OPT,ZSIZE)",
                "ZMESSAGE(Z_PK,Z_ENT,Z_OPT,ZCODE,ZEDITED,ZTEXT,ZBODY)",
                "ZREACTION(Z_PK,Z_ENT,Z_OPT,ZEMOJI)",
                "ZUSER(Z_PK,Z_ENT,Z_OPT,ZNAME)",
                "Z_3USERS(Z_3SYSTEMMESSAGES,Z_6USERS1)",
                "Z_5USERS(Z_5REACTIONS,Z_6USERS)",
            ])
        #expect(
            try store.connection.prepare("SELECT * FROM Z_3USERS ORDER BY 1, 2").rows() == [
                [.integer(1), .integer(1)], [.integer(1), .integer(2)],
            ])
        let messages = try store.connection.prepare(
            "SELECT Z_PK, Z_ENT, ZCODE, ZTEXT, ZBODY FROM ZMESSAGE ORDER BY Z_PK"
        ).rows().map { $0.map(\.description) }
        #expect(
            messages == [
                ["1", "3", "7", "'joined'", "NULL"], ["2", "4", "NULL", "'hi'", "'hello'"],
                ["3", "2", "NULL", "'plain'", "NULL"],
            ])
        let access = try ObjectAccess(store: store, version: model.versions[2])
        #expect(try access.fetch("User").map { $0.relationships["systemMessages"] ?? [] } == [[1], [1]])
        #expect(try access.fetch("User").map { $0.relationships["reactions"] ?? [] } == [[], [1]])
    }
}

/// References a store already holds to objects it does not have: counted by `plan`,
/// carried by default, removed first with `removesDanglingReferences`.
@Suite struct DanglingReferenceRepairTests {
    /// A reaction by user 99 and a system message naming user 98: neither exists.
    static func addDangling(_ path: String) throws {
        try SQLiteFile.execute(path, "INSERT INTO Z_4USERS VALUES (1, 99); INSERT INTO Z_2USERS VALUES (1, 98)")
    }

    @Test func carriedByDefault() throws {
        let (directory, path, _, plan) = try StoreBindingTests.planned(setUp: Self.addDangling)
        defer { directory.remove() }
        #expect(
            plan.danglingReferences.map(\.description).sorted() == [
                "Reaction.users: 1 row already points to objects the store does not have (carried as they are)",
                "SystemMessage.users: 1 row already points to objects the store does not have (carried as they are)",
            ])
        try Migrator().apply(plan)
        let store = try Store.open(path: path, access: .readOnly)
        defer { try? store.close() }
        #expect(
            try store.connection.prepare("SELECT * FROM Z_5USERS ORDER BY 1, 2").rows() == [
                [.integer(1), .integer(2)], [.integer(1), .integer(99)],
            ])
        #expect(
            try store.connection.prepare("SELECT * FROM Z_3USERS ORDER BY 1, 2").rows()
                == [[.integer(1), .integer(1)], [.integer(1), .integer(2)], [.integer(1), .integer(98)]])
    }

    @Test func removedFirstWhenAsked() throws {
        let (directory, path, _, plan) = try StoreBindingTests.planned(
            to: 2, removingDangling: true, setUp: Self.addDangling)
        defer { directory.remove() }
        #expect(plan.danglingReferences.isEmpty)
        #expect(plan.removedDanglingReferences.map(\.rows) == [1, 1])
        let first = try #require(plan.hops.first)
        #expect(
            first.steps.prefix(2).map(\.summary).sorted() == [
                "remove 1 reference of Reaction.users to objects the store does not have",
                "remove 1 reference of SystemMessage.users to objects the store does not have",
            ])
        #expect(
            first.steps.prefix(2).flatMap(\.sql).sorted() == [
                #"""
                DELETE FROM "Z_2USERS" AS a WHERE NOT EXISTS (SELECT 1 FROM "ZUSER" AS d WHERE d.Z_PK = \#
                a."Z_5USERS" AND d.Z_ENT IN (5))
                """#,
                #"""
                DELETE FROM "Z_4USERS" AS a WHERE NOT EXISTS (SELECT 1 FROM "ZUSER" AS d WHERE d.Z_PK = a."Z_5USERS1" \#
                AND d.Z_ENT IN (5))
                """#,
            ])
        try Migrator().apply(plan)
        let store = try Store.open(path: path, access: .readOnly)
        defer { try? store.close() }
        #expect(
            try store.connection.prepare("SELECT * FROM Z_4USERS ORDER BY 1, 2").rows() == [[.integer(1), .integer(2)]])
        #expect(
            try store.connection.prepare("SELECT * FROM Z_2USERS ORDER BY 1, 2").rows() == [
                [.integer(1), .integer(1)], [.integer(1), .integer(2)],
            ])
    }
}

extension StoreBindingTests {
    /// A store that cannot be bound is a store mismatch (exit 1), named.
    @Test func anUnboundStoreIsAStoreMismatch() throws {
        let directory = try TemporaryDirectory(prefix: "StoreBindingTests")
        defer { directory.remove() }
        let model = try Self.model()
        let path = directory.file("Chat.sqlite")
        try Self.createStore(at: path, version: model.versions[0])
        try SQLiteFile.execute(path, "DROP TABLE Z_4USERS")
        let reader = try Store.open(path: path, access: .readOnly)
        defer { try? reader.close() }
        #expect {
            _ = try MigrationPlanner(models: [model], migrationsFolder: directory.file("none")).plan(store: reader)
        } throws: { error in
            let planning = PlanningError(classifying: error)
            return planning.kind == .storeMismatch
                && planning.message
                    == "\(path): the store's tables differ from the layout of Chat version 1: table Z_4USERS is missing"
        }
    }
}
