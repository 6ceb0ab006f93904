import DataModel
import Foundation
import TestSupport
import Testing

@testable import SQLiteStore

/// One optional attribute of every type (TestSupport).
private let typesModel = TestModels.everyOptionalType

/// Every kind of relationship: to-one with a to-many inverse (Book.publisher), ordered
/// to-many (Author.books), many-to-many (Book.tags), one-to-one (Author.profile).
private let libraryModel = """
    entities:
      Author:
        attributes:
          name: string
        relationships:
          books: { destination: Book, toMany: true, ordered: true, inverse: author }
          profile: { destination: Profile, inverse: author }
      Book:
        attributes:
          title: string
        relationships:
          author: { destination: Author, inverse: books }
          publisher: { destination: Publisher, inverse: books }
          tags: { destination: Tag, toMany: true, inverse: books }
      Profile:
        attributes:
          bio: string?
        relationships:
          author: { destination: Author, inverse: profile }
      Publisher:
        attributes:
          name: string
        relationships:
          books: { destination: Book, toMany: true, inverse: publisher }
      Tag:
        attributes:
          name: string
        relationships:
          books: { destination: Book, toMany: true, inverse: tags }
    """

/// A temporary store with object access, removed by `remove()`.
struct Fixture {
    let directory: TemporaryDirectory
    let store: Store
    let access: ObjectAccess

    init(_ model: String, yaml: String) throws {
        directory = try TemporaryDirectory(prefix: "ObjectAccessTests")
        let (store, version) = try directory.createStore(model: model, yaml: yaml)
        self.store = store
        access = try ObjectAccess(store: store, version: version)
    }

    func remove() {
        try? store.close()
        directory.remove()
    }

    /// Every row of a query.
    func rows(_ sql: String) throws -> [[DatabaseValue]] {
        try store.connection.prepare(sql).rows()
    }

    /// Inserts one Sample with `values` and reads it back.
    func roundTrip(_ values: [String: AttributeValue]) throws -> StoredObject? {
        let key = try access.insert("Sample", values: values)
        return try access.object("Sample", primaryKey: key)
    }
}

@Suite struct ObjectAccessTests {
    // MARK: Attribute values at their limits

    @Test(arguments: [
        ("i16", Int64(Int16.min)), ("i16", Int64(Int16.max)),
        ("i32", Int64(Int32.min)), ("i32", Int64(Int32.max)),
        ("i64", Int64.min), ("i64", Int64.max), ("i64", 0),
    ])
    func integersAtTheirLimitsRoundTrip(attribute: String, value: Int64) throws {
        let f = try Fixture("Types", yaml: typesModel)
        defer { f.remove() }
        let object = try f.roundTrip([attribute: .integer(value)])
        #expect(object == StoredObject(entity: "Sample", primaryKey: 1, values: [attribute: .integer(value)]))
        let column = "Z" + attribute.uppercased()
        #expect(
            try f.rows("SELECT \(column), typeof(\(column)) FROM ZSAMPLE") == [[.integer(value), .text("integer")]])
    }

    @Test(arguments: [
        ("i16", Int64(Int16.max) + 1, "Sample.i16: 32768 is out of range for integer16"),
        ("i16", Int64(Int16.min) - 1, "Sample.i16: -32769 is out of range for integer16"),
        ("i32", Int64(Int32.max) + 1, "Sample.i32: 2147483648 is out of range for integer32"),
        ("i32", Int64(Int32.min) - 1, "Sample.i32: -2147483649 is out of range for integer32"),
    ])
    func integersOutOfRangeAreRefused(attribute: String, value: Int64, message: String) throws {
        let f = try Fixture("Types", yaml: typesModel)
        defer { f.remove() }
        let error = try #require(throws: StoreError.self) {
            try f.access.insert("Sample", values: [attribute: .integer(value)])
        }
        #expect(error.kind == .invalidObject)
        #expect(error.message == message)
        #expect(error.description == "\(f.store.path): \(message)")
        // Nothing written: no row, and no primary key used up.
        #expect(try f.rows("SELECT count(*) FROM ZSAMPLE") == [[.integer(0)]])
        #expect(try f.store.entityKeyRows() == [EntityKeyRow(number: 1, name: "Sample", parent: 0, maxKey: 0)])
    }

    @Test func aValueOfTheWrongKindIsRefused() throws {
        let f = try Fixture("Types", yaml: typesModel)
        defer { f.remove() }
        let cases: [(String, AttributeValue, String)] = [
            ("i16", .string("12"), "Sample.i16: expected an integer16 value"),
            ("flag", .integer(1), "Sample.flag: expected a boolean value"),
            ("token", .string("0f8fad5b-d9cb-469f-a165-70867728950e"), "Sample.token: expected a uuid value"),
            ("weight", .double(3.5e38), "Sample.weight: 3.5e+38 is out of range for float"),
        ]
        for (attribute, value, message) in cases {
            let error = try #require(throws: StoreError.self) {
                try f.access.insert("Sample", values: [attribute: value])
            }
            #expect(error.message == message)
        }
        #expect(try f.access.count("Sample") == 0)
    }

    @Test(arguments: [
        "0.10", "-0.10", "0", "12345678901234567890123456789012345678",
        "-1234567890123456789.0123456789012345678", "0.00000000000000000000000000000000000001", "1.5e-127",
    ])
    func decimalsReadBackAsTheSameText(text: String) throws {
        let f = try Fixture("Types", yaml: typesModel)
        defer { f.remove() }
        let object = try f.roundTrip(["amount": .decimal(text)])
        #expect(object?.values == ["amount": .decimal(text)])
        #expect(try f.rows("SELECT ZAMOUNT, typeof(ZAMOUNT) FROM ZSAMPLE") == [[.text(text), .text("text")]])
    }

    @Test(arguments: [
        Double.leastNonzeroMagnitude, Double.leastNormalMagnitude, Double.greatestFiniteMagnitude,
        -Double.greatestFiniteMagnitude, 0.1, -1.5, 1e-300, 123_456_789.125, 9_007_199_254_740_992,
    ])
    func doublesRoundTripBitForBit(value: Double) throws {
        let f = try Fixture("Types", yaml: typesModel)
        defer { f.remove() }
        let object = try f.roundTrip(["ratio": .double(value)])
        let read = try #require(object?.values["ratio"])
        guard case .double(let back) = read else {
            Issue.record("read \(read)")
            return
        }
        #expect(back.bitPattern == value.bitPattern)
        #expect(try f.rows("SELECT ZRATIO, typeof(ZRATIO) FROM ZSAMPLE") == [[.real(value), .text("real")]])
    }

    /// SQLite writes an integral real in a column of REAL affinity (Core Data's FLOAT)
    /// as an integer, so -0.0 comes back as 0.0: the sign of zero is not kept.
    @Test func negativeZeroComesBackAsPositiveZero() throws {
        let f = try Fixture("Types", yaml: typesModel)
        defer { f.remove() }
        let object = try f.roundTrip(["ratio": .double(-0.0)])
        let read = try #require(object?.values["ratio"])
        guard case .double(let back) = read else {
            Issue.record("read \(read)")
            return
        }
        #expect(back == 0)
        #expect(back.sign == .plus)
    }

    @Test func floatsAreStoredAtSinglePrecision() throws {
        let f = try Fixture("Types", yaml: typesModel)
        defer { f.remove() }
        let cases: [(Double, Double)] = [
            (0.1, 0.10000000149011612),
            (Double(Float.greatestFiniteMagnitude), 3.4028234663852886e+38),
            (-2.5, -2.5),
            (Double(Float.leastNonzeroMagnitude), 1.401298464324817e-45),
        ]
        for (value, stored) in cases {
            let key = try f.access.insert("Sample", values: ["weight": .double(value)])
            #expect(try f.access.object("Sample", primaryKey: key)?.values == ["weight": .double(stored)])
            #expect(try f.rows("SELECT ZWEIGHT FROM ZSAMPLE WHERE Z_PK = \(key)") == [[.real(stored)]])
        }
    }

    @Test func stringsRoundTrip() throws {
        let f = try Fixture("Types", yaml: typesModel)
        defer { f.remove() }
        let long = String(repeating: "0123456789abcdef", count: 65_536)  // 1 MiB
        let cases: [(String, Int64, Int64)] = [  // text, length() in characters, in bytes
            ("", 0, 0),
            ("Grüße aus Zürich — ½ € 東京 ☃", 27, 41),
            ("👩‍👩‍👧‍👦 🏳️‍🌈", 12, 40),
            ("tab\tnewline\nquote\"backslash\\", 28, 28),
            (long, 1_048_576, 1_048_576),
        ]
        for (text, characters, bytes) in cases {
            let key = try f.access.insert("Sample", values: ["text": .string(text)])
            #expect(try f.access.object("Sample", primaryKey: key)?.values == ["text": .string(text)])
            #expect(
                try f.rows(
                    "SELECT typeof(ZTEXT), length(ZTEXT), length(CAST(ZTEXT AS BLOB)) FROM ZSAMPLE WHERE Z_PK = \(key)")
                    == [[.text("text"), .integer(characters), .integer(bytes)]])
        }
        #expect(
            try f.rows("SELECT hex(ZTEXT) FROM ZSAMPLE WHERE Z_PK = 3")
                == [[.text("F09F91A9E2808DF09F91A9E2808DF09F91A7E2808DF09F91A620F09F8FB3EFB88FE2808DF09F8C88")]])
    }

    @Test func booleansAreStoredAsZeroAndOne() throws {
        let f = try Fixture("Types", yaml: typesModel)
        defer { f.remove() }
        #expect(try f.roundTrip(["flag": .boolean(true)])?.values == ["flag": .boolean(true)])
        #expect(try f.roundTrip(["flag": .boolean(false)])?.values == ["flag": .boolean(false)])
        #expect(
            try f.rows("SELECT ZFLAG, typeof(ZFLAG) FROM ZSAMPLE ORDER BY Z_PK") == [
                [.integer(1), .text("integer")], [.integer(0), .text("integer")],
            ])
    }

    @Test func datesAreSecondsSinceTheReferenceDateAsReal() throws {
        let f = try Fixture("Types", yaml: typesModel)
        defer { f.remove() }
        // 2026-04-05T06:07:08.123456Z; 1970-01-01T00:00:00.5Z; a microsecond after 2001.
        let cases: [Double] = [797_062_028.123456, -978_307_199.5, 0.000001]
        for seconds in cases {
            let key = try f.access.insert("Sample", values: ["stamp": .date(seconds)])
            #expect(try f.access.object("Sample", primaryKey: key)?.values == ["stamp": .date(seconds)])
        }
        #expect(
            try f.rows("SELECT ZSTAMP, typeof(ZSTAMP) FROM ZSAMPLE ORDER BY Z_PK")
                == [
                    [.real(797_062_028.123456), .text("real")], [.real(-978_307_199.5), .text("real")],
                    [.real(0.000001), .text("real")],
                ])
        #expect(ISO8601.format(secondsSinceReferenceDate: 797_062_028.123456) == "2026-04-05T06:07:08.123456Z")
        // Whole seconds are stored as integers (NUMERIC affinity) and read back as dates.
        #expect(try f.roundTrip(["stamp": .date(86_400)])?.values == ["stamp": .date(86_400)])
        #expect(
            try f.rows("SELECT ZSTAMP, typeof(ZSTAMP) FROM ZSAMPLE WHERE Z_PK = 4") == [
                [.integer(86_400), .text("integer")]
            ])
    }

    @Test func binaryDataRoundTrips() throws {
        let f = try Fixture("Types", yaml: typesModel)
        defer { f.remove() }
        let chunk = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
        var large: [UInt8] = []
        for _ in 0..<512 { large += chunk }  // 2 MiB
        let cases: [[UInt8]] = [[], [0, 0, 0], [0xFF, 0x00, 0x7F, 0x80], large]
        for bytes in cases {
            let key = try f.access.insert("Sample", values: ["payload": .binary(bytes)])
            #expect(try f.access.object("Sample", primaryKey: key)?.values == ["payload": .binary(bytes)])
        }
        #expect(
            try f.rows(
                "SELECT typeof(ZPAYLOAD), length(ZPAYLOAD), hex(substr(ZPAYLOAD, 1, 4)) FROM ZSAMPLE ORDER BY Z_PK")
                == [
                    [.text("blob"), .integer(0), .text("")],
                    [.text("blob"), .integer(3), .text("000000")],
                    [.text("blob"), .integer(4), .text("FF007F80")],
                    [.text("blob"), .integer(2_097_152), .text("001F3E5D")],
                ])
    }

    @Test func uuidsAreSixteenByteBlobs() throws {
        let f = try Fixture("Types", yaml: typesModel)
        defer { f.remove() }
        let object = try f.roundTrip(["token": .uuid("0f8fad5b-d9cb-469f-a165-70867728950e")])
        #expect(object?.values == ["token": .uuid("0f8fad5b-d9cb-469f-a165-70867728950e")])
        #expect(
            try f.rows("SELECT typeof(ZTOKEN), length(ZTOKEN), hex(ZTOKEN) FROM ZSAMPLE")
                == [[.text("blob"), .integer(16), .text("0F8FAD5BD9CB469FA16570867728950E")]])
    }

    @Test func urisAndTransformablesRoundTrip() throws {
        let f = try Fixture("Types", yaml: typesModel)
        defer { f.remove() }
        let archive: [UInt8] = Array("bplist00".utf8) + [0xD1, 0x01, 0x02, 0x00, 0xFF]
        let object = try f.roundTrip(["link": .uri("https://example.com/a%20b?q=1#frag"), "opaque": .binary(archive)])
        #expect(object?.values == ["link": .uri("https://example.com/a%20b?q=1#frag"), "opaque": .binary(archive)])
        #expect(
            try f.rows("SELECT ZLINK, typeof(ZLINK), typeof(ZOPAQUE), hex(ZOPAQUE) FROM ZSAMPLE")
                == [
                    [
                        .text("https://example.com/a%20b?q=1#frag"), .text("text"), .text("blob"),
                        .text("62706C6973743030D1010200FF"),
                    ]
                ])
    }

    @Test func absentValuesAreNullAndReadBackAbsent() throws {
        let f = try Fixture("Types", yaml: typesModel)
        defer { f.remove() }
        #expect(try f.roundTrip([:]) == StoredObject(entity: "Sample", primaryKey: 1))
        let row = try #require(try f.rows("SELECT * FROM ZSAMPLE").first)
        #expect(row == [.integer(1), .integer(1), .integer(1)] + Array(repeating: .null, count: 13))
    }

    // MARK: Required values and defaults

    @Test func requiredValuesAndDefaults() throws {
        let directory = try TemporaryDirectory(prefix: "ObjectAccessTests")
        defer { directory.remove() }
        let model = try TestModels.contacts()
        let store = try directory.createStore(version: model.versions[0])
        let access = try ObjectAccess(store: store, version: model.versions[0])
        let error = try #require(throws: StoreError.self) {
            try access.insert("Person", values: ["email": .string("ann@example.com")])
        }
        #expect(error.message == "Person.fullName: a value is required")
        let key = try access.insert(
            "Person", values: ["fullName": .string("Ann Lee"), "email": .string("ann@example.com")])
        #expect(
            try access.object("Person", primaryKey: key)
                == StoredObject(
                    entity: "Person", primaryKey: 1,
                    values: [
                        "fullName": .string("Ann Lee"), "email": .string("ann@example.com"), "age": .integer(0),
                        "createdAt": .date(788_918_400),
                    ],
                    relationships: ["posts": []]))
        let post = try #require(throws: StoreError.self) {
            try access.insert("Post", values: ["title": .string("Hello")])
        }
        #expect(post.message == "Post.author: the relationship is required")
        let unknown = try #require(throws: StoreError.self) {
            try access.insert("Person", values: ["nickname": .string("A")])
        }
        #expect(unknown.message == "Person.nickname: no such attribute")
        let entity = try #require(throws: StoreError.self) { try access.count("Robot") }
        #expect(entity.kind == .unknownEntity)
        #expect(entity.message == "unknown entity 'Robot' (model Contacts version 1 has Person, Post)")
        #expect(try store.entityKeyRows().map(\.maxKey) == [1, 0])
    }

    @Test func abstractEntitiesAndSubentities() throws {
        let directory = try TemporaryDirectory(prefix: "ObjectAccessTests")
        defer { directory.remove() }
        let v3 = try TestModels.contacts().versions[2]
        let store = try directory.createStore(version: v3)
        let access = try ObjectAccess(store: store, version: v3)
        let error = try #require(throws: StoreError.self) {
            try access.insert("Product", values: ["name": .string("Lamp"), "sku": .string("L-1")])
        }
        #expect(error.message == "Product: the entity is abstract and cannot have objects of its own")
        let key = try access.insert(
            "FavoriteProduct", values: ["name": .string("Lamp"), "sku": .string("L-1"), "price": .decimal("19.90")])
        #expect(try access.count("Product") == 1)
        #expect(try access.count("Product", includeSubentities: false) == 0)
        #expect(
            try access.fetch("Product") == [
                StoredObject(
                    entity: "FavoriteProduct", primaryKey: key,
                    values: ["name": .string("Lamp"), "sku": .string("L-1"), "price": .decimal("19.90")],
                    relationships: ["fans": []])
            ])
        #expect(
            try store.connection.prepare("SELECT Z_PK, Z_ENT, ZPRICE FROM ZPRODUCT").rows() == [
                [.integer(1), .integer(4), .text("19.90")]
            ])
    }

    // MARK: Relationships

    @Test func libraryLayout() throws {
        let f = try Fixture("Library", yaml: libraryModel)
        defer { f.remove() }
        #expect(f.access.layout.entityNumbers == ["Author": 1, "Book": 2, "Profile": 3, "Publisher": 4, "Tag": 5])
        #expect(
            SchemaSQL.create(f.access.layout) == [
                #"""
                CREATE TABLE "ZAUTHOR" ( "Z_PK" INTEGER PRIMARY KEY, "Z_ENT" INTEGER, "Z_OPT" INTEGER, \#
                "ZPROFILE" INTEGER, "ZNAME" VARCHAR )
                """#,
                #"""
                CREATE TABLE "ZBOOK" ( "Z_PK" INTEGER PRIMARY KEY, "Z_ENT" INTEGER, "Z_OPT" INTEGER, "ZAUTHOR" \#
                INTEGER, "Z_FOK_AUTHOR" INTEGER, "ZPUBLISHER" INTEGER, "ZTITLE" VARCHAR )
                """#,
                #"""
                CREATE TABLE "ZPROFILE" ( "Z_PK" INTEGER PRIMARY KEY, "Z_ENT" INTEGER, "Z_OPT" INTEGER, "ZAUTHOR" \#
                INTEGER, "ZBIO" VARCHAR )
                """#,
                #"""
                CREATE TABLE "ZPUBLISHER" ( "Z_PK" INTEGER PRIMARY KEY, "Z_ENT" INTEGER, "Z_OPT" INTEGER, "ZNAME" \#
                VARCHAR )
                """#,
                #"""
                CREATE TABLE "ZTAG" ( "Z_PK" INTEGER PRIMARY KEY, "Z_ENT" INTEGER, "Z_OPT" INTEGER, "ZNAME" VARCHAR )
                """#,
                #"""
                CREATE TABLE "Z_2TAGS" ( "Z_2BOOKS" INTEGER, "Z_5TAGS" INTEGER, PRIMARY KEY ("Z_2BOOKS", "Z_5TAGS") )
                """#,
                #"""
                CREATE INDEX "Z_2TAGS_Z_5TAGS_INDEX" ON "Z_2TAGS" ("Z_5TAGS" COLLATE BINARY ASC, "Z_2BOOKS" COLLATE \#
                BINARY ASC)
                """#,
                #"CREATE INDEX "ZAUTHOR_ZPROFILE_INDEX" ON "ZAUTHOR" ("ZPROFILE" COLLATE BINARY ASC)"#,
                #"CREATE INDEX "ZBOOK_ZAUTHOR_INDEX" ON "ZBOOK" ("ZAUTHOR" COLLATE BINARY ASC)"#,
                #"CREATE INDEX "ZBOOK_ZPUBLISHER_INDEX" ON "ZBOOK" ("ZPUBLISHER" COLLATE BINARY ASC)"#,
                #"CREATE INDEX "ZPROFILE_ZAUTHOR_INDEX" ON "ZPROFILE" ("ZAUTHOR" COLLATE BINARY ASC)"#,
            ])
    }

    @Test func toOneAndItsToManyInverse() throws {
        let f = try Fixture("Library", yaml: libraryModel)
        defer { f.remove() }
        let acme = try f.access.insert("Publisher", values: ["name": .string("Acme")])
        let first = try f.access.insert("Book", values: ["title": .string("One")], relationships: ["publisher": [acme]])
        let loose = try f.access.insert("Book", values: ["title": .string("Loose")])
        let second = try f.access.insert(
            "Book", values: ["title": .string("Two")], relationships: ["publisher": [acme]])
        // The to-many side sets the inverse column of its destinations.
        let zenith = try f.access.insert(
            "Publisher", values: ["name": .string("Zenith")], relationships: ["books": [loose]])
        #expect(
            try f.rows("SELECT Z_PK, ZPUBLISHER FROM ZBOOK ORDER BY Z_PK")
                == [
                    [.integer(first), .integer(acme)], [.integer(loose), .integer(zenith)],
                    [.integer(second), .integer(acme)],
                ])
        #expect(try f.access.fetch("Publisher").map(\.relationships) == [["books": [1, 3]], ["books": [2]]])
        #expect(
            try f.access.object("Book", primaryKey: second)?.relationships == [
                "author": [], "publisher": [acme], "tags": [],
            ])
        let missing = try #require(throws: StoreError.self) {
            try f.access.insert("Book", values: ["title": .string("X")], relationships: ["publisher": [99]])
        }
        #expect(missing.message == "Book.publisher: no Publisher with primary key 99")
        let two = try #require(throws: StoreError.self) {
            try f.access.insert("Book", values: ["title": .string("X")], relationships: ["publisher": [1, 2]])
        }
        #expect(two.message == "Book.publisher: a to-one relationship takes one key, found 2")
        #expect(try f.access.count("Book") == 3)
    }

    @Test func orderedToManyKeepsItsOrderInTheOrderColumn() throws {
        let f = try Fixture("Library", yaml: libraryModel)
        defer { f.remove() }
        for title in ["A", "B", "C"] { try f.access.insert("Book", values: ["title": .string(title)]) }
        let author = try f.access.insert(
            "Author", values: ["name": .string("Ann")], relationships: ["books": [3, 1, 2]])
        #expect(
            try f.rows("SELECT Z_PK, ZAUTHOR, Z_FOK_AUTHOR FROM ZBOOK ORDER BY Z_PK") == [
                [.integer(1), .integer(author), .integer(2)],
                [.integer(2), .integer(author), .integer(3)],
                [.integer(3), .integer(author), .integer(1)],
            ])
        #expect(try f.access.object("Author", primaryKey: author)?.relationships["books"] == [3, 1, 2])
        // A book naming its author goes at the end of the author's list.
        let fourth = try f.access.insert("Book", values: ["title": .string("D")], relationships: ["author": [author]])
        #expect(try f.rows("SELECT Z_FOK_AUTHOR FROM ZBOOK WHERE Z_PK = \(fourth)") == [[.integer(4)]])
        #expect(try f.access.object("Author", primaryKey: author)?.relationships["books"] == [3, 1, 2, 4])
        #expect(try f.access.object("Book", primaryKey: 3)?.relationships["author"] == [author])
    }

    @Test func manyToManyWritesJoinTableRows() throws {
        let f = try Fixture("Library", yaml: libraryModel)
        defer { f.remove() }
        let swift = try f.access.insert("Tag", values: ["name": .string("swift")])
        let sql = try f.access.insert("Tag", values: ["name": .string("sql")])
        let book = try f.access.insert(
            "Book", values: ["title": .string("One")], relationships: ["tags": [sql, swift]])
        let other = try f.access.insert("Book", values: ["title": .string("Two")])
        // From the other side: the tag's books.
        let data = try f.access.insert(
            "Tag", values: ["name": .string("data")], relationships: ["books": [other, book]])
        #expect(
            try f.rows("SELECT Z_2BOOKS, Z_5TAGS FROM Z_2TAGS ORDER BY Z_2BOOKS, Z_5TAGS") == [
                [.integer(book), .integer(swift)], [.integer(book), .integer(sql)], [.integer(book), .integer(data)],
                [.integer(other), .integer(data)],
            ])
        #expect(try f.access.object("Book", primaryKey: book)?.relationships["tags"] == [1, 2, 3])
        #expect(try f.access.object("Tag", primaryKey: data)?.relationships["books"] == [1, 2])
        #expect(try f.access.object("Tag", primaryKey: swift)?.relationships["books"] == [1])
        let twice = try #require(throws: StoreError.self) {
            try f.access.insert("Book", values: ["title": .string("X")], relationships: ["tags": [1, 1]])
        }
        #expect(twice.message == "Book.tags: the same object is listed twice")
        #expect(try f.rows("SELECT count(*) FROM Z_2TAGS") == [[.integer(4)]])
    }

    @Test func oneToOneSetsBothSides() throws {
        let f = try Fixture("Library", yaml: libraryModel)
        defer { f.remove() }
        let profile = try f.access.insert("Profile", values: ["bio": .string("Writes.")])
        let ann = try f.access.insert("Author", values: ["name": .string("Ann")], relationships: ["profile": [profile]])
        let bob = try f.access.insert("Author", values: ["name": .string("Bob")])
        let bobsProfile = try f.access.insert("Profile", values: [:], relationships: ["author": [bob]])
        #expect(
            try f.rows("SELECT Z_PK, ZPROFILE FROM ZAUTHOR ORDER BY Z_PK") == [
                [.integer(ann), .integer(profile)], [.integer(bob), .integer(bobsProfile)],
            ])
        #expect(
            try f.rows("SELECT Z_PK, ZAUTHOR FROM ZPROFILE ORDER BY Z_PK") == [
                [.integer(profile), .integer(ann)], [.integer(bobsProfile), .integer(bob)],
            ])
        #expect(try f.access.object("Author", primaryKey: ann)?.relationships == ["books": [], "profile": [profile]])
        #expect(try f.access.object("Profile", primaryKey: profile)?.relationships == ["author": [ann]])
        #expect(
            try f.access.object("Author", primaryKey: bob)?.relationships == ["books": [], "profile": [bobsProfile]])
        #expect(try f.access.object("Profile", primaryKey: bobsProfile)?.relationships == ["author": [bob]])
    }

    // MARK: Primary keys

    @Test func primaryKeysComeFromZPrimaryKey() throws {
        let f = try Fixture("Library", yaml: libraryModel)
        defer { f.remove() }
        #expect(try f.access.insert("Tag", values: ["name": .string("a")]) == 1)
        #expect(try f.access.insert("Tag", values: ["name": .string("b")], primaryKey: 10) == 10)
        #expect(try f.access.insert("Tag", values: ["name": .string("c")]) == 11)
        let used = try #require(throws: StoreError.self) {
            try f.access.insert("Tag", values: ["name": .string("d")], primaryKey: 10)
        }
        #expect(used.kind == .invalidObject)
        #expect(used.message == "Tag: primary key 10 is already used by Tag 10")
        #expect(try f.rows("SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 5") == [[.text("Tag"), .integer(11)]])
        #expect(try f.access.exists("Tag", primaryKey: 10))
        #expect(try !f.access.exists("Tag", primaryKey: 2))
        #expect(try f.access.fetch("Tag", limit: 2).map(\.primaryKey) == [1, 10])
    }
}
