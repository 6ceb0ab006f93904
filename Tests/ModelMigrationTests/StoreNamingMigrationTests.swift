import Foundation
import SQLiteStore
import TestSupport
import Testing

@testable import ModelMigration

/// A store that came from Core Data, migrated here, has the tables and columns Core
/// Data gives the destination version (its own migrations rename them so: Wire's
/// stores hold `Z_23TRUSTEDCLIENTS_Z_23TRUSTEDCLIENTS_INDEX` on a table renamed
/// `Z_24TRUSTEDBYCLIENTS`); only indexes may keep older names.
@Suite struct StoreNamingMigrationTests {
    /// Tables and their columns, Core Data's and ours aside.
    static func schema(_ path: String) throws -> [String: [String]] {
        let store = try Store.open(path: path, access: .readOnly)
        defer { try? store.close() }
        var tables: [String: [String]] = [:]
        for table in try store.connection.tables()
        where !table.hasPrefix("MM_") && !["Z_METADATA", "Z_MODELCACHE", "Z_PRIMARYKEY"].contains(table) {
            tables[table] = try store.connection.columns(of: table).map(\.name)
        }
        return tables
    }

    /// Tables and the set of their columns: a column added in place stands last, as in
    /// stores Core Data migrated, so only names are compared.
    static func shape(_ schema: [String: [String]]) -> [String: Set<String>] { schema.mapValues(Set.init) }

    /// The schema of a store Core Data would create at the version.
    static func freshSchema(_ s: MigrationScenario, version: Int) throws -> [String: [String]] {
        let path = s.directory.file("fresh-\(version).sqlite")
        try Store.create(path: path, version: try #require(try s.model().version(version)), forCoreData: true).close()
        return try schema(path)
    }

    /// Version 2 only adds an attribute, which moves the self-referential pair's
    /// table to the other side (`Z_1BLOCKEDBY` → `Z_1BLOCKS`): the migration renames
    /// it in place, keeping its column order as Core Data's migrated stores do, and
    /// every pair still means what it meant.
    @Test func aSelfReferentialPairsTableMovesToTheSideOfTheDestination() throws {
        let v2 = NamingFixtures.accountsWithModel
        let s = try MigrationScenario("Accounts", versions: [NamingFixtures.accounts, v2])
        defer { s.remove() }
        try ShiftingNamesTests.markAsCoreDataStore(s)
        try s.withObjects { o in
            try o.insert("Account", values: ["label": .string("a")])
            try o.insert("Account", values: ["label": .string("b")], relationships: ["blocks": [1]])
            try o.insert("Account", values: ["label": .string("c")], relationships: ["blocks": [1, 2]])
        }
        #expect(try Self.schema(s.storePath)["Z_1BLOCKEDBY"] == ["Z_1BLOCKS", "Z_1BLOCKEDBY"])
        try s.migrate()
        let migrated = try Self.schema(s.storePath)
        #expect(Self.shape(migrated) == Self.shape(try Self.freshSchema(s, version: 2)))
        #expect(migrated["Z_1BLOCKS"] == ["Z_1BLOCKS", "Z_1BLOCKEDBY"])
        let accounts = try s.fetch("Account")
        #expect(accounts.map { $0.relationships["blocks"] ?? [] } == [[], [1], [1, 2]])
        #expect(accounts.map { $0.relationships["blockedBy"] ?? [] } == [[2, 3], [3], []])
    }

    /// A store whose join column is `Z_3USERS` where the version's names give it
    /// `Z_3USERS1` (what this toolkit's migrations used to leave: Wire's
    /// `Z_15USERS (Z_15SYSTEMMESSAGES, Z_23USERS)`, where Core Data's own store has
    /// `Z_23USERS1`) gets the version's names at its next migration.
    @Test func joinColumnsTakeTheSuffixesOfTheDestination() throws {
        let s = try Self.usersWithSwappedJoinSuffixes()
        defer { s.remove() }
        #expect(try Self.schema(s.storePath)["Z_2USERS"] == ["Z_2SYSTEMMESSAGES", "Z_3USERS"])
        try s.migrate()
        let migrated = try Self.schema(s.storePath)
        #expect(Self.shape(migrated) == Self.shape(try Self.freshSchema(s, version: 2)))
        #expect(migrated["Z_1USERS"] == ["Z_1REACTIONS", "Z_3USERS"])
        #expect(migrated["Z_2USERS"] == ["Z_2SYSTEMMESSAGES", "Z_3USERS1"])
        #expect(try s.fetch("Reaction").map { $0.relationships["users"] ?? [] } == [[1]])
        #expect(try s.fetch("SystemMessage").map { $0.relationships["users"] ?? [] } == [[1, 2]])
    }

    /// Users with reactions and system messages, their join columns' suffixes swapped
    /// (`Z_3USERS` ↔ `Z_3USERS1`) as a store migrated before Reaction existed had
    /// them; version 2 adds `User.handle`. Marked as a Core Data store.
    static func usersWithSwappedJoinSuffixes() throws -> MigrationScenario {
        let v2 = """
            entities:
              Reaction:
                relationships:
                  users: { destination: User, toMany: true, inverse: reactions }
              SystemMessage:
                relationships:
                  users: { destination: User, toMany: true, inverse: systemMessages }
              User:
                attributes: { name: string? }
                relationships:
                  reactions: { destination: Reaction, toMany: true, inverse: users }
                  systemMessages: { destination: SystemMessage, toMany: true, inverse: users }
            """
        let v3 = v2.replacingOccurrences(
            of: "attributes: { name: string? }", with: "attributes: { name: string?, handle: string? }")
        let s = try MigrationScenario("Users", versions: [v2, v3])
        try ShiftingNamesTests.markAsCoreDataStore(s)
        try s.withObjects { o in
            try o.insert("User", values: ["name": .string("ada")])
            try o.insert("User", values: ["name": .string("alan")])
            try o.insert("Reaction", values: [:], relationships: ["users": [1]])
            try o.insert("SystemMessage", values: [:], relationships: ["users": [1, 2]])
        }
        // The names swapped, as a store migrated before Reaction existed had them.
        let store = try Store.open(path: s.storePath, access: .readWrite)
        try store.connection.transaction {
            try store.connection.execute(
                """
                ALTER TABLE Z_1USERS RENAME COLUMN Z_3USERS TO Z_3USERSX;
                ALTER TABLE Z_2USERS RENAME COLUMN Z_3USERS1 TO Z_3USERS;
                ALTER TABLE Z_1USERS RENAME COLUMN Z_3USERSX TO Z_3USERS1;
                """)
        }
        try store.close()
        return s
    }
}
