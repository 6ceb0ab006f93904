import Foundation
import MigrationPolicies
import ModelMigration
import TestSupport
import Testing

/// On Person (Contacts 1 → 2): reports each person's posts, loaded through
/// `objects("posts")`, and what wrong relationship names do.
struct PersonNavigator: EntityMigrationPolicy {
    mutating func createDestinationInstances(for source: SourceObject, in manager: MigrationManager) throws {
        try manager.insert(try manager.createDestinationInstance(for: source))
        let posts = try source.objects("posts")
        let authors = try posts.map { try $0.object("author")?.primaryKey.description ?? "nil" }
        PolicyLog.record(
            """
            Person \(source.primaryKey) posts \(posts.map { "\($0.entity) \($0.primaryKey) \($0.string("title")!)" }) \
            by \(authors)
            """
        )
        guard source.primaryKey == 1 else { return }
        for attempt in [
            { _ = try source.object("posts") }, { _ = try source.object("nope") }, { _ = try source.objects("nope") },
        ] {
            do {
                try attempt()
                PolicyLog.record("no error")
            } catch {
                PolicyLog.record("\(type(of: error)): \(error)")
            }
        }
    }
}

/// On Post (Contacts 1 → 2): reports each post's author, loaded through
/// `object("author")`, and the same through `objects("author")`.
struct PostNavigator: EntityMigrationPolicy {
    mutating func createDestinationInstances(for source: SourceObject, in manager: MigrationManager) throws {
        try manager.insert(try manager.createDestinationInstance(for: source))
        let author = try source.object("author")
        let viaObjects = try source.objects("author").map(\.primaryKey)
        PolicyLog.record(
            """
            Post \(source.primaryKey) by \
            \(author.map { "\($0.entity) \($0.primaryKey) \($0.string("fullName") ?? "nil")" } ?? "nobody") \
            \(viaObjects)
            """)
    }
}

/// On Person (Contacts 3 → 4): reports the typed getters of a person and of its posts.
struct SourceValueProbe: EntityMigrationPolicy {
    mutating func createDestinationInstances(for source: SourceObject, in manager: MigrationManager) throws {
        try manager.insert(try manager.createDestinationInstance(for: source))
        func show<T>(_ value: T?) -> String { value.map { "\($0)" } ?? "nil" }
        PolicyLog.record("keys \(source.values.keys.sorted())")
        PolicyLog.record(
            """
            string firstName \(show(source.string("firstName"))), homepage \(show(source.string("homepage"))), age \
            \(show(source.string("age")))
            """
        )
        PolicyLog.record("integer age \(show(source.integer("age"))), firstName \(show(source.integer("firstName")))")
        PolicyLog.record("double age \(show(source.double("age"))), bool age \(show(source.bool("age")))")
        PolicyLog.record(
            """
            date createdAt \(show(source.date("createdAt")?.timeIntervalSinceReferenceDate)), nickname \
            \(show(source.date("nickname")))
            """
        )
        PolicyLog.record("data avatar \(show(source.data("avatar"))), firstName \(show(source.data("firstName")))")
        PolicyLog.record("subscript externalID \(show(source["externalID"])), nickname \(show(source["nickname"]))")
        PolicyLog.record("uuid bytes \(show(source.data("externalID")?.count))")
        for post in try source.objects("posts") {
            PolicyLog.record(
                """
                post \(post.primaryKey): text \(show(post.string("text"))), rating \(show(post.double("rating"))), \
                draft \(show(post.bool("isDraft"))), words \(show(post.integer("wordCount"))), \
                published \(show(post.date("publishedAt")?.timeIntervalSinceReferenceDate))
                """)
        }
    }
}

/// `SourceObject`: typed access to values, and relationships loaded when asked.
@Suite struct PolicySourceObjectTests {
    @Test func relationshipsLoadRelatedSourceObjects() throws {
        let s = try MigrationScenario.contacts(mappings: [])
        defer { s.remove() }
        try s.writeMapping(
            "1-to-2.yaml", "entities:\n  Person:\n    policy: PersonNavigator\n  Post:\n    policy: PostNavigator\n")
        try ContactsData.seed(s)
        let log = try PolicyLog.capture { try s.migrateWithPolicies(to: 2) }
        #expect(
            log.filter { $0.hasPrefix("Person") } == [
                #"Person 1 posts ["Post 1 Hello", "Post 3 Again"] by ["1", "1"]"#,
                #"Person 2 posts [] by []"#,
                #"Person 3 posts ["Post 2 Hola"] by ["3"]"#,
                #"Person 4 posts [] by []"#,
                #"Person 5 posts ["Post 4 Hej"] by ["5"]"#,
                #"Person 6 posts [] by []"#,
                #"Person 7 posts [] by []"#,
            ])
        #expect(
            log.filter { $0.hasPrefix("PolicyError") || $0 == "no error" } == [
                #"PolicyError: Person.posts is to-many; use objects("posts")"#,
                "PolicyError: Person has no relationship 'nope' in version 1",
                "PolicyError: Person has no relationship 'nope' in version 1",
            ])
        #expect(
            log.filter { $0.hasPrefix("Post") } == [
                "Post 1 by Person 1 Ann Lee [1]",
                "Post 2 by Person 3 Ana María García [3]",
                "Post 3 by Person 1 Ann Lee [1]",
                "Post 4 by Person 5 Zoë Ångström [5]",
            ])
        // Both entities rewritten by policies: the relationship still holds.
        #expect(try s.fetch("Post").map { $0.relationships["author"] } == [[1], [3], [1], [5]])
        #expect(try s.fetch("Person").map { $0.relationships["posts"] } == [[1, 3], [], [2], [], [4], [], []])
    }

    @Test func typedGetters() throws {
        let s = try MigrationScenario.contacts(storeVersion: 3, mappings: [])
        defer { s.remove() }
        try s.writeMapping("3-to-4.yaml", "entities:\n  Person:\n    policy: SourceValueProbe\n")
        try s.withObjects { o in
            try o.insert(
                "Person",
                values: [
                    "firstName": .string("Ann"), "email": .string("ann@example.com"), "age": .integer(30),
                    "avatar": .binary([1, 2, 3]),
                    "externalID": .uuid("6f9619ff-8b86-d011-b42d-00c04fc964ff"),
                    "homepage": .uri("https://example.com/ann"),
                    "createdAt": .date(1000.5),
                ])
            try o.insert(
                "Post",
                values: [
                    "title": .string("One"), "text": .string("Hi"), "rating": .double(4.25), "isDraft": .boolean(true),
                    "wordCount": .integer(12), "publishedAt": .date(-86400),
                ], relationships: ["author": [1]])
            try o.insert("Post", values: ["title": .string("Two")], relationships: ["author": [1]])
        }
        let log = try PolicyLog.capture { try s.migrateWithPolicies() }
        #expect(
            log.filter { !$0.hasPrefix("uuid") } == [
                """
                keys [\"age\", \"avatar\", \"createdAt\", \"email\", \"externalID\", \"firstName\", \"homepage\", \
                \"lastName\"]
                """,
                "string firstName Ann, homepage https://example.com/ann, age nil",
                "integer age 30, firstName nil",
                "double age 30.0, bool age nil",
                "date createdAt 1000.5, nickname nil",
                "data avatar [1, 2, 3], firstName nil",
                "subscript externalID 6f9619ff-8b86-d011-b42d-00c04fc964ff, nickname nil",
                "post 1: text Hi, rating 4.25, draft true, words 12, published -86400.0",
                "post 2: text nil, rating nil, draft false, words 0, published nil",
            ])
        // `data(_:)` documents "binary, transformable or UUID bytes".
        #expect(log.filter { $0.hasPrefix("uuid") } == ["uuid bytes 16"])
    }
}
