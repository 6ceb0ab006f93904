import Foundation
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// A relationship's rules (a to-many made to-one, a `minCount`) judge the members
/// and owners the hop migrates, as Core Data's validation stage judges what the
/// migration made: members a `filter:` leaves out, owners a subentity's `filter:`
/// leaves out, members a narrowed destination leaves out. Each was refused (exit 4)
/// where Core Data migrates (fuzzer cases filter-to-one-members,
/// subentity-filter-to-one, narrowed-min-count).
@Suite struct MigratedMembersTests {
    @Test func aToManyMadeToOneCountsOnlyTheMembersAFilterKeeps() throws {
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
        let v2 = try edit(
            v1, "players: { destination: Player, toMany: true,", "players: { destination: Player, optional: true,")
        let s = try MigrationScenario("Teams", versions: [v1, v2])
        defer { s.remove() }
        try s.writeMapping("1-to-2.yaml", "entities:\n  Player:\n    filter: name != nil\n")
        try s.withObjects { o in
            try o.insert("Team", values: ["name": .string("t")])
            try o.insert("Player", values: ["name": .string("p1")], relationships: ["team": [1]])
            try o.insert("Player", values: [:], relationships: ["team": [1]])
        }
        try s.migrate(verify: true)
        #expect(try s.fetch("Team").map { $0.relationships["players"] ?? [] } == [[1]])
        #expect(try s.fetch("Player").map(\.primaryKey) == [1])
        // Both kept: the rule still refuses, naming the team.
        let t = try MigrationScenario("Teams", versions: [v1, v2])
        defer { t.remove() }
        try t.writeMapping("1-to-2.yaml", "entities:\n  Player:\n    filter: name != nil\n")
        try t.withObjects { o in
            try o.insert("Team", values: ["name": .string("t")])
            for name in ["p1", "p2"] {
                try o.insert("Player", values: ["name": .string(name)], relationships: ["team": [1]])
            }
        }
        #expect(throws: PlanningError.self) { try t.plan() }
    }

    /// The member a filter keeps is the one the to-one takes, whatever the keys: here
    /// the dropped member has the lower key (fuzzer seed 1600 trial 7, case
    /// filter-to-one-lowest: the lowest source key was taken, then dropped, and the
    /// to-one was nil), from a one-to-many and from a many-to-many.
    @Test(arguments: [false, true])
    func aToManyMadeToOneTakesTheMemberAFilterKeeps(manyToMany: Bool) throws {
        let inverse =
            manyToMany
            ? "{ destination: Team, toMany: true, inverse: players }"
            : "{ destination: Team, optional: true, inverse: players }"
        let v1 = """
            entities:
              Team:
                attributes: { name: string? }
                relationships:
                  players: { destination: Player, toMany: true, inverse: team }
              Player:
                attributes: { name: string? }
                relationships:
                  team: \(inverse)

            """
        let v2 = try edit(
            v1, "players: { destination: Player, toMany: true,", "players: { destination: Player, optional: true,")
        let s = try MigrationScenario("Teams", versions: [v1, v2])
        defer { s.remove() }
        try s.writeMapping("1-to-2.yaml", "entities:\n  Player:\n    filter: name != nil\n")
        try s.withObjects { o in
            try o.insert("Team", values: ["name": .string("t")])
            try o.insert("Player", values: [:], relationships: ["team": [1]])
            try o.insert("Player", values: ["name": .string("p2")], relationships: ["team": [1]])
        }
        try s.migrate(verify: true)
        #expect(try s.fetch("Team").map { $0.relationships["players"] ?? [] } == [[2]])
        #expect(try s.fetch("Player").map(\.primaryKey) == [2])
    }

    @Test func aToManyMadeToOneCountsOnlyTheOwnersASubentityFilterKeeps() throws {
        let v1 = """
            entities:
              Shelf:
                attributes: { name: string? }
                relationships:
                  books: { destination: Book, toMany: true, inverse: shelf }
              Cabinet:
                parent: Shelf
                attributes: { doors: integer16? }
              Book:
                attributes: { title: string? }
                relationships:
                  shelf: { destination: Shelf, optional: true, inverse: books }

            """
        let v2 = try edit(
            v1, "books: { destination: Book, toMany: true,", "books: { destination: Book, optional: true,")
        let s = try MigrationScenario("Shelves", versions: [v1, v2])
        defer { s.remove() }
        try s.writeMapping("1-to-2.yaml", "entities:\n  Cabinet:\n    filter: doors != nil\n")
        try s.withObjects { o in
            try o.insert("Cabinet", values: [:])
            try o.insert("Book", values: ["title": .string("a")], relationships: ["shelf": [1]])
            try o.insert("Book", values: ["title": .string("b")], relationships: ["shelf": [1]])
        }
        try s.migrate(verify: true)
        #expect(try s.fetch("Shelf") == [])
        #expect(try s.fetch("Book").map { $0.relationships["shelf"] ?? [] } == [[], []])
    }

    @Test func aNarrowedDestinationCountsOnlyTheMembersOfTheNewDestination() throws {
        let v1 = """
            entities:
              Owner:
                relationships:
                  items: { destination: Item, toMany: true, inverse: owner }
              Item:
                attributes: { name: string? }
                relationships:
                  owner: { destination: Owner, optional: true, inverse: items }
              Tool:
                parent: Item
              Toy:
                parent: Item

            """
        let v2 = """
            entities:
              Owner:
                relationships:
                  items: { destination: Tool, toMany: true, minCount: 2, inverse: owner }
              Item:
                attributes: { name: string? }
              Tool:
                parent: Item
                relationships:
                  owner: { destination: Owner, optional: true, inverse: items }
              Toy:
                parent: Item

            """
        let s = try MigrationScenario("Owners", versions: [v1, v2])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Owner", values: [:])
            try o.insert("Toy", values: ["name": .string("ball")], relationships: ["owner": [1]])
        }
        // The toy is not a tool: the owner keeps none, which an optional to-many allows.
        try s.migrate(verify: true)
        #expect(try s.fetch("Owner").map { $0.relationships["items"] ?? [] } == [[]])
        #expect(try s.fetch("Toy").map(\.primaryKey) == [1])
    }

    /// A new subentity's uniqueness over an attribute it inherits binds its own
    /// objects (none yet), not the parent's that share the table (fuzzer case
    /// subentity-unique-inherited: refused, exit 4, for two parents with one default).
    @Test func aNewSubentitysConstraintBindsNoStoredObject() throws {
        let v1 = "entities:\n  Tag:\n    attributes: { note: string? }\n"
        let v2 = """
            entities:
              Tag:
                attributes:
                  note: string?
                  label: { type: string, default: a }
              Badge:
                parent: Tag
                uniqueness: [[label]]

            """
        let s = try MigrationScenario("Tags", versions: [v1, v2])
        defer { s.remove() }
        try s.withObjects { o in for _ in 0..<2 { try o.insert("Tag", values: [:]) } }
        try s.migrate(verify: true)
        #expect(try s.fetch("Tag").map { $0.values["label"] } == [.string("a"), .string("a")])
        // The constraint holds for the subentity's objects from now on.
        #expect(throws: (any Error).self) {
            try s.withObjects { o in for _ in 0..<2 { try o.insert("Badge", values: ["label": .string("b")]) } }
        }
    }

    /// Subentities whose objects leave the destination's hierarchy leave a to-many
    /// made to-one too: B1's members are a C and an E; E leaves C's hierarchy in the
    /// same hop, so B1 keeps one (fuzzer seed 1000 trial 97, direct path: refused).
    @Test func membersLeavingTheHierarchyAreNotCounted() throws {
        let v1 = """
            entities:
              Box:
                relationships:
                  items: { destination: Item, toMany: true, inverse: box }
              Item:
                attributes: { name: string? }
                relationships:
                  box: { destination: Box, optional: true, inverse: items }
              Gem:
                parent: Item

            """
        let v2 = """
            entities:
              Box:
                relationships:
                  items: { destination: Item, optional: true, inverse: box }
              Item:
                attributes: { name: string? }
                relationships:
                  box: { destination: Box, optional: true, inverse: items }
              Gem:
                attributes: { name: string? }

            """
        let s = try MigrationScenario("Boxes", versions: [v1, v2])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Box", values: [:])
            try o.insert("Item", values: ["name": .string("pen")], relationships: ["box": [1]])
            try o.insert("Gem", values: ["name": .string("ruby")], relationships: ["box": [1]])
        }
        try s.migrate(verify: true)
        #expect(try s.fetch("Box").map { $0.relationships["items"] ?? [] } == [[1]])
        #expect(try s.fetch("Gem").map { $0.values["name"] } == [.string("ruby")])
    }

    /// A relationship moved up from two subentities, each with its own column, loses
    /// the targets a removed entity held in both columns, not only in one (fuzzer seed
    /// 1000 trial 50: D's references to removed C objects stayed, and apply's check failed).
    @Test func referencesToRemovedObjectsGoFromEverySubentitysColumn() throws {
        let v1 = """
            entities:
              A:
                abstract: true
                attributes: { key: string? }
                relationships:
                  m5: { destination: C, toMany: true, inverse: o5 }
                  m6: { destination: D, toMany: true, inverse: o5 }
              C:
                parent: A
                relationships:
                  o5: { destination: A, optional: true, inverse: m5 }
              D:
                parent: A
                relationships:
                  o5: { destination: A, optional: true, inverse: m6 }

            """
        let v2 = """
            entities:
              A:
                abstract: true
                attributes: { key: string? }
                relationships:
                  m5: { destination: A, toMany: true, inverse: o5 }
                  o5: { destination: A, optional: true, inverse: m5 }
              D:
                parent: A

            """
        let s = try MigrationScenario("Links", versions: [v1, v2])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("C", values: ["key": .string("c1")])
            try o.insert("D", values: ["key": .string("d1")], relationships: ["o5": [1]])
            try o.insert("D", values: ["key": .string("d2")], relationships: ["o5": [2]])
        }
        try s.migrate(verify: true)
        #expect(try s.fetch("D").map { $0.relationships["o5"] ?? [] } == [[], [2]])
        #expect(try s.fetch("D").map { $0.values["key"] } == [.string("d1"), .string("d2")])
    }

    /// A subentity's new constraint over an inherited attribute judges the values its
    /// own mapping gives: `default: null` leaves nothing to compare (fuzzer seed 1100
    /// trial 231: the parent's copy was judged, and the hop refused, exit 4).
    @Test func aSubentitysConstraintJudgesItsOwnMappingsValues() throws {
        let v1 = "entities:\n  Tag:\n    attributes: { label: string? }\n  Badge:\n    parent: Tag\n"
        let v2 = v1 + "    uniqueness: [[label]]\n"
        for nulled in [true, false] {
            let s = try MigrationScenario("Tags", versions: [v1, v2])
            defer { s.remove() }
            if nulled {
                try s.writeMapping(
                    "1-to-2.yaml", "entities:\n  Badge:\n    properties:\n      label: { default: null }\n")
            }
            try s.withObjects { o in for _ in 0..<2 { try o.insert("Badge", values: ["label": .string("x")]) } }
            if nulled {
                try s.migrate(verify: true)
                #expect(try s.fetch("Badge").map { $0.values["label"] ?? nil } == [nil, nil])
            } else {
                #expect(throws: PlanningError.self) { try s.plan() }
            }
        }
    }
}
