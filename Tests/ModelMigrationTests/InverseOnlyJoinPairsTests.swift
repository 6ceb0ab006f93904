import Foundation
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// A to-one moved up from two siblings, then made to-many (a many-to-many): the join
/// table's side pairs through one sibling's old relationship, the other sibling's
/// objects through their own. Setting one side sets the other, so the join table
/// takes the pairs of both (fuzzer seed 1700 trial 215: the other sibling's pairs
/// were lost on the direct and fused paths, while one version at a time kept them).
@Suite struct InverseOnlyJoinPairsTests {
    static let v1 = """
        entities:
          Box:
            relationships:
              cards: { destination: Card, toMany: true, inverse: box }
              coins: { destination: Coin, toMany: true, inverse: box }
          Item:
            attributes: { name: string? }
          Card:
            parent: Item
            relationships:
              box: { destination: Box, optional: true, inverse: cards }
          Coin:
            parent: Item
            relationships:
              box: { destination: Box, optional: true, inverse: coins }

        """
    static let v2 = """
        entities:
          Box:
            relationships:
              cards: { destination: Item, toMany: true, inverse: box }
              coins: { destination: Coin, toMany: true }
          Item:
            attributes: { name: string? }
            relationships:
              box: { destination: Box, optional: true, inverse: cards }
          Card:
            parent: Item
          Coin:
            parent: Item

        """
    /// Version 2 with `Item.box` made to-many (a many-to-many with `Box.cards`).
    static func v3() throws -> String {
        try edit(
            v2, "box: { destination: Box, optional: true, inverse: cards }",
            "box: { destination: Box, toMany: true, inverse: cards }")
    }

    @Test(arguments: [MigrationPath.Preference.automatic, .direct])
    func theJoinTableTakesThePairsOfBothSides(path: MigrationPath.Preference) throws {
        let s = try MigrationScenario("Boxes", versions: [Self.v1, Self.v2, try Self.v3()])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Box", values: [:])
            try o.insert("Card", values: ["name": .string("c")], relationships: ["box": [1]])
            try o.insert("Coin", values: ["name": .string("k")], relationships: ["box": [1]])
        }
        let plan = try s.plan(path: path)
        try Migrator().apply(plan)
        #expect(try s.storeVersion() == 3)
        #expect(try s.fetch("Box").map { $0.relationships["cards"] ?? [] } == [[1, 2]])
        #expect(try s.fetch("Item").map { $0.relationships["box"] ?? [] } == [[1], [1]])
    }
}
