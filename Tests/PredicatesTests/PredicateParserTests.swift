import Predicates
import Testing

@Suite struct PredicateParserTests {
    @Test func parsesComparisonsWithPrecedence() throws {
        let p = try PredicateParser.predicate("a == 1 OR b != 'x' AND NOT c < 2.5")
        guard case .or(let left, .and(_, .not(.comparison(let c), _), _), _) = p, case .comparison(let first) = left
        else {
            Issue.record("unexpected tree \(p)")
            return
        }
        #expect(first.op == .equal)
        #expect(c.op == .less)
        #expect(c.rhs == .double(2.5, at: 31))
    }

    @Test func appleSpellings() throws {
        for (text, op) in [
            ("a = 1", Comparison.Operator.equal), ("a <> 1", .notEqual), ("a =< 1", .lessOrEqual),
            ("a => 1", .greaterOrEqual),
            ("a beginswith 'x'", .beginsWith), ("a LIKE[cd] 'x*'", .like), ("a matches '^x'", .matches),
        ] {
            guard case .comparison(let c) = try PredicateParser.predicate(text) else {
                Issue.record("\(text): not a comparison")
                continue
            }
            #expect(c.op == op, "\(text)")
        }
        guard case .comparison(let c) = try PredicateParser.predicate("name CONTAINS[cd] 'é'") else { return }
        #expect(c.options == [.caseInsensitive, .diacriticInsensitive])
        guard case .or(.and, .not, _) = try PredicateParser.predicate("a > 1 && b < 2 || !(c == 3)") else {
            Issue.record("&&, || and ! are AND, OR and NOT")
            return
        }
    }

    @Test func keyPathsFunctionsAndLiterals() throws {
        let e = try PredicateParser.expression("uppercase:($source.author.name) + lowercase:(x)")
        #expect(
            e
                == .arithmetic(
                    .add,
                    .function(
                        "uppercase:", [.keyPath(variable: "source", components: ["author", "name"], at: 11)], at: 0),
                    .function("lowercase:", [.keyPath(variable: nil, components: ["x"], at: 45)], at: 34), at: 32))
        #expect(
            try PredicateParser.expression("posts.@count")
                == .keyPath(variable: nil, components: ["posts", "@count"], at: 0))
        #expect(try PredicateParser.expression("now()") == .function("now", [], at: 0))
        #expect(
            try PredicateParser.expression("CAST('2026-01-01T00:00:00Z', 'NSDate')")
                == .cast(.string("2026-01-01T00:00:00Z", at: 5), "NSDate", at: 0))
        #expect(
            try PredicateParser.expression("{1, -2, YES, nil}")
                == .list([.integer(1, at: 1), .integer(-2, at: 4), .boolean(true, at: 8), .null(at: 13)], at: 0))
        #expect(
            try PredicateParser.expression("#in.#and") == .keyPath(variable: nil, components: ["in", "and"], at: 0))
        // Int64.min is an integer although its digits alone overflow (`$source.n + -9223372036854775808`
        // computed as a double gave -9223372036854775808 for n = 1); 2^63 alone is a double.
        #expect(try PredicateParser.expression("-9223372036854775808") == .integer(.min, at: 0))
        #expect(try PredicateParser.expression("9223372036854775808") == .double(0x1p63, at: 0))
        #expect(try PredicateParser.expression("-9223372036854775809") == .double(-0x1p63, at: 0))
        #expect(try PredicateParser.expression("'it\\'s'") == .string("it's", at: 0))
        #expect(
            try PredicateParser.expression("add:to:(1, 2)")
                == .function("add:to:", [.integer(1, at: 8), .integer(2, at: 11)], at: 0))
    }

    @Test func functionExpressionsAsAppleWritesThem() throws {
        #expect(
            try PredicateParser.expression("FUNCTION($entityPolicy, 'firstNameFrom:', $source.fullName)")
                == .invoke(
                    receiver: .keyPath(variable: "entityPolicy", components: [], at: 9), selector: "firstNameFrom:",
                    arguments: [.keyPath(variable: "source", components: ["fullName"], at: 42)], at: 0))
        #expect(
            try PredicateParser.expression("function($entityPolicy, \"migrateIdentifier\")")
                == .invoke(
                    receiver: .keyPath(variable: "entityPolicy", components: [], at: 9), selector: "migrateIdentifier",
                    arguments: [], at: 0))
        #expect(
            try PredicateParser.expression(
                """
                FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'BlogToBlog', $source)
                """
            )
                == .invoke(
                    receiver: .keyPath(variable: "manager", components: [], at: 9),
                    selector: "destinationInstancesForEntityMappingNamed:sourceInstances:",
                    arguments: [.string("BlogToBlog", at: 81), .keyPath(variable: "source", components: [], at: 95)],
                    at: 0))
        #expect(
            try PredicateParser.expression("FUNCTION(name, 'uppercaseString')")
                == .invoke(
                    receiver: .keyPath(variable: nil, components: ["name"], at: 9), selector: "uppercaseString",
                    arguments: [], at: 0))
        guard case .comparison(let c) = try PredicateParser.predicate("FUNCTION($entityPolicy, 'isActive:', a) == YES")
        else {
            Issue.record("not a comparison")
            return
        }
        #expect(c.rhs == .boolean(true, at: 43))
    }

    @Test func functionExpressionErrorsPointAtTheColumn() {
        func error(_ text: String) -> String {
            do {
                _ = try PredicateParser.expression(text)
                return "no error"
            } catch { return error.description }
        }
        #expect(
            error("FUNCTION($entityPolicy)") == """
                column 23: expected ',' between FUNCTION's receiver and its selector, found ')'
                  FUNCTION($entityPolicy)
                                        ^
                """)
        #expect(
            error("FUNCTION($entityPolicy, firstNameFrom:)")
                .hasPrefix(
                    "column 25: expected FUNCTION's selector in quotes (as in 'firstNameFrom:'), found 'firstNameFrom'")
        )
        #expect(
            error("FUNCTION($entityPolicy, 'first name:')")
                .hasPrefix(
                    """
                    column 25: 'first name:' is not an Objective-C selector (names ending in ':' for each argument, as \
                    in 'name:with:')
                    """
                ))
        #expect(
            error("FUNCTION()").hasPrefix(
                """
                column 10: expected FUNCTION's receiver (as in FUNCTION($entityPolicy, 'selector:', $source.name)), \
                found ')'
                """
            ))
        #expect(
            error("FUNCTION($p, 'a:', 1").hasPrefix(
                "column 21: expected ')' to close FUNCTION, found the end of the text"))
        #expect(error("FUNCTION").hasPrefix("column 9: expected '(' after FUNCTION, found the end of the text"))
        #expect(error("SELF").hasPrefix("column 1: SELF is not supported"))
    }

    @Test func parenthesisedExpressionOnTheLeft() throws {
        guard case .comparison(let c) = try PredicateParser.predicate("(a + b) * 2 > 3") else {
            Issue.record("not a comparison")
            return
        }
        #expect(c.op == .greater)
    }

    @Test func errorsPointAtTheColumn() {
        func error(_ text: String) -> String {
            do {
                _ = try PredicateParser.predicate(text)
                return "no error"
            } catch { return error.description }
        }
        #expect(
            error("age >") == "column 6: expected an expression after '>', found the end of the text\n  age >\n       ^"
        )
        #expect(error("age >> 3") == "column 6: expected an expression, found '>'\n  age >> 3\n       ^")
        #expect(error("name == 'abc") == "column 9: unterminated string (no closing ')\n  name == 'abc\n          ^")
        #expect(
            error("age 3") == """
                column 5: expected a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, BEGINSWITH, ENDSWITH, \
                CONTAINS, LIKE, MATCHES), found a number
                  age 3
                      ^
                """)
        #expect(
            error("a == 1 b")
                == "column 8: expected the end of the text or an operator, found 'b'\n  a == 1 b\n         ^")
        #expect(error("").hasPrefix("column 1: expected a predicate, found nothing"))
        #expect(error("a == 1; DROP TABLE x").hasPrefix("column 7: unexpected character ';'"))
        #expect(error("a ==[x] 'b'").hasPrefix("column 6: unknown option 'x' (expected c, d, n, l or cd)"))
        // Normalized and locale-sensitive, which archived mapping models carry: Core
        // Data's SQLite store compares the stored text either way.
        #expect(error("a ==[n] 'b'") == "no error")
        #expect(error("a BEGINSWITH[cdl] 'b'") == "no error")
        #expect(
            error(String(repeating: "(", count: 500) + "a == 1" + String(repeating: ")", count: 500)).contains(
                "nested more than 100 levels deep"))
        #expect(error("SUBQUERY(x, $y, $y.a == 1).@count > 0").hasPrefix("column 1: SUBQUERY is not supported"))
    }
}

/// The parser's size limits: what SQLite could not parse, or would crash the process
/// by recursion, is a located error instead (issue 26).
@Suite struct PredicateLimitTests {
    func error(_ text: String) -> String {
        do {
            _ = try PredicateParser.predicate(text)
            return "no error"
        } catch { return error.message }
    }

    @Test func chainsAreBalanced() throws {
        let p = try PredicateParser.predicate("a == 1 OR b == 2 OR c == 3 OR d == 4")
        guard case .or(.or(_, _, let left), .or(_, _, let right), let middle) = p else {
            Issue.record("unexpected tree \(p)")
            return
        }
        #expect([left, middle, right] == [7, 17, 27])
        let long = try PredicateParser.predicate((0..<8000).map { "a == \($0)" }.joined(separator: " OR "))
        #expect(PredicateParser.nesting(of: long) == 21)  // 8 for the chain, 10 for a comparison, 3 for a key
    }

    @Test func tooDeepIsALocatedError() {
        let message = """
            nested too deeply for SQLite's parser (NOT, comparisons, quantifiers, operators, functions and key-path \
            steps each nest the SQL; Docs/Predicates.md gives the limits); split the request
            """
        // `a + a + …`: a key is 3, each `+` 4, so the 19th `+` (column 75) passes the limit of 75;
        // inside a comparison (10 more) 15 fit.
        #expect(error("a" + String(repeating: " + a", count: 5000) + " > 3") == "column 75: " + message)
        #expect(error("a" + String(repeating: " + a", count: 500) + " > 3") == "column 75: " + message)
        #expect(error("a" + String(repeating: " + a", count: 16) + " > 3") == "column 1: " + message)
        #expect(error("a" + String(repeating: " + a", count: 15) + " > 3") == "no error")
        // 13 for `a == 1`, 2 for each NOT: the 32nd NOT from the inside, at column 33, is one too many.
        #expect(error(String(repeating: "NOT ", count: 40) + "a == 1") == "column 33: " + message)
        #expect(error(String(repeating: "NOT ", count: 31) + "a == 1") == "no error")
        #expect(error("a" + String(repeating: ".b", count: 9) + " == 1") == "column 1: " + message)
        #expect(
            error(
                "ALL tags.name BEGINSWITH[c] " + String(repeating: "lowercase:(", count: 14) + "x"
                    + String(repeating: ")", count: 14)
            )
            .hasPrefix("column 1: nested too deeply"))
    }

    @Test func tooManyValuesIsALocatedError() {
        let values = "a IN {" + (0...10_000).map(String.init).joined(separator: ", ") + "}"
        #expect(
            error(values) == """
                column 58897: more than 10000 values in one text (each is a bound SQL parameter); \
                split the request, or select by a key the objects share
                """)
        #expect(error("a IN {" + (0..<10_000).map(String.init).joined(separator: ", ") + "}") == "no error")
    }
}
