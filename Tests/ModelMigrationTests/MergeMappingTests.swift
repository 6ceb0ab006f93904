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
            try access.insert(
                "Open", values: ["key": .string("A1"), "note": .string("a")], relationships: ["owner": [1]])
            try access.insert(
                "Locked", values: ["key": .string("L1"), "note": .string("l"), "level": .integer(3)],
                relationships: ["owner": [1], "tags": [1, 2]])
            try access.insert("Open", values: ["key": .string("A2")], relationships: ["owner": [1], "tags": [2]])
            try access.insert(
                "Locked", values: ["key": .string("L2"), "level": .integer(0)], relationships: ["owner": [1]])
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
        #expect(
            plan.warnings.map(\.message).contains { $0.contains("1 ") && $0.contains("Locked") }, "\(plan.warnings)")
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

    static let blog1 = """
        entities:
          Post:
            attributes: { key: string }
            relationships:
              comments: { destination: Comment, toMany: true, ordered: true, inverse: post }
              readerComments: { destination: ReaderComment, toMany: true, inverse: post }
          Comment:
            attributes: { key: string, text: string? }
            relationships:
              post: { destination: Post, inverse: comments, optional: true }
          ReaderComment:
            attributes: { key: string, body: string? }
            relationships:
              post: { destination: Post, inverse: readerComments, optional: true }
              notes: { destination: Note, toMany: true, inverse: about }
          Note:
            attributes: { key: string }
            relationships:
              about: { destination: ReaderComment, inverse: notes, optional: true }
        """
    static let blog2 = """
        entities:
          Post:
            attributes: { key: string }
            relationships:
              comments: { destination: Comment, toMany: true, ordered: true, inverse: post }
          Comment:
            attributes: { key: string, text: string?, fromReader: { type: boolean, default: false } }
            relationships:
              post: { destination: Post, inverse: comments, optional: true }
              notes: { destination: Note, toMany: true, inverse: about }
          Note:
            attributes: { key: string }
            relationships:
              about: { destination: Comment, inverse: notes, optional: true }
        """

    /// WordPress-iOS's `ReaderCommentToComment` beside `CommentToComment`: two root
    /// entities, so the ReaderComments take new keys in ZCOMMENT, and the Note that
    /// pointed at one follows it.
    @Test func objectsMergedFromAnotherTableTakeNewKeysAndEveryReferenceFollows() throws {
        let s = try MigrationScenario("Blog", versions: [Self.blog1, Self.blog2])
        defer { s.remove() }
        try s.writeMapping(
            "1-to-2.yaml",
            """
            entities:
              ReaderCommentToComment:
                destination: Comment
                source: ReaderComment
                properties:
                  text: $source.body
                  fromReader: { default: true }
            """)
        try s.withObjects { access in
            try access.insert("Post", values: ["key": .string("P1")])
            try access.insert(
                "Comment", values: ["key": .string("C1"), "text": .string("c")], relationships: ["post": [1]])
            try access.insert("Comment", values: ["key": .string("C2")], relationships: ["post": [1]])
            try access.insert(
                "ReaderComment", values: ["key": .string("R1"), "body": .string("r")], relationships: ["post": [1]])
            try access.insert("ReaderComment", values: ["key": .string("R2")])
            try access.insert("Note", values: ["key": .string("N1")], relationships: ["about": [2]])
        }
        let plan = try s.plan(verify: true)
        #expect(plan.warnings.isEmpty, "\(plan.warnings)")
        #expect(
            plan.allSteps.first?.summary.hasPrefix(
                "give the ReaderComment objects entity mapping ReaderCommentToComment") == true)
        try Migrator().apply(plan)

        let comments = try s.fetch("Comment")
        #expect(comments.map(\.primaryKey) == [1, 2, 3, 4])
        #expect(comments.map { $0.values["key"] } == [.string("C1"), .string("C2"), .string("R1"), .string("R2")])
        #expect(comments.map { $0.values["text"] ?? nil } == [.string("c"), nil, .string("r"), nil])
        #expect(
            comments.map { $0.values["fromReader"] } == [
                .boolean(false), .boolean(false), .boolean(true), .boolean(true),
            ])
        #expect(comments.map { $0.relationships["notes"] ?? [] } == [[], [], [], [1]])
        // The post lists its own comments first, then the merged one.
        #expect(try s.fetch("Post").map { $0.relationships["comments"] ?? [] } == [[1, 2, 3]])
        #expect(try s.fetch("Note").map { $0.relationships["about"] ?? [] } == [[4]])
        #expect(try s.rows("SELECT count(*) FROM sqlite_master WHERE name = 'ZREADERCOMMENT'") == [[.integer(0)]])
        #expect(try s.entityKeys().first { $0.name == "Comment" }?.maxKey == 4)
    }

    @Test func aMergeFromAnotherTableOfAnEntityWithSubentitiesIsRefused() throws {
        let v1 = """
            entities:
              Comment: { attributes: { text: string } }
              ReaderComment: { attributes: { text: string } }
              PinnedComment: { parent: ReaderComment }
            """
        let v2 = """
            entities:
              Comment: { attributes: { text: string } }
            """
        let s = try MigrationScenario("Blog", versions: [v1, v2])
        defer { s.remove() }
        try s.writeMapping(
            "1-to-2.yaml", "entities:\n  ReaderCommentToComment: { destination: Comment, source: ReaderComment }\n")
        let error = try #require(throws: PlanningError.self) { try s.plan() }
        #expect(error.kind == .noPath)
        #expect(
            error.message
                == "Comment: entity mapping ReaderCommentToComment merges ReaderComment objects from ZREADERCOMMENT "
                + "into ZCOMMENT, "
                + "and ReaderComment has subentities (PinnedComment): objects merged from another table take new keys, "
                + "which this toolkit gives an entity without subentities only")
    }

    @Test func aFurtherMappingWhoseSourceKeepsAToManyElsewhereIsRefused() throws {
        let v1 = """
            entities:
              Tag: { attributes: { label: string }, relationships: { lockeds: { destination: Locked, toMany: true, \
            inverse: tags } } }
              Item: { attributes: { key: string } }
              Open: { parent: Item }
              Locked: { parent: Item, relationships: { tags: { destination: Tag, toMany: true, inverse: lockeds } } }
            """
        let v2 = """
            entities:
              Tag: { attributes: { label: string }, relationships: { opens: { destination: Open, toMany: true, \
            inverse: tags } } }
              Item: { attributes: { key: string } }
              Open: { parent: Item, relationships: { tags: { destination: Tag, toMany: true, inverse: opens } } }
            """
        let s = try MigrationScenario("Board", versions: [v1, v2])
        defer { s.remove() }
        try s.writeMapping("1-to-2.yaml", "entities:\n  LockedToOpen: { destination: Open, source: Locked }\n")
        let error = try #require(throws: PlanningError.self) { try s.plan() }
        #expect(error.message.hasPrefix("Open.tags: entity mapping LockedToOpen reads it from Z_"), "\(error.message)")
        #expect(
            error.message.hasSuffix(
                """
                a merge carries a to-many relationship, or a one-to-one, only where both sources inherit it from one \
                parent (one storage, read one way)
                """
            ))
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
                """
                5 entity mapping 'Open2': a further mapping into Open needs `source:` (the entity of version 1 it \
                makes Opens of)
                """,
                """
                7 entity mapping 'Open': 'Open' is an entity of version 2; a further mapping into Open needs a name of \
                its own
                """,
                """
                10 entity mapping 'TwiceToOpen': another mapping already makes Opens of Open: each Open would become \
                two Opens
                """,
                """
                13 entity mapping 'PolicyToOpen': policy Merger: a further mapping into Open runs set-based; a policy \
                on it is not supported
                """,
            ])
    }

    /// What a merge cannot make, refused in the file with its line: objects of an
    /// abstract entity, objects another mapping also makes, properties the destination
    /// does not have (named by the mapping).
    @Test func aFurtherMappingIntoAnAbstractEntityOrOfASourceAnotherReadsIsRefusedAtItsLine() throws {
        let v1 = """
            entities:
              Item: { abstract: true, attributes: { key: string } }
              Open: { parent: Item }
              Locked: { parent: Item }
              Archive: { attributes: { key: string } }
            """
        let v2 = """
            entities:
              Item: { abstract: true, attributes: { key: string } }
              Open: { parent: Item }
              Archive: { attributes: { key: string } }
            """
        let s = try MigrationScenario("Board", versions: [v1, v2])
        defer { s.remove() }
        try s.writeMapping(
            "1-to-2.yaml",
            """
            entities:
              LockedToItem:
                destination: Item
                source: Locked
              LockedToOpen:
                destination: Open
                source: Locked
                properties:
                  nope: { default: 1 }
                filter: "nothing > 1"
              ArchiveToOpen:
                destination: Open
                source: Archive
            """)
        let error = try #require(throws: DiagnosticsError.self) { try s.plan() }
        #expect(
            error.diagnostics.map { "\($0.location?.line ?? 0) \($0.message)" } == [
                """
                2 entity mapping 'LockedToItem': Item is abstract in version 2: it has no objects of its own, so none \
                can be made of Locked
                """,
                "9 property 'LockedToOpen.nope': not a property of Open in version 2",
                "10 entity mapping 'LockedToOpen': filter: Locked has no attribute or relationship 'nothing'",
                "11 entity mapping 'ArchiveToOpen': ArchiveToArchive also makes objects of Archive: "
                    + "a merge takes a source entity no other mapping reads",
            ], "\(error.diagnostics.map(\.message))")
    }

    /// A one-to-one the further source declares itself (Core Data keeps one owner per
    /// target through inverse maintenance, which depends on the order the stages run),
    /// and an ordered many-to-many the two mappings read in opposite directions (the
    /// further source's order would be lost): refused, naming the relationship.
    @Test func aOneToOneOrAnOrderedManyToManyOfTheFurtherSourcesOwnIsRefused() throws {
        let v1 = """
            entities:
              Note: { attributes: { key: string }, relationships: {
                pinned: { destination: Open, inverse: pinNote, optional: true },
                lockers: { destination: Locked, toMany: true, inverse: pinNote } } }
              Item: { attributes: { key: string } }
              Open: { parent: Item, relationships: { pinNote: { destination: Note, inverse: pinned, optional: true } } }
              Locked: { parent: Item, relationships: { pinNote: { destination: Note, inverse: lockers, optional: true \
            } } }
            """
        let v2 = """
            entities:
              Note: { attributes: { key: string }, relationships: { pinned: { destination: Open, inverse: pinNote, \
            optional: true } } }
              Item: { attributes: { key: string } }
              Open: { parent: Item, relationships: { pinNote: { destination: Note, inverse: pinned, optional: true } } }
            """
        let s = try MigrationScenario("Board", versions: [v1, v2])
        defer { s.remove() }
        try s.writeMapping("1-to-2.yaml", "entities:\n  LockedToOpen: { destination: Open, source: Locked }\n")
        let error = try #require(throws: PlanningError.self) { try s.plan() }
        #expect(
            error.message
                == "Open.pinNote: entity mapping LockedToOpen copies it from Locked.pinNote, Open's own mapping from "
                + "Open.pinNote, "
                + "and its inverse pinned is a to-one: a merge carries a one-to-one only where both sources inherit it "
                + "from one parent "
                + "(two objects could otherwise point at one)")

        let tags1 = """
            entities:
              Comment: { attributes: { key: string } }
              Reader: { attributes: { key: string }, relationships: { tags: { destination: Tag, toMany: true, ordered: \
            true, inverse: readers } } }
              Tag: { attributes: { key: string }, relationships: { readers: { destination: Reader, toMany: true, \
            ordered: true, inverse: tags } } }
            """
        let tags2 = """
            entities:
              Comment: { attributes: { key: string }, relationships: { tags: { destination: Tag, toMany: true, \
            ordered: true, inverse: readers } } }
              Tag: { attributes: { key: string }, relationships: { readers: { destination: Comment, toMany: true, \
            ordered: true, inverse: tags } } }
            """
        let t = try MigrationScenario("Blog", versions: [tags1, tags2])
        defer { t.remove() }
        try t.writeMapping("1-to-2.yaml", "entities:\n  ReaderToComment: { destination: Comment, source: Reader }\n")
        let ordered = try #require(throws: PlanningError.self) { try t.plan() }
        #expect(
            ordered.message.hasPrefix("Comment.tags: entity mapping ReaderToComment reads it from Z_"),
            "\(ordered.message)")
        #expect(ordered.message.contains("the other way round (its order would be lost)"))
    }

    /// Siblings with to-ones of their own into one ordered list each: the merged
    /// objects join the kept list only through its inverse, so they come after its own
    /// members, in key order; an object in no list gets no position. A `minCount` the
    /// merged members meet is proved after the copy, not refused before it.
    @Test func mergedMembersOfAnOrderedListComeAfterItsOwnAndCountTowardsItsMinimum() throws {
        let v1 = """
            entities:
              Holder: { attributes: { key: string }, relationships: {
                opens: { destination: Open, toMany: true, ordered: true, inverse: owner },
                lockeds: { destination: Locked, toMany: true, ordered: true, inverse: owner } } }
              Item: { attributes: { key: string } }
              Open: { parent: Item, relationships: { owner: { destination: Holder, inverse: opens, optional: true } } }
              Locked: { parent: Item, relationships: { owner: { destination: Holder, inverse: lockeds, optional: true \
            } } }
            """
        let v2 = """
            entities:
              Holder: { attributes: { key: string }, relationships: {
                opens: { destination: Open, toMany: true, ordered: true, inverse: owner, minCount: 3 } } }
              Item: { attributes: { key: string } }
              Open: { parent: Item, relationships: { owner: { destination: Holder, inverse: opens, optional: true } } }
            """
        let s = try MigrationScenario("Board", versions: [v1, v2])
        defer { s.remove() }
        try s.writeMapping("1-to-2.yaml", "entities:\n  LockedToOpen: { destination: Open, source: Locked }\n")
        try s.withObjects { access in
            try access.insert("Holder", values: ["key": .string("H1")])
            try access.insert("Locked", values: ["key": .string("L1")], relationships: ["owner": [1]])
            try access.insert("Open", values: ["key": .string("O2")], relationships: ["owner": [1]])
            try access.insert("Locked", values: ["key": .string("L3")], relationships: ["owner": [1]])
            try access.insert("Locked", values: ["key": .string("L4")])
        }
        try s.migrate(verify: true)
        #expect(try s.fetch("Holder").map { $0.relationships["opens"] ?? [] } == [[2, 1, 3]])
        let positions = try s.rows("SELECT Z_PK, Z_FOK_OWNER IS NULL FROM ZITEM ORDER BY Z_PK")
        #expect(positions.map { $0[1] } == [.integer(0), .integer(0), .integer(0), .integer(1)], "\(positions)")
    }
}
