import DataModel
import Foundation
import JSONLines
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// One optional attribute of every type (TestSupport).
private let typesModel = TestModels.everyOptionalType

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
          tags: { destination: Tag, toMany: true, inverse: books }
      Profile:
        attributes:
          bio: string?
        relationships:
          author: { destination: Author, inverse: profile }
      Tag:
        attributes:
          name: string
        relationships:
          books: { destination: Book, toMany: true, inverse: tags }
    """

/// Members with a one-to-one loan, a required card and a unique email.
private let lendingModel = """
    entities:
      Card:
        attributes:
          number: integer32
      Loan:
        attributes:
          title: string
        relationships:
          member: { destination: Member, inverse: loan }
      Member:
        attributes:
          name: string
          email: string?
        relationships:
          card: { destination: Card, optional: false }
          loan: { destination: Loan, inverse: member }
        uniqueness: [[email]]
    """

/// A required to-one that another line can set through its inverse.
private let staffModel = """
    entities:
      Employee:
        attributes:
          name: string
        relationships:
          manager: { destination: Employee, inverse: reports, optional: false }
          reports: { destination: Employee, toMany: true, inverse: manager }
    """

private struct Fixture {
    let directory: TemporaryDirectory
    let version: CompiledVersion
    let store: Store
    let access: ObjectAccess

    init(_ model: String, yaml: String) throws {
        directory = try TemporaryDirectory(prefix: "ObjectJSONLinesTests")
        (store, version) = try directory.createStore(model: model, yaml: yaml)
        access = try ObjectAccess(store: store, version: version)
    }

    init(version: CompiledVersion) throws {
        directory = try TemporaryDirectory(prefix: "ObjectJSONLinesTests")
        self.version = version
        store = try directory.createStore(version: version)
        access = try ObjectAccess(store: store, version: version)
    }

    func remove() {
        try? store.close()
        directory.remove()
    }

    func dump(_ entity: String) throws -> [String] {
        var lines: [String] = []
        try ObjectJSONLines.dump(access, entity: entity) { lines.append($0) }
        return lines
    }

    /// A second, empty store of the same version.
    func emptyCopy() throws -> ObjectAccess {
        let other = try directory.createStore("copy.sqlite", version: version)
        return try ObjectAccess(store: other, version: version)
    }
}

@Suite struct ObjectJSONLinesTests {
    @Test func aLoadErrorIsAFailureWithItsLines() {
        let error = LoadError(
            problems: [.init(file: "in.jsonl", line: 4, field: "age", message: "1.5 is not a whole number")], count: 1)
        let outcome = Outcome(error)
        #expect(outcome.exitCode == 1)
        #expect(outcome.word == "failed")
        #expect(outcome.message == "in.jsonl:4: age: 1.5 is not a whole number")
    }

    // MARK: Round trips

    @Test func everyTypeRoundTripsAtItsLimits() throws {
        let f = try Fixture("Types", yaml: typesModel)
        defer { f.remove() }
        let input =
            [
                #"""
                {"i16":32767,"i32":2147483647,"i64":9223372036854775807,\#
                "amount":"12345678901234567890123456789012345678",\#
                "ratio":1.7976931348623157e+308,"weight":3.4028234663852886e+38,"text":"Grüße 東京 👩‍👩‍👧‍👦","flag":true,\#
                "stamp":"2026-04-05T06:07:08.123456Z","payload":"AP8Q","token":"0F8FAD5B-D9CB-469F-A165-70867728950E",\#
                "link":"https://example.com/a?b=c","opaque":"YnBsaXN0MDA="}
                """#,
                #"""
                {"i16":-32768,"i32":-2147483648,"i64":-9223372036854775808,"amount":"0.10","ratio":5e-324,\#
                "weight":-2.5,"text":"",\#
                "flag":false,"stamp":-978307199.5,"payload":"","token":null,"link":null,"opaque":null}
                """#,
                "",
                #"  {"_pk":7,"amount":0.10,"ratio":-0.0,"weight":0.1,"stamp":0.000001,"#
                    + #""text":"tab\tquote\"\\ \u00e9 \ud83c\udf89","i64":0}  "#,
            ].joined(separator: "\n") + "\n"
        #expect(try ObjectJSONLines.load(f.access, entity: "Sample", text: input, file: "samples.jsonl") == 3)
        let expected = [
            #"""
            {"_pk":1,"_entity":"Sample","amount":"12345678901234567890123456789012345678","flag":true,"i16":32767,\#
            "i32":2147483647,\#
            "i64":9223372036854775807,"link":"https://example.com/a?b=c","opaque":"YnBsaXN0MDA=","payload":"AP8Q",\#
            "ratio":1.7976931348623157e+308,"stamp":"2026-04-05T06:07:08.123456Z","text":"Grüße 東京 👩‍👩‍👧‍👦",\#
            "token":"0f8fad5b-d9cb-469f-a165-70867728950e","weight":3.4028235e+38}
            """#,
            #"""
            {"_pk":2,"_entity":"Sample","amount":"0.10","flag":false,"i16":-32768,"i32":-2147483648,\#
            "i64":-9223372036854775808,\#
            "link":null,"opaque":null,"payload":"","ratio":5e-324,"stamp":"1970-01-01T00:00:00.5Z","text":"",\#
            "token":null,"weight":-2.5}
            """#,
            // -0.0 loses its sign in a FLOAT column (SQLite keeps integral reals as integers).
            #"""
            {"_pk":7,"_entity":"Sample","amount":"0.10","flag":null,"i16":null,"i32":null,"i64":0,"link":null,\#
            "opaque":null,\#
            "payload":null,"ratio":0.0,"stamp":"2001-01-01T00:00:00.000001Z","text":"tab\tquote\"\\ é \#
            🎉","token":null,"weight":0.1}
            """#,
        ]
        let dumped = try f.dump("Sample")
        #expect(dumped == expected)
        #expect(
            try f.store.connection.prepare(
                "SELECT ZSTAMP, hex(ZTOKEN), length(ZPAYLOAD), ZAMOUNT FROM ZSAMPLE ORDER BY Z_PK"
            ).rows() == [
                [
                    .real(797_062_028.123456), .text("0F8FAD5BD9CB469FA16570867728950E"), .integer(3),
                    .text("12345678901234567890123456789012345678"),
                ],
                [.real(-978_307_199.5), .text(""), .integer(0), .text("0.10")],
                [.real(0.000001), .text(""), .null, .text("0.10")],
            ])

        // Dumped lines load into another store and dump to the same lines.
        let copy = try f.emptyCopy()
        #expect(
            try ObjectJSONLines.load(copy, entity: "Sample", text: dumped.joined(separator: "\n"), file: "dump.jsonl")
                == 3)
        var again: [String] = []
        try ObjectJSONLines.dump(copy, entity: "Sample") { again.append($0) }
        #expect(again == expected)
    }

    /// Lines as dump writes them and the same lines with a space after each colon
    /// (both read without a JSON tree, by FastRecordReader) store the same values, and
    /// lines the fast reader declines are refused in the general reader's words.
    /// (FastRecordTests holds the two readers equal on random lines.)
    @Test func theCommonRecordReadsAsTheGeneralReaderReadsIt() throws {
        let f = try Fixture("Types", yaml: typesModel)
        defer { f.remove() }
        let lines = [
            #"""
            {"_pk":3,"_entity":"Sample","flag":true,"i16":-32768,"i32":7,"i64":-0,"ratio":1e3,"text":"Zoë","weight":0.1}
            """#,
            #"{"flag":false,"i64":9223372036854775807,"ratio":-2.5E-3,"text":"","weight":null}"#,
            #"{}"#,
            #"{"i32":2147483647,"text":null,"ratio":7}  "#,
        ]
        let spaced = lines.map { $0.replacingOccurrences(of: "\":", with: "\": ") }
        #expect(
            try ObjectJSONLines.load(
                f.access, entity: "Sample", text: lines.joined(separator: "\n"), file: "fast.jsonl") == 4)
        let copy = try f.emptyCopy()
        #expect(
            try ObjectJSONLines.load(
                copy, entity: "Sample", text: spaced.joined(separator: "\n"), file: "general.jsonl") == 4)
        #expect(try f.access.fetch("Sample") == copy.fetch("Sample"))
        #expect(try f.access.fetch("Sample").map(\.primaryKey) == [3, 4, 5, 6])

        // Lines the fast reader declines (out of range, a fraction, a leading zero, a
        // key twice, another entity) are refused in the general reader's words.
        let refused = [
            #"{"i16":32768}"#, #"{"i32":1.5}"#, #"{"text":"a","text":"b"}"#, #"{"_entity":"Nothing"}"#,
            #"{"_pk":0}"#, #"{"flag":2}"#, #"{"nothing":1}"#,
        ]
        func problems(_ lines: [String], _ access: ObjectAccess) throws -> [String] {
            let error = try #require(throws: LoadError.self) {
                try ObjectJSONLines.load(access, entity: "Sample", text: lines.joined(separator: "\n"), file: "x.jsonl")
            }
            return error.problems.map(\.description)
        }
        let general = try problems(refused.map { $0.replacingOccurrences(of: "\":", with: "\": ") }, copy)
        let fast = try problems(refused, f.access)
        #expect(fast == general, "\(fast) vs \(general)")
        #expect(general.count == refused.count)
        // (A syntax error's byte offset moves with the spaces: compared alone.)
        #expect(
            try problems([#"{"i64":01}"#], f.access) == [
                "x.jsonl:1: invalid JSON at byte 9: a number cannot start with 0"
            ])
    }

    /// The reader splits at LF however the chunks fall, drops CRs before LF and a
    /// leading byte order mark, and takes a last line without a newline.
    @Test func linesAreReadAcrossChunks() throws {
        let text = "\u{FEFF}{\"a\":1}\r\n\n  \n{\"b\":\"" + String(repeating: "é", count: 40) + "\"}\n{\"c\":3}"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lines-\(getpid()).jsonl").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let descriptor = open(path, O_RDONLY)
        defer { close(descriptor) }
        let reader = JSONLinesReader(fileDescriptor: descriptor, chunkSize: 16)
        var lines: [(Int, String)] = []
        try reader.forEachLine { lines.append(($0, String(decoding: $1, as: UTF8.self))) }
        #expect(lines.map(\.0) == [1, 2, 3, 4, 5])
        #expect(
            lines.map(\.1) == [
                #"{"a":1}"#, "", "  ", #"{"b":""# + String(repeating: "é", count: 40) + #""}"#, #"{"c":3}"#,
            ])
        #expect(reader.bytesRead == Int64(text.utf8.count))
    }

    @Test func largeValuesRoundTrip() throws {
        let f = try Fixture("Types", yaml: typesModel)
        defer { f.remove() }
        let text = String(repeating: "Zürich ☃ ", count: 20_000)
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try f.access.insert(
            "Sample", values: ["text": .string(text), "payload": .binary(bytes), "opaque": .binary(bytes)])
        let dumped = try f.dump("Sample")
        let copy = try f.emptyCopy()
        try ObjectJSONLines.load(copy, entity: "Sample", text: dumped[0], file: "dump.jsonl")
        #expect(
            try copy.fetch("Sample") == [
                StoredObject(
                    entity: "Sample", primaryKey: 1,
                    values: ["text": .string(text), "payload": .binary(bytes), "opaque": .binary(bytes)])
            ])
    }

    @Test func relationshipsRoundTrip() throws {
        let f = try Fixture("Library", yaml: libraryModel)
        defer { f.remove() }
        try ObjectJSONLines.load(
            f.access, entity: "Tag",
            text: """
                {"name":"swift"}
                {"name":"sql"}
                """, file: "tags.jsonl")
        try ObjectJSONLines.load(
            f.access, entity: "Book",
            text: """
                {"title":"A","tags":[2,1]}
                {"title":"B","tags":[]}
                {"title":"C","tags":[1]}
                """, file: "books.jsonl")
        try ObjectJSONLines.load(
            f.access, entity: "Profile", text: #"{"_pk":5,"bio":"Writes."}"#, file: "profiles.jsonl")
        try ObjectJSONLines.load(
            f.access, entity: "Author", text: #"{"name":"Ann","books":[3,1,2],"profile":5}"#, file: "authors.jsonl")
        // Each pair is written once, on the side the store keeps it: Book.author (not
        // Author.books), Book.tags (its join table's side, not Tag.books).
        #expect(try f.dump("Author") == [#"{"_pk":1,"_entity":"Author","name":"Ann","profile":5}"#])
        // In Author.books' order (3, 1, 2), which a load rebuilds from the line order.
        #expect(
            try f.dump("Book") == [
                #"{"_pk":3,"_entity":"Book","_position":{"author":1},"author":1,"tags":[1],"title":"C"}"#,
                #"{"_pk":1,"_entity":"Book","_position":{"author":2},"author":1,"tags":[1,2],"title":"A"}"#,
                #"{"_pk":2,"_entity":"Book","_position":{"author":3},"author":1,"tags":[],"title":"B"}"#,
            ])
        #expect(
            try f.dump("Tag") == [
                #"{"_pk":1,"_entity":"Tag","name":"swift"}"#, #"{"_pk":2,"_entity":"Tag","name":"sql"}"#,
            ])
        // One-to-one: the pair is written on the side whose entity name sorts first.
        #expect(try f.dump("Profile") == [#"{"_pk":5,"_entity":"Profile","bio":"Writes."}"#])
        #expect(
            try f.store.connection.prepare("SELECT Z_PK, ZAUTHOR, Z_FOK_AUTHOR FROM ZBOOK ORDER BY Z_PK").rows() == [
                [.integer(1), .integer(1), .integer(2)], [.integer(2), .integer(1), .integer(3)],
                [.integer(3), .integer(1), .integer(1)],
            ])
    }

    /// `dump --all` writes an entity after the entities its lines name, so that a load
    /// sets each reference as it reads it: profiles, authors (naming profiles), tags,
    /// then books (naming authors and tags). In a cycle, the first name goes first.
    @Test func aWholeDumpWritesNamedEntitiesFirst() throws {
        let f = try Fixture("Library", yaml: libraryModel)
        defer { f.remove() }
        try ObjectJSONLines.load(f.access, entity: "Tag", text: #"{"name":"swift"}"#, file: "tags.jsonl")
        try ObjectJSONLines.load(f.access, entity: "Profile", text: #"{"bio":"Writes."}"#, file: "profiles.jsonl")
        try ObjectJSONLines.load(
            f.access, entity: "Author", text: #"{"name":"Ann","profile":1}"#, file: "authors.jsonl")
        try ObjectJSONLines.load(
            f.access, entity: "Book", text: #"{"title":"A","tags":[1],"author":1}"#, file: "books.jsonl")
        #expect(ObjectJSONLines.rootsInReferenceOrder(f.access) == ["Profile", "Author", "Tag", "Book"])
        var text = ""
        try ObjectJSONLines.dumpAll(f.access) { text += String(decoding: $0, as: UTF8.self) }
        #expect(
            text.split(separator: "\n") == [
                #"{"_pk":1,"_entity":"Profile","bio":"Writes."}"#,
                #"{"_pk":1,"_entity":"Author","name":"Ann","profile":1}"#,
                #"{"_pk":1,"_entity":"Tag","name":"swift"}"#,
                #"{"_pk":1,"_entity":"Book","_position":{"author":1},"author":1,"tags":[1],"title":"A"}"#,
            ])
        let cycle = try Fixture(
            "Cycle",
            yaml: """
                entities:
                  Zone:
                    relationships:
                      keeper: { destination: Keeper, optional: true }
                  Keeper:
                    relationships:
                      zone: { destination: Zone, optional: true }
                  Area:
                    relationships:
                      zone: { destination: Zone, optional: true }
                """)
        defer { cycle.remove() }
        #expect(ObjectJSONLines.rootsInReferenceOrder(cycle.access) == ["Keeper", "Zone", "Area"])
    }

    /// A dump loads back entity by entity into an empty store and dumps the same.
    @Test func dumpsLoadBack() throws {
        let f = try Fixture("Library", yaml: libraryModel)
        defer { f.remove() }
        for title in ["A", "B", "C"] { try f.access.insert("Book", values: ["title": .string(title)]) }
        try f.access.insert("Author", values: ["name": .string("Ann")], relationships: ["books": [3, 1, 2]])
        try f.access.insert("Tag", values: ["name": .string("swift")], relationships: ["books": [2]])
        let copy = try f.emptyCopy()
        for entity in ["Tag", "Author", "Book"] {
            try ObjectJSONLines.load(
                copy, entity: entity, text: try f.dump(entity).joined(separator: "\n"), file: "\(entity).jsonl")
        }
        for entity in ["Tag", "Author", "Book"] {
            var lines: [String] = []
            try ObjectJSONLines.dump(copy, entity: entity) { lines.append($0) }
            #expect(lines == (try f.dump(entity)))
        }
        #expect(try copy.count("Book") == 3)
        // The dump writes the to-one side (Book.author), in Author.books' order, and
        // load puts each book at the end of its author's list: the order comes back.
        #expect(try f.access.object("Author", primaryKey: 1)?.relationships["books"] == [3, 1, 2])
        #expect(try copy.object("Author", primaryKey: 1)?.relationships["books"] == [3, 1, 2])
    }

    /// Both sides of a one-to-one relationship are to-one; the dump writes the pair
    /// once (Author.profile), so Profile loads first and Author after it.
    @Test func oneToOneDumpsLoadBack() throws {
        let f = try Fixture("Library", yaml: libraryModel)
        defer { f.remove() }
        let profile = try f.access.insert("Profile", values: ["bio": .string("Writes.")])
        try f.access.insert("Author", values: ["name": .string("Ann")], relationships: ["profile": [profile]])
        #expect(try f.dump("Author") == [#"{"_pk":1,"_entity":"Author","name":"Ann","profile":1}"#])
        #expect(try f.dump("Profile") == [#"{"_pk":1,"_entity":"Profile","bio":"Writes."}"#])
        let copy = try f.emptyCopy()
        try ObjectJSONLines.load(copy, entity: "Profile", text: try f.dump("Profile")[0], file: "Profile.jsonl")
        try ObjectJSONLines.load(copy, entity: "Author", text: try f.dump("Author")[0], file: "Author.jsonl")
        #expect(try copy.object("Profile", primaryKey: 1)?.relationships["author"] == [1])
        #expect(try copy.object("Author", primaryKey: 1)?.relationships["profile"] == [1])
    }

    @Test func subentitiesAreNamedWithEntity() throws {
        let f = try Fixture(version: try TestModels.appleParity("SampleModel").versions[0])
        defer { f.remove() }
        try ObjectJSONLines.load(
            f.access, entity: "Car",
            text: """
                {"numberPlate":"A-1","maker":"FIAT"}
                {"_entity":"ExpensiveSportCar","numberPlate":"E-1","isLimitedEdition":true,\
                "markedForDeletionAsOf":"2026-01-31T09:30:00.25+02:00"}
                """, file: "cars.jsonl")
        #expect(
            try f.dump("Car") == [
                #"""
                {"_pk":1,"_entity":"Car","color":null,"maker":"FIAT","markedForDeletionAsOf":null,"model":null,\#
                "numberPlate":"A-1","owner":null}
                """#,
                #"""
                {"_pk":2,"_entity":"ExpensiveSportCar","color":null,"isLimitedEdition":true,"maker":null,\#
                "markedForDeletionAsOf":"2026-01-31T07:30:00.25Z","model":null,"numberPlate":"E-1","owner":null}
                """#,
            ])
        let error = try #require(throws: LoadError.self) {
            try ObjectJSONLines.load(f.access, entity: "SportCar", text: #"{"_entity":"Person"}"#, file: "cars.jsonl")
        }
        #expect(error.description == "cars.jsonl:1: _entity: 'Person' is not SportCar or one of its subentities")
    }

    // MARK: Refused records

    @Test(arguments: [
        (#"{"i16":"12"}"#, #"samples.jsonl:3: Sample.i16: expected an integer16 value, found the string "12""#),
        (#"{"i16":32768}"#, "samples.jsonl:3: Sample.i16: 32768 is out of range for integer16 (-32768...32767)"),
        (
            #"{"i32":-2147483649}"#,
            "samples.jsonl:3: Sample.i32: -2147483649 is out of range for integer32 (-2147483648...2147483647)"
        ),
        (
            #"{"i64":9223372036854775808}"#,
            """
            samples.jsonl:3: Sample.i64: 9223372036854775808 is out of range for integer64 \
            (-9223372036854775808...9223372036854775807)
            """
        ),
        (#"{"i64":1.5}"#, "samples.jsonl:3: Sample.i64: 1.5 is not a whole number, which integer64 holds"),
        (
            #"{"amount":"1234567890123456789012345678901234567890"}"#,
            "samples.jsonl:3: Sample.amount: '1234567890123456789012345678901234567890' has more than 38 significant "
                + "digits, which a decimal cannot "
                + "hold exactly"
        ),
        (
            #"{"amount":"1,5"}"#,
            """
            samples.jsonl:3: Sample.amount: '1,5' is not an exact decimal number (digits with an optional sign, point \
            and exponent)
            """
        ),
        (#"{"weight":1e39}"#, "samples.jsonl:3: Sample.weight: 1e39 is out of range for float"),
        (#"{"ratio":"NaN"}"#, #"samples.jsonl:3: Sample.ratio: expected a double value, found the string "NaN""#),
        (#"{"flag":"true"}"#, #"samples.jsonl:3: Sample.flag: expected a boolean value, found the string "true""#),
        (#"{"flag":2}"#, "samples.jsonl:3: Sample.flag: expected true or false, found 2"),
        (#"{"text":42}"#, "samples.jsonl:3: Sample.text: expected a string value as a string, found a number"),
        (
            #"{"stamp":"yesterday"}"#,
            """
            samples.jsonl:3: Sample.stamp: 'yesterday' is not an ISO 8601 date (2026-01-31, 2026-01-31T09:30:00Z or \
            with an offset like +02:00)
            """
        ),
        (
            #"{"token":"0f8fad5b"}"#,
            "samples.jsonl:3: Sample.token: '0f8fad5b' is not a UUID (8-4-4-4-12 hexadecimal digits)"
        ),
        (
            #"{"link":"example.com"}"#,
            "samples.jsonl:3: Sample.link: 'example.com' is not an absolute URI (scheme:rest, e.g. https://example.com)"
        ),
        (#"{"payload":"***"}"#, "samples.jsonl:3: Sample.payload: '***' is not base64-encoded binary data"),
        // A line's control characters are said as JSON writes them: no ESC reaches a
        // terminal, no newline splits the message.
        (
            #"{"stamp":"2026\u001b]0;x\u0007\n\u009b"}"#,
            #"samples.jsonl:3: Sample.stamp: '2026\u001b]0;x\u0007\n\u009b' is not an ISO 8601 date (2026-01-31, "#
                + "2026-01-31T09:30:00Z or with an offset like +02:00)"
        ),
        (
            #"{"col\rour\t":1}"#,
            #"samples.jsonl:3: Sample.col\rour\t: no such attribute or relationship (Sample has amount, flag, i16, "#
                + "i32, i64, link, opaque, payload, ratio, stamp, text, token, weight)"
        ),
        (#"{"payload":[1,2]}"#, "samples.jsonl:3: Sample.payload: expected a binary value, found an array"),
        (
            #"{"colour":"red"}"#,
            """
            samples.jsonl:3: Sample.colour: no such attribute or relationship \
            (Sample has amount, flag, i16, i32, i64, link, opaque, payload, ratio, stamp, text, token, weight)
            """
        ),
        (#"{"text":"a","text":"b"}"#, "samples.jsonl:3: Sample.text: the field appears twice"),
        (#"{"_pk":0}"#, "samples.jsonl:3: _pk: expected a positive integer, found 0"),
        (#"[1,2]"#, "samples.jsonl:3: expected a JSON object, found an array"),
        (#"{"i16":1,"#, "samples.jsonl:3: invalid JSON at byte 10: expected a quoted key"),
        (#"{"text":"unclosed}"#, "samples.jsonl:3: invalid JSON at byte 19: unclosed string"),
        (#"{"i16" 1}"#, "samples.jsonl:3: invalid JSON at byte 8: expected ':' after a key"),
        (#"{"i16":01}"#, "samples.jsonl:3: invalid JSON at byte 9: a number cannot start with 0"),
    ])
    func aBadThirdLineLoadsNothing(line: String, message: String) throws {
        let f = try Fixture("Types", yaml: typesModel)
        defer { f.remove() }
        let text = #"{"i16":1}"# + "\n" + #"{"i16":2}"# + "\n" + line + "\n"
        let error = try #require(throws: LoadError.self) {
            try ObjectJSONLines.load(f.access, entity: "Sample", text: text, file: "samples.jsonl")
        }
        #expect(error.description == message)
        #expect(error.problems.map(\.line) == [3])
        #expect(error.count == 1)
        #expect(try f.access.count("Sample") == 0)
        #expect(try f.store.entityKeyRows().map(\.maxKey) == [0])
        #expect(!f.store.connection.isInTransaction)
    }

    /// Base64 broken into lines by CRLF (MIME's line break), LF, CR, spaces or tabs
    /// loads as the same bytes: "\r\n" is one Character, which a filter on
    /// Characters kept.
    @Test func base64IgnoresEveryKindOfLineBreak() throws {
        let f = try Fixture("Types", yaml: typesModel)
        defer { f.remove() }
        let wrapped = [#"AQ\r\nID"#, #"AQID\r\n"#, #"AQ\nID"#, #"AQ\rID"#, #"AQ\n\rID"#, #"AQ ID\t"#]
        let text = wrapped.map { #"{"payload":""# + $0 + #""}"# }.joined(separator: "\n") + "\n"
        #expect(try ObjectJSONLines.load(f.access, entity: "Sample", text: text, file: "s.jsonl") == 6)
        #expect(
            try f.access.fetch("Sample").map { $0.values["payload"] } == Array(repeating: .binary([1, 2, 3]), count: 6))
    }

    // MARK: The model's rules, line by line

    /// Two lines giving the same loan to two members (a one-to-one relationship):
    /// the second is refused, naming the first; nothing is loaded. A loan that a
    /// stored member holds is refused too.
    @Test func aOneToOneDestinationHasOneOwner() throws {
        let f = try Fixture("Lending", yaml: lendingModel)
        defer { f.remove() }
        try ObjectJSONLines.load(f.access, entity: "Card", text: #"{"number":1}"#, file: "cards.jsonl")
        try ObjectJSONLines.load(f.access, entity: "Loan", text: #"{"_pk":5,"title":"Dune"}"#, file: "loans.jsonl")
        let twice = try #require(throws: LoadError.self) {
            try ObjectJSONLines.load(
                f.access, entity: "Member",
                text: """
                    {"name":"Ann","card":1,"loan":5}
                    {"name":"Bob","card":1,"loan":5}
                    """, file: "members.jsonl")
        }
        #expect(
            twice.description == """
                members.jsonl:2: Member.loan: Loan 5 is already the loan of Member 1 (line 1); a Loan has one member \
                (Loan.member is to-one)
                """)
        #expect(
            twice.problems == [
                LoadError.Problem(
                    file: "members.jsonl", line: 2, field: "Member.loan",
                    message: """
                        Loan 5 is already the loan of Member 1 (line 1); a Loan has one member (Loan.member is to-one)
                        """)
            ])
        #expect(try f.access.count("Member") == 0)
        #expect(try f.access.object("Loan", primaryKey: 5)?.relationships["member"] == [])

        try ObjectJSONLines.load(
            f.access, entity: "Member", text: #"{"name":"Ann","card":1,"loan":5}"#, file: "members.jsonl")
        let stored = try #require(throws: LoadError.self) {
            try ObjectJSONLines.load(
                f.access, entity: "Member", text: #"{"name":"Bob","card":1,"loan":5}"#, file: "more.jsonl")
        }
        #expect(
            stored.description
                == """
                more.jsonl:1: Member.loan: Loan 5 is already the loan of Member 1; a Loan has one member (Loan.member \
                is to-one)
                """
        )
        // The pair is dumped once, on Loan's side (its name sorts first).
        #expect(try f.dump("Member") == [#"{"_pk":1,"_entity":"Member","card":1,"email":null,"name":"Ann"}"#])
        #expect(try f.dump("Loan") == [#"{"_pk":5,"_entity":"Loan","member":1,"title":"Dune"}"#])
    }

    /// Every refused line is reported with its line number (blank lines count), the
    /// first 20, then how many more; the store is left as it was.
    @Test func everyRefusedLineIsReported() throws {
        let f = try Fixture("Lending", yaml: lendingModel)
        defer { f.remove() }
        try ObjectJSONLines.load(f.access, entity: "Card", text: #"{"number":1}"#, file: "cards.jsonl")
        try ObjectJSONLines.load(
            f.access, entity: "Member", text: #"{"name":"Ann","card":1,"email":"ann@example.com"}"#,
            file: "members.jsonl")
        var lines = [
            #"{"name":"Bob","card":1,"email":"bob@example.com"}"#,  // 1: fine
            "",  // 2
            #"{"name":"Cy","card":1,"#,  // 3: not JSON
            #"{"name":"Dee","email":"dee@example.com"}"#,  // 4: no card
            #"{"name":"Eve","card":1,"email":"ann@example.com"}"#,  // 5: Ann's email
            #"{"name":"Fay","card":2}"#,  // 6: no such card
        ]
        for n in 7...28 { lines.append(#"{"name":"N\#(n)","card":1,"email":"bob@example.com"}"#) }  // Bob's email
        let error = try #require(throws: LoadError.self) {
            try ObjectJSONLines.load(
                f.access, entity: "Member", text: lines.joined(separator: "\n") + "\n", file: "members.jsonl")
        }
        #expect(error.count == 26)
        #expect(error.problems.map(\.line) == [3, 4, 5, 6] + Array(7...22))
        let bob = #""bob@example.com" is already used by Member 2 (line 1); the model makes email unique"#
        #expect(
            error.description
                == ([
                    "members.jsonl:3: invalid JSON at byte 23: expected a quoted key",
                    "members.jsonl:4: Member.card: the relationship is required",
                    #"""
                    members.jsonl:5: Member.email: "ann@example.com" is already used by Member 1; the model \#
                    makes email unique
                    """#,
                    "members.jsonl:6: Member.card: no Card with primary key 2",
                ] + (7...22).map { "members.jsonl:\($0): Member.email: \(bob)" } + ["… and 6 more"]).joined(
                    separator: "\n"))
        #expect(try f.access.count("Member") == 1)
        #expect(try f.store.entityKeyRows().map(\.maxKey) == [1, 0, 1])
        #expect(!f.store.connection.isInTransaction)
    }

    /// A required to-one may be set by a later line, through its inverse.
    @Test func aRequiredRelationshipMayBeSetByAnotherLine() throws {
        let f = try Fixture("Staff", yaml: staffModel)
        defer { f.remove() }
        let error = try #require(throws: LoadError.self) {
            try ObjectJSONLines.load(
                f.access, entity: "Employee",
                text: """
                    {"_pk":1,"name":"Ann"}
                    {"_pk":2,"name":"Bob","manager":1,"reports":[1]}
                    {"_pk":3,"name":"Cy"}
                    """, file: "staff.jsonl")
        }
        #expect(error.description == "staff.jsonl:3: Employee.manager: the relationship is required")
        #expect(try f.access.count("Employee") == 0)
        try ObjectJSONLines.load(
            f.access, entity: "Employee",
            text: """
                {"_pk":1,"name":"Ann"}
                {"_pk":2,"name":"Bob","manager":1,"reports":[1]}
                """, file: "staff.jsonl")
        #expect(
            try f.dump("Employee") == [
                #"{"_pk":1,"_entity":"Employee","manager":2,"name":"Ann"}"#,
                #"{"_pk":2,"_entity":"Employee","manager":1,"name":"Bob"}"#,
            ])
    }

    @Test func requiredValuesAndRelationshipTargetsAreChecked() throws {
        let f = try Fixture(version: try TestModels.contacts().versions[0])
        defer { f.remove() }
        let cases: [(String, String, String, String?, String)] = [
            (
                "Person", #"{"email":"ann@example.com"}"#, "Person.fullName", "a value is required",
                "people.jsonl:1: Person.fullName: a value is required"
            ),
            (
                "Post", #"{"title":"Hello","author":99}"#, "Post.author", "no Person with primary key 99",
                "people.jsonl:1: Post.author: no Person with primary key 99"
            ),
            (
                "Post", #"{"title":"Hello"}"#, "Post.author", "the relationship is required",
                "people.jsonl:1: Post.author: the relationship is required"
            ),
            (
                "Post", #"{"title":"Hello","author":[1]}"#, "Post.author",
                "expected a primary key or null, found an array",
                "people.jsonl:1: Post.author: expected a primary key or null, found an array"
            ),
            (
                "Person", #"{"fullName":"A","email":"a@x","posts":7}"#, "Person.posts", "no Post with primary key 7",
                "people.jsonl:1: Person.posts: no Post with primary key 7"
            ),
        ]
        for (entity, line, field, message, description) in cases {
            let error = try #require(throws: LoadError.self) {
                try ObjectJSONLines.load(f.access, entity: entity, text: line, file: "people.jsonl")
            }
            #expect(error.problems.map(\.field) == [field])
            #expect(error.problems.map(\.message) == [message])
            #expect(error.description == description)
        }
        let unknown = try #require(throws: LoadError.self) {
            try ObjectJSONLines.load(f.access, entity: "Robot", text: "{}", file: "robots.jsonl")
        }
        #expect(
            unknown.description == "robots.jsonl:1: unknown entity 'Robot' (model Contacts version 1 has Person, Post)")
        #expect(try f.access.count("Person") == 0)
    }
}
