import DataModel
import Predicates
import TestSupport
import Testing

@Suite struct TypeCheckerTests {
    func checker(_ entity: String = "Customer", variables: Set<String> = []) throws -> TypeChecker {
        TypeChecker(version: try ShopModel.version(), entity: entity, rowVariables: variables)
    }

    func error(_ text: String, entity: String = "Customer") throws -> String {
        let c = try checker(entity)
        do {
            _ = try c.predicate(text)
            return "no error"
        } catch { return error.message }
    }

    func expectError(
        _ text: String, entity: String = "Customer", _ expected: String,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws {
        let actual = try error(text, entity: entity)
        #expect(actual == expected, sourceLocation: sourceLocation)
    }

    @Test func resolvesKeyPathsThroughToOneAndOverToMany() throws {
        let c = try checker("Order")
        guard
            case .compare(.keyPath(let path), .equal, [], .literal(.string("Oslo"))) = try c.predicate(
                "customer.city.name == 'Oslo'")
        else {
            Issue.record("not a key path comparison")
            return
        }
        #expect(path.hops.map(\.name) == ["customer", "city"])
        #expect(path.lastEntity == "City")
        guard
            case .quantified(.any, let many, .beginsWith, [.caseInsensitive], _) = try checker().predicate(
                "ANY orders.number BEGINSWITH[c] 'a'")
        else {
            Issue.record("not quantified")
            return
        }
        #expect(many.relationship.name == "orders")
        #expect(many.element?.type == .string)
        guard
            case .compare(.aggregate(.count, let orders, .integer), .greater, [], .literal(.integer(1))) = try checker()
                .predicate("orders.@count > 1")
        else {
            Issue.record("not @count")
            return
        }
        #expect(orders.relationship.name == "orders")
        guard
            case .compare(.aggregate(.sum, _, .double), .greaterOrEqual, _, _) = try checker().predicate(
                "orders.@sum.total >= 100")
        else {
            Issue.record("not @sum")
            return
        }
        #expect(try checker(variables: ["source"]).expression("uppercase:($source.name)").type == .string)
        #expect(try checker().expression("CAST('2026-01-01T00:00:00Z', 'NSDate')") == .literal(.date(788_918_400)))
        #expect(try checker("Product").expression("CAST(pages, 'NSNumber') * 2").type == .double)
        #expect(try checker().expression("name + ' <' + email + '>'").type == .string)
    }

    @Test func functionReceiversItDoesNotKnowAreRefused() throws {
        let c = try checker(variables: ["source"])
        func error(_ text: String) -> String {
            do {
                _ = try c.expression(text)
                return "no error"
            } catch { return error.description }
        }
        #expect(
            error("FUNCTION($manager, 'firstNameFrom:', $source.name)") == """
                column 10: FUNCTION cannot call 'firstNameFrom:' on '$manager' here (no such receiver is known)
                  FUNCTION($manager, 'firstNameFrom:', $source.name)
                           ^
                """)
        // A value receives NSString's methods (ExpressionFunctionCheckTests).
        #expect(try c.expression("FUNCTION(name, 'uppercaseString')").type == .string)
        #expect(
            error("FUNCTION($entityPolicy, 'firstNameFrom:', $source.name)").hasPrefix(
                """
                column 1: FUNCTION($entityPolicy, 'firstNameFrom:', …) calls the entity mapping's policy, and it names \
                none
                """))
    }

    @Test func errorsNameTheEntityAndColumn() throws {
        try expectError(
            "nme == 'x'", "column 1: Customer has no attribute or relationship 'nme' (did you mean 'name'?)")
        try expectError(
            "city.nam == 'x'", "column 6: City has no attribute or relationship 'nam' (did you mean 'name'?)")
        try expectError(
            "orders.number == 'x'",
            """
            column 1: 'orders' is a to-many relationship of Customer: use ANY, ALL or NONE before the key path, or \
            orders.@count
            """
        )
        try expectError(
            "visits == 'ten'",
            """
            column 11: cannot compare integer 'visits' with string using == (CAST(…, 'NSNumber') converts a string to \
            a number)
            """
        )
        try expectError(
            "joinedAt > 5",
            "column 12: cannot compare date 'joinedAt' with integer using > (write CAST(…, 'NSDate') for a date)")
        try expectError("name > nil", "column 8: nil can only be compared with == or != (found >)")
        try expectError("visits BEGINSWITH '1'", "column 1: BEGINSWITH compares strings; 'visits' is integer")
        try expectError(
            "scratch == 'x'",
            "column 1: 'scratch' is a transient attribute of Customer: it is not stored, so no query can read it")
        try expectError(
            "ANY name == 'x'", "column 5: ANY needs a to-many key path on its left (as in ANY tags.name == 'x')")
        try expectError(
            "name.first == 'x'", "column 6: 'name' is an attribute of Customer (string); it has no key 'first'")
        try expectError("$source.name == 'x'", "column 1: unknown variable '$source' (no variables here)")
        try expectError("visits BETWEEN {1}", "column 16: BETWEEN needs two values, {lower, upper}; found 1")
        try expectError("name MATCHES '(['", "column 14: not a valid regular expression: ([")
        try expectError(
            "lowercse:(name) == 'x'",
            """
            column 1: unknown function 'lowercse:' (did you mean 'lowercase:'?); supported: lowercase:, uppercase:, \
            length:, abs:, now, add:to:, from:subtract:, multiply:by:, divide:by:, sum:, count:, min:, max:, average:, \
            modulus:by:, sqrt:, raise:toPower:, ceiling:, floor:, trunc:, log:, ln:, exp:, bitwiseAnd:with:, \
            bitwiseOr:with:, bitwiseXor:with:, leftshift:by:, rightshift:by:, onesComplement:, noindex:, trim:, \
            replace:matching:with:, objectFrom:withIndex:
            """)
        try expectError("city == 'Oslo'", "column 9: cannot compare a City object 'city' with string using ==")
        try expectError(
            "ANY orders.items.name == 'x'",
            """
            column 12: 'items' is a to-many relationship of Order: use ANY, ALL or NONE before the key path, or \
            items.@count
            """
        )
        try expectError("orders.@sum.number > 1", "column 8: @sum adds numbers; 'number' is string")
    }

    @Test func valuesFitTheAttribute() throws {
        let version = try ShopModel.version()
        let visits = try #require(version.entity(named: "Customer")?.attribute(named: "visits")).declaration
        let name = try #require(version.entity(named: "Customer")?.attribute(named: "name")).declaration
        func error(_ text: String, _ attribute: AttributeDescription) throws -> String {
            let c = try checker()
            do {
                _ = try c.value(text, for: attribute)
                return "no error"
            } catch { return error.message }
        }
        #expect(try error("visits + 1", visits) == "no error")
        #expect(try error("20000", visits) == "column 1: 'visits': 20000 is above max 10000")
        #expect(try error("nil", visits) == "column 1: 'visits' is required; nil is not a value for it")
        #expect(try error("name", visits) == "column 1: 'visits' is integer32; the value is string")
        #expect(try error("uppercase:(name)", name) == "no error")
    }
}
