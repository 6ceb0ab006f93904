import DataModel
import Mapping
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// A relationship whose destination entity is renamed by the mapping file's
/// `source:` (`PersistedDraft: source: Draft`, as a mapping model's entity mapping
/// `DraftToPersistedDraft` renames it; held-out Olvid 6 → 7): the related objects are
/// carried over with their keys, so the relationship is copied, not refused as a
/// destination "changed to an unrelated entity".
@Suite struct RenamedDestinationTests {
    static let v1 = """
        entities:
          Discussion:
            attributes: { title: string }
            relationships:
              draft: { destination: Draft, inverse: discussion, optional: true }
          Draft:
            attributes: { body: string }
            relationships:
              discussion: { destination: Discussion, inverse: draft, optional: true }
        """
    static let v2 = v1.replacingOccurrences(of: "destination: Draft,", with: "destination: PersistedDraft,")
        .replacingOccurrences(of: "  Draft:\n", with: "  PersistedDraft:\n")

    @Test func aRelationshipIntoARenamedEntityIsCopied() throws {
        let s = try MigrationScenario("Chats", versions: [Self.v1, Self.v2])
        defer { s.remove() }
        try s.withObjects { access in
            try access.insert("Discussion", values: ["title": .string("a")])
            try access.insert("Discussion", values: ["title": .string("b")])
            try access.insert("Draft", values: ["body": .string("x")], relationships: ["discussion": [2]])
        }
        // Without the file, inference cannot pair Draft with PersistedDraft.
        #expect { try s.plan() } throws: {
            "\($0)".contains("Discussion.draft: destination changed from Draft to PersistedDraft, an unrelated entity")
        }
        try s.directory.write("Migrations/Chats/1-to-2.yaml", "entities:\n  PersistedDraft:\n    source: Draft\n")
        try Migrator().apply(try s.plan(verify: true))
        #expect(try s.fetch("Discussion").map { $0.relationships["draft"] ?? [] } == [[], [1]])
        #expect(
            try s.fetch("PersistedDraft").map {
                [$0.values["body"], $0.relationships["discussion"].map { .integer($0[0]) }]
            }
                == [[.string("x"), .integer(2)]])
    }
}
