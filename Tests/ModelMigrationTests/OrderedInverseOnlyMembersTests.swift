import Foundation
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// A to-one moved up from two siblings while its inverse to-many is made ordered:
/// the list's own members (its old pairs) come first, in key order, and the members it
/// gets only through the inverse (the other sibling's to-one) after them, as Core
/// Data's inverse maintenance appends them when the relationship stage sets the
/// to-ones (fuzzer seed 1603 trial 227: on the direct path they were sorted in among
/// the own members by key).
@Suite struct OrderedInverseOnlyMembersTests {
    /// The boxes, cards and coins of ``InverseOnlyJoinPairsTests``.
    static let v1 = InverseOnlyJoinPairsTests.v1
    static let v2 = """
        entities:
          Box:
            relationships:
              coins: { destination: Item, toMany: true, ordered: true, inverse: box }
          Item:
            attributes: { name: string? }
            relationships:
              box: { destination: Box, optional: true, inverse: coins }
          Card:
            parent: Item
          Coin:
            parent: Item

        """

    @Test(arguments: [MigrationPath.Preference.automatic, .direct])
    func inverseOnlyMembersComeAfterTheListsOwn(path: MigrationPath.Preference) throws {
        let s = try MigrationScenario("Boxes", versions: [Self.v1, Self.v2])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Box", values: [:])
            try o.insert("Box", values: [:])
            try o.insert("Card", values: ["name": .string("card 1")], relationships: ["box": [1]])
            try o.insert("Coin", values: ["name": .string("coin 2")], relationships: ["box": [2]])
            try o.insert("Card", values: ["name": .string("card 3")], relationships: ["box": [2]])
            try o.insert("Coin", values: ["name": .string("coin 4")], relationships: ["box": [1]])
            try o.insert("Coin", values: ["name": .string("coin 5")], relationships: ["box": [1]])
        }
        try Migrator().apply(try s.plan(path: path))
        #expect(try s.fetch("Box").map { $0.relationships["coins"] ?? [] } == [[4, 5, 1], [2, 3]])
        #expect(try s.fetch("Item").map { $0.relationships["box"] ?? [] } == [[1], [2], [2], [1], [1]])
    }
}
