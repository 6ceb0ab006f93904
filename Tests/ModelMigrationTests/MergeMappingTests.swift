import DataModel
import Foundation
import Mapping
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// Two entity mappings into one destination entity (a merge): a mapping file's further
/// mapping, keyed by its name with `destination:` and `source:`, as olvid-ios's 44 → 45
/// merges `PersistedDiscussionOneToOneLocked` into `PersistedOneToOneDiscussion`.
@Suite struct MergeMappingTests {
    static let v1 = """
        entities:
          Owner:
            attributes: { name: string }
            relationships:
              items: { destination: Item, toMany: true, ordered: true, inverse: owner }
          Tag:
            attributes: { label: string }
            relationships:
              items: { destination: Item, toMany: true, inverse: tags }
          Item:
            attributes: { key: string }
            relationships:
              owner: { destination: Owner, inverse: items, optional: true }
              tags: { destination: Tag, toMany: true, inverse: items }
          Open:
            parent: Item
            attributes: { note: string? }
          Locked:
            parent: Item
            attributes: { note: string?, level: integer16? }
        """
    static let v2 = """
        entities:
          Owner:
            attributes: { name: string }
            relationships:
              items: { destination: Item, toMany: true, ordered: true, inverse: owner }
          Tag:
            attributes: { label: string }
            relationships:
              items: { destination: Item, toMany: true, inverse: tags }
          Item:
            attributes: { key: string }
            relationships:
              owner: { destination: Owner, inverse: items, optional: true }
              tags: { destination: Tag, toMany: true, inverse: items }
          Open:
            parent: Item
            attributes: { note: string?, status: { type: integer16, default: 0 }, rank: integer32? }
        """
    static let merge = """
        entities:
          Open:
            properties:
              status: { default: 1 }
          LockedToOpen:
            destination: Open
            source: Locked
            filter: "level != 0"
            properties:
              status: { default: 2 }
              rank: { value: "$source.level * 10" }
        """

    /// O1 owns, in order, Open A1, Locked L1, Open A2, Locked L2 (level 0: filtered out),
    /// Locked L3 (no owner); L1 is tagged T1 and T2.
    static func scenario(mapping: String = merge) throws -> MigrationScenario {
        let s = try MigrationScenario("Board", versions: [v1, v2])
        try s.writeMapping("1-to-2.yaml", mapping)
        try s.withObjects { access in
            try access.insert("Owner", values: ["name": .string("O1")])
            try access.insert("Tag", values: ["label": .string("T1")])
            try access.insert("Tag", values: ["label": .string("T2")])
            try access.insert("Open", values: ["key": .string("A1"), "note": .string("a")], relationships: ["owner": [1]])
            try access.insert(
                "Locked", values: ["key": .string("L1"), "note": .string("l"), "level": .integer(3)], relationships: ["owner": [1], "tags": [1, 2]])
            try access.insert("Open", values: ["key": .string("A2")], relationships: ["owner": [1], "tags": [2]])
            try access.insert("Locked", values: ["key": .string("L2"), "level": .integer(0)], relationships: ["owner": [1]])
            try access.insert("Locked", values: ["key": .string("L3"), "level": .integer(1)])
        }
        return s
    }

    @Test func theFurtherMappingsObjectsJoinTheEntityWithTheirKeysRelationshipsAndPlaces() throws {
        let s = try Self.scenario()
        defer { s.remove() }
        let plan = try s.plan(verify: true)
        let rebuild = try #require(plan.allSteps.first { $0.table == "ZITEM" && $0.cost.movesRows })
        // Item's own objects, Open's, then the Lockeds made Opens.
        #expect(rebuild.sql.filter { $0.hasPrefix("INSERT INTO") }.count == 3)
        #expect(plan.warnings.map(\.message).contains { $0.contains("1 ") && $0.contains("Locked") }, "\(plan.warnings)")
        try Migrator().apply(plan)

        #expect(try s.storeVersion() == 2)
        let items = try s.fetch("Open")
        #expect(items.map(\.primaryKey) == [1, 2, 3, 5])
        #expect(items.map { $0.values["key"] } == [.string("A1"), .string("L1"), .string("A2"), .string("L3")])
        #expect(items.map { $0.values["status"] } == [.integer(1), .integer(2), .integer(1), .integer(2)])
        #expect(items.map { $0.values["rank"] ?? nil } == [nil, .integer(30), nil, .integer(10)])
        #expect(items.map { $0.values["note"] ?? nil } == [.string("a"), .string("l"), nil, nil])
        #expect(items.map { $0.relationships["tags"] ?? [] } == [[], [1, 2], [2], []])
        // L2 was not migrated: it leaves O1's list, which keeps its order.
        #expect(try s.fetch("Owner").map { $0.relationships["items"] ?? [] } == [[1, 2, 3]])
        #expect(try s.fetch("Tag").map { $0.relationships["items"] ?? [] } == [[2], [2, 3]])
        #expect(try s.rows("SELECT DISTINCT Z_ENT FROM ZITEM").count == 1)
    }

    @Test func diffShowsTheFurtherMapping() throws {
        let s = try Self.scenario()
        defer { s.remove() }
        let (parsed, diagnostics, _) = MappingFile.parse(path: s.migrationsFolder + "/Board/1-to-2.yaml")
        #expect(diagnostics.isEmpty)
        let mapping = try MappingResolver.resolve(try s.model(), from: 1, to: 2, file: parsed)
        #expect(mapping.mappings(forDestination: "Open").map(\.name) == ["OpenToOpen", "LockedToOpen"])
        #expect(mapping.mappings(forDestination: "Open").last?.source == "Locked")
        #expect(mapping.mappings(forDestination: "Open").last?.filter == "level != 0")
        #expect(!mapping.entityMappings.contains { $0.kind == .remove && $0.source == "Locked" })
    }

    @Test func aMergeFromAnotherTableIsRefusedNamingBothTables() throws {
        let v1 = """
            entities:
              Comment: { attributes: { text: string } }
              ReaderComment: { attributes: { text: string } }
            """
        let v2 = """
            entities:
              Comment: { attributes: { text: string } }
            """
        let s = try MigrationScenario("Blog", versions: [v1, v2])
        defer { s.remove() }
        try s.writeMapping("1-to-2.yaml", "entities:\n  ReaderCommentToComment: { destination: Comment, source: ReaderComment }\n")
        try s.withObjects { access in try access.insert("ReaderComment", values: ["text": .string("r")]) }
        let error = try #require(throws: PlanningError.self) { try s.plan() }
        #expect(error.kind == .noPath)
        #expect(
            error.message
                == "Comment: the entity mappings CommentToComment and ReaderCommentToComment read objects stored in ZCOMMENT and "
                + "ZREADERCOMMENT; a merge keeps each object's key, so its sources must share one table (entities of one hierarchy)")
    }

    @Test func aFurtherMappingWhoseSourceKeepsAToManyElsewhereIsRefused() throws {
        let v1 = """
            entities:
              Tag: { attributes: { label: string }, relationships: { lockeds: { destination: Locked, toMany: true, inverse: tags } } }
              Item: { attributes: { key: string } }
              Open: { parent: Item }
              Locked: { parent: Item, relationships: { tags: { destination: Tag, toMany: true, inverse: lockeds } } }
            """
        let v2 = """
            entities:
              Tag: { attributes: { label: string }, relationships: { opens: { destination: Open, toMany: true, inverse: tags } } }
              Item: { attributes: { key: string } }
              Open: { parent: Item, relationships: { tags: { destination: Tag, toMany: true, inverse: opens } } }
            """
        let s = try MigrationScenario("Board", versions: [v1, v2])
        defer { s.remove() }
        try s.writeMapping("1-to-2.yaml", "entities:\n  LockedToOpen: { destination: Open, source: Locked }\n")
        let error = try #require(throws: PlanningError.self) { try s.plan() }
        #expect(error.message.hasPrefix("Open.tags: entity mapping LockedToOpen reads it from Z_"), "\(error.message)")
        #expect(error.message.hasSuffix("a merge carries a to-many relationship only where both sources inherit it from one parent (one storage)"))
    }

    @Test func fileProblemsOfAFurtherMappingAreNamedWithTheirLines() throws {
        let s = try Self.scenario(
            mapping: """
                entities:
                  LockedToOpen:
                    destination: Opn
                    source: Locked
                  Open2:
                    destination: Open
                  Open:
                    destination: Open
                    source: Locked
                  TwiceToOpen:
                    destination: Open
                    source: Open
                  PolicyToOpen:
                    destination: Open
                    source: Locked
                    policy: Merger
                """)
        defer { s.remove() }
        let error = try #require(throws: DiagnosticsError.self) { try s.plan() }
        #expect(
            error.diagnostics.map { "\($0.location?.line ?? 0) \($0.message)" } == [
                "2 entity mapping 'LockedToOpen': destination 'Opn' is not an entity of Board version 2",
                "5 entity mapping 'Open2': a further mapping into Open needs `source:` (the entity of version 1 it makes Opens of)",
                "7 entity mapping 'Open': 'Open' is an entity of version 2; a further mapping into Open needs a name of its own",
                "10 entity mapping 'TwiceToOpen': another mapping already makes Opens of Open: each Open would become two Opens",
                "13 entity mapping 'PolicyToOpen': policy Merger: a further mapping into Open runs set-based; a policy on it is not supported",
            ])
    }
}
