import DataModel
import Foundation
import SQLiteStore
import TestSupport
import Testing

@testable import ModelMigration

/// Migrations a random-model fuzzing run found losing data or failing; each keeps
/// its smallest form.
@Suite struct FuzzFoundTests {
    static let bothOrdered = """
        entities:
          Post:
            attributes: { title: string? }
            relationships:
              tags: { destination: Tag, toMany: true, ordered: true, inverse: posts }
          Tag:
            attributes: { name: string? }
            relationships:
              posts: { destination: Post, toMany: true, ordered: true, inverse: tags }

        """

    /// A list with an ordered one-to-many to its items.
    static let orderedList = """
        entities:
          List:
            attributes: { name: string? }
            relationships:
              items: { destination: Item, toMany: true, ordered: true, inverse: list }
          Item:
            attributes: { name: string? }
            relationships:
              list: { destination: List, optional: true, inverse: items }

        """

    static func seedPostsAndTags(_ s: MigrationScenario) throws {
        try s.withObjects { o in
            for title in ["a", "b", "c"] { try o.insert("Post", values: ["title": .string(title)]) }
            try o.insert("Tag", values: ["name": .string("t")], relationships: ["posts": [3, 1, 2]])
        }
    }

    /// Renaming the unordered side of a many-to-many rebuilds the join table: the
    /// ordered side keeps its order.
    @Test func aRenamedSideKeepsTheOtherSidesOrder() throws {
        let v1 = """
            entities:
              Post:
                attributes: { title: string? }
                relationships:
                  tags: { destination: Tag, toMany: true, inverse: posts }
              Tag:
                attributes: { name: string? }
                relationships:
                  posts: { destination: Post, toMany: true, ordered: true, inverse: tags }

            """
        let v2 = v1.replacingOccurrences(
            of: "tags: { destination: Tag, toMany: true, inverse: posts }",
            with: "labels: { destination: Tag, toMany: true, inverse: posts, renamedFrom: tags }"
        )
        .replacingOccurrences(of: "ordered: true, inverse: tags }", with: "ordered: true, inverse: labels }")
        let s = try MigrationScenario("RenameSide", versions: [v1, v2])
        defer { s.remove() }
        try Self.seedPostsAndTags(s)
        try s.migrate()
        #expect(try s.fetch("Tag").map { $0.relationships["posts"] ?? [] } == [[3, 1, 2]])
    }

    /// Both sides ordered: renaming either side keeps both orders (it used to fail
    /// with "no such column").
    @Test(arguments: ["tags", "posts"])
    func bothOrderedSidesKeepTheirOrderThroughARename(renamed: String) throws {
        let newName = renamed == "tags" ? "labels" : "articles"
        let v2 = Self.bothOrdered
            .replacingOccurrences(of: "      \(renamed): {", with: "      \(newName): { renamedFrom: \(renamed),")
            .replacingOccurrences(
                of: "ordered: true, inverse: \(renamed) }", with: "ordered: true, inverse: \(newName) }")
        let s = try MigrationScenario("BothOrdered", versions: [Self.bothOrdered, v2])
        defer { s.remove() }
        try Self.seedPostsAndTags(s)
        try s.withObjects { o in try o.insert("Post", values: ["title": .string("d")], relationships: ["tags": [1]]) }
        try s.migrate()
        let tagSide = renamed == "posts" ? newName : "posts"
        let postSide = renamed == "tags" ? newName : "tags"
        let tags = try s.fetch("Tag").map { $0.relationships[tagSide] ?? [] }
        #expect(tags == [[3, 1, 2, 4]])
        #expect(try s.fetch("Post").map { $0.relationships[postSide] ?? [] } == [[1], [1], [1], [1]])
    }

    /// Both sides ordered, the side naming the join table becomes unordered: the
    /// other side's order is read from its own column.
    @Test func theStillOrderedSideKeepsItsOrder() throws {
        let v2 = Self.bothOrdered.replacingOccurrences(
            of: "tags: { destination: Tag, toMany: true, ordered: true, inverse: posts }",
            with: "tags: { destination: Tag, toMany: true, inverse: posts }")
        let s = try MigrationScenario("Unordered", versions: [Self.bothOrdered, v2])
        defer { s.remove() }
        try Self.seedPostsAndTags(s)
        try s.migrate()
        #expect(try s.fetch("Tag").map { $0.relationships["posts"] ?? [] } == [[3, 1, 2]])
    }

    /// An ordered one-to-many becoming an ordered many-to-many keeps its order.
    @Test func anOrderedOneToManyBecomingManyToManyKeepsItsOrder() throws {
        let v1 = FuzzFoundTests.orderedList
        let v2 = v1.replacingOccurrences(
            of: "list: { destination: List, optional: true, inverse: items }",
            with: "lists: { destination: List, toMany: true, inverse: items, renamedFrom: list }"
        )
        .replacingOccurrences(of: "ordered: true, inverse: list }", with: "ordered: true, inverse: lists }")
        let s = try MigrationScenario("Lists", versions: [v1, v2])
        defer { s.remove() }
        try s.withObjects { o in
            for name in ["a", "b", "c"] { try o.insert("Item", values: ["name": .string(name)]) }
            try o.insert("List", values: ["name": .string("l")], relationships: ["items": [3, 1, 2]])
        }
        try s.migrate()
        #expect(try s.fetch("List").map { $0.relationships["items"] ?? [] } == [[3, 1, 2]])
        #expect(try s.fetch("Item").map { $0.relationships["lists"] ?? [] } == [[1], [1], [1]])
    }

    /// A one-to-many becoming a one-to-one: both sides agree afterwards.
    @Test func aOneToManyBecomingOneToOneAgreesOnBothSides() throws {
        let v1 = """
            entities:
              Team:
                attributes: { name: string? }
                relationships:
                  players: { destination: Player, toMany: true, inverse: team }
              Player:
                attributes: { name: string? }
                relationships:
                  team: { destination: Team, optional: true, inverse: players }

            """
        let v2 = v1.replacingOccurrences(
            of: "players: { destination: Player, toMany: true, inverse: team }",
            with: "players: { destination: Player, optional: true, inverse: team }")
        let s = try MigrationScenario("Teams", versions: [v1, v2])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Team", values: ["name": .string("t")])
            try o.insert("Player", values: ["name": .string("p1")], relationships: ["team": [1]])
            try o.insert("Player", values: ["name": .string("p2")], relationships: ["team": [1]])
        }
        // Two players on one team: the data decides against it, naming the team.
        #expect {
            try s.plan()
        } throws: { error in
            (error as? PlanningError)?.isNoPath == true
                && "\(error)".contains(
                    """
                      Team.players becomes to-one, and stored Team objects have several destinations: 1 row: Z_PK 1: 2 \
                    destinations
                    """
                )
        }
        // With one player per team it migrates, and both sides agree.
        try s.withObjects { try $0.store.connection.execute("UPDATE ZPLAYER SET ZTEAM = NULL WHERE Z_PK = 2") }
        try s.migrate(verify: true)
        #expect(try s.fetch("Team").map { $0.relationships["players"] ?? [] } == [[1]])
        #expect(try s.fetch("Player").map { $0.relationships["team"] ?? [] } == [[1], []])
    }

    /// An attribute renamed while moving up to the parent keeps its values.
    @Test func anAttributeRenamedWhileMovingUpKeepsItsValues() throws {
        let v1 = """
            entities:
              Animal:
                attributes: { name: string? }
              Dog:
                parent: Animal
                attributes: { tag: string? }

            """
        let v2 = """
            entities:
              Animal:
                attributes:
                  name: string?
                  label: { type: string, optional: true, renamedFrom: tag }
              Dog:
                parent: Animal

            """
        let s = try MigrationScenario("Animals", versions: [v1, v2])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Animal", values: ["name": .string("generic")])
            try o.insert("Dog", values: ["name": .string("rex"), "tag": .string("t1")])
        }
        try s.migrate()
        #expect(try s.fetch("Animal").map { $0.values["label"] } == [AttributeValue?.none, .string("t1")])
    }
}

/// One `apply` through several inferred hops ends where migrating hop by hop ends:
/// a hop that changes stored values closes its fused run.
@Suite struct FusedChainTests {
    /// Migrates one store in one apply and another hop by hop; returns both stores' objects.
    static func bothWays(
        _ name: String, _ versions: [String], entities: [String],
        seed: (ObjectAccess) throws -> Void
    ) throws -> (fused: [[StoredObject]], stepwise: [[StoredObject]], fusedPlan: MigrationPlan) {
        let fused = try MigrationScenario(name, versions: versions)
        let stepwise = try MigrationScenario(name, versions: versions)
        defer {
            fused.remove()
            stepwise.remove()
        }
        try fused.withObjects(seed)
        try stepwise.withObjects(seed)
        let plan = try fused.plan(to: versions.count)
        try Migrator().apply(plan)
        for target in 2...versions.count { try stepwise.migrate(to: target) }
        return (try entities.map { try fused.fetch($0) }, try entities.map { try stepwise.fetch($0) }, plan)
    }

    @Test func aDefaultFilledByAMiddleVersionStays() throws {
        let versions = [
            "entities:\n  Ant:\n    attributes:\n      size: { type: integer16, optional: true }\n",
            "entities:\n  Ant:\n    attributes:\n      size: { type: integer16, optional: false, default: 7 }\n",
            "entities:\n  Ant:\n    attributes:\n      size: { type: integer16, optional: true, default: 7 }\n",
        ]
        let result = try Self.bothWays("Fill", versions, entities: ["Ant"]) { o in
            try o.insert("Ant", values: [:])
            try o.insert("Ant", values: ["size": .integer(3)])
        }
        #expect(result.fused == result.stepwise)
        #expect(result.fused[0].map { $0.values["size"] } == [.integer(7), .integer(3)])
        #expect(result.fusedPlan.hops.map { "\($0.from)→\($0.to)" } == ["1→2", "2→3"])
    }

    @Test func aToOneMiddleVersionKeepsOneDestination() throws {
        let v1 = """
            entities:
              Ant:
                attributes: { name: string? }
                relationships:
                  kids: { destination: Bee, toMany: true, inverse: ant }
              Bee:
                attributes: { name: string? }
                relationships:
                  ant: { destination: Ant, optional: true, inverse: kids }

            """
        let v2 = v1.replacingOccurrences(
            of: "kids: { destination: Bee, toMany: true, inverse: ant }",
            with: "kids: { destination: Bee, optional: true, inverse: ant }")
        // An ant with two bees: the middle version's to-one refuses the data.
        #expect(throws: PlanningError.self) {
            try Self.bothWays("Narrow", [v1, v2, v1], entities: ["Ant", "Bee"]) { o in
                try o.insert("Ant", values: [:])
                try o.insert("Bee", values: [:], relationships: ["ant": [1]])
                try o.insert("Bee", values: [:], relationships: ["ant": [1]])
            }
        }
        let result = try Self.bothWays("Narrow", [v1, v2, v1], entities: ["Ant", "Bee"]) { o in
            try o.insert("Ant", values: [:])
            try o.insert("Bee", values: [:], relationships: ["ant": [1]])
            try o.insert("Bee", values: [:])
        }
        #expect(result.fused == result.stepwise)
        #expect(result.fused[1].map { $0.relationships["ant"] ?? [] } == [[1], []])
    }

    @Test func anOrderDroppedByAMiddleVersionIsGone() throws {
        let v1 = FuzzFoundTests.orderedList
        let v2 = v1.replacingOccurrences(
            of: "toMany: true, ordered: true, inverse: list", with: "toMany: true, inverse: list")
        let result = try Self.bothWays("Order", [v1, v2, v1], entities: ["List"]) { o in
            for _ in 0..<3 { try o.insert("Item", values: [:]) }
            try o.insert("List", values: [:], relationships: ["items": [3, 1, 2]])
        }
        #expect(result.fused == result.stepwise)
        #expect(result.fused[0].map { $0.relationships["items"] ?? [] } == [[1, 2, 3]])
    }
}
