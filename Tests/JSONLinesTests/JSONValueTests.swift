import Testing

@testable import JSONLines

@Suite struct JSONValueTests {
    @Test func keepsNumbersExactly() throws {
        let value = try JSONValue.parse(#"{"a": 9223372036854775807, "b": 0.10, "c": -1e-7}"#)
        #expect(
            value == .object([("a", .number("9223372036854775807")), ("b", .number("0.10")), ("c", .number("-1e-7"))]))
    }

    @Test func decodesEscapesAndSurrogates() throws {
        let value = try JSONValue.parse(#"["a\"b\\c\n", "\u00e9\ud83d\ude00", true, false, null]"#)
        #expect(value == .array([.string("a\"b\\c\n"), .string("é😀"), .bool(true), .bool(false), .null]))
        // Hex digits in either case.
        #expect(try JSONValue.parse(#""\u00E9\uD83D\uDE00\u004a""#) == .string("é😀J"))
    }

    /// `\uXXXX` read as `UInt32(_:radix: 16)` reads the digits, in either case: both
    /// readers share the digit reading, so it is held to the standard library here.
    @Test func everyEscapeReadsAsItsHexValue() throws {
        for code in stride(from: 0, through: 0xFFFF, by: 7) where !(0xD800..<0xE000).contains(code) {
            let lower = String(code, radix: 16)
            let digits = String(repeating: "0", count: 4 - lower.count) + lower
            let value = try #require(UInt32(digits, radix: 16))
            let scalar = try #require(Unicode.Scalar(value))
            for text in [digits, digits.uppercased()] {
                #expect(try JSONValue.parse("\"\\u\(text)\"") == .string(String(Character(scalar))), "\\u\(text)")
            }
        }
    }

    @Test func writesCompactTextThatParsesBack() throws {
        let value = JSONValue.object([
            ("name", .string("Zoë \"Z\"\t")), ("n", .number("12")), ("list", .array([.null])),
        ])
        #expect(value.text == #"{"name":"Zoë \"Z\"\t","n":12,"list":[null]}"#)
        #expect(try JSONValue.parse(value.text) == value)
    }

    @Test(arguments: [
        ("{\"a\" 1}", "expected ':' after a key", 6),
        ("[1, 2", "expected ',' or ']'", 6),
        ("\"open", "unclosed string", 6),
        ("{} x", "unexpected text after the value", 4),
        ("01", "a number cannot start with 0", 2),
        (#""\u+041""#, "expected 4 hex digits", 4),
        (#""\u00g1""#, "expected 4 hex digits", 4),
        (#""\u12""#, "expected 4 hex digits", 4),
        (#""\ud83d\u-e00""#, "expected 4 hex digits", 10),
    ])
    func reportsWhatWasExpectedAndWhere(text: String, message: String, offset: Int) {
        #expect(throws: JSONParseError(message: message, offset: offset)) { try JSONValue.parse(text) }
    }
}
