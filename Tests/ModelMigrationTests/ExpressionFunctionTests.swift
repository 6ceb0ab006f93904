import DataModel
import Foundation
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// TERNARY, string methods through FUNCTION, indexes, collection operators and
/// NSExpression's numeric functions in a mapping file's `value:` and `filter:`,
/// compiled into the hop's `INSERT … SELECT` and applied to real rows; the data
/// that comes out is Foundation's (Docs/MappingFiles.md, "Expressions").
@Suite struct ExpressionFunctionTests {
    static let v1 = """
        entities:
          Person:
            attributes:
              fullName: string?
              code: string?
              visits: { type: integer32, default: 0 }
              ratio: double?
            relationships:
              orders: { destination: Order, toMany: true, inverse: person }
          Order:
            attributes: { price: double, quantity: integer32 }
            relationships:
              person: { destination: Person, inverse: orders, optional: true }
        """

    /// Version 2 adds `names` computed attributes to Person.
    static func v2(_ names: [String: String]) -> String {
        let added = names.sorted { $0.key < $1.key }.map { "      \($0.key): \($0.value)\n" }.joined()
        return v1.replacingOccurrences(of: "      ratio: double?\n", with: "      ratio: double?\n" + added)
    }

    /// People: 1 "Ada Lovelace" (code " a-12 ", 3 visits, ratio 2.5, orders 10×2, 4.5×1),
    /// 2 "Madonna" (code "B7", 10 visits, no orders), 3 nil (code nil, 0 visits, one order 1×7),
    /// 4 "😀 Smile Now" (code "", 5 visits, ratio -1.5).
    static func scenario(
        _ attributes: [String: String], _ properties: [String: String], filter: String? = nil,
        nilOnFailure: Set<String> = []
    ) throws -> MigrationScenario {
        let s = try MigrationScenario("People", versions: [v1, v2(attributes)])
        var file = "entities:\n  Person:\n"
        if let filter { file += "    filter: \"\(filter)\"\n" }
        file += "    properties:\n"
        for (name, value) in properties.sorted(by: { $0.key < $1.key }) {
            let onFailure = nilOnFailure.contains(name) ? ", onFailure: nil" : ""
            file += "      \(name): { value: \"\(value.replacingOccurrences(of: "\"", with: "\\\""))\"\(onFailure) }\n"
        }
        try s.directory.write("Migrations/People/1-to-2.yaml", file)
        try s.withObjects { access in
            try access.insert(
                "Person",
                values: [
                    "fullName": .string("Ada Lovelace"), "code": .string(" a-12 "), "visits": .integer(3),
                    "ratio": .double(2.5),
                ])
            try access.insert(
                "Person", values: ["fullName": .string("Madonna"), "code": .string("B7"), "visits": .integer(10)])
            try access.insert("Person", values: ["visits": .integer(0)])
            try access.insert(
                "Person",
                values: [
                    "fullName": .string("😀 Smile Now"), "code": .string(""), "visits": .integer(5),
                    "ratio": .double(-1.5),
                ])
            try access.insert(
                "Order", values: ["price": .double(10), "quantity": .integer(2)], relationships: ["person": [1]])
            try access.insert(
                "Order", values: ["price": .double(4.5), "quantity": .integer(1)], relationships: ["person": [1]])
            try access.insert(
                "Order", values: ["price": .double(1), "quantity": .integer(7)], relationships: ["person": [3]])
        }
        return s
    }

    /// Applies the hop and returns `attribute` of every Person, by primary key.
    static func applied(
        _ attributes: [String: String], _ properties: [String: String], filter: String? = nil,
        nilOnFailure: Set<String> = []
    ) throws -> [String: [AttributeValue?]] {
        let s = try scenario(attributes, properties, filter: filter, nilOnFailure: nilOnFailure)
        defer { s.remove() }
        try Migrator().apply(try s.plan(verify: true))
        let people = try s.fetch("Person")
        var result: [String: [AttributeValue?]] = [:]
        for name in attributes.keys { result[name] = people.map { $0.values[name] ?? nil } }
        result["Z_PK"] = people.map { .integer($0.primaryKey) }
        return result
    }

    /// A computed index below 0 is out of range, as NSArray raises for it: -1 is not
    /// `[LAST]` (visits - 4 is -1 for row 1, 6 for row 2, 1 for row 4).
    @Test func aComputedNegativeIndexIsOutOfRange() throws {
        let out = try Self.applied(
            ["part": "string?"],
            [
                "part": "FUNCTION($source.fullName, 'componentsSeparatedByString:', ' ')[$source.visits - 4]"
            ], nilOnFailure: ["part"])
        #expect(out["part"] == [nil, nil, nil, .string("Smile")])
    }

    @Test func ternaryChoosesPerRowAndNilConditionsAreFalse() throws {
        let out = try Self.applied(
            ["label": "string?", "bonus": "double?"],
            [
                "label": "TERNARY($source.visits >= 5, 'regular', TERNARY($source.fullName == nil, nil, 'new'))",
                // ratio is nil for rows 2 and 3: `nil > 0` is false, so the else branch.
                "bonus": "TERNARY($source.ratio > 0, $source.ratio * 2, 0)",
            ])
        #expect(out["label"] == [.string("new"), .string("regular"), nil, .string("regular")])
        #expect(out["bonus"] == [.double(5), .double(0), .double(0), .double(0)])
    }

    /// A boolean computed with literals on both branches (the example's `isDraft:
    /// TERNARY($source.publishedAt == nil, YES, NO)`): the value's arguments are bound once
    /// as the SQL reads it once (it was written twice: SQLITE_RANGE, 3 values for 5
    /// parameters), and nil stays nil.
    @Test func aBooleanWithLiteralsOnBothBranches() throws {
        let out = try Self.applied(
            ["regular": "boolean?", "some": "boolean?"],
            [
                "regular": "TERNARY($source.visits >= 5, YES, NO)",
                "some": "TERNARY($source.fullName == nil, nil, TERNARY($source.visits > 3, YES, NO))",
            ])
        #expect(out["regular"] == [.boolean(false), .boolean(true), .boolean(false), .boolean(true)])
        #expect(out["some"] == [.boolean(false), .boolean(true), nil, .boolean(true)])
    }

    @Test func numericFunctionsFollowFoundation() throws {
        let out = try Self.applied(
            [
                "m": "integer32?", "f": "double?", "c": "double?", "t": "double?", "r": "double?", "p": "double?",
                "b": "integer64?", "l": "double?", "x": "integer32?",
            ],
            [
                "m": "modulus:by:($source.visits, 4)",  // 3, 2, 0, 1
                "f": "floor:($source.ratio)",  // 2, nil, nil, -2
                "c": "ceiling:($source.ratio)",  // 3, nil, nil, -1
                "t": "trunc:($source.ratio)",  // 2, nil, nil, -1 (toward zero)
                "r": "sqrt:($source.visits - 1)",  // √2, 3, nil (√-1), 2
                "p": "raise:toPower:(2, $source.visits)",
                "b": "bitwiseXor:with:($source.visits, 6) + leftshift:by:(1, 4) + onesComplement:(0)",
                "l": "max:({$source.ratio, $source.visits, nil})",
                "x": "modulus:by:($source.visits, 0)",  // nil: division by zero
            ])
        #expect(out["m"] == [.integer(3), .integer(2), .integer(0), .integer(1)])
        #expect(out["f"] == [.double(2), nil, nil, .double(-2)])
        #expect(out["c"] == [.double(3), nil, nil, .double(-1)])
        #expect(out["t"] == [.double(2), nil, nil, .double(-1)])
        #expect(out["r"] == [.double(2.0.squareRoot()), .double(3), nil, .double(2)])
        #expect(out["p"] == [.double(8), .double(1024), .double(1), .double(32)])
        // visits XOR 6, plus 1 << 4, plus ~0 (-1).
        let xor: [Int64] = [5, 12, 6, 3]
        #expect(out["b"] == xor.map { .integer($0 + 15) })
        #expect(out["l"] == [.double(3), .double(10), .double(0), .double(5)])
        #expect(out["x"] == [nil, nil, nil, nil])
    }

    @Test func collectionOperatorsInValuesAndFilters() throws {
        let out = try Self.applied(
            ["spent": "double?", "items": "integer32?", "dearest": "double?"],
            [
                "spent": "$source.orders.@sum.price",
                "items": "$source.orders.@count + sum:({$source.visits, 1})",
                "dearest": "$source.orders.@max.price",
            ], filter: "orders.@count > 0 OR visits > 5")
        #expect(out["Z_PK"] == [.integer(1), .integer(2), .integer(3)])
        #expect(out["spent"] == [.double(14.5), .double(0), .double(1)])
        #expect(out["items"] == [.integer(6), .integer(11), .integer(2)])
        #expect(out["dearest"] == [.double(10), nil, .double(1)])
    }

    @Test func trimAndRegularExpressionReplace() throws {
        let out = try Self.applied(
            ["trimmed": "string?", "masked": "string?", "size": "integer32?"],
            [
                "trimmed": "trim:($source.code)",
                "masked": "replace:matching:with:($source.code, '([a-z])-?([0-9]+)', '$2$1')",
                // NSString's length counts UTF-16 units: the emoji is 2.
                "size": "length:($source.fullName)",
            ])
        #expect(out["trimmed"] == [.string("a-12"), .string("B7"), nil, .string("")])
        #expect(out["masked"] == [.string(" 12a "), .string("B7"), nil, .string("")])
        #expect(out["size"] == [.integer(12), .integer(7), nil, .integer(12)])
    }

    static let words = "FUNCTION($source.fullName, 'componentsSeparatedByString:', ' ')"

    /// Issue 27's field split with no Swift: the first word, and the rest after it.
    @Test func fullNameSplitsIntoFirstAndLastNameWithYAMLOnly() throws {
        let out = try Self.applied(
            ["firstName": "string?", "lastName": "string?"],
            [
                "firstName": "\(Self.words)[FIRST]",
                "lastName": """
                TERNARY($source.fullName CONTAINS ' ', \
                FUNCTION($source.fullName, 'substringFromIndex:', FUNCTION(\(Self.words)[FIRST], 'length') + 1), nil)
                """,
            ])
        #expect(out["firstName"] == [.string("Ada"), .string("Madonna"), nil, .string("😀")])
        #expect(out["lastName"] == [.string("Lovelace"), nil, nil, .string("Smile Now")])
    }

    @Test func componentsIndexesAndStringMethods() throws {
        let out = try Self.applied(
            [
                "size": "integer32?", "last": "string?", "second": "string?", "whole": "string?", "head": "string?",
                "upper": "string?", "title": "string?", "dashed": "string?", "same": "string?", "n": "integer32?",
                "parts": "integer32?", "gap": "string?", "tail": "string?",
            ],
            [
                "size": "\(Self.words)[SIZE]",
                "last": "\(Self.words)[LAST]",
                "second": "\(Self.words)[1]",
                // An empty separator gives the whole text as the one element.
                "whole": "FUNCTION($source.fullName, 'componentsSeparatedByString:', '')[LAST]",
                // UTF-16 offsets: 1 cuts the emoji's surrogate pair, leaving U+FFFD.
                "head": "FUNCTION($source.fullName, 'substringToIndex:', 1)",
                "upper": "FUNCTION($source.fullName, 'uppercaseString')",
                "title": "FUNCTION(FUNCTION($source.code, 'lowercaseString'), 'capitalizedString')",
                "dashed": "FUNCTION($source.fullName, 'stringByReplacingOccurrencesOfString:withString:', ' ', '-')",
                "same": "FUNCTION($source.code, 'stringByReplacingOccurrencesOfString:withString:', '', 'x')",
                "n": "FUNCTION($source.fullName, 'length')",
                // '' is one empty part; adjacent separators give an empty part between them.
                "parts": "FUNCTION($source.code, 'componentsSeparatedByString:', '-')[SIZE]",
                "gap": "FUNCTION('a  b', 'componentsSeparatedByString:', ' ')[1] + '|'",
                // An index equal to the length gives ''.
                "tail": "FUNCTION($source.fullName, 'substringFromIndex:', 7)",
            ], nilOnFailure: ["second"])
        #expect(out["parts"] == [.integer(2), .integer(1), nil, .integer(1)])
        #expect(out["gap"] == [.string("|"), .string("|"), .string("|"), .string("|")])
        #expect(out["tail"] == [.string("elace"), .string(""), nil, .string("e Now")])
        #expect(out["size"] == [.integer(2), .integer(1), nil, .integer(3)])
        #expect(out["last"] == [.string("Lovelace"), .string("Madonna"), nil, .string("Now")])
        #expect(out["second"] == [.string("Lovelace"), nil, nil, .string("Smile")])
        #expect(out["whole"] == [.string("Ada Lovelace"), .string("Madonna"), nil, .string("😀 Smile Now")])
        #expect(out["head"] == [.string("A"), .string("M"), nil, .string("\u{FFFD}")])
        #expect(out["upper"] == [.string("ADA LOVELACE"), .string("MADONNA"), nil, .string("😀 SMILE NOW")])
        #expect(out["title"] == [.string(" A-12 "), .string("B7"), nil, .string("")])
        #expect(out["dashed"] == [.string("Ada-Lovelace"), .string("Madonna"), nil, .string("😀-Smile-Now")])
        #expect(out["same"] == [.string(" a-12 "), .string("B7"), nil, .string("")])
        #expect(out["n"] == [.integer(12), .integer(7), nil, .integer(12)])
    }

    /// NSArray and NSString raise NSRangeException past the end: the apply fails
    /// naming the row, and the store is left exactly as it was.
    @Test func anIndexPastTheEndFailsTheApplyNamingItsRow() throws {
        for (value, message) in [
            (
                "\(Self.words)[1]",
                """
                Person.second: componentsSeparatedByString: ' ' gives 1 element for 'Madonna'; [1] is past the last \
                in source row Z_PK 2 (guard it with TERNARY, or write `onFailure: nil` for an optional attribute)
                """
            ),
            (
                "FUNCTION($source.fullName, 'substringFromIndex:', 8)",
                """
                Person.second: substringFromIndex: 8 is beyond the end of 'Madonna' (7 UTF-16 units) \
                in source row Z_PK 2 (guard it with TERNARY, or write `onFailure: nil` for an optional attribute)
                """
            ),
        ] {
            let s = try Self.scenario(["second": "string?"], ["second": value])
            defer { s.remove() }
            let before = FileSnapshot(s.storePath).fingerprint
            let plan = try s.plan()
            #expect { try Migrator().apply(plan) } throws: { error in
                "\(error)".contains(message) && "\(error)".hasSuffix("nothing was changed")
            }
            #expect(FileSnapshot(s.storePath).fingerprint == before)
            #expect(try s.storeVersion() == 1)
        }
    }

    /// `FUNCTION($manager, 'destinationInstancesFor…', …)` as Core Data's mapping models
    /// fill relationships: both sides renamed without `renamedFrom`, so only the mapping
    /// file's values carry the pairs over (inference alone would start them empty).
    @Test func relationshipValuesThroughTheManagerCarryThePairs() throws {
        let v2 = Self.v1.replacingOccurrences(
            of: "orders: { destination: Order, toMany: true, inverse: person }",
            with: "purchases: { destination: Order, toMany: true, inverse: buyer }"
        )
        .replacingOccurrences(
            of: "person: { destination: Person, inverse: orders, optional: true }",
            with: "buyer: { destination: Person, inverse: purchases, optional: true }")
        let s = try MigrationScenario("People", versions: [Self.v1, v2])
        defer { s.remove() }
        try s.directory.write(
            "Migrations/People/1-to-2.yaml",
            """
            entities:
              Person:
                properties:
                  purchases: { value: "FUNCTION($manager, \
            'destinationInstancesForEntityMappingNamed:sourceInstances:', 'OrderToOrder', $source.orders)" }
              Order:
                properties:
                  buyer: { value: "FUNCTION($manager, \
            'destinationInstancesForSourceRelationshipNamed:sourceInstances:', 'person', $source.person)" }
            """)
        try s.withObjects { access in
            try access.insert("Person", values: ["fullName": .string("Ada")])
            try access.insert("Person", values: ["fullName": .string("Bob")])
            try access.insert(
                "Order", values: ["price": .double(1), "quantity": .integer(1)], relationships: ["person": [2]])
            try access.insert(
                "Order", values: ["price": .double(2), "quantity": .integer(1)], relationships: ["person": [1]])
            try access.insert(
                "Order", values: ["price": .double(3), "quantity": .integer(1)], relationships: ["person": [2]])
        }
        try Migrator().apply(try s.plan(verify: true))
        #expect(try s.fetch("Person").map { $0.relationships["purchases"] ?? [] } == [[2], [1, 3]])
        #expect(try s.fetch("Order").map { $0.relationships["buyer"] ?? [] } == [[2], [1], [2]])
    }

    static let places = """
        entities:
          Continent:
            attributes: { name: string }
            relationships:
              countries: { destination: Country, toMany: true, inverse: continent }
          Country:
            attributes: { name: string }
            relationships:
              continent: { destination: Continent, inverse: countries, optional: true }
              moods: { destination: Mood, toMany: true, inverse: country }
          Mood:
            attributes: { color: string }
            relationships:
              country: { destination: Country, inverse: moods, optional: true }
        """
    static let placesWithContinentMoods =
        places
        .replacingOccurrences(
            of: "      countries: { destination: Country, toMany: true, inverse: continent }\n",
            with: "      countries: { destination: Country, toMany: true, inverse: continent }\n"
                + "      moods: { destination: Mood, toMany: true, inverse: continent }\n")
        + "\n      continent: { destination: Continent, inverse: moods, optional: true }"
    static let manager = "FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:'"

    static func placesScenario(_ mapping: String) throws -> MigrationScenario {
        let s = try MigrationScenario("Places", versions: [places, placesWithContinentMoods])
        try s.directory.write("Migrations/Places/1-to-2.yaml", mapping)
        try s.withObjects { access in
            try access.insert("Continent", values: ["name": .string("Europe")])
            try access.insert("Continent", values: ["name": .string("Asia")])
            try access.insert("Country", values: ["name": .string("Norway")], relationships: ["continent": [1]])
            try access.insert("Country", values: ["name": .string("Japan")], relationships: ["continent": [2]])
            try access.insert("Country", values: ["name": .string("Nowhere")])
            for country: Int64? in [1, 2, 1, 3, nil] {
                try access.insert(
                    "Mood", values: ["color": .string("c")], relationships: country.map { ["country": [$0]] } ?? [:])
            }
        }
        return s
    }

    /// A new relationship filled through key paths, as a Core Data mapping model fills
    /// one (a to-one then a to-one; a to-many, a set union, a to-many): computed in the
    /// rebuild from the source row, set-based; the to-many is stored by its inverse.
    @Test func relationshipsFilledThroughKeyPaths() throws {
        let s = try Self.placesScenario(
            """
            entities:
              Mood:
                properties:
                  continent: { value: "\(Self.manager), 'ContinentToContinent', $source.country.continent)" }
              Continent:
                properties:
                  moods: { value: "\(Self.manager), 'MoodToMood', $source.countries.@distinctUnionOfSets.moods)" }
            """)
        defer { s.remove() }
        let plan = try s.plan(verify: true)
        let rebuild = try #require(plan.allSteps.first { $0.kind == .rebuildTable && $0.table == "ZMOOD" })
        #expect(
            rebuild.sql.contains {
                $0.contains("(SELECT t1.\"ZCONTINENT\" FROM \"ZCOUNTRY\" t1 WHERE t1.Z_PK = s.\"ZCOUNTRY\")")
            },
            "\(rebuild.sql)")
        try Migrator().apply(plan)
        #expect(try s.fetch("Mood").map { $0.relationships["continent"] ?? [] } == [[1], [2], [1], [], []])
        #expect(try s.fetch("Continent").map { $0.relationships["moods"] ?? [] } == [[1, 3], [2]])
    }

    @Test func keyPathsWithoutASetBasedFormAreRefused() throws {
        for (mapping, message) in [
            (
                """
                entities:
                  Continent:
                    properties:
                      moods: { value: "\(Self.manager), 'MoodToMood', $source.countries.@distinctUnionOfSets.moods)" }
                """,
                """
                moods is stored by its inverse Mood.continent: give that the reverse key path (FUNCTION($manager, \
                'destinationInstancesForEntityMappingNamed:sourceInstances:', …, $source.country.continent)), or fill \
                both in a policy
                """
            ),
            (
                """
                entities:
                  Mood:
                    properties:
                      continent: { value: "\(Self.manager), 'ContinentToContinent', \
                $source.country.moods.country.continent)" }
                """,
                """
                $source.country.moods.country.continent reaches many objects through a to-many relationship; continent \
                is a to-one
                """
            ),
        ] {
            let s = try Self.placesScenario(mapping)
            defer { s.remove() }
            #expect { try s.plan() } throws: { "\($0)".contains(message) }
        }
    }

    static let shelves = """
        entities:
          Author:
            attributes: { name: string }
            relationships:
              books: { destination: Book, toMany: true, inverse: author }
          Book:
            attributes: { title: string }
            relationships:
              author: { destination: Author, inverse: books, optional: true }
              tags: { destination: Tag, toMany: true, inverse: book }
          Tag:
            attributes: { label: string }
            relationships:
              book: { destination: Book, inverse: tags, optional: true }
        """
    /// Version 2: Author ⇄ Tag many-to-many, Book.similar a to-many without an inverse.
    static let shelvesWithTopics =
        shelves
        .replacingOccurrences(
            of: "      books: { destination: Book, toMany: true, inverse: author }\n",
            with: "      books: { destination: Book, toMany: true, inverse: author }\n"
                + "      topics: { destination: Tag, toMany: true, inverse: authors }\n"
        )
        .replacingOccurrences(
            of: "      tags: { destination: Tag, toMany: true, inverse: book }\n",
            with:
                """
                      tags: { destination: Tag, toMany: true, inverse: book }\n      similar: { destination: Book, \
                toMany: true }\n
                """
        )
        + "\n      authors: { destination: Author, toMany: true, inverse: topics }"

    static func shelvesScenario(_ mapping: String) throws -> MigrationScenario {
        let s = try MigrationScenario("Shelves", versions: [shelves, shelvesWithTopics])
        try s.directory.write("Migrations/Shelves/1-to-2.yaml", mapping)
        try s.withObjects { access in
            try access.insert("Author", values: ["name": .string("Ann")])
            try access.insert("Author", values: ["name": .string("Bob")])
            for author: Int64? in [1, 1, 2, nil] {
                try access.insert(
                    "Book", values: ["title": .string("b")], relationships: author.map { ["author": [$0]] } ?? [:])
            }
            for book: Int64? in [1, 2, 3, 1, 2, nil] {
                try access.insert(
                    "Tag", values: ["label": .string("t")], relationships: book.map { ["book": [$0]] } ?? [:])
            }
        }
        return s
    }

    /// A many-to-many and a to-many without an inverse filled through key paths (issue
    /// 27): their pairs are the chained pairs of the relationships on the way, in one
    /// `INSERT … SELECT DISTINCT` into the join table, or the destination row's key column.
    @Test func manyToManyAndInverseLessToManyFilledThroughKeyPaths() throws {
        let s = try Self.shelvesScenario(
            """
            entities:
              Author:
                properties:
                  topics: { value: "\(Self.manager), 'TagToTag', $source.books.@distinctUnionOfSets.tags)" }
              Book:
                properties:
                  similar: { value: "\(Self.manager), 'BookToBook', $source.author.books)" }
            """)
        defer { s.remove() }
        let plan = try s.plan(verify: true)
        let fill = try #require(plan.allSteps.first { $0.kind == .fillJoinTable })
        #expect(fill.summary == "fill join table Z_1TOPICS through the mapping file's key path")
        #expect(
            fill.sql.last == """
                INSERT OR IGNORE INTO "Z_1TOPICS" ("Z_1AUTHORS", "Z_3TOPICS") SELECT p.k1, p.k2 FROM (SELECT DISTINCT \
                p0.k1 AS k1, p1.k2 AS k2 FROM (SELECT "ZAUTHOR" AS k1, Z_PK AS k2 FROM "ZBOOK" WHERE "ZAUTHOR" IS NOT \
                NULL) AS p0 JOIN (SELECT "ZBOOK" AS k1, Z_PK AS k2 FROM "ZTAG" WHERE "ZBOOK" IS NOT NULL) AS p1 ON \
                p1.k1 = p0.k2) AS p
                """, "\(fill.sql)")
        try Migrator().apply(plan)
        #expect(try s.fetch("Author").map { $0.relationships["topics"] ?? [] } == [[1, 2, 4, 5], [3]])
        #expect(try s.fetch("Tag").map { $0.relationships["authors"] ?? [] } == [[1], [1], [2], [1], [1], []])
        // Without an inverse each Book row keeps one owner (Core Data's storage): the lowest key.
        #expect(try s.fetch("Book").map { $0.relationships["similar"] ?? [] } == [[1, 2], [], [3], []])
    }

    /// The two sides of a many-to-many are one set of pairs; `$source` alone names
    /// objects only the code making them knows.
    @Test func manyToManyKeyPathsThatCannotBeKnownAreRefused() throws {
        for (mapping, message) in [
            (
                """
                entities:
                  Author:
                    properties:
                      topics: { value: "\(Self.manager), 'TagToTag', $source.books.tags)" }
                  Tag:
                    properties:
                      authors: { value: "\(Self.manager), 'AuthorToAuthor', $source.book.author.books.author)" }
                """,
                """
                topics and its inverse Tag.authors are one set of pairs: give the inverse no value, or the reverse key \
                path ($source.book.author)
                """
            ),
            (
                """
                entities:
                  Author:
                    properties:
                      topics: { value: "\(Self.manager), 'TagToTag', $source)" }
                """,
                "$source: the objects 'TagToTag' makes from this Author object; which destination objects those are is "
                    + "known only to "
                    + "the code that makes them, not from the store: fill topics in a policy"
            ),
        ] {
            let s = try Self.shelvesScenario(mapping)
            defer { s.remove() }
            #expect { try s.plan() } throws: { "\($0)".contains(message) }
        }
        // With the reverse key path on the inverse, the two agree.
        let s = try Self.shelvesScenario(
            """
            entities:
              Author:
                properties:
                  topics: { value: "\(Self.manager), 'TagToTag', $source.books.tags)" }
              Tag:
                properties:
                  authors: { value: "\(Self.manager), 'AuthorToAuthor', $source.book.author)" }
            """)
        defer { s.remove() }
        try Migrator().apply(try s.plan(verify: true))
        #expect(try s.fetch("Author").map { $0.relationships["topics"] ?? [] } == [[1, 2, 4, 5], [3]])
    }
}
