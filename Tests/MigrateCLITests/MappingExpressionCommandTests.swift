import Foundation
import TestSupport
import Testing

/// Mapping-file expressions from the command line: `plan --sql` shows the bound
/// values, `diff` the computed properties, a hostile expression is a located error
/// that changes nothing.
@Suite struct MappingExpressionCommandTests {
    static let v1 = """
        model: Shelf
        version: 1
        entities:
          Book:
            attributes: { title: string, pages: string?, email: string? }
        """
    static let v2 = """
        model: Shelf
        version: 2
        entities:
          Book:
            attributes: { title: string, pages: integer32?, email: string? }
        """

    func folder(mapping: String) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "mapping-expressions")
        try directory.write("Models/Shelf/1.yaml", Self.v1)
        try directory.write("Models/Shelf/2.yaml", Self.v2)
        try directory.write("Migrations/Shelf/1-to-2.yaml", mapping)
        try directory.write(
            "books.jsonl",
            """
            {"title": "A", "pages": "12 pages", "email": "A@X.COM"}
            {"title": "B", "pages": "300", "email": null}

            """)
        let create = try InProcess.migrate(
            ["create", "--models", "Models", "--model", "Shelf", "--version", "1", "shelf.sqlite"], in: directory.path)
        #expect(create.status == 0, "\(create.stderr)")
        let load = try InProcess.migrate(
            ["load", "--models", "Models", "shelf.sqlite", "Book", "books.jsonl"], in: directory.path)
        #expect(load.status == 0, "\(load.stderr)")
        return directory
    }

    @Test func planShowsTheCompiledSQLWithItsBoundValuesAndApplyWritesThem() throws {
        let directory = try folder(
            mapping: """
                entities:
                  Book:
                    filter: "title != 'ZZZ'"
                    properties:
                      pages: { value: "CAST($source.pages, 'NSNumber')" }
                      email: { value: "lowercase:($source.email)" }
                """)
        defer { directory.remove() }
        let plan = try InProcess.migrate(
            ["plan", "--models", "Models", "shelf.sqlite", "--sql"], in: directory.path)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(
            plan.stdout.contains(
                #"""
                mm_within(CAST(mm_integer((mm_number_or_fail(s."ZPAGES", s.Z_PK, ?)), s.Z_PK, ?, ?, 0) AS INTEGER), \#
                ?, ?, 0, s.Z_PK, ?, ?), (mm_lower(s."ZEMAIL"))
                """#), "\(plan.stdout)")
        #expect(
            plan.stdout.contains(
                """
                -- bound: ?1 = 'Book.pages', ?2 = 'Book.pages', ?3 = 'integer32 (-2147483648...2147483647)', ?4 = \
                -2147483648, ?5 = 2147483647, ?6 = 'Book.pages', ?7 = 'integer32 (-2147483648...2147483647)', ?8 = 'ZZZ'
                """), "\(plan.stdout)")
        // --json carries the same values, statement by statement, typed.
        let json = try InProcess.migrate(
            ["plan", "--models", "Models", "shelf.sqlite", "--json"], in: directory.path)
        let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let hops = report?["hops"] as? [[String: Any]]
        let steps = hops?.first?["steps"] as? [[String: Any]]
        let arguments = try JSONSerialization.data(
            withJSONObject: steps?.first?["arguments"] ?? NSNull(), options: [.sortedKeys])
        #expect(
            String(decoding: arguments, as: UTF8.self) == #"""
                [[],[{"text":"Book.pages"},{"text":"Book.pages"},{"text":"integer32 (-2147483648...2147483647)"},\#
                {"integer":-2147483648},{"integer":2147483647},{"text":"Book.pages"},\#
                {"text":"integer32 (-2147483648...2147483647)"},{"text":"ZZZ"}]]
                """#)
        let diff = try InProcess.migrate(["diff", "--models", "Models", "1", "2"], in: directory.path)
        #expect(diff.stdout.contains("computed: lowercase:($source.email)"), "\(diff.stdout)")
        let apply = try InProcess.migrate(
            ["apply", "--models", "Models", "shelf.sqlite", "--verify"], in: directory.path)
        #expect(apply.status == 0, "\(apply.stderr)")
        let dump = try InProcess.migrate(
            ["dump", "--models", "Models", "shelf.sqlite", "Book"], in: directory.path)
        #expect(
            dump.stdout == """
                {"_pk":1,"_entity":"Book","email":"a@x.com","pages":12,"title":"A"}
                {"_pk":2,"_entity":"Book","email":null,"pages":300,"title":"B"}

                """, "\(dump.stdout)")
    }

    @Test func hostileExpressionsAreLocatedErrorsAndChangeNothing() throws {
        for hostile in [
            #"x'); DROP TABLE ZBOOK; --"#, #"$source.title; DELETE FROM ZBOOK"#, #"lowercase:($source.title) || 1"#,
            #"$source.nosuch"#,
        ] {
            let directory = try folder(
                mapping: """
                    entities:
                      Book:
                        properties:
                          email: { value: "\(hostile.replacingOccurrences(of: "\"", with: "\\\""))" }
                    """)
            defer { directory.remove() }
            let before = FileSnapshot(directory.file("shelf.sqlite")).fingerprint
            for command in ["plan", "apply"] {
                let result = try InProcess.migrate(
                    [command, "--models", "Models", "shelf.sqlite"], in: directory.path)
                #expect(result.status == 1, "\(hostile): \(result)")
                #expect(result.stderr.contains("Migrations/Shelf/1-to-2.yaml:4:"), "\(hostile): \(result.stderr)")
                #expect(result.stderr.contains("property 'Book.email': value: "), "\(hostile): \(result.stderr)")
            }
            #expect(FileSnapshot(directory.file("shelf.sqlite")).fingerprint == before, "\(hostile)")
        }
    }

    /// A filter is a predicate of the same language: text that tries to end the
    /// SQL is a located syntax error, and nothing is changed.
    @Test func hostileFiltersAreLocatedErrorsAndChangeNothing() throws {
        for (hostile, message) in [
            (
                #"title == 'x'); DROP TABLE ZBOOK; --"#,
                "Migrations/Shelf/1-to-2.yaml:3:27: error: entity 'Book': filter: unexpected character ';'"
            ),
            (
                #"title == \"x\" OR 1=1; DELETE FROM ZBOOK"#,
                "Migrations/Shelf/1-to-2.yaml:3:35: error: entity 'Book': filter: unexpected character ';'"
            ),
            (
                #"ZTITLE != nil"#,
                """
                Migrations/Shelf/1-to-2.yaml:3:14: error: entity 'Book': filter: Book has no attribute or relationship \
                'ZTITLE'
                """
            ),
        ] {
            let directory = try folder(
                mapping: """
                    entities:
                      Book:
                        filter: "\(hostile)"
                        properties:
                          pages: { value: "CAST($source.pages, 'NSNumber')" }
                    """)
            defer { directory.remove() }
            let before = FileSnapshot(directory.file("shelf.sqlite")).fingerprint
            for command in ["plan", "apply"] {
                let result = try InProcess.migrate(
                    [command, "--models", "Models", "shelf.sqlite"], in: directory.path)
                #expect(result.status == 1, "\(hostile): \(result)")
                #expect(result.stderr.contains(message), "\(hostile): \(result.stderr)")
            }
            #expect(FileSnapshot(directory.file("shelf.sqlite")).fingerprint == before, "\(hostile)")
        }
    }
}
