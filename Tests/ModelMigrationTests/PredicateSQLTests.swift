import Foundation
import ModelMigration
import Predicates
import SQLiteStore
import TestSupport
import Testing

/// Predicates compiled to SQL and run on the shop's rows (ShopModel.scenario()).
@Suite struct PredicateSQLTests {
    func keys(_ scenario: MigrationScenario, _ entity: String, _ predicate: String, subentities: Bool = true) throws
        -> [Int64]
    {
        let store = try Store.open(path: scenario.storePath, access: .readOnly)
        defer { try? store.close() }
        let access = try ObjectAccess(store: store, version: try store.currentVersion(among: [try scenario.model()]))
        var request = FetchRequest(entity: entity)
        request.predicate = predicate
        request.includesSubentities = subentities
        request.properties = []
        return try StoreRequests(access: access).fetchAll(request).map(\.primaryKey)
    }

    @Test func comparisonsOnRealRows() throws {
        let shop = try ShopModel.scenario()
        defer { shop.remove() }
        let cases: [(String, String, [Int64])] = [
            ("Customer", "visits >= 10", [1, 3]),
            ("Customer", "visits = 3 OR name == 'dan'", [2, 4]),
            ("Customer", "visits <> 3", [1, 3, 4]),
            ("Customer", "note != 'Été'", [1, 2, 4]),  // nil != 'Été' holds, as in NSPredicate
            ("Customer", "NOT (note == 'Été')", [1, 2, 4]),
            ("Customer", "note == nil", [1, 2, 4]),
            ("Customer", "visits BETWEEN {3, 12}", [1, 2]),
            ("Customer", "name IN {'Ann', 'dan', 'Zed'}", [1, 4]),
            ("Customer", "name IN[c] {'ANN', 'DAN'}", [1, 4]),
            ("Customer", "name BEGINSWITH 'A'", [1]),
            ("Customer", "name BEGINSWITH[c] 'D'", [4]),
            ("Customer", "name ENDSWITH 'ob'", [2]),
            ("Customer", "email CONTAINS[c] 'ann@'", [1]),
            ("Customer", "name CONTAINS[cd] 'CEL'", [3]),
            ("Customer", "name CONTAINS 'CEL'", []),
            ("Customer", "note ==[d] 'Ete'", [3]),
            ("Customer", "name LIKE 'A?n'", [1]),
            ("Customer", "name LIKE[c] '*N'", [1, 4]),
            ("Customer", "email LIKE '*[*'", []),
            ("Customer", "name MATCHES '[A-C].*'", [1, 2]),
            ("Customer", "name MATCHES[c] 'B.B'", [2]),
            ("Customer", "name MATCHES 'B'", []),  // the whole text must match
            ("Customer", "vip == YES", [1]),
            ("Customer", "vip == NO AND visits > 0", [2, 3]),
            ("Customer", "city.name == 'Oslo'", [1, 2]),
            ("Customer", "city == nil", [4]),
            ("Order", "customer.city.name == 'Bergen'", []),
            ("Order", "customer.city.name == 'Oslo' AND total > 10", [1, 2]),
            ("Customer", "ANY orders.total > 50", [1]),
            ("Customer", "ALL orders.total > 6", [1, 3, 4]),  // ALL over no objects holds
            ("Customer", "NONE orders.total > 6", [2, 3, 4]),
            ("Customer", "orders.@count == 0", [3, 4]),
            ("Customer", "orders.@sum.total > 100", [1]),
            ("Customer", "orders.@avg.total == 54.75", [1]),
            ("Customer", "orders.@max.total < 10", [2]),
            ("Customer", "wishlist.@count >= 2", [4]),
            ("Customer", "ANY wishlist.name == 'Lamp'", [1, 4]),
            ("Product", "ANY orders.customer.name == 'Bob'", [1]),
            ("Product", "price > 10", [1, 3]),
            ("Product", "price == 12.5", [1]),
            ("Product", "CAST(pages, 'NSNumber') == 12", [1]),
            ("Product", "CAST(pages, 'NSNumber') == nil", [2, 3]),
            ("Product", "length:(name) == 4", [1, 3]),
            ("Product", "uppercase:(name) == 'PEN'", [2]),
            ("Customer", "visits * 2 + 1 > 24", [1, 3]),
            ("Customer", "visits / 8 == 1.5", [1]),
            ("Customer", "abs:(visits - 20) < 9", [1]),
            ("Customer", "joinedAt < CAST('2001-01-01T00:05:00Z', 'NSDate')", [1]),
            ("Customer", "joinedAt < CAST(200, 'NSDate')", [1]),
            ("Customer", "joinedAt < now()", [1]),
            ("Customer", "name + '!' == 'Bob!'", [2]),
            ("Customer", "TRUEPREDICATE", [1, 2, 3, 4]),
            ("Customer", "FALSEPREDICATE", []),
            ("Customer", "lowercase:(email) == 'ann@example.com'", [1]),
        ]
        for (entity, predicate, expected) in cases {
            #expect(try keys(shop, entity, predicate) == expected, "\(entity): \(predicate)")
        }
        // Subentities: Product includes FavoriteProduct rows unless told otherwise.
        #expect(try keys(shop, "Product", "TRUEPREDICATE") == [1, 2, 3])
        #expect(try keys(shop, "Product", "TRUEPREDICATE", subentities: false) == [1, 2])
        #expect(try keys(shop, "FavoriteProduct", "addedAt != nil") == [3])
    }

    @Test func exactSQLWithBoundValues() throws {
        let version = try ShopModel.version()
        let generator = PredicateSQL(
            version: version, layout: version.layout, now: Date(timeIntervalSinceReferenceDate: 0))
        let checker = TypeChecker(version: version, entity: "Order")
        let fragment = try generator.condition(
            try checker.predicate("customer.city.name BEGINSWITH[c] 'os' AND total > 5"), row: "t0")
        #expect(
            fragment.sql == #"""
                (instr(mm_fold((SELECT t2."ZNAME" FROM "ZCITY" t2 WHERE t2.Z_PK = \#
                (SELECT t1."ZCITY" FROM "ZCUSTOMER" t1 WHERE t1.Z_PK = t0."ZCUSTOMER")), 1), ?) = 1 AND t0."ZTOTAL" > ?)
                """#)
        #expect(fragment.arguments == [.text("os"), .integer(5)])
        let many = try generator.condition(
            try TypeChecker(version: version, entity: "Customer").predicate("ANY wishlist.name == 'x'"), row: "t0")
        #expect(many.sql.hasPrefix(#"EXISTS (SELECT 1 FROM "Z_1WISHLIST""#) || many.sql.contains("JOIN"))
        #expect(many.arguments == [.text("x")])
    }
}
