import Foundation
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// `rel: { default: null }` in a mapping file: the relationship starts empty, as
/// Core Data leaves one that no relationship mapping sets (what `import` writes for
/// it); its inverse must be left empty too, since Core Data sets an inverse whenever
/// either side is set.
@Suite struct EmptiedRelationshipTests {
    static let v1 = """
        entities:
          Post:
            attributes: { name: string? }
            relationships:
              tags: { destination: Tag, toMany: true, ordered: true, inverse: posts }
              author: { destination: Author, optional: true, inverse: posts }
          Tag:
            attributes: { name: string? }
            relationships:
              posts: { destination: Post, toMany: true, inverse: tags }
          Author:
            attributes: { name: string? }
            relationships:
              posts: { destination: Post, toMany: true, inverse: author }

        """

    static func seeded() throws -> MigrationScenario {
        let v2 = try edit(Self.v1, "  Author:\n", "  Note:\n    attributes: { text: string? }\n  Author:\n")
        let s = try MigrationScenario("Blog", versions: [Self.v1, v2])
        try s.withObjects { o in
            try o.insert("Author", values: ["name": .string("ann")])
            for name in ["a", "b"] { try o.insert("Tag", values: ["name": .string(name)]) }
            try o.insert("Post", values: ["name": .string("p")], relationships: ["tags": [2, 1], "author": [1]])
        }
        return s
    }

    @Test func bothSidesLeftEmptyDropTheirPairs() throws {
        let s = try Self.seeded()
        defer { s.remove() }
        try s.writeMapping(
            "1-to-2.yaml",
            """
            entities:
              Post:
                properties:
                  tags: { default: null }
                  author: { default: null }
              Tag:
                properties:
                  posts: { default: null }
              Author:
                properties:
                  posts: { default: null }

            """)
        let plan = try s.plan()
        #expect(plan.warnings.filter(\.isDestructive).count == 2, "\(plan.warnings)")
        try Migrator().apply(plan)
        #expect(
            try s.fetch("Post").map { [$0.relationships["tags"] ?? [], $0.relationships["author"] ?? []] } == [
                [[], []]
            ])
        #expect(try s.fetch("Tag").map { $0.relationships["posts"] ?? [] } == [[], []])
        #expect(try s.fetch("Author").map { $0.relationships["posts"] ?? [] } == [[]])
        #expect(try s.fetch("Post").map { $0.values["name"] } == [.string("p")])
    }

    @Test func oneSideLeftEmptyWithItsInverseMappedIsRefused() throws {
        let s = try Self.seeded()
        defer { s.remove() }
        try s.writeMapping("1-to-2.yaml", "entities:\n  Post:\n    properties:\n      author: { default: null }\n")
        #expect {
            try s.plan()
        } throws: { error in
            "\(error)".contains(
                """
                relationship 'Post.author': left empty, but its inverse Author.posts is mapped, and Core Data sets an \
                inverse whenever either side is set
                """
            )
        }
    }

    /// A required relationship cannot be left empty: refused at plan, naming it.
    @Test func aRequiredRelationshipCannotBeLeftEmpty() throws {
        let v1 = """
            entities:
              P:
                relationships:
                  q: { destination: Q, inverse: p, optional: false }
              Q:
                relationships:
                  p: { destination: P, toMany: true, inverse: q }

            """
        let s = try MigrationScenario("Req", versions: [v1, v1 + "  N:\n    attributes: { x: string? }\n"])
        defer { s.remove() }
        try s.writeMapping(
            "1-to-2.yaml",
            """
            entities:\n  P:\n    properties:\n      q: { default: null }\n  Q:\n    properties:\n      p: { default: \
            null }\n
            """
        )
        #expect {
            try s.plan()
        } throws: { error in
            "\(error)".contains("property 'P.q': left empty, but the relationship is required")
        }
    }
}
