package import DataModel
import Foundation
import ModelMigration
import SQLiteStore

/// A small shop for predicate, fetch and batch tests: a concrete `Product` with a
/// `FavoriteProduct` subentity (sharing its table), to-one and to-many
/// relationships, a many-to-many join table, and every delete rule.
package enum ShopModel {
    /// The model's one version, as YAML without its `model:`/`version:` lines.
    package static let yaml = """
        entities:
          Customer:
            attributes:
              name: string
              email: { type: string, indexed: true }
              visits: { type: integer32, default: 0, min: 0, max: 10000 }
              joinedAt: date?
              vip: { type: boolean, default: false }
              note: string?
              code: uuid?
              scratch: { type: string, transient: true, optional: true }
            relationships:
              orders: { destination: Order, toMany: true, inverse: customer, deleteRule: cascade }
              city: { destination: City, inverse: customers }
              wishlist: { destination: Product, toMany: true, inverse: fans }
            uniqueness: [[email]]
          Order:
            attributes:
              number: string
              total: { type: double, default: 0 }
              placedAt: date?
            relationships:
              customer: { destination: Customer, inverse: orders, optional: false }
              items: { destination: Product, toMany: true, inverse: orders }
          City:
            attributes:
              name: string
            relationships:
              customers: { destination: Customer, toMany: true, inverse: city, deleteRule: deny }
          Product:
            attributes:
              name: string
              price: { type: decimal, default: "0.00" }
              pages: string?
            relationships:
              orders: { destination: Order, toMany: true, inverse: items }
              fans: { destination: Customer, toMany: true, inverse: wishlist }
          FavoriteProduct:
            parent: Product
            attributes:
              addedAt: date?

        """

    /// The compiled version.
    package static func version() throws -> CompiledVersion {
        try TestModels.compile("Shop", yaml)
    }

    /// A scenario (models folder and store) filled with the sample rows below.
    ///
    /// Cities: 1 Oslo, 2 Bergen. Customers: 1 Ann (Oslo, 12 visits, vip),
    /// 2 Bob (Oslo, 3 visits), 3 Çelik (Bergen, 40 visits, note "Été"),
    /// 4 dan (no city, 0 visits). Orders: 1 A-1 (Ann, 10.5, items 1 2),
    /// 2 A-2 (Ann, 99, item 3), 3 B-1 (Bob, 5, item 1). Products: 1 Book
    /// ("12 pages"), 2 Pen, 3 FavoriteProduct Lamp ("n/a"). Wishlists: Ann → 3, dan → 1 3.
    package static func scenario() throws -> MigrationScenario {
        let scenario = try MigrationScenario("Shop", versions: [yaml])
        _ = try scenario.withObjects { access in
            try access.insertAll { batch in
                var source = 0
                func add(
                    _ entity: String, _ pk: Int64, _ values: [String: AttributeValue?],
                    _ relationships: [String: [Int64]] = [:]
                ) throws {
                    source += 1
                    try batch.insert(
                        entity, values: values, relationships: relationships, primaryKey: pk, source: source)
                }
                try add("City", 1, ["name": .string("Oslo")])
                try add("City", 2, ["name": .string("Bergen")])
                try add(
                    "Product", 1, ["name": .string("Book"), "price": .decimal("12.50"), "pages": .string("12 pages")])
                try add("Product", 2, ["name": .string("Pen"), "price": .decimal("1.20")])
                try add(
                    "FavoriteProduct", 3,
                    [
                        "name": .string("Lamp"), "price": .decimal("30.00"), "pages": .string("n/a"),
                        "addedAt": .date(500),
                    ])
                try add(
                    "Customer", 1,
                    [
                        "name": .string("Ann"), "email": .string("ANN@EXAMPLE.COM"), "visits": .integer(12),
                        "vip": .boolean(true),
                        "joinedAt": .date(100),
                    ], ["city": [1], "wishlist": [3]])
                try add(
                    "Customer", 2,
                    ["name": .string("Bob"), "email": .string("bob@example.com"), "visits": .integer(3)], ["city": [1]])
                try add(
                    "Customer", 3,
                    [
                        "name": .string("Çelik"), "email": .string("celik@example.com"), "visits": .integer(40),
                        "note": .string("Été"),
                    ], ["city": [2]])
                try add(
                    "Customer", 4,
                    ["name": .string("dan"), "email": .string("dan@example.com"), "visits": .integer(0)],
                    ["wishlist": [1, 3]])
                try add(
                    "Order", 1, ["number": .string("A-1"), "total": .double(10.5)], ["customer": [1], "items": [1, 2]])
                try add("Order", 2, ["number": .string("A-2"), "total": .double(99)], ["customer": [1], "items": [3]])
                try add("Order", 3, ["number": .string("B-1"), "total": .double(5)], ["customer": [2], "items": [1]])
            }
        }
        return scenario
    }
}
