import DataModel
import TestSupport
import Testing

@testable import Mapping

/// Mapping files' `{ value: "expression" }` and `filter:`: checked against the
/// source version, every problem located in the file, line and column of the
/// expression's own text.
@Suite struct MappingExpressionResolverTests {
    static let v1 = """
        entities:
          Author:
            attributes: { name: string }
            relationships:
              books: { destination: Book, toMany: true, inverse: author }
          Book:
            attributes: { title: string, pages: string?, visits: integer32, email: string? }
            relationships:
              author: { destination: Author, inverse: books, optional: true }
        """
    static let v2 = """
        entities:
          Author:
            attributes: { name: string }
            relationships:
              books: { destination: Book, toMany: true, inverse: author }
          Book:
            attributes: { title: string, pages: integer32?, visits: integer32, email: string?, score: { type: \
        integer64, default: 0 }, isLong: { type: boolean, default: false }, cached: { type: string, transient: true, \
        optional: true } }
            relationships:
              author: { destination: Author, inverse: books, optional: true }
        """

    static func resolve(_ text: String) throws -> Result<MappingModel, any Error> {
        try MappingResolverTests.resolve(text, versions: [v1, v2]).result
    }

    /// Every diagnostic as `line:column message`.
    static func problems(_ text: String) throws -> [String] {
        MappingResolverTests.diagnostics(try resolve(text)).map {
            "\($0.location!.line):\($0.location!.column) \($0.message)"
        }
    }

    @Test func expressionsAndFiltersBecomeTheMapping() throws {
        let mapping = try Self.resolve(
            """
            entities:
              Book:
                filter: "visits >= 10 AND author.name != nil"
                properties:
                  pages: { value: "CAST($source.pages, 'NSNumber')", onFailure: nil }
                  email: { value: "lowercase:($source.email)" }
                  score: { value: "$source.visits * 2" }
            """
        ).get()
        let book = try #require(mapping.mapping(forDestination: "Book"))
        #expect(book.kind == .transform)
        #expect(book.filter == "visits >= 10 AND author.name != nil")
        #expect(book.property("pages")?.source == .expression("CAST($source.pages, 'NSNumber')", nilOnFailure: true))
        #expect(book.property("email")?.source == .expression("lowercase:($source.email)", nilOnFailure: false))
        #expect(book.property("score")?.source == .expression("$source.visits * 2", nilOnFailure: false))
        // What the expressions and the filter read is not dropped data.
        #expect(book.droppedProperties == [])
    }

    @Test func eachProblemIsLocatedInsideTheExpression() throws {
        let found = try Self.problems(
            """
            entities:
              Book:
                filter: "visitz >= 10"
                properties:
                  pages: { value: "CAST($source.pages, 'NSNumber') + $source.nope" }
                  email: { value: "$source.visits" }
                  score: { value: "x'); DROP TABLE ZBOOK; --" }
                  title: { value: "uppercase:($source.title)", onFailure: nil }
                  author: { value: "$source.author" }
                  cached: { value: "$source.title" }
            """)
        #expect(found.count == 7, "\(found)")
        #expect(
            found.contains(
                """
                10:7 property 'Book.cached': value: a transient attribute is not stored, so no value is migrated into it
                """
            ), "\(found)")
        #expect(found.contains { $0.hasPrefix("3:14 entity 'Book': filter: ") && $0.contains("visitz") }, "\(found)")
        #expect(
            found.contains { $0.hasPrefix("5:66 property 'Book.pages': value: ") && $0.contains("nope") }, "\(found)")
        #expect(
            found.contains { $0 == "6:24 property 'Book.email': value: 'email' is string; the value is integer" },
            "\(found)")
        // Text that tries to end the SQL is a syntax error of the expression, never SQL.
        #expect(found.contains("7:25 property 'Book.score': value: unterminated string (no closing ')"), "\(found)")
        #expect(found.contains("8:7 property 'Book.title': onFailure: nil on a required attribute"), "\(found)")
        #expect(
            found.contains(
                """
                9:25 property 'Book.author': value: a relationship's value is the destination objects of source \
                objects: FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', '<Mapping>', \
                $source.<relationship>)
                """), "\(found)")
    }

    /// Core Data's relationship expressions: the copy where the named mapping carries the
    /// related entity over; every other form refused at its column.
    @Test func relationshipValuesThroughTheManager() throws {
        let call = "FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:'"
        let mapping = try Self.resolve(
            """
            entities:
              Author:
                properties:
                  books: { value: "\(call), 'BookToBook', $source.books)" }
              Book:
                properties:
                  author: { value: "FUNCTION($manager, \
            'destinationInstancesForSourceRelationshipNamed:sourceInstances:', 'author', $source.author)" }
                  pages: { value: "CAST($source.pages, 'NSNumber')", onFailure: nil }
            """
        ).get()
        #expect(mapping.mapping(forDestination: "Author")?.property("books")?.source == .copy(from: "books"))
        #expect(mapping.mapping(forDestination: "Book")?.property("author")?.source == .copy(from: "author"))
        let found = try Self.problems(
            """
            entities:
              Author:
                properties:
                  books: { value: "\(call), 'AuthorToAuthor', $source.books)" }
              Book:
                properties:
                  author: { value: "\(call), 'AuthorToAuthor', $source.author.books.author)" }
            """)
        #expect(
            found == [
                """
                4:105 property 'Author.books': value: 'AuthorToAuthor' maps Author to Author, not the Book objects of \
                $source.books to Book objects
                """,
                """
                7:124 property 'Book.author': value: $source.author.books.author reaches many objects through a \
                to-many relationship; author is a to-one
                """,
            ], "\(found)")
        let unknown = try Self.problems(
            """
            entities:
              Author:
                properties:
                  books: { value: "\(call), 'Nope', $source.books)" }
            """)
        #expect(
            unknown == [
                """
                4:105 property 'Author.books': value: no entity mapping of this hop is named 'Nope' (AuthorToAuthor, \
                BookToBook)
                """
            ])
    }

    @Test func badFormsAreParseErrors() throws {
        for (text, message) in [
            ("{ value: \"1\", default: 2 }", "give `value:` or `default:`, not both"),
            ("{ value: \"1\", onFailure: maybe }", "onFailure: expected `nil`"),
            ("{ onFailure: nil, default: 1 }", "onFailure goes with `value:`"),
            ("{ value: 3 }", nil),
        ] {
            let (_, diagnostics, _, _) = try MappingFileTests.parse(
                "entities:\n  Book:\n    properties:\n      score: \(text)\n")
            if let message {
                #expect(diagnostics.contains { $0.message.contains(message) }, "\(text): \(diagnostics)")
            }
        }
    }

    @Test func aPolicyEntityTakesNeitherValuesNorAFilter() throws {
        let found = try Self.problems(
            """
            entities:
              Book:
                policy: Anything
                filter: "visits > 1"
                properties:
                  score: { value: "$source.visits" }
            """)
        #expect(found.contains { $0.contains("filter: a policy chooses its own objects") }, "\(found)")
        #expect(found.contains { $0.contains("value: the entity's objects come from policy Anything") }, "\(found)")
    }

    /// A literal block scalar keeps its lines: an error on its second line points there.
    @Test func errorsInsideABlockScalarPointAtTheirLine() throws {
        let found = try Self.problems(
            """
            entities:
              Book:
                properties:
                  email:
                    value: |
                      lowercase:($source.email)
                        + $source.nosuch
            """)
        #expect(
            found == ["7:23 property 'Book.email': value: Book has no attribute or relationship 'nosuch'"], "\(found)")
    }

    /// The value a YAML parser returns is not the file's text: escapes (`\"`, `''`,
    /// `\u00e9`) and folded lines would shift every column after them. Each error
    /// points at the key it names, whatever the scalar's style.
    @Test func errorsPointAtTheirKeyThroughEscapesAndFolding() throws {
        let found = try Self.problems(
            #"""
            entities:
              Book:
                filter: "title != \"x\" AND \u0074itle != 'y' AND nosuch > 1"
                properties:
                  email: { value: 'lowercase:($source.email) + ''x'' + $source.bad' }
                  title:
                    value: >
                      $source.title +
                      $source.worse
                  pages: { value: "CAST($source.pages,
                      'NSNumber') + $source.plain" }
            """#)
        #expect(
            found.sorted()
                == [
                    "11:33 property 'Book.pages': value: Book has no attribute or relationship 'plain'",
                    "3:55 entity 'Book': filter: Book has no attribute or relationship 'nosuch'",
                    "5:68 property 'Book.email': value: Book has no attribute or relationship 'bad'",
                    "9:19 property 'Book.title': value: Book has no attribute or relationship 'worse'",
                ].sorted(), "\(found)")
    }
}
