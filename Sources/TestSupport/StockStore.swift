package import DataModel
import Foundation
import ModelMigration
import SQLiteStore

/// A store big enough for a migration to take a while (crash, lock and concurrency
/// tests): the "Stock" model, owners and their items, and a summary of what a store
/// holds that tells version 1 with all its data from version 2 with all of it
/// migrated, and both from anything else. `Scripts/crashtest.sh` uses the same model.
package enum StockStore {
    /// Version 1: owners with items; an item has a name, a small integer and a note.
    package static let v1 = """
        model: Stock
        version: 1
        entities:
          Owner:
            attributes:
              name: string
            relationships:
              items: { destination: Item, toMany: true, inverse: owner }
          Item:
            attributes:
              name: string
              value: integer16
              note: string?
            relationships:
              owner: { destination: Owner, inverse: items, optional: true }

        """

    /// Version 2: `name` renamed `title`, `value` widened to double (a rebuild of
    /// every item row), `note` dropped, `score` added with a default.
    package static let v2 = """
        model: Stock
        version: 2
        entities:
          Owner:
            attributes:
              name: string
            relationships:
              items: { destination: Item, toMany: true, inverse: owner }
          Item:
            attributes:
              title: { type: string, renamedFrom: name }
              value: double
              score: { type: integer64, default: 7 }
            relationships:
              owner: { destination: Owner, inverse: items, optional: true }

        """

    /// The number of owners.
    package static let owners = 200

    /// Writes `Models/Stock/{1,2}.yaml` into `directory`; returns the models folder.
    @discardableResult
    package static func writeModels(in directory: TemporaryDirectory) throws -> String {
        try directory.write("Models/Stock/1.yaml", v1)
        try directory.write("Models/Stock/2.yaml", v2)
        return directory.file("Models")
    }

    /// Item `i`'s version 1 values.
    static func item(_ i: Int) -> (name: String, value: Int64, note: String?, owner: Int64) {
        ("item \(i)", Int64(i % 60_001) - 30_000, i % 3 == 0 ? nil : "note \(i)", Int64(i % owners) + 1)
    }

    /// Creates a version 1 store at `path` with `items` items, through `ObjectAccess`.
    package static func create(path: String, items: Int) throws {
        let model = try compiled()
        let store = try Store.create(path: path, version: try unwrap(model.version(1), "Stock 1"))
        defer { try? store.close() }
        let access = try ObjectAccess(store: store, version: try unwrap(model.version(1), "Stock 1"))
        try store.connection.transaction {
            for i in 1...owners { try access.insert("Owner", values: ["name": .string("owner \(i)")]) }
            for i in 1...items {
                let item = item(i)
                try access.insert(
                    "Item",
                    values: [
                        "name": .string(item.name), "value": .integer(item.value),
                        "note": item.note.map { .string($0) },
                    ],
                    relationships: ["owner": [item.owner]])
            }
        }
    }

    /// Version 1 and 2 of the model, compiled.
    package static func compiled() throws -> CompiledModel {
        let directory = try TemporaryDirectory(prefix: "mm-stock")
        defer { directory.remove() }
        try writeModels(in: directory)
        return try ModelLoader.loadModel(path: directory.file("Models/Stock"))
    }

    /// What a Stock store holds: its version (recognised by hashes), its counts and
    /// a checksum of every item as that version reads it.
    package struct Summary: Sendable, Hashable, CustomStringConvertible {
        package var version: Int
        package var owners: Int64
        package var items: Int64
        package var checksum: UInt64

        package var description: String {
            "version \(version), \(owners) owners, \(items) items, checksum \(String(checksum, radix: 16))"
        }
    }

    /// Reads the store at `path` read-only (recovering a crashed writer's journal,
    /// as every reader does).
    package static func summary(path: String) throws -> Summary {
        let store = try Store.open(path: path)
        defer { try? store.close() }
        let version = try store.currentVersion(among: [try compiled()])
        let access = try ObjectAccess(store: store, version: version)
        var checksum = Checksum()
        try access.forEach("Item") { object in
            let v = object.values
            let owner = object.relationships["owner"]?.first.map(String.init) ?? "-"
            if version.version == 1 {
                checksum.add(
                    """
                    \(object.primaryKey)|\(v["name"].map { "\($0)" } ?? "-")|\(v["value"].map { "\($0)" } ?? "-")|\
                    \(v["note"].map { "\($0)" } ?? "-")|\(owner)
                    """)
            } else {
                checksum.add(
                    """
                    \(object.primaryKey)|\(v["title"].map { "\($0)" } ?? "-")|\(v["value"].map { "\($0)" } ?? "-")|\
                    \(v["score"].map { "\($0)" } ?? "-")|\(owner)
                    """)
            }
        }
        return Summary(
            version: version.version, owners: try access.count("Owner"), items: try access.count("Item"),
            checksum: checksum.value)
    }

    /// What a store made by `create(path:items:)` holds at `version`, computed from
    /// the generator (not from a migrated store).
    package static func expected(version: Int, items: Int) -> Summary {
        var checksum = Checksum()
        for i in 1...items {
            let item = item(i)
            if version == 1 {
                checksum.add(
                    "\(i)|\(item.name)|\(AttributeValue.integer(item.value))|\(item.note ?? "-")|\(item.owner)")
            } else {
                checksum.add(
                    """
                    \(i)|\(item.name)|\(AttributeValue.double(Double(item.value)))|\(AttributeValue.integer(7))|\
                    \(item.owner)
                    """
                )
            }
        }
        return Summary(version: version, owners: Int64(owners), items: Int64(items), checksum: checksum.value)
    }

    /// The migrations recorded in the store's metadata, as (from, to).
    package static func history(path: String) throws -> [[Int]] {
        let store = try Store.open(path: path)
        defer { try? store.close() }
        return try store.readMetadata().history.map { [$0.fromVersion, $0.toVersion] }
    }

    /// FNV-1a over lines.
    struct Checksum {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        mutating func add(_ line: String) {
            for byte in line.utf8 + [10] {
                value ^= UInt64(byte)
                value &*= 0x0000_0100_0000_01b3
            }
        }
    }
}

extension StockStore {
    /// The root page number of a table (to damage it on purpose).
    package static func rootPage(path: String, table: String) throws -> Int64 {
        let connection = try Connection(path: path, mode: .readOnly)
        defer { try? connection.close() }
        return try connection.scalarInt64("SELECT rootpage FROM sqlite_schema WHERE name = ?", .text(table)) ?? 0
    }
}
