import Foundation
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// Mapping files' `{ value: "expression" }` and `filter:`, compiled into the hop's
/// `INSERT … SELECT`, on real rows: values computed, rows chosen, references to the
/// rows left out removed, a value that does not convert failing the apply.
@Suite struct MappingExpressionTests {
    static let v1 = """
        entities:
          Author:
            attributes: { name: string }
            relationships:
              books: { destination: Book, toMany: true, inverse: author }
          Book:
            attributes:
              title: string
              pages: string?
              email: string?
              visits: { type: integer32, default: 0 }
            relationships:
              author: { destination: Author, inverse: books, optional: true }
              tags: { destination: Tag, toMany: true, inverse: books }
              reviews: { destination: Review, toMany: true, inverse: book }
          Tag:
            attributes: { label: string }
            relationships:
              books: { destination: Book, toMany: true, inverse: tags }
          Review:
            attributes: { stars: integer16 }
            relationships:
              book: { destination: Book, inverse: reviews, optional: true }
          Product:
            attributes: { name: string }
          FavoriteProduct:
            parent: Product
            attributes: { rank: integer32? }
        """
    static let v2 =
        v1
        .replacingOccurrences(of: "      pages: string?\n", with: "      pages: integer32?\n")
        .replacingOccurrences(
            of: "      visits: { type: integer32, default: 0 }\n",
            with:
                """
                      visits: { type: integer32, default: 0 }\n      score: { type: integer64, default: 0 }\n      \
                shout: string?\n
                """
        )

    static let mapping = """
        entities:
          Book:
            filter: "visits >= 10"
            properties:
              pages: { value: "CAST($source.pages, 'NSNumber')", onFailure: nil }
              email: { value: "lowercase:($source.email)" }
              score: { value: "$source.visits * 2 + 1" }
              shout: { value: "uppercase:($source.author.name) + ': ' + $source.title" }
          Product:
            properties:
              name: { value: "uppercase:($source.name)" }
          FavoriteProduct:
            filter: "rank <= 2"
            properties:
              name: { value: "lowercase:($source.name)" }
        """

    /// Two authors, three books (one with too few visits), a tag on two books, two
    /// reviews, products and favorites.
    static func scenario(mapping: String = mapping) throws -> MigrationScenario {
        let s = try MigrationScenario("Lib", versions: [v1, v2])
        try s.directory.write("Migrations/Lib/1-to-2.yaml", mapping)
        try s.withObjects { access in
            try access.insert("Author", values: ["name": .string("Ann")])
            try access.insert("Author", values: ["name": .string("Bob")])
            try access.insert(
                "Book",
                values: [
                    "title": .string("A"), "pages": .string("12 pages"), "email": .string("A@X.COM"),
                    "visits": .integer(15),
                ],
                relationships: ["author": [1]])
            try access.insert(
                "Book",
                values: [
                    "title": .string("B"), "pages": .string("many"), "email": .string("B@Y.com"), "visits": .integer(3),
                ],
                relationships: ["author": [2]])
            try access.insert(
                "Book", values: ["title": .string("C"), "visits": .integer(40)], relationships: ["author": [2]])
            try access.insert("Tag", values: ["label": .string("t1")], relationships: ["books": [1, 2]])
            try access.insert("Review", values: ["stars": .integer(5)], relationships: ["book": [2]])
            try access.insert("Review", values: ["stars": .integer(4)], relationships: ["book": [1]])
            try access.insert("Product", values: ["name": .string("Lamp")])
            try access.insert("FavoriteProduct", values: ["name": .string("Desk"), "rank": .integer(1)])
            try access.insert("FavoriteProduct", values: ["name": .string("Chair"), "rank": .integer(7)])
        }
        return s
    }

    @Test func valuesAreComputedAndRowsChosenInTheRebuild() throws {
        let s = try Self.scenario()
        defer { s.remove() }
        let plan = try s.plan(verify: true)
        // Every literal of the file is bound; none is in the SQL text.
        let rebuild = try #require(plan.allSteps.first { $0.kind == .rebuildTable && $0.table == "ZBOOK" })
        let insert = try #require(rebuild.sql.first { $0.hasPrefix("INSERT") })
        #expect(!insert.contains("10") && !insert.contains("': '"), "\(insert)")
        // pages is held to integer32's range; score (integer64, required) must not be nil.
        // Each integer value first passes mm_integer (a REAL past Int64 fails its row).
        #expect(
            rebuild.statements[1].arguments == [
                .text("Book.pages"), .text("integer32 (-2147483648...2147483647)"),
                .integer(-2147483648), .integer(2147483647), .text("Book.pages"),
                .text("integer32 (-2147483648...2147483647)"),
                .integer(2), .integer(1), .text("Book.score"),
                .text("integer64 (-9223372036854775808...9223372036854775807)"),
                .text("Book.score"), .text(": "), .integer(10),
            ])
        #expect(
            plan.warnings.map(\.description).contains(
                """
                destructive: Book: 1 Book object the filter `visits >= 10` leaves out is not migrated (deleted, and \
                references to it removed)
                """
            ))
        #expect(
            plan.warnings.map(\.description).contains(
                "destructive: FavoriteProduct: 1 FavoriteProduct object the filter `rank <= 2` leaves out is not "
                    + "migrated (deleted, and references to "
                    + "it removed)"
            ))

        try Migrator().apply(plan)
        #expect(try s.storeVersion() == 2)
        let books = try s.fetch("Book").map { ($0.primaryKey, $0.values, $0.relationships) }
        #expect(books.map(\.0) == [1, 3])
        #expect(
            books[0].1 == [
                "title": .string("A"), "pages": .integer(12), "email": .string("a@x.com"), "visits": .integer(15),
                "score": .integer(31), "shout": .string("ANN: A"),
            ])
        #expect(
            books[1].1 == [
                "title": .string("C"), "visits": .integer(40), "score": .integer(81), "shout": .string("BOB: C"),
            ])
        // The review of the book left out has no book; the tag keeps the other book.
        #expect(try s.fetch("Review").map { $0.relationships["book"] ?? [] } == [[], [1]])
        #expect(try s.fetch("Tag").first?.relationships["books"] == [1])
        // A hierarchy: the parent's rows all stay, the subentity's are filtered;
        // each takes its own mapping's value.
        let products = try s.fetch("Product").map { "\($0.entity) \($0.values["name"].map { "\($0)" } ?? "-")" }
        #expect(products == ["Product LAMP", "FavoriteProduct desk"], "\(products)")
    }

    @Test func aStringThatIsNotANumberFailsTheApplyNamingItsRow() throws {
        let s = try Self.scenario(
            mapping: Self.mapping.replacingOccurrences(of: ", onFailure: nil", with: "")
                .replacingOccurrences(of: "visits >= 10", with: "visits >= 1"))
        defer { s.remove() }
        let before = FileSnapshot(s.storePath).fingerprint
        let plan = try s.plan()
        #expect {
            try Migrator().apply(plan)
        } throws: { error in
            "\(error)".contains("Book.pages: 'many' of source row Z_PK 2 is not a number")
                && "\(error)".hasSuffix("nothing was changed")
        }
        #expect(FileSnapshot(s.storePath).fingerprint == before)
        #expect(try s.storeVersion() == 1)
    }

    /// A required attribute computed as nil fails the copy itself, naming the row.
    @Test func aRequiredValueComputedAsNilFailsNamingItsRow() throws {
        let s = try Self.scenario(
            mapping: """
                entities:
                  Book:
                    properties:
                      title: { value: "$source.email" }
                      pages: { value: "CAST($source.pages, 'NSNumber')", onFailure: nil }
                """)
        defer { s.remove() }
        let before = FileSnapshot(s.storePath).fingerprint
        let plan = try s.plan()
        #expect(!plan.hops[0].checks.contains { $0.summary.contains("Book.title") }, "the copy checks it")
        #expect {
            try Migrator().apply(plan)
        } throws: { error in
            "\(error)".contains(
                "Book.title: the value computed for source row Z_PK 3 is nil, and Book.title is required")
        }
        #expect(FileSnapshot(s.storePath).fingerprint == before)
    }

    @Test func aRequiredRelationshipToAnObjectLeftOutFailsItsCheck() throws {
        let required = Self.v1.replacingOccurrences(
            of: "      book: { destination: Book, inverse: reviews, optional: true }",
            with: "      book: { destination: Book, inverse: reviews, optional: false }")
        let s = try MigrationScenario(
            "Lib",
            versions: [
                required,
                required.replacingOccurrences(
                    of: "      pages: string?\n", with: "      pages: string?\n      note: string?\n"),
            ])
        defer { s.remove() }
        try s.directory.write("Migrations/Lib/1-to-2.yaml", "entities:\n  Book:\n    filter: \"visits >= 10\"\n")
        try s.withObjects { access in
            try access.insert("Book", values: ["title": .string("A"), "visits": .integer(15)])
            try access.insert("Book", values: ["title": .string("B"), "visits": .integer(3)])
            try access.insert("Review", values: ["stars": .integer(5)], relationships: ["book": [2]])
        }
        let before = FileSnapshot(s.storePath).fingerprint
        #expect {
            try Migrator().apply(try s.plan())
        } throws: { error in
            "\(error)".contains("Review.book") && "\(error)".contains("1 row")
        }
        #expect(FileSnapshot(s.storePath).fingerprint == before)
    }

    static let clock1 = """
        entities:
          Visit:
            attributes: { name: string, visits: integer32, delta: integer32? }
        """
    static let clock2 = """
        entities:
          Visit:
            attributes:
              name: string
              visits: integer32
              delta: integer32?
              seen: date?
              distance: integer32?
              stars: { type: integer16, optional: true }
              rating: { type: integer32, optional: true, min: 0, max: 5 }
              code: { type: string, optional: true, max: 3 }
        """

    static func visits(_ mapping: String) throws -> MigrationScenario {
        let s = try MigrationScenario("Clock", versions: [clock1, clock2])
        try s.directory.write("Migrations/Clock/1-to-2.yaml", mapping)
        try s.withObjects { access in
            try access.insert("Visit", values: ["name": .string("ann"), "visits": .integer(3), "delta": .integer(-7)])
            try access.insert(
                "Visit", values: ["name": .string("bob"), "visits": .integer(40_000), "delta": .integer(12)])
            try access.insert("Visit", values: ["name": .string("cy"), "visits": .integer(9)])
        }
        return s
    }

    /// `now()` is one instant for the whole copy; `abs:` and arithmetic are SQL's.
    @Test func nowAbsAndArithmeticOnRealRows() throws {
        let s = try Self.visits(
            """
            entities:
              Visit:
                properties:
                  seen: { value: "now()" }
                  distance: { value: "abs:($source.delta) * 2 - 1" }
                  code: { value: "uppercase:($source.name)" }
            """)
        defer { s.remove() }
        let before = Date().timeIntervalSinceReferenceDate
        try Migrator().apply(try s.plan(verify: true))
        let after = Date().timeIntervalSinceReferenceDate
        let visits = try s.fetch("Visit")
        #expect(visits.map { $0.values["distance"] } == [.integer(13), .integer(23), nil])
        #expect(visits.map { $0.values["code"] } == [.string("ANN"), .string("BOB"), .string("CY")])
        let seen = visits.compactMap { v -> Double? in if case .date(let t)? = v.values["seen"] { t } else { nil } }
        #expect(seen.count == 3 && Set(seen).count == 1, "\(seen)")
        #expect(seen.allSatisfy { $0 >= before - 1 && $0 <= after + 1 }, "\(seen) not in \(before)...\(after)")
    }

    /// A computed value is held to its destination attribute's rules (its type's
    /// range, min/max, a string's maximum length) as a default or a batch update
    /// is: the copy refuses the first row outside, naming it, and the store is
    /// unchanged.
    @Test func computedValuesOutsideTheDestinationsRulesFailNamingTheRow() throws {
        let hint = " (change the value expression, or correct the row first)"
        for (property, expression, message) in [
            (
                "stars", "$source.visits",
                "Visit.stars: 40000 of source row Z_PK 2 is outside integer16 (-32768...32767)" + hint
            ),
            ("rating", "$source.visits - 4", "Visit.rating: -1 of source row Z_PK 1 is outside min 0, max 5" + hint),
            (
                "code", "$source.name + '!!'",
                "Visit.code: 'ann!!' of source row Z_PK 1 is outside max 3 (length)" + hint
            ),
            // Two characters, four UTF-16 units: NSString.length's count.
            (
                "code", "FUNCTION($source.name, 'substringToIndex:', 0) + '😀😀'",
                "Visit.code: '😀😀' of source row Z_PK 1 is outside max 3 (length)" + hint
            ),
        ] {
            let s = try Self.visits(
                "entities:\n  Visit:\n    properties:\n      \(property): { value: \"\(expression)\" }\n")
            defer { s.remove() }
            let before = FileSnapshot(s.storePath).fingerprint
            let plan = try s.plan()
            let insert = try #require(
                plan.allSteps.first { $0.kind == .rebuildTable }?.sql.first { $0.hasPrefix("INSERT") })
            #expect(insert.contains("mm_within("), "\(insert)")
            #expect {
                try Migrator().apply(plan)
            } throws: { error in
                "\(error)".contains(message) && "\(error)".hasSuffix("nothing was changed")
            }
            #expect(FileSnapshot(s.storePath).fingerprint == before, "\(property)")
        }
    }

    /// A string's length is its text's UTF-16 units whatever SQLite holds: a BLOB that
    /// another tool wrote where a string belongs (😀 in 4 bytes, 2 units) fits a
    /// `max: 3` in a mapping file's value as in the other checks; bytes count for
    /// binary data only.
    @Test func aStringsLengthIsItsTextsUTF16UnitsEvenInABlob() throws {
        let s = try Self.visits("entities:\n  Visit:\n    properties:\n      code: { value: \"$source.name\" }\n")
        defer { s.remove() }
        try s.withObjects { try $0.store.connection.execute("UPDATE ZVISIT SET ZNAME = X'F09F9880' WHERE Z_PK = 1") }
        try Migrator().apply(try s.plan())
        #expect(try s.storeVersion() == 2)
        let stored = try s.withObjects {
            try $0.store.connection.scalarInt64("SELECT length(CAST(ZCODE AS BLOB)) FROM ZVISIT WHERE Z_PK = 1")
        }
        #expect(stored == 4)
    }

    /// A value said in a failed row's message shows its control characters: a NUL cut
    /// SQLite's message there ("Visit.code: '"), an ESC reached the terminal.
    @Test func aFailedRowsValueShowsItsControlCharacters() throws {
        let s = try Self.visits("entities:\n  Visit:\n    properties:\n      code: { value: \"$source.name\" }\n")
        defer { s.remove() }
        try s.withObjects {
            try $0.store.connection.execute("UPDATE ZVISIT SET ZNAME = 'a' || char(0, 27) || 'n' WHERE Z_PK = 1")
        }
        #expect {
            try Migrator().apply(try s.plan())
        } throws: { error in
            "\(error)".contains(
                #"Visit.code: 'a\u0000\u001bn' of source row Z_PK 1 is outside max 3 (length) (change the value"#)
        }
    }

    /// `onFailure: nil` makes a value outside the destination's rules nil, as it
    /// does a string that is not a number.
    @Test func onFailureNilMakesAValueOutsideTheRulesNil() throws {
        let s = try Self.visits(
            """
            entities:
              Visit:
                properties:
                  stars: { value: "$source.visits", onFailure: nil }
                  rating: { value: "$source.visits - 4", onFailure: nil }
            """)
        defer { s.remove() }
        try Migrator().apply(try s.plan(verify: true))
        let visits = try s.fetch("Visit")
        #expect(visits.map { $0.values["stars"] } == [.integer(3), nil, .integer(9)])
        #expect(visits.map { $0.values["rating"] } == [nil, nil, .integer(5)])
    }

    /// A key cleared because its object was left out takes its position in an
    /// ordered inverse with it (as batch delete's nullify does), and a filter in
    /// the first hop of a chain holds through the next, inferred one.
    @Test func orderPositionsOfObjectsLeftOutAreClearedAcrossAChain() throws {
        let v1 = """
            entities:
              Book:
                attributes: { title: string, visits: integer32 }
                relationships:
                  chapters: { destination: Chapter, toMany: true, ordered: true, inverse: book }
              Chapter:
                attributes: { name: string }
                relationships:
                  book: { destination: Book, inverse: chapters, optional: true }
            """
        let v2 = v1.replacingOccurrences(
            of: "title: string, visits: integer32", with: "title: string, visits: integer32, note: string?")
        let v3 = v2.replacingOccurrences(
            of: "attributes: { name: string }", with: "attributes: { name: string, extra: string? }")
        let s = try MigrationScenario("Lib", versions: [v1, v2, v3])
        defer { s.remove() }
        try s.directory.write(
            "Migrations/Lib/1-to-2.yaml",
            """
            entities:\n  Book:\n    filter: \"visits >= 10\"\n    properties:\n      note: { value: \
            \"uppercase:($source.title)\" }\n
            """
        )
        try s.withObjects { access in
            try access.insert("Book", values: ["title": .string("a"), "visits": .integer(20)])
            try access.insert("Book", values: ["title": .string("b"), "visits": .integer(1)])
            try access.insert("Chapter", values: ["name": .string("a1")], relationships: ["book": [1]])
            try access.insert("Chapter", values: ["name": .string("b1")], relationships: ["book": [2]])
            try access.insert("Chapter", values: ["name": .string("b2")], relationships: ["book": [2]])
        }
        _ = try s.migrate(verify: true)
        #expect(try s.storeVersion() == 3)
        #expect(try s.fetch("Book").map { $0.values["note"] } == [.string("A")])
        #expect(
            try s.rows("SELECT Z_PK, ZBOOK, Z_FOK_BOOK FROM ZCHAPTER ORDER BY Z_PK")
                == [
                    [.integer(1), .integer(1), .integer(1)], [.integer(2), .null, .null], [.integer(3), .null, .null],
                ])
    }
}
