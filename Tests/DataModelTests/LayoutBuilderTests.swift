import Foundation
import Testing

@testable import DataModel

/// The storage layout of `Fixtures/Models/Library`: single-table inheritance under an
/// abstract root, a many-to-many join table, a self-inverse join table and `Z_FOK_`
/// order columns.
@Suite struct LayoutBuilderTests {
    // MARK: - Helpers

    private static let library = ModelText.fixtures + "/Models/Library"

    private func library() throws -> CompiledModel {
        let result = ModelLoader.load(path: Self.library)
        #expect(result.diagnostics == [])
        return try #require(try result.compiledModels().first)
    }

    private typealias Column = StorageLayout.Column

    private func key(_ name: String, _ role: StorageLayout.Role) -> Column {
        Column(name: name, type: "INTEGER", role: role)
    }
    private func pk() -> Column { key("Z_PK", .primaryKey) }
    private func ent() -> Column { key("Z_ENT", .entityNumber) }
    private func opt() -> Column { key("Z_OPT", .changeCounter) }
    private func attribute(_ name: String, _ type: String, _ entity: String, _ property: String) -> Column {
        Column(name: name, type: type, role: .attribute(entity: entity, property: property))
    }

    private func index(
        _ name: String, _ table: String, _ columns: [String], descending: Set<String> = [],
        unique: Bool = false, condition: String? = nil
    ) -> StorageLayout.Index {
        StorageLayout.Index(
            name: name, table: table, columns: columns.map { .init(name: $0, isDescending: descending.contains($0)) },
            isUnique: unique, condition: condition)
    }

    private var version1Tables: [StorageLayout.Table] {
        [
            .init(
                name: "ZAUTHOR", entity: "Author", joinRelationship: nil,
                columns: [pk(), ent(), opt(), attribute("ZNAME", "VARCHAR", "Author", "name")], primaryKey: ["Z_PK"]),
            .init(
                name: "ZGENRE", entity: "Genre", joinRelationship: nil,
                columns: [pk(), ent(), opt(), attribute("ZNAME", "VARCHAR", "Genre", "name")], primaryKey: ["Z_PK"]),
            // Book's rows live in its abstract root's table; columns come by type class,
            // then entity, attributes before relationships; the order of Author.books
            // sits beside the to-one foreign key of its inverse.
            .init(
                name: "ZWORK", entity: "Work", joinRelationship: nil,
                columns: [
                    pk(), ent(), opt(),
                    attribute("ZPAGECOUNT", "INTEGER", "Book", "pageCount"),
                    key("ZAUTHOR", .toOne(entity: "Book", relationship: "author")),
                    key("Z_FOK_AUTHOR", .order(entity: "Author", relationship: "books")),
                    attribute("ZPUBLISHEDON", "TIMESTAMP", "Work", "publishedOn"),
                    attribute("ZTITLE", "VARCHAR", "Work", "title"),
                    attribute("ZISBN", "VARCHAR", "Book", "isbn"),
                ], primaryKey: ["Z_PK"]),
            // A self-inverse many-to-many: the second key column gets a numeric suffix.
            .init(
                name: "Z_1FRIENDS", entity: "Author", joinRelationship: "Author.friends",
                columns: [
                    key("Z_1FRIENDS", .joinKey(entity: "Author", relationship: "friends")),
                    key("Z_1FRIENDS1", .joinKey(entity: "Author", relationship: "friends")),
                ], primaryKey: ["Z_1FRIENDS", "Z_1FRIENDS1"]),
            // Named after the side with the lower entity number (Genre, 2), as most
            // stores Core Data wrote show.
            .init(
                name: "Z_2BOOKS", entity: "Genre", joinRelationship: "Genre.books",
                columns: [
                    key("Z_2GENRES", .joinKey(entity: "Genre", relationship: "genres")),
                    key("Z_4BOOKS", .joinKey(entity: "Book", relationship: "books")),
                ], primaryKey: ["Z_2GENRES", "Z_4BOOKS"]),
        ]
    }

    // MARK: - Tests

    @Test func version1() throws {
        let layout = try #require(try library().version(1)).layout
        #expect(layout.entityNumbers == ["Author": 1, "Genre": 2, "Work": 3, "Book": 4])
        #expect(layout.tables == version1Tables)
        #expect(
            layout.indexes == [
                index("Z_1FRIENDS_Z_1FRIENDS1_INDEX", "Z_1FRIENDS", ["Z_1FRIENDS1", "Z_1FRIENDS"]),
                index("Z_2BOOKS_Z_4BOOKS_INDEX", "Z_2BOOKS", ["Z_4BOOKS", "Z_2GENRES"]),
                index("Z_Genre_UNIQUE_name", "ZGENRE", ["ZNAME"], unique: true),
                index("ZWORK_ZAUTHOR_INDEX", "ZWORK", ["ZAUTHOR"]),
                index("ZWORK_Z_ENT_INDEX", "ZWORK", ["Z_ENT"]),
                index("Z_Work_UNIQUE_title", "ZWORK", ["ZTITLE"], unique: true),
                // A subentity's constraint covers its own rows only.
                index("Z_Book_UNIQUE_isbn", "ZWORK", ["ZISBN"], unique: true, condition: "Z_ENT IN (4)"),
            ])
        #expect(layout.table(forEntity: "Work")?.name == "ZWORK")
        #expect(layout.table(forEntity: "Author")?.name == "ZAUTHOR")
        #expect(
            layout.table(named: "ZWORK")?.column(for: .order(entity: "Author", relationship: "books"))?.name
                == "Z_FOK_AUTHOR")
    }

    @Test func version2() throws {
        let layout = try #require(try library().version(2)).layout
        #expect(layout.entityNumbers == ["Author": 1, "Genre": 2, "Work": 3, "Book": 4, "Magazine": 5])
        var tables = version1Tables
        tables[2].columns.insert(attribute("ZISSUE", "INTEGER", "Magazine", "issue"), at: 6)
        // Genre.books became ordered: its order column joins the join table.
        tables[4].columns.append(key("Z_FOK_4BOOKS", .order(entity: "Genre", relationship: "books")))
        #expect(layout.tables == tables)
        #expect(
            layout.indexes == [
                index("Z_1FRIENDS_Z_1FRIENDS1_INDEX", "Z_1FRIENDS", ["Z_1FRIENDS1", "Z_1FRIENDS"]),
                index("Z_2BOOKS_Z_4BOOKS_INDEX", "Z_2BOOKS", ["Z_4BOOKS", "Z_2GENRES"]),
                index("ZAUTHOR_ZNAME_INDEX", "ZAUTHOR", ["ZNAME"]),
                index("Z_Genre_UNIQUE_name", "ZGENRE", ["ZNAME"], unique: true),
                index("ZWORK_ZAUTHOR_INDEX", "ZWORK", ["ZAUTHOR"]),
                index("ZWORK_Z_ENT_INDEX", "ZWORK", ["Z_ENT"]),
                index("Z_Work_UNIQUE_title", "ZWORK", ["ZTITLE"], unique: true),
                index("Z_Book_UNIQUE_isbn", "ZWORK", ["ZISBN"], unique: true, condition: "Z_ENT IN (4)"),
                index("Z_Book_byPages", "ZWORK", ["ZPAGECOUNT"], descending: ["ZPAGECOUNT"]),
            ])
    }

    @Test func orderedManyToManyOnTheStoringSide() throws {
        let version = try ModelText.compile(
            """
            model: M
            version: 1
            entities:
              Post:
                relationships:
                  tags: { destination: Tag, toMany: true, ordered: true, inverse: posts }
              Tag:
                relationships:
                  posts: { destination: Post, toMany: true, inverse: tags }

            """)
        #expect(
            version.layout.tables.filter { $0.joinRelationship != nil } == [
                .init(
                    name: "Z_1TAGS", entity: "Post", joinRelationship: "Post.tags",
                    columns: [
                        key("Z_1POSTS", .joinKey(entity: "Post", relationship: "posts")),
                        key("Z_2TAGS", .joinKey(entity: "Tag", relationship: "tags")),
                        key("Z_FOK_2TAGS", .order(entity: "Post", relationship: "tags")),
                    ], primaryKey: ["Z_1POSTS", "Z_2TAGS"])
            ])
    }

    /// Core Data keeps the owner's key on the destination row, `Z<n><NAME>`
    /// (Apple's DocSet index: `ZPARAMETER.Z16PARAMETERS`), not in a join table.
    @Test func toManyWithoutInverseKeepsTheOwnersKeyOnTheDestination() throws {
        let version = try ModelText.compile(
            """
            model: M
            version: 1
            entities:
              List:
                relationships:
                  items: { destination: Item, toMany: true, ordered: true }
              Item:
                attributes: { name: string }

            """)
        #expect(version.layout.entityNumbers == ["Item": 1, "List": 2])
        #expect(
            version.layout.tables.map { "\($0.name): \($0.columns.map(\.name).joined(separator: " "))" } == [
                "ZITEM: Z_PK Z_ENT Z_OPT Z2ITEMS Z_FOK_2ITEMS ZNAME",
                "ZLIST: Z_PK Z_ENT Z_OPT",
            ])
        #expect(version.layout.indexes.map(\.name) == ["ZITEM_Z2ITEMS_INDEX"])
    }

    @Test func columnNamesThatClashGetASuffix() throws {
        let version = try ModelText.compile(
            """
            model: M
            version: 1
            entities:
              Shape:
                attributes: { size: integer32 }
              Square:
                parent: Shape
                attributes: { side: double }
              Circle:
                parent: Shape
                attributes: { side: string }

            """)
        #expect(
            version.layout.tables.map { $0.columns.map { "\($0.name) \($0.type)" } } == [
                ["Z_PK INTEGER", "Z_ENT INTEGER", "Z_OPT INTEGER", "ZSIZE INTEGER", "ZSIDE1 FLOAT", "ZSIDE VARCHAR"]
            ])
        #expect(version.layout.entityNumbers == ["Shape": 1, "Circle": 2, "Square": 3])
        #expect(
            version.layout.table(named: "ZSHAPE")?.column(for: .attribute(entity: "Square", property: "side"))?.name
                == "ZSIDE1")
    }

    /// Join columns holding one entity's keys are unique across join tables, claimed
    /// in the order of the owning entities' names (Wire's stores Core Data created:
    /// `Z_9USERS (Z_9SYSTEMMESSAGES, Z_14USERS1)` and `Z_12USERS (Z_12REACTIONS, Z_14USERS)`).
    @Test func joinColumnsOfOneDestinationAreUniqueAcrossJoinTables() throws {
        let version = try ModelText.compile(
            """
            model: Chat
            version: 1
            entities:
              Message:
                attributes: { text: string? }
              SystemMessage:
                parent: Message
                relationships:
                  users: { destination: User, toMany: true, inverse: systemMessages }
              Reaction:
                relationships:
                  users: { destination: User, toMany: true, inverse: reactions }
              User:
                relationships:
                  systemMessages: { destination: SystemMessage, toMany: true, inverse: users }
                  reactions: { destination: Reaction, toMany: true, inverse: users }
            """)
        #expect(version.layout.entityNumbers == ["Message": 1, "SystemMessage": 2, "Reaction": 3, "User": 4])
        let joins = version.layout.tables.filter { $0.joinRelationship != nil }.map {
            "\($0.name)(\($0.columns.map(\.name).joined(separator: ",")))"
        }
        #expect(joins == ["Z_2USERS(Z_2SYSTEMMESSAGES,Z_4USERS1)", "Z_3USERS(Z_3REACTIONS,Z_4USERS)"])
    }
}
