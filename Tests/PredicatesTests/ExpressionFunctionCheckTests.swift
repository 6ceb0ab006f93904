import DataModel
import Predicates
import TestSupport
import Testing

/// TERNARY, indexes, string methods and NSExpression's numeric and list functions:
/// how they parse, and the errors that locate what does not fit (Docs/MappingFiles.md).
@Suite struct ExpressionFunctionCheckTests {
    func checker(_ entity: String = "Customer") throws -> TypeChecker {
        TypeChecker(version: try ShopModel.version(), entity: entity, rowVariables: ["source"])
    }

    func error(_ text: String, entity: String = "Customer") throws -> String {
        let c = try checker(entity)
        do {
            _ = try c.expression(text)
            return "no error"
        } catch { return error.message }
    }

    @Test func parsesTernaryAndIndexes() throws {
        let ternary = try PredicateParser.expression("TERNARY(a > 1, 'x', nil)")
        guard case .ternary(.comparison(let c), .string("x", at: 15), .null(at: 20), at: 0) = ternary else {
            Issue.record("not a TERNARY")
            return
        }
        #expect(
            c.lhs == .keyPath(variable: nil, components: ["a"], at: 8) && c.op == .greater
                && c.rhs == .integer(1, at: 12))
        #expect(
            try PredicateParser.expression("x[FIRST]")
                == .index(.keyPath(variable: nil, components: ["x"], at: 0), .first, at: 1))
        #expect(
            try PredicateParser.expression("x[last][size]")
                == .index(.index(.keyPath(variable: nil, components: ["x"], at: 0), .last, at: 1), .size, at: 7))
        #expect(
            try PredicateParser.expression("x[1 + 1]")
                == .index(
                    .keyPath(variable: nil, components: ["x"], at: 0),
                    .position(.arithmetic(.add, .integer(1, at: 2), .integer(1, at: 6), at: 4)), at: 1))
    }

    @Test func syntaxErrorsAreLocated() throws {
        func message(_ text: String) -> String {
            do {
                _ = try PredicateParser.expression(text)
                return "no error"
            } catch { return error.message }
        }
        #expect(message("TERNARY(a > 1, 2)") == "column 17: expected ',' between TERNARY's two values, found ')'")
        #expect(message("TERNARY a") == "column 9: expected '(' after TERNARY, found 'a'")
        #expect(
            message("TERNARY(a, 1, 2)") == """
                column 10: expected a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, BEGINSWITH, ENDSWITH, \
                CONTAINS, LIKE, MATCHES), found ','
                """)
        #expect(message("x[]") == "column 3: expected FIRST, LAST, SIZE or a position inside [ ], found ']'")
        #expect(
            message("x[FIRST")
                == "column 8: expected ']' to close the index opened at column 2, found the end of the text")
    }

    @Test func ternaryTypes() throws {
        #expect(try checker().expression("TERNARY($source.visits > 10, 'many', nil)").type == .string)
        #expect(try checker().expression("TERNARY($source.vip == YES, $source.visits, 0.5)").type == .double)
        #expect(try checker().expression("TERNARY($source.vip == YES, nil, $source.joinedAt)").type == .date)
        #expect(
            try error("TERNARY($source.vip == YES, 'a', 1)")
                == "column 34: TERNARY's two values differ in type: string and integer")
        #expect(
            try error("TERNARY($source.nme == 1, 'a', 'b')")
                == "column 17: Customer has no attribute or relationship 'nme' (did you mean 'name'?)")
        #expect(try error("TERNARY($source.vip == YES, {1, 2}, 3)") == "column 29: TERNARY gives one value, not a list")
    }

    @Test func numericFunctionsTypeAndRefuseByName() throws {
        let c = try checker()
        #expect(try c.expression("modulus:by:($source.visits, 7)").type == .integer)
        #expect(try c.expression("modulus:by:($source.visits, 2.5)").type == .double)
        #expect(try c.expression("sqrt:($source.visits)").type == .double)
        #expect(try c.expression("raise:toPower:(2, 10)").type == .double)
        #expect(try c.expression("ceiling:($source.visits)").type == .integer)
        #expect(try c.expression("trunc:(2.5)").type == .double)
        #expect(try c.expression("bitwiseXor:with:($source.visits, 3)").type == .integer)
        #expect(try c.expression("onesComplement:(0)").type == .integer)
        #expect(try c.expression("noindex:($source.name)").type == .string)
        #expect(try c.expression("sum:({$source.visits, 2})").type == .integer)
        #expect(try c.expression("max:({$source.visits, 2.5, nil})").type == .double)
        #expect(try c.expression("average:({1, 2})").type == .double)
        #expect(try c.expression("count:({1, nil, 3})") == .literal(.integer(3)))
        #expect(try c.expression("sum:({})") == .literal(.integer(0)))
        #expect(try error("sqrt:($source.name)") == "column 7: sqrt: takes a number, not string")
        #expect(
            try error("bitwiseAnd:with:($source.visits, 1.5)")
                == "column 34: bitwiseAnd:with: takes an integer, not double")
        #expect(try error("modulus:by:(1)") == "column 1: modulus:by: takes 2 arguments, found 1")
        #expect(
            try error("median:({1, 2})") == "column 1: median: has no set-based SQL form here (write it in a policy)")
        #expect(
            try error("random()")
                == """
                column 1: random is not deterministic: a migration's values must not depend on when it runs (write it \
                in a policy)
                """
        )
        #expect(try error("sum:({1, 'a'})") == "column 10: sum: takes numbers, not string")
        #expect(try error("max:({$source.joinedAt, 1})") == "column 6: max: mixes dates and numbers")
        let many = "{" + Array(repeating: "1", count: 501).joined(separator: ", ") + "}"
        #expect(
            try error("sum:(\(many))")
                == "column 6: sum: takes at most 500 items here (SQLite's limit on a compound SELECT); found 501")
    }

    @Test func stringFunctionsWithoutAnObject() throws {
        let c = try checker()
        #expect(try c.expression("trim:($source.name)").type == .string)
        #expect(try c.expression("replace:matching:with:($source.name, '[0-9]+', '#')").type == .string)
        #expect(try error("trim:($source.visits)") == "column 7: trim: takes a string, not integer")
        #expect(
            try error("replace:matching:with:($source.name, '(', '#')")
                == "column 38: not a valid regular expression: (")
        #expect(
            try error("$source.name[FIRST]") == """
                column 13: an index ([FIRST], [LAST], [SIZE], [n]) applies to FUNCTION(…, \
                'componentsSeparatedByString:', …) here, the one list a value has an order in
                """)
    }

    @Test func stringMethodsThroughFunction() throws {
        let c = try checker()
        let first = "FUNCTION($source.name, 'componentsSeparatedByString:', ' ')"
        #expect(
            try c.expression(first + "[FIRST]")
                == .function(
                    .component,
                    [
                        try c.expression("$source.name"), .literal(.string(" ")), .literal(.integer(0)),
                    ], .string))
        #expect(try c.expression(first + "[LAST]").type == .string)
        #expect(try c.expression(first + "[SIZE]").type == .integer)
        #expect(try c.expression(first + "[$source.visits - 1]").type == .string)
        #expect(try c.expression("objectFrom:withIndex:(\(first), 2)").type == .string)
        #expect(
            try c.expression("FUNCTION(FUNCTION($source.name, 'substringFromIndex:', 1), 'capitalizedString')").type
                == .string)
        #expect(
            try c.expression("FUNCTION($source.email, 'stringByReplacingOccurrencesOfString:withString:', '@', ' at ')")
                .type == .string)
        #expect(try c.expression("FUNCTION('abc', 'length')").type == .integer)
        #expect(
            try error(first) == """
                column 1: componentsSeparatedByString: gives a list of strings; take one with [FIRST], [LAST] or [n], \
                or count them with [SIZE] (as in FUNCTION(…, 'componentsSeparatedByString:', ' ')[FIRST])
                """)
        #expect(
            try error(first + "[-1]")
                == "column 61: an index counts from 0; -1 is before the first element ([LAST] is the last)")
        #expect(try error(first + "['a']") == "column 61: an index takes an integer, not string")
        #expect(
            try error("FUNCTION($source.visits, 'uppercaseString')")
                == "column 10: 'uppercaseString' takes a string, not integer")
        #expect(
            try error("FUNCTION($source.name, 'substringFromIndex:', 'x')")
                == "column 47: 'substringFromIndex:' takes an integer, not string")
        #expect(
            try error("FUNCTION($source.name, 'substringToIndex:')") == "column 1: 'substringToIndex:' takes 1, found 0"
        )
        #expect(
            try error("FUNCTION($source.name, 'uppercaseStrin')") == """
                column 1: unknown string method 'uppercaseStrin' (did you mean 'uppercaseString'?); supported: \
                componentsSeparatedByString:, substringFromIndex:, substringToIndex:, \
                stringByReplacingOccurrencesOfString:withString:, uppercaseString, lowercaseString, capitalizedString, \
                length
                """)
        #expect(
            try error("FUNCTION($source.name, 'stringByTrimmingCharactersInSet:', nil)") == """
                column 1: an NSCharacterSet has no text in the format syntax; trim:(x) trims white space and line breaks
                """)
        #expect(
            try error("$source.orders.@distinctUnionOfSets.items") == """
                column 16: @distinctUnionOfSets gives a set of objects, not a value: it has no SQL form in a value or \
                a filter (a relationship's value is written FUNCTION($manager, \
                'destinationInstancesForEntityMappingNamed:sourceInstances:', …))
                """)
    }
}
