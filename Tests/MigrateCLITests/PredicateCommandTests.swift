import Foundation
import TestSupport
import Testing

/// Issue 26 from the command line: MATCHES, empty strings and size limits behave the
/// same in `fetch`, `delete` and a mapping file's `filter:`.
@Suite struct PredicateCommandTests {
    static let v1 = """
        model: Shelf
        version: 1
        entities:
          Book:
            attributes: { title: string, code: string? }
        """

    func folder(mapping: String? = nil) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "predicate-commands")
        try directory.write("Models/Shelf/1.yaml", Self.v1)
        if let mapping {
            try directory.write(
                "Models/Shelf/2.yaml",
                Self.v1.replacingOccurrences(of: "version: 1", with: "version: 2")
                    .replacingOccurrences(of: "code: string?", with: "code: string?, note: string?"))
            try directory.write("Migrations/Shelf/1-to-2.yaml", mapping)
        }
        try directory.write(
            "books.jsonl",
            """
            {"title": "12", "code": "ab"}
            {"title": "12-34", "code": ""}
            {"title": "x-1", "code": null}

            """)
        let create = try migrate(directory, "create", "--model", "Shelf", "--version", "1", "shelf.sqlite")
        #expect(create.status == 0, "\(create.stderr)")
        let load = try migrate(directory, "load", "shelf.sqlite", "Book", "books.jsonl")
        #expect(load.status == 0, "\(load.stderr)")
        return directory
    }

    func migrate(_ directory: TemporaryDirectory, _ arguments: String...) throws -> CommandResult {
        try InProcess.migrate(arguments + ["--models", "Models"], in: directory.path)
    }

    @Test func deleteKeepsWhatMatchesTheWholePattern() throws {
        let directory = try folder()
        defer { directory.remove() }
        // The outside run's case: `12-34` matches the second alternative, so it stays.
        let delete = try migrate(
            directory, "delete", "shelf.sqlite", "Book", "--where", "NOT (title MATCHES '[0-9]+|[0-9]+-[0-9]+')")
        #expect(delete.status == 0, "\(delete.stderr)")
        let dump = try migrate(directory, "dump", "shelf.sqlite", "Book")
        #expect(
            dump.stdout == """
                {"_pk":1,"_entity":"Book","code":"ab","title":"12"}
                {"_pk":2,"_entity":"Book","code":"","title":"12-34"}

                """)
    }

    @Test func emptyStringsAreConsistent() throws {
        let directory = try folder()
        defer { directory.remove() }
        for (predicate, expected) in [
            ("title BEGINSWITH ''", 0), ("title ENDSWITH ''", 0), ("title CONTAINS ''", 0),
            ("title BEGINSWITH code", 0), ("code == ''", 1), ("NOT (title CONTAINS code)", 3),
            ("code LIKE '*'", 2), ("code MATCHES '.*'", 2),
        ] {
            let fetch = try migrate(
                directory, "fetch", "shelf.sqlite", "Book", "--where", predicate, "--count", "--json")
            #expect(fetch.status == 0, "\(fetch.stderr)")
            #expect(fetch.stdout == "{\"count\":\(expected)}\n", "\(predicate)")
        }
    }

    @Test func sizeLimitsAreLocatedUsageErrors() throws {
        let directory = try folder()
        defer { directory.remove() }
        // 5,000 terms: Linux passes at most 128 KiB in one argument (the mapping test below has 8,000).
        let or = (0..<5000).map { "title == 't\($0)'" }.joined(separator: " OR ") + " OR title == 'x-1'"
        let long = try migrate(directory, "fetch", "shelf.sqlite", "Book", "--where", or, "--count")
        #expect(long.status == 0, "\(long.stderr)")
        #expect(long.stdout == "1\n")
        for terms in [500, 5000] {
            let sum = "length:(title)" + String(repeating: " + 1", count: terms) + " > 3"
            let result = try migrate(directory, "fetch", "shelf.sqlite", "Book", "--where", sum, "--count")
            #expect(result.status == 64)
            // length:(title) is 7 (a function around a key), each `+` 4: the 18th `+`, at column 84, is one too many.
            #expect(
                result.stderr.hasPrefix(
                    """
                    error: --where: column 84: nested too deeply for SQLite's parser (NOT, comparisons, quantifiers, \
                    operators, functions and key-path steps each nest the SQL; Docs/Predicates.md gives the limits); \
                    split the request
                    """), "\(result.stderr)")
            #expect(!result.stderr.contains("SQLite error"))
        }
        let values = try migrate(
            directory, "delete", "shelf.sqlite", "Book", "--where",
            "title IN {" + (0...10_000).map { "'\($0)'" }.joined(separator: ", ") + "}")
        #expect(values.status == 64)
        #expect(
            values.stderr.hasPrefix("error: --where: column 78901: more than 10000 values in one text"),
            "\(values.stderr.prefix(200))")
    }

    @Test func mappingFilterLimitsAndMatches() throws {
        let deep = try folder(
            mapping: """
                entities:
                  Book:
                    filter: "\(String(repeating: "NOT ", count: 40))title == 'x'"
                """)
        defer { deep.remove() }
        let plan = try migrate(deep, "plan", "shelf.sqlite")
        #expect(plan.status == 64 || plan.status == 1, "\(plan.stderr)")
        #expect(
            plan.stderr.hasPrefix(
                "./Migrations/Shelf/1-to-2.yaml:3:46: error: entity 'Book': filter: nested too deeply"),
            "\(plan.stderr)")

        let matches = try folder(
            mapping: """
                entities:
                  Book:
                    filter: "title MATCHES '[0-9]+|[0-9]+-[0-9]+' OR \
                \((0..<8000).map { "title == 't\($0)'" }.joined(separator: " OR "))"
                """)
        defer { matches.remove() }
        let apply = try migrate(matches, "apply", "shelf.sqlite")
        #expect(apply.status == 0, "\(apply.stderr)")
        let dump = try migrate(matches, "dump", "shelf.sqlite", "Book")
        #expect(
            dump.stdout == """
                {"_pk":1,"_entity":"Book","code":"ab","note":null,"title":"12"}
                {"_pk":2,"_entity":"Book","code":"","note":null,"title":"12-34"}

                """)
    }
}
