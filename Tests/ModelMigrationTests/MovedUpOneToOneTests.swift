import Foundation
import ModelMigration
import TestSupport
import Testing

/// A to-one moved up to a new parent entity, its inverse on another entity renamed
/// without `renamedFrom` (BookPlayer 7 → 8): Core Data sets an inverse whenever one side
/// is set, so both sides of the one-to-one end up agreeing, never half set.
@Suite struct MovedUpOneToOneTests {
    /// Version 1: the one-to-one `Book.lastPlayed` ↔ `Library.lastPlayedBook`.
    static let oneToOne = """
        entities:
          Book:
            attributes: { title: string? }
            relationships:
              lastPlayed: { destination: Library, inverse: lastPlayedBook }
          Library:
            attributes: { name: string? }
            relationships:
              lastPlayedBook: { destination: Book, inverse: lastPlayed }

        """

    static let v2 = """
        entities:
          Item:
            abstract: true
            attributes: { title: string? }
            relationships:
              lastPlayed: { destination: Library, inverse: lastPlayedItem }
          Book:
            parent: Item
          Library:
            attributes: { name: string? }
            relationships:
              lastPlayedItem: { destination: Item, inverse: lastPlayed }

        """

    /// v1's one-to-one `Book.lastPlayed` ↔ `Library.lastPlayedBook`: carried as it is, both
    /// sides, with no destructive warning (there was one partner each already).
    @Test func aOneToOneMovedUpKeepsBothSides() throws {
        let s = try MigrationScenario("Player", versions: [Self.oneToOne, Self.v2])
        defer { s.remove() }
        try s.withObjects { o in
            for name in ["L1", "L2"] { try o.insert("Library", values: ["name": .string(name)]) }
            try o.insert("Book", values: ["title": .string("B1")], relationships: ["lastPlayed": [2]])
            try o.insert("Book", values: ["title": .string("B2")])
        }
        let plan = try s.plan()
        #expect(plan.warnings.filter(\.isDestructive).isEmpty, "\(plan.warnings)")
        try Migrator().apply(plan)
        #expect(try s.fetch("Book").map { $0.relationships["lastPlayed"] ?? [] } == [[2], []])
        #expect(try s.fetch("Library").map { $0.relationships["lastPlayedItem"] ?? [] } == [[], [1]])
    }

    /// v1's `Book.lastPlayed` has no inverse, so two books may point at one library: the
    /// one-to-one keeps the lowest key on both sides and clears the other, with a
    /// destructive warning (before, both books kept it and the library side stayed empty).
    @Test func aToOneWithoutInverseMovedUpBecomesAOneToOne() throws {
        let v1 = """
            entities:
              Book:
                attributes: { title: string? }
                relationships:
                  lastPlayed: { destination: Library }
              Library:
                attributes: { name: string? }

            """
        let s = try MigrationScenario("Player", versions: [v1, Self.v2])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Library", values: ["name": .string("L1")])
            for title in ["B1", "B2"] {
                try o.insert("Book", values: ["title": .string(title)], relationships: ["lastPlayed": [1]])
            }
        }
        let plan = try s.plan()
        #expect(
            plan.warnings.contains { $0.isDestructive && $0.message.contains("become a one-to-one") },
            "\(plan.warnings)")
        try Migrator().apply(plan)
        #expect(try s.fetch("Book").map { $0.relationships["lastPlayed"] ?? [] } == [[1], []])
        #expect(try s.fetch("Library").map { $0.relationships["lastPlayedItem"] ?? [] } == [[1]])
    }

    /// Leaving the library's side empty while Book's mapping carries the moved-up side is
    /// refused at the line, as without the hierarchy: the pairs would stay half set.
    @Test func oneSideLeftEmptyWithTheOtherCarriedBySubentitiesIsRefused() throws {
        let s = try MigrationScenario("Player", versions: [Self.oneToOne, Self.v2])
        defer { s.remove() }
        try s.writeMapping(
            "1-to-2.yaml", "entities:\n  Library:\n    properties:\n      lastPlayedItem: { default: null }\n")
        #expect {
            try s.plan()
        } throws: { error in
            "\(error)".contains(
                "relationship 'Library.lastPlayedItem': left empty, but its inverse Book.lastPlayed is mapped")
        }
    }
}
