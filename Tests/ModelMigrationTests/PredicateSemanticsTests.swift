import Foundation
import ModelMigration
import Predicates
import SQLiteStore
import TestSupport
import Testing

/// What predicates mean, on the shop's rows (ShopModel.scenario()): NSPredicate's
/// semantics, as Docs/Predicates.md writes them down (issue 26).
///
/// Customers: 1 Ann (note nil, joinedAt 100, orders A-1 10.5 and A-2 99), 2 Bob (B-1 5),
/// 3 Çelik (note "Été", no orders), 4 dan (no orders).
@Suite struct PredicateSemanticsTests {
    func keys(_ scenario: MigrationScenario, _ predicate: String, entity: String = "Customer") throws -> [Int64] {
        let store = try Store.open(path: scenario.storePath, access: .readOnly)
        defer { try? store.close() }
        let access = try ObjectAccess(store: store, version: try store.currentVersion(among: [try scenario.model()]))
        var request = FetchRequest(entity: entity)
        request.predicate = predicate
        request.properties = []
        return try StoreRequests(access: access).fetchAll(request).map(\.primaryKey)
    }

    /// MATCHES is ICU's whole-text match: an alternative that matches a prefix does not
    /// stop the search ('Ann' MATCHES 'A|An|Ann' held false before).
    @Test func matchesTheWholeTextAgainstEveryAlternative() throws {
        let shop = try ShopModel.scenario()
        defer { shop.remove() }
        let cases: [(String, [Int64])] = [
            ("name MATCHES 'A|An|Ann'", [1]),
            ("name MATCHES 'A|An'", []),
            ("NOT (name MATCHES 'B|Bo|Bob')", [1, 3, 4]),
            ("email MATCHES '[a-z]+|[a-z]+@example[.]com'", [2, 3, 4]),
            ("name MATCHES[c] 'ANN|dAN'", [1, 4]),
            ("name MATCHES[d] 'C.*|c.*'", [3]),
            ("name MATCHES[cd] 'celik|b'", [3]),
            ("ANY orders.number MATCHES '[A-Z]|[A-Z]-[0-9]+'", [1, 2]),
            // A pattern ending inside a (?x) comment or an open \Q still matches the whole text.
            ("name MATCHES '(?x) A n n # a comment'", [1]),
            ("name MATCHES '\\\\QBob'", [2]),
            ("name MATCHES 'Bo\\\\Q'", []),
        ]
        for (predicate, expected) in cases {
            #expect(try keys(shop, predicate) == expected, "\(predicate)")
        }
    }

    /// NSString's rangeOfString: finds no empty string, so BEGINSWITH, ENDSWITH and
    /// CONTAINS with '' are false for every object (BEGINSWITH '' selected all before,
    /// ENDSWITH '' none); nil on either side of a string operator is false.
    @Test func emptyAndNilStringsSelectNothing() throws {
        let shop = try ShopModel.scenario()
        defer { shop.remove() }
        let cases: [(String, [Int64])] = [
            ("name BEGINSWITH ''", []), ("name ENDSWITH ''", []), ("name CONTAINS ''", []),
            ("name BEGINSWITH[cd] ''", []), ("name ENDSWITH[c] \"\"", []), ("name CONTAINS[d] ''", []),
            ("NOT (name BEGINSWITH '')", [1, 2, 3, 4]), ("NOT (name ENDSWITH '')", [1, 2, 3, 4]),
            ("name BEGINSWITH nil", []), ("name CONTAINS nil", []), ("note ENDSWITH 'é'", [3]),
            ("note BEGINSWITH note", [3]), ("name CONTAINS[c] note", []), ("note LIKE nil", []), ("name LIKE ''", []),
            ("ANY orders.number BEGINSWITH ''", []), ("ALL orders.number CONTAINS ''", [3, 4]),
            ("lowercase:(name) + '' ENDSWITH ''", []),
        ]
        for (predicate, expected) in cases {
            #expect(try keys(shop, predicate) == expected, "\(predicate)")
        }
    }

    /// `==` and `!=` are null-safe both ways; ordering comparisons, BETWEEN and IN are
    /// false on nil; NOT is two-valued; ALL and NONE hold for no objects.
    @Test func nilQuantifiersAndNot() throws {
        let shop = try ShopModel.scenario()
        defer { shop.remove() }
        let cases: [(String, [Int64])] = [
            ("note == nil", [1, 2, 4]), ("note != nil", [3]), ("note == note", [1, 2, 3, 4]), ("note != note", []),
            ("note != 'Été'", [1, 2, 4]), ("NOT (note == 'Été')", [1, 2, 4]),
            ("joinedAt < CAST(200, 'NSDate')", [1]), ("NOT (joinedAt < CAST(200, 'NSDate'))", [2, 3, 4]),
            ("note IN {'Été', 'x'}", [3]), ("NOT (note IN {'Été'})", [1, 2, 4]), ("visits IN {}", []),
            ("visits / 4 IN {}", []),
            ("ANY orders.total > 50", [1]), ("ALL orders.total > 6", [1, 3, 4]), ("NONE orders.total > 50", [2, 3, 4]),
            ("orders.@count == 0", [3, 4]), ("orders.@sum.total == 0", [3, 4]), ("orders.@max.total > 0", [1, 2]),
            ("NOT (orders.@max.total > 0)", [3, 4]),
        ]
        for (predicate, expected) in cases {
            #expect(try keys(shop, predicate) == expected, "\(predicate)")
        }
    }

    /// A generated chain of thousands of terms runs (it crashed the checker by deep
    /// recursion); the SQL is flat groups, not thousands of nested parentheses.
    @Test func longChainsRunAndStayFlat() throws {
        let shop = try ShopModel.scenario()
        defer { shop.remove() }
        let or = (0..<8000).map { "visits == \($0 + 100)" }.joined(separator: " OR ") + " OR name == 'dan'"
        #expect(try keys(shop, or) == [4])
        let and = (0..<6000).map { "name != 'x\($0)'" }.joined(separator: " AND ")
        #expect(try keys(shop, and) == [1, 2, 3, 4])
        #expect(
            try keys(shop, String(repeating: "TRUEPREDICATE OR ", count: 20_000) + "FALSEPREDICATE") == [1, 2, 3, 4])

        let version = try ShopModel.version()
        let generator = PredicateSQL(version: version, layout: version.layout)
        let checker = TypeChecker(version: version, entity: "Customer")
        let four = try generator.condition(
            try checker.predicate("visits == 1 OR visits == 2 OR visits == 3 OR NOT (visits == 4)"), row: "t0")
        #expect(
            four.sql
                == #"(t0."ZVISITS" IS ? OR t0."ZVISITS" IS ? OR t0."ZVISITS" IS ? OR (t0."ZVISITS" IS ?) IS NOT 1)"#)
        let many = try generator.condition(
            try checker.predicate((1...250).map { "visits == \($0)" }.joined(separator: " AND ")), row: "t0")
        #expect(many.sql.hasPrefix(#"((t0."ZVISITS" IS ? AND "#))
        #expect(
            many.sql.components(
                separatedBy: """
                    (
                    """
            ).count - 1 == 4)  // three groups of at most 100, and the group of groups
        #expect(many.arguments.count == 250)
    }
}
