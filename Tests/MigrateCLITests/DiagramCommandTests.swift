import Foundation
import TestSupport
import Testing

/// `migrate diagram`, run as a person runs it (in process): the command on a temporary
/// models folder, checking stdout, stderr and the exit code.
@Suite struct DiagramCommandTests {
    /// Optional attributes, a uniqueness constraint, an ordered one-to-many with a
    /// required inverse, a many-to-many, a one-to-one, a to-one without an inverse,
    /// and a subentity of an abstract entity.
    static let v1 = """
        model: Shelf
        version: 1
        entities:
          Author:
            attributes:
              name: string
              born: date?
            relationships:
              books: { destination: Book, toMany: true, ordered: true, inverse: author, deleteRule: cascade }
          Book:
            attributes:
              title: string
              pages: integer16
            relationships:
              author: { destination: Author, inverse: books, optional: false }
              tags: { destination: Tag, toMany: true, inverse: books }
              cover: { destination: Cover, inverse: book }
          Cover:
            attributes: { image: binary }
            relationships:
              book: { destination: Book, inverse: cover, optional: false }
          Tag:
            attributes: { label: string }
            relationships:
              books: { destination: Book, toMany: true, inverse: tags }
            uniqueness: [[label]]
          Media:
            abstract: true
            attributes: { size: integer32 }
          Ebook:
            parent: Media
            attributes: { format: string? }
            relationships:
              source: { destination: Book }
        """
    /// From version 1: attributes added (one with a default), renamed, widened and
    /// removed; Cover removed with the relationship to it; Tag renamed to Label.
    static let v2 = """
        model: Shelf
        version: 2
        entities:
          Author:
            attributes:
              name: string
              country: string?
            relationships:
              books: { destination: Book, toMany: true, ordered: true, inverse: author, deleteRule: cascade }
          Book:
            attributes:
              name: { type: string, renamedFrom: title }
              pages: integer32
              isbn: { type: string, default: "none" }
            relationships:
              author: { destination: Author, inverse: books, optional: false }
              tags: { destination: Label, toMany: true, inverse: books }
          Label:
            renamedFrom: Tag
            attributes: { label: string }
            relationships:
              books: { destination: Book, toMany: true, inverse: tags }
            uniqueness: [[label]]
          Media:
            abstract: true
            attributes: { size: integer32 }
          Ebook:
            parent: Media
            attributes: { format: string? }
            relationships:
              source: { destination: Book }
        """
    /// Narrows `Book.pages` back: no mapping from version 2.
    static let v3 = v2.replacingOccurrences(of: "version: 2", with: "version: 3")
        .replacingOccurrences(of: "pages: integer32", with: "pages: integer16")

    /// A folder with `Models/Shelf/1…3.yaml` and an empty `Migrations/`.
    static func project() throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory(prefix: "diagram-command")
        try folder.write("Models/Shelf/1.yaml", v1)
        try folder.write("Models/Shelf/2.yaml", v2)
        try folder.write("Models/Shelf/3.yaml", v3)
        try FileManager.default.createDirectory(atPath: folder.file("Migrations"), withIntermediateDirectories: true)
        return folder
    }

    static func diagram(_ arguments: [String], in folder: TemporaryDirectory) throws -> CommandResult {
        try InProcess.migrate(
            ["diagram"] + arguments + ["--models", folder.file("Models"), "--migrations", folder.file("Migrations")],
            in: folder.path)
    }

    static let mermaidV1 = """
        erDiagram
            %% Shelf version 1
            %% attributes: type name, then notes in quotes; subentities list their own attributes and inherit their \
        parent's
            Author {
                string name
                date born "optional"
            }
            Book {
                string title
                integer16 pages
            }
            Cover {
                binary image
            }
            Ebook {
                string format "optional"
            }
            %% Media: abstract
            Media {
                integer32 size
            }
            Tag {
                string label UK
            }
            %% one line per relationship and its inverse, labelled "name / inverse" from the left entity's side
            Author ||--o{ Book : "books [ordered] / author"
            Book }o--o{ Tag : "tags / books"
            Book ||--o| Cover : "cover / book"
            Ebook }o--o| Book : "source"
            %% Mermaid's erDiagram has no inheritance arrow: a dashed line "Child |o..|| Parent : inherits from" \
        stands for one
            Ebook |o..|| Media : "inherits from"

        """

    @Test func mermaidOfOneVersion() throws {
        let folder = try Self.project()
        defer { folder.remove() }
        let result = try Self.diagram(["1"], in: folder)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.stdout == Self.mermaidV1)
    }

    @Test func theCurrentVersionByDefault() throws {
        let folder = try Self.project()
        defer { folder.remove() }
        let result = try Self.diagram([], in: folder)
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("erDiagram\n    %% Shelf version 3\n"))
        #expect(result.stdout.contains("\n        integer16 pages\n"))
    }

    /// The markers are `migrate diff`'s words; a changed entity's name carries its change.
    @Test func twoVersionsMarkTheDiff() throws {
        let folder = try Self.project()
        defer { folder.remove() }
        let result = try Self.diagram(["1", "2"], in: folder)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == """
                erDiagram
                    %% Shelf 1 → 2: inferred (lightweight)
                    %% drawn on version 2's entities; what version 1 has and 2 drops is drawn too, marked removed
                    %% attributes: type name, then notes in quotes; subentities list their own attributes and inherit \
                their parent's
                    "Author (changed)" {
                        string name
                        string country "optional, added"
                        date born "optional, removed"
                    }
                    "Book (changed)" {
                        string name "renamed from title"
                        integer32 pages "integer16 → integer32 (widened)"
                        string isbn "added (default 'none')"
                    }
                    Ebook {
                        string format "optional"
                    }
                    "Label (changed, renamed from Tag)" {
                        string label UK
                    }
                    %% Media: abstract
                    Media {
                        integer32 size
                    }
                    "Cover (removed: its rows are dropped)" {
                        binary image "removed"
                    }
                    %% one line per relationship and its inverse, labelled "name / inverse" from the left entity's side
                    "Author (changed)" ||--o{ "Book (changed)" : "books [ordered] / author"
                    "Book (changed)" }o--o{ "Label (changed, renamed from Tag)" : "tags / books"
                    "Book (changed)" ||--o| "Cover (removed: its rows are dropped)" : "cover [removed] / book [removed]"
                    Ebook }o--o| "Book (changed)" : "source"
                    %% Mermaid's erDiagram has no inheritance arrow: a dashed line "Child |o..|| Parent : inherits \
                from" stands for one
                    Ebook |o..|| Media : "inherits from"

                """)
        // The same words as `migrate diff 1 2`.
        let diff = try InProcess.migrate([
            "diff", "1", "2", "--models", folder.file("Models"), "--migrations", folder.file("Migrations"),
        ])
        for line in [
            "Label (changed, renamed from Tag)", "  name      renamed from title",
            "  pages     integer16 → integer32 (widened)",
            "  isbn      added (default \"none\")", "  born      removed", "Cover (removed: its rows are dropped)",
        ] {
            #expect(diff.stdout.contains(line + "\n"), "\(line)")
        }
    }

    /// Inheritance gained and lost, a subentity that leaves its parent keeps the
    /// loss of the parent's attribute on itself, and a removed entity whose name a
    /// new one took is still drawn apart.
    @Test func hierarchyChangesAndANameTakenOver() throws {
        let folder = try TemporaryDirectory(prefix: "diagram-command")
        defer { folder.remove() }
        try folder.write(
            "Models/Zoo/1.yaml",
            """
            model: Zoo
            version: 1
            entities:
              Animal: { attributes: { name: string, born: date? } }
              Cat: { parent: Animal, attributes: { lives: integer16 } }
              Pen: { attributes: { code: string } }
              Yard: { attributes: { code: string } }
            """)
        try folder.write(
            "Models/Zoo/2.yaml",
            """
            model: Zoo
            version: 2
            entities:
              Animal: { attributes: { name: string } }
              Cat: { attributes: { lives: integer16, name: { type: string, default: "?" } } }
              Dog: { parent: Animal }
              Pen: { renamedFrom: Yard, attributes: { code: string } }
            """)
        let result = try InProcess.migrate(
            ["diagram", "1", "2", "--models", folder.file("Models")], in: folder.path)
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                erDiagram
                    %% Zoo 1 → 2: inferred (lightweight)
                    %% drawn on version 2's entities; what version 1 has and 2 drops is drawn too, marked removed
                    %% attributes: type name, then notes in quotes; subentities list their own attributes and inherit \
                their parent's
                    "Animal (changed)" {
                        string name
                        date born "optional, removed"
                    }
                    "Cat (changed)" {
                        integer16 lives
                        string name "default none → '?'"
                        date born "optional, removed"
                    }
                    "Dog (new entity)"
                    "Pen (changed, renamed from Yard)" {
                        string code
                    }
                    "Pen (removed: its rows are dropped)" {
                        string code "removed"
                    }
                    %% Mermaid's erDiagram has no inheritance arrow: a dashed line "Child |o..|| Parent : inherits \
                from" stands for one
                    "Cat (changed)" |o..|| "Animal (changed)" : "inherits from [removed]"
                    "Dog (new entity)" |o..|| "Animal (changed)" : "inherits from [added]"

                """)
    }

    /// Names Mermaid's lexer would read as keywords are quoted; a relationship that is
    /// its own inverse is one line; a to-many without an inverse keeps one owner.
    @Test func namesMermaidWouldMisreadAreQuoted() throws {
        let folder = try TemporaryDirectory(prefix: "diagram-command")
        defer { folder.remove() }
        try folder.write(
            "Models/Words/1.yaml",
            """
            model: Words
            version: 1
            entities:
              To:
                attributes: { pk: string, topic: string }
                relationships:
                  peers: { destination: To, toMany: true, inverse: peers }
                  parts: { destination: Topic, toMany: true }
              Topic: { attributes: { uk: integer64 } }
            """)
        let result = try InProcess.migrate(["diagram", "--models", folder.file("Models")], in: folder.path)
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                erDiagram
                    %% Words version 1
                    %% attributes: type name, then notes in quotes; subentities list their own attributes and inherit \
                their parent's
                    "To" {
                        string `pk`
                        string topic
                    }
                    Topic {
                        integer64 `uk`
                    }
                    %% one line per relationship and its inverse, labelled "name / inverse" from the left entity's side
                    "To" }o--o{ "To" : "peers"
                    "To" |o--o{ Topic : "parts"

                """)
    }

    @Test func dotHasOneNodePerEntityAndOneEdgePerPair() throws {
        let folder = try Self.project()
        defer { folder.remove() }
        let result = try Self.diagram(["1", "--format", "dot"], in: folder)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let text = result.stdout
        #expect(text.hasPrefix("digraph \"Shelf\" {\n"))
        #expect(text.hasSuffix("}\n"))
        #expect(text.filter { $0 == "{" }.count == text.filter { $0 == "}" }.count)
        let lines = text.split(separator: "\n").map(String.init)
        let nodes = lines.filter { $0.hasPrefix("    \"") && $0.contains("[label=<") }
            .map { $0.dropFirst(5).prefix { $0 != "\"" } }
        #expect(nodes == ["Author", "Book", "Cover", "Ebook", "Media", "Tag"])
        // HTML-like tables close as they open.
        #expect(text.components(separatedBy: "<table").count == text.components(separatedBy: "</table>").count)
        #expect(lines.contains("        <tr><td colspan=\"3\" bgcolor=\"#e0e0e0\"><b>Author</b></td></tr>"))
        #expect(
            lines.contains(
                """
                        <tr><td align=\"left\">born</td><td align=\"left\">date</td><td \
                align=\"left\">optional</td></tr>
                """
            ))
        #expect(
            lines.contains("        <tr><td colspan=\"2\" bgcolor=\"#e0e0e0\"><b>Media</b> <i>(abstract)</i></td></tr>")
        )
        let edges = lines.filter { $0.contains(" -> ") }
        #expect(
            edges == [
                """
                    \"Author\" -> \"Book\" [dir=both, arrowtail=teetee, arrowhead=crowodot, label=\"books [ordered] / \
                author\"];
                """,
                "    \"Book\" -> \"Tag\" [dir=both, arrowtail=crowodot, arrowhead=crowodot, label=\"tags / books\"];",
                "    \"Book\" -> \"Cover\" [dir=both, arrowtail=teetee, arrowhead=teeodot, label=\"cover / book\"];",
                "    \"Ebook\" -> \"Book\" [dir=both, arrowtail=crowodot, arrowhead=teeodot, label=\"source\"];",
                "    \"Ebook\" -> \"Media\" [style=dashed, arrowhead=empty];",
            ])
    }

    @Test func dotColoursTheDiff() throws {
        let folder = try Self.project()
        defer { folder.remove() }
        let result = try Self.diagram(["1", "2", "--format", "dot"], in: folder)
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines[1] == """
                    graph [label="Shelf 1 → 2: inferred (lightweight)\\ngreen: added, red: removed, orange: changed", \
                labelloc=t, fontname="Helvetica", rankdir=LR];
                """)
        #expect(
            lines.contains(
                """
                        <tr><td colspan="3" bgcolor="#ffcdd2"><b>Cover</b><br/>\
                <font point-size="10">removed: its rows are dropped</font></td></tr>
                """))
        #expect(
            lines.contains(
                """
                        <tr><td align=\"left\" bgcolor=\"#c8e6c9\">isbn</td><td align=\"left\" \
                bgcolor=\"#c8e6c9\">string</td>
                """
                    + "<td align=\"left\" bgcolor=\"#c8e6c9\">added (default &quot;none&quot;)</td></tr>"))
        #expect(
            lines.contains(
                """
                        <tr><td align=\"left\" bgcolor=\"#ffe0b2\">name</td><td align=\"left\" \
                bgcolor=\"#ffe0b2\">string</td>
                """
                    + "<td align=\"left\" bgcolor=\"#ffe0b2\">renamed from title</td></tr>"))
        #expect(
            lines.contains(
                "    \"Book\" -> \"Cover\" [dir=both, arrowtail=teetee, arrowhead=teeodot, label=\"cover [removed] / "
                    + "book [removed]\", "
                    + "color=\"#c62828\", fontcolor=\"#c62828\", style=dotted];"))
    }

    @Test func outputFile() throws {
        let folder = try Self.project()
        defer { folder.remove() }
        let result = try Self.diagram(["1", "-o", "shelf.mmd"], in: folder)
        #expect(result.status == 0)
        #expect(result.stdout == "wrote shelf.mmd\n")
        #expect(try String(contentsOfFile: folder.file("shelf.mmd"), encoding: .utf8) == Self.mermaidV1)
    }

    @Test func noMappingExits4WithDiffsRefusal() throws {
        let folder = try Self.project()
        defer { folder.remove() }
        let result = try Self.diagram(["2", "3"], in: folder)
        #expect(result.status == 4)
        #expect(result.stdout == "")
        #expect(
            result.stderr == """
                error: no lightweight mapping from Shelf version 2 to 3 (1 change inference cannot cover):
                  Book.pages: type change integer32 → integer16 is narrowing, not a widening
                    remedy: write Migrations/Shelf/2-to-3.yaml with a policy for Book, or split the change across an \
                intermediate version (add the new attribute, copy in a policy, remove the old one)

                """)
    }

    @Test(arguments: [["7"], ["1", "7"], ["0", "2"]])
    func unknownVersionIsAUsageError(arguments: [String]) throws {
        let folder = try Self.project()
        defer { folder.remove() }
        let result = try Self.diagram(arguments, in: folder)
        #expect(result.status == 64)
        #expect(result.stdout == "")
        #expect(
            result.stderr == "error: model Shelf has no version \(arguments.contains("0") ? 0 : 7) (versions 1 to 3)\n")
    }

    @Test func unknownModelIsAUsageError() throws {
        let folder = try Self.project()
        defer { folder.remove() }
        let result = try Self.diagram(["--model", "Shelves"], in: folder)
        #expect(result.status == 64)
        #expect(result.stderr == "error: no model named 'Shelves' under \(folder.file("Models")) (found: Shelf)\n")
    }

    @Test(arguments: [
        (["1", "2", "3"], "give one version (N) or two (A B), not 3"),
        (["--format", "svg"], "The value 'svg' is invalid for '--format <format>'"),
    ])
    func badArgumentsAreUsageErrors(arguments: [String], message: String) throws {
        let folder = try Self.project()
        defer { folder.remove() }
        let result = try Self.diagram(arguments, in: folder)
        #expect(result.status == 64)
        #expect(result.stdout == "")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func invalidModelExits1() throws {
        let folder = try Self.project()
        defer { folder.remove() }
        try folder.write(
            "Models/Shelf/3.yaml", Self.v3.replacingOccurrences(of: "pages: integer16", with: "pages: integr16"))
        let result = try Self.diagram([], in: folder)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr.contains("error: attribute 'Book.pages': unknown type 'integr16'"), "\(result.stderr)")
    }

    /// Docs/Diagrams.md's diagram is what the command prints for the example model.
    @Test func theDocumentationShowsTheExampleModelAsDrawn() throws {
        let readme = try String(contentsOfFile: TestModels.packageRoot + "/Docs/Diagrams.md", encoding: .utf8)
        let marker = try #require(readme.range(of: "<!-- diagram:"))
        let rest = readme[marker.upperBound...]
        let start = try #require(rest.range(of: "```mermaid\n"))
        let end = try #require(rest[start.upperBound...].range(of: "```"))
        let result = try InProcess.migrate(["diagram", "--models", TestModels.modelsFolder, "--model", "Contacts"])
        #expect(result.status == 0)
        #expect(result.stdout == String(rest[start.upperBound..<end.lowerBound]))
    }
}
