import Foundation
import TestSupport
import Testing

/// Values at the edges of their types through `load`, `dump`, `fetch` and `update`:
/// an input is refused (exit 1, the store's exact bytes, no journal) or read as it
/// is, never altered, half-read or trapped on; a stored value another tool wrote is
/// shown as it is or refused by name, never crashes a reader.
@Suite struct ValueEdgeTests {
    static let model = """
        model: Values
        version: 1
        entities:
          Item:
            attributes:
              name: string?
              small: integer16?
              medium: integer32?
              large: integer64?
              price: decimal?
              ratio: double?
              weight: float?
              flag: boolean?
              at: date?
              code: uuid?
              data: binary?

        """

    /// A folder with `Models/Values` and an empty store `v.sqlite`.
    static func fixture() throws -> CLIFixture {
        let f = try CLIFixture()
        try f.directory.write("Models/Values/1.yaml", model)
        let created = try f.migrate("create", "--model", "Values", "v.sqlite")
        #expect(created.status == 0, "\(created.stderr)")
        return f
    }

    /// `load` refused the input: exit 1, exactly `message`, the store unchanged.
    func expectRefused(
        _ f: CLIFixture, _ arguments: [String], stdin: String? = nil, _ message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = f.snapshot("v.sqlite")
        let result = try f.migrate(arguments, stdin: stdin)
        #expect(result.stderr == message, sourceLocation: sourceLocation)
        #expect(result.status == 1, sourceLocation: sourceLocation)
        #expect(f.snapshot("v.sqlite") == before, sourceLocation: sourceLocation)
        #expect(f.snapshot("v.sqlite").sideFiles == [], sourceLocation: sourceLocation)
    }

    static let empty =
        #"""
        {"_pk":1,"_entity":"Item","at":null,"code":null,"data":null,"flag":null,"large":null,"medium":null,"name":null,
        """#
        + #""price":null,"ratio":null,"small":null,"weight":null}"#

    // MARK: load

    /// Invalid UTF-8 was read with U+FFFD in its place and loaded; now the line is
    /// refused with the offset and value of the bad byte.
    @Test func loadRefusesBytesThatAreNotUTF8() throws {
        let f = try Self.fixture()
        defer { f.remove() }
        try f.directory.write(
            "in.jsonl",
            bytes: Array(#"{"name":"ok"}"#.utf8) + [0x0A] + Array(#"{"name":"a"#.utf8) + [0xFF] + Array(#"b"}"#.utf8)
                + [0x0A])
        try expectRefused(
            f, ["load", "v.sqlite", "Item", "in.jsonl"],
            """
            error: in.jsonl:2: not UTF-8 text: byte 11 (0xFF) cannot start or continue a UTF-8 character (nothing was \
            loaded)

            """)
        // A truncated sequence at the end of a line, and an overlong encoding of '/'.
        try f.directory.write(
            "in.jsonl",
            bytes: Array(#"{"name":"é"#.utf8) + [0xC3, 0x0A] + Array(#"{"name":"#.utf8) + [0xC0, 0xAF, 0x0A])
        try expectRefused(
            f, ["load", "v.sqlite", "Item", "in.jsonl"],
            """
            error: in.jsonl:1: not UTF-8 text: byte 12 (0xC3) cannot start or continue a UTF-8 character
            error: in.jsonl:2: not UTF-8 text: byte 9 (0xC0) cannot start or continue a UTF-8 character (nothing was \
            loaded)

            """)
    }

    /// CRLF files were one long line; now CRLF, a BOM, blank lines and a last line
    /// without a newline read as lines, and errors name the right one.
    @Test func loadReadsCRLFAndBOMAsLines() throws {
        let f = try Self.fixture()
        defer { f.remove() }
        try f.directory.write("in.jsonl", "\u{FEFF}{\"small\":1}\r\n\r\n  \r\n{\"small\":\"two\"}\r\n{\"small\":3}")
        try expectRefused(
            f, ["load", "v.sqlite", "Item", "in.jsonl"],
            """
            error: in.jsonl:4: Item.small: expected an integer16 value, found the string "two" (nothing was loaded)

            """)
        try f.directory.write("in.jsonl", "\u{FEFF}{\"small\":1}\r\n\r\n  \r\n{\"small\":2}\r\n{\"small\":3}")
        let loaded = try f.migrate("load", "v.sqlite", "Item", "in.jsonl")
        #expect(loaded.stdout == "loaded 3 Item objects into v.sqlite\n")
        let dump = try f.migrate("fetch", "v.sqlite", "Item", "--properties", "small", "--json")
        #expect(
            dump.stdout == """
                {"_pk":1,"_entity":"Item","small":1}
                {"_pk":2,"_entity":"Item","small":2}
                {"_pk":3,"_entity":"Item","small":3}

                """)
    }

    /// Numbers beyond their attribute, fractions for integers, NaN's stand-ins and
    /// the other kinds an attacker tries: every line refused with its reason.
    @Test func loadRefusesValuesTheTypeCannotHold() throws {
        let f = try Self.fixture()
        defer { f.remove() }
        let lines = [
            #"{"small":1.5}"#,
            #"{"small":1e2}"#,
            #"{"small":32768}"#,
            #"{"large":123456789012345678901234567890}"#,
            #"{"large":9.3e18}"#,
            #"{"ratio":1e999}"#,
            #"{"weight":1e39}"#,
            #"{"weight":1e-50}"#,
            #"{"at":1e400}"#,
            #"{"at":"inf"}"#,
            #"{"ratio":"nan"}"#,
            #"{"medium":"12"}"#,
            #"{"flag":2}"#,
            #"{"name":"x","name":"y"}"#,
            #"{"name":"a<NUL>b"}"#.replacingOccurrences(of: "<NUL>", with: "\u{0}"),
        ]
        try f.directory.write("in.jsonl", lines.joined(separator: "\n") + "\n")
        try expectRefused(
            f, ["load", "v.sqlite", "Item", "in.jsonl"],
            """
            error: in.jsonl:1: Item.small: 1.5 is not a whole number, which integer16 holds
            error: in.jsonl:2: Item.small: 1e2 is not written as an integer (integer16 takes digits only, like 100)
            error: in.jsonl:3: Item.small: 32768 is out of range for integer16 (-32768...32767)
            error: in.jsonl:4: Item.large: 123456789012345678901234567890 is out of range for integer64 \
            (-9223372036854775808...9223372036854775807)
            error: in.jsonl:5: Item.large: 9.3e18 is out of range for integer64 \
            (-9223372036854775808...9223372036854775807)
            error: in.jsonl:6: Item.ratio: '1e999' is not a finite number
            error: in.jsonl:7: Item.weight: 1e39 is out of range for float
            error: in.jsonl:8: Item.weight: 1e-50 is too small for float (it would be stored as 0)
            error: in.jsonl:9: Item.at: 1e400 is beyond any date (seconds since 2001-01-01 must be a finite double)
            error: in.jsonl:10: Item.at: 'inf' is not an ISO 8601 date (2026-01-31, 2026-01-31T09:30:00Z or with an \
            offset like +02:00)
            error: in.jsonl:11: Item.ratio: expected a double value, found the string "nan"
            error: in.jsonl:12: Item.medium: expected an integer32 value, found the string "12"
            error: in.jsonl:13: Item.flag: expected true or false, found 2
            error: in.jsonl:14: Item.name: the field appears twice
            error: in.jsonl:15: invalid JSON at byte 11: control character in a string (nothing was loaded)

            """)
    }

    /// A directory was read as an empty file (loaded 0); now the system's reason.
    @Test func loadRefusesAFileItCannotRead() throws {
        let f = try Self.fixture()
        defer { f.remove() }
        try FileManager.default.createDirectory(atPath: f.path("folder.jsonl"), withIntermediateDirectories: true)
        try expectRefused(
            f, ["load", "v.sqlite", "Item", "folder.jsonl"],
            """
            error: folder.jsonl: cannot read the file: Is a directory (nothing was loaded)

            """)
        try expectRefused(
            f, ["load", "v.sqlite", "Item", "missing.jsonl"],
            """
            error: missing.jsonl: cannot read the file: No such file or directory (nothing was loaded)

            """)
    }

    /// What JSON cannot write as a number round-trips: infinity in a double or float
    /// as "inf"/"-inf", a date ISO 8601 would round as seconds, NUL and -0 as they are.
    @Test func dumpWritesWhatLoadReadsBack() throws {
        let f = try Self.fixture()
        defer { f.remove() }
        let input = """
            {"ratio":"inf","weight":"-inf","at":0.1234567,"name":"a\\u0000b","small":-0}
            {"at":1e15,"price":"1e-128","large":-9223372036854775808}
            {"at":"2026-01-31T09:30:00.25Z","weight":0.1,"code":"ABCDEF00-0000-0000-0000-000000000000"}

            """
        let loaded = try f.migrate(["load", "v.sqlite", "Item", "-"], stdin: input)
        #expect(loaded.status == 0, "\(loaded.stderr)")
        let dump = try f.migrate("dump", "v.sqlite", "Item")
        #expect(
            dump.stdout == """
                {"_pk":1,"_entity":"Item","at":0.1234567,"code":null,"data":null,"flag":null,"large":null,\
                "medium":null,"name":"a\\u0000b",\
                "price":null,"ratio":"inf","small":0,"weight":"-inf"}
                {"_pk":2,"_entity":"Item","at":1000000000000000.0,"code":null,"data":null,"flag":null,\
                "large":-9223372036854775808,"medium":null,\
                "name":null,"price":"1e-128","ratio":null,"small":null,"weight":null}
                {"_pk":3,"_entity":"Item","at":"2026-01-31T09:30:00.25Z",\
                "code":"abcdef00-0000-0000-0000-000000000000","data":null,"flag":null,\
                "large":null,"medium":null,"name":null,"price":null,"ratio":null,"small":null,"weight":0.1}

                """)
        let created = try f.migrate("create", "--model", "Values", "w.sqlite")
        #expect(created.status == 0)
        let again = try f.migrate(["load", "w.sqlite", "Item", "-"], stdin: dump.stdout)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try f.migrate("dump", "w.sqlite", "Item").stdout == dump.stdout)
    }

    // MARK: update

    /// SQLite turns integer overflow into REAL; reading it back as Int64 trapped
    /// inside the write transaction (a hot journal left behind). Now the update is
    /// refused, naming the objects, and the store keeps its bytes.
    @Test func updateRefusesIntegerOverflow() throws {
        let f = try Self.fixture()
        defer { f.remove() }
        let loaded = try f.migrate(
            ["load", "v.sqlite", "Item", "-"],
            stdin: "{\"large\":4611686018427387904,\"small\":2}\n{\"large\":1,\"small\":3}\n")
        #expect(loaded.status == 0, "\(loaded.stderr)")
        try expectRefused(
            f, ["update", "v.sqlite", "Item", "--set", "large = large * 2"],
            """
            error: 1 object would break the model; nothing was changed:
              Item 1: large: 9.223372036854776e+18 is out of range for integer64 \
            (-9223372036854775808...9223372036854775807)

            """)
        try expectRefused(
            f, ["update", "v.sqlite", "Item", "--set", "large = 9223372036854775807 + 1", "--where", "small == 3"],
            """
            error: 1 object would break the model; nothing was changed:
              Item 2: large: 9.223372036854776e+18 is out of range for integer64 \
            (-9223372036854775808...9223372036854775807)

            """)
        // NSExpression divides as doubles: 2 / 2 is stored as the integer 1 (the
        // column's INTEGER affinity), 3 / 2 is 1.5, which is refused, not truncated.
        try expectRefused(
            f, ["update", "v.sqlite", "Item", "--set", "small = small / 2"],
            """
            error: 1 object would break the model; nothing was changed:
              Item 2: small: 1.5 is not a whole number, which integer16 holds

            """)
    }

    /// Infinity where the attribute cannot hold it (a date, a decimal, a float past
    /// its range) is refused; a double keeps it, as Core Data's NSNumber does.
    @Test func updateRefusesInfinityWhereTheTypeCannotHoldIt() throws {
        let f = try Self.fixture()
        defer { f.remove() }
        let loaded = try f.migrate(
            ["load", "v.sqlite", "Item", "-"], stdin: "{\"ratio\":2,\"price\":\"1.5\",\"weight\":1}\n")
        #expect(loaded.status == 0, "\(loaded.stderr)")
        try expectRefused(
            f, ["update", "v.sqlite", "Item", "--set", "at = CAST(1e308 * 10, 'NSDate')"],
            """
            error: 1 object would break the model; nothing was changed:
              Item 1: at: inf is not a date (a date is a finite number of seconds since 2001-01-01)

            """)
        try expectRefused(
            f, ["update", "v.sqlite", "Item", "--set", "price = price * 1e308 * 10"],
            """
            error: 1 object would break the model; nothing was changed:
              Item 1: price: "Inf" is not a value of type decimal

            """)
        try expectRefused(
            f, ["update", "v.sqlite", "Item", "--set", "weight = weight * 1e300"],
            """
            error: 1 object would break the model; nothing was changed:
              Item 1: weight: 1e+300 is out of range for float

            """)
        let double = try f.migrate("update", "v.sqlite", "Item", "--set", "ratio = ratio * 1e308 * 10")
        #expect(double.stdout == "updated 1 object (1 Item)\n")
        #expect(
            try f.migrate("fetch", "v.sqlite", "Item", "--properties", "ratio", "--json").stdout
                == #"{"_pk":1,"_entity":"Item","ratio":"inf"}"# + "\n")
    }

    /// `fetch`, `update` and `delete` took a store path starting with a dash after
    /// `--` for an option ("not a store path"), where other commands accept it.
    @Test func requestsTakeAStorePathStartingWithADash() throws {
        let f = try Self.fixture()
        defer { f.remove() }
        try FileManager.default.copyItem(atPath: f.path("v.sqlite"), toPath: f.path("-s.sqlite"))
        #expect(try f.migrate("fetch", "--count", "--", "-s.sqlite", "Item").stdout == "0\n")
        #expect(
            try f.migrate("update", "--set", "small = 1", "--", "-s.sqlite", "Item").stdout == "updated 0 objects\n")
        #expect(
            try f.migrate("delete", "--", "-s.sqlite", "Item").stdout
                == "deleted 0 objects; 0 references cleared, 0 join rows removed\n")
        #expect(try f.migrate("dump", "--", "-s.sqlite", "Item").status == 0)
    }

    // MARK: values another tool stored

    /// REALs in integer columns (1e19, ±inf), an infinite date, a boolean 2, a UUID
    /// blob of two bytes, decimal text that is not a number: `dump` and `fetch`
    /// crashed on the first; now each is shown as stored (JSON has no infinity:
    /// "inf"), and `load` refuses what does not fit.
    @Test func readersShowForeignValuesAsStored() throws {
        let f = try Self.fixture()
        defer { f.remove() }
        try SQLiteFile.execute(
            f.path("v.sqlite"),
            """
            INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZLARGE, ZSMALL, ZMEDIUM) VALUES (1, 1, 1, 1e19, 9e999, -9e999);
            INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZLARGE, ZAT, ZFLAG, ZPRICE) VALUES (2, 1, 1, 2.5, 9e999, 2, 'abc');
            INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZLARGE, ZCODE, ZWEIGHT, ZRATIO) VALUES (3, 1, 1, 7.0, X'0102', \
            1e300, -9e999);
            """)
        let expected = """
            {"_pk":1,"_entity":"Item","at":null,"code":null,"data":null,"flag":null,"large":1e+19,"medium":"-inf",\
            "name":null,\
            "price":null,"ratio":null,"small":"inf","weight":null}
            {"_pk":2,"_entity":"Item","at":"inf","code":null,"data":null,"flag":true,"large":2.5,"medium":null,\
            "name":null,\
            "price":"abc","ratio":null,"small":null,"weight":null}
            {"_pk":3,"_entity":"Item","at":null,"code":"AQI=","data":null,"flag":null,"large":7,"medium":null,\
            "name":null,\
            "price":null,"ratio":"-inf","small":null,"weight":1e+300}

            """
        let dump = try f.migrate("dump", "v.sqlite", "Item")
        #expect(dump.status == 0)
        #expect(dump.stdout == expected)
        let json = try f.migrate("fetch", "v.sqlite", "Item", "--json")
        #expect(json.status == 0)
        #expect(json.stdout == expected)
        let table = try f.migrate("fetch", "v.sqlite", "Item", "--properties", "large, small, at, code, price")
        #expect(
            table.stdout == """
                Z_PK  large  small  at   code       price
                1     1e+19  inf    nil  nil        nil
                2     2.5    nil    inf  nil        abc
                3     7      nil    nil  <2 bytes>  nil
                (3 objects)

                """)
        try f.directory.write("dump.jsonl", dump.stdout)
        #expect(try f.migrate("create", "--model", "Values", "w.sqlite").status == 0)
        let load = try f.migrate("load", "w.sqlite", "Item", "dump.jsonl")
        #expect(load.status == 1)
        #expect(
            load.stderr == """
                error: dump.jsonl:1: Item.large: 1e+19 is out of range for integer64 \
                (-9223372036854775808...9223372036854775807)
                error: dump.jsonl:2: Item.at: 'inf' is not an ISO 8601 date (2026-01-31, 2026-01-31T09:30:00Z or with \
                an offset like +02:00)
                error: dump.jsonl:3: Item.code: 'AQI=' is not a UUID (8-4-4-4-12 hexadecimal digits) (nothing was \
                loaded)

                """)
    }

    /// TEXT that is not UTF-8 was read with U+FFFD, and a BLOB in a string column
    /// was dumped as base64 that load would take for the string: both would change
    /// the value without a word, so `dump` and `fetch` refuse them by name.
    @Test(arguments: [
        (
            "CAST(X'61FF62' AS TEXT)", "ZNAME",
            """
            Item 1: name: the stored text is not UTF-8 (byte 2 cannot start or continue a UTF-8 character); it cannot \
            be read without changing it
            """
        ),
        (
            "X'616263'", "ZNAME",
            #"""
            Item 1: name: the store holds a BLOB of 3 bytes, which JSON Lines cannot carry for a string value \#
            (load would read it as the text "YWJj")
            """#
        ),
        (
            "'abcd'", "ZDATA",
            #"""
            Item 1: data: the store holds the text "abcd", which JSON Lines cannot carry for a binary value (load \#
            would read it as a BLOB of 3 bytes)
            """#
        ),
    ])
    func readersRefuseValuesTheyWouldChange(value: String, column: String, message: String) throws {
        let f = try Self.fixture()
        defer { f.remove() }
        try SQLiteFile.execute(
            f.path("v.sqlite"), "INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, \(column)) VALUES (1, 1, 1, \(value))")
        let dump = try f.migrate("dump", "v.sqlite", "Item")
        #expect(dump.status == 1)
        #expect(dump.stdout == "")
        #expect(dump.stderr == "error: v.sqlite: \(message)\n")
        let fetch = try f.migrate("fetch", "v.sqlite", "Item", "--json")
        #expect(fetch.status == 1)
        #expect(
            try CLIFixture.object(fetch.stdout)["error"].flatMap { ($0 as? [String: Any])?["message"] as? String }
                == "v.sqlite: \(message)")
    }
}
