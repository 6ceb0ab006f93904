import PropertyList
import Testing

@testable import CoreDataImport

/// Archived `NSExpression`s of each kind Xcode writes into a mapping model, decoded into
/// the format syntax the Predicates module parses.
@Suite struct ArchivedExpressionTests {
    func format(_ build: (ExpressionArchive) -> PropertyListValue) throws -> String {
        let archive = ExpressionArchive()
        let root = build(archive)
        return try ArchivedExpression.decode(archive.bytes(root)).format
    }

    @Test func constants() throws {
        #expect(try format { $0.constant("privacy") } == "'privacy'")
        #expect(try format { $0.constant("it's \\ here\n") } == "'it\\'s \\\\ here\\n'")
        #expect(try format { $0.constant(.integer(42)) } == "42")
        #expect(try format { $0.constant(.real(2.5)) } == "2.5")
        #expect(try format { $0.constant(.boolean(true)) } == "YES")
        #expect(try format { $0.null() } == "nil")
        #expect(try format { $0.date(86_400) } == "CAST(86400.0, 'NSDate')")
    }

    @Test func variablesAndKeyPaths() throws {
        #expect(try format { $0.variable("source") } == "$source")
        #expect(try format { $0.source("refreshedDate") } == "$source.refreshedDate")
        #expect(try format { $0.source("app.source.identifier") } == "$source.app.source.identifier")
        #expect(try format { $0.keyPath("name", on: nil) } == "name")
        // A key spelling a keyword is escaped; a collection operator is kept.
        #expect(try format { $0.source("order.in") } == "$source.order.#in")
        #expect(
            try format { $0.source("countries.@distinctUnionOfSets.moods") }
                == "$source.countries.@distinctUnionOfSets.moods")
    }

    @Test func functionsOfThePolicyAndTheManager() throws {
        let policy = try format { a in
            a.function(
                "defaultIsActiveForBundleID:team:", on: a.variable("entityPolicy"),
                [a.source("bundleIdentifier"), a.source("team")])
        }
        #expect(
            policy
                == "FUNCTION($entityPolicy, 'defaultIsActiveForBundleID:team:', $source.bundleIdentifier, $source.team)"
        )
        #expect(
            try format { a in a.function("migrateIdentifier", on: a.variable("entityPolicy"), []) }
                == "FUNCTION($entityPolicy, 'migrateIdentifier')")
        let manager = try format { a in
            a.function(
                "destinationInstancesForEntityMappingNamed:sourceInstances:", on: a.variable("manager"),
                [a.constant("PersonToPerson"), a.source("owner")])
        }
        #expect(
            manager
                == """
                FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'PersonToPerson', \
                $source.owner)
                """
        )
    }

    @Test func builtInFunctions() throws {
        #expect(
            try format { a in a.function("lowercase:", on: nil, [a.source("email")]) } == "lowercase:($source.email)")
        #expect(
            try format { a in a.function("add:to:", on: nil, [a.source("visits"), a.constant(.integer(1))]) }
                == "($source.visits + 1)")
        #expect(try format { a in a.function("now", on: nil, []) } == "now()")
        #expect(
            try format { a in a.function("castObject:toType:", on: nil, [a.source("pages"), a.constant("NSNumber")]) }
                == "CAST($source.pages, 'NSNumber')")
        #expect(
            try format { a in
                a.object(
                    "NSAggregateExpression",
                    ["NSCollection": a.array([a.constant(.integer(1)), a.constant(.integer(2))])])
            }
                == "{1, 2}")
    }

    /// `NSTernaryExpression` with the predicate kinds Foundation archives (comparison with
    /// modifier and options, compound, TRUE/FALSE), written as TERNARY.
    @Test func ternaries() throws {
        let simple = try format { a in
            a.ternary(a.comparison(a.source("visits"), 2, a.constant(.integer(10))), a.constant("gold"), a.null())
        }
        #expect(simple == "TERNARY($source.visits > 10, 'gold', nil)")
        let compound = try format { a in
            let named = a.comparison(a.source("name"), 99, a.constant(" "), options: 3)
            let any = a.comparison(a.source("orders.total"), 3, a.constant(.integer(100)), modifier: 2)
            let not = a.compound(0, [a.comparison(a.source("mail"), 4, a.null())])
            return a.ternary(
                a.compound(1, [named, a.compound(2, [any, not])]),
                a.function("uppercase:", on: nil, [a.source("name")]), a.source("name"))
        }
        #expect(
            compound == """
                TERNARY(($source.name CONTAINS[cd] ' ') AND ((ANY $source.orders.total >= 100) OR (NOT ($source.mail \
                == nil))), uppercase:($source.name), $source.name)
                """)
        #expect(
            try format { a in
                a.ternary(a.object("NSTruePredicate", [:]), a.constant(.integer(1)), a.constant(.integer(2)))
            } == "TERNARY(TRUEPREDICATE, 1, 2)")
        // A part the format has no text for is named, never dropped.
        let archive = ExpressionArchive()
        let root = archive.ternary(
            archive.object("NSBlockPredicate", [:]), archive.constant(.integer(1)), archive.constant(.integer(2)))
        let expression = try ArchivedExpression.decode(archive.bytes(root))
        #expect(expression.unsupportedParts == ["NSBlockPredicate"])
        #expect(expression.format == "TERNARY(<NSBlockPredicate>, 1, 2)")
    }

    /// NSComparisonPredicate's options as Foundation numbers them: case-insensitive 1,
    /// diacritic-insensitive 2, normalized 4, locale-sensitive 8 (normalized was
    /// refused, and locale-sensitive written [n], issue 36).
    @Test(arguments: [(1, "[c]"), (2, "[d]"), (3, "[cd]"), (4, "[n]"), (8, "[l]"), (12, "[nl]")])
    func comparisonOptions(bits: Int, written: String) throws {
        let text = try format { a in
            a.ternary(
                a.comparison(a.source("name"), 4, a.constant("x"), options: Int64(bits)), a.constant(.integer(1)),
                a.constant(.integer(2)))
        }
        #expect(text == "TERNARY($source.name ==\(written) 'x', 1, 2)")
    }

    @Test func whatHasNoTextIsNamed() throws {
        let archive = ExpressionArchive()
        let root = archive.object("NSSubqueryExpression", ["NSVariable": archive.add("x")])
        let expression = try ArchivedExpression.decode(archive.bytes(root))
        #expect(expression == .unsupported("NSSubqueryExpression"))
        #expect(expression.unsupportedParts == ["NSSubqueryExpression"])
        let sum = try ArchivedExpression.decode(
            {
                let a = ExpressionArchive()
                return a.bytes(a.function("stddev:", on: nil, [a.source("x")]))
            }())
        // A function has text; whether it runs is the type checker's verdict (stddev: does not).
        #expect(sum.unsupportedParts == [] && sum.format == "stddev:($source.x)")
        #expect(throws: ArchivedExpression.Failure.self) { try ArchivedExpression.decode(Array("not an archive".utf8)) }
    }
}
