import Foundation
import TestSupport
import Testing

@testable import DataModel

/// Swift Testing has a `SourceLocation` too.
private typealias SourceLocation = DataModel.SourceLocation

@Suite struct ModelDecoderTests {
    // MARK: - Helpers

    private func at(_ line: Int, _ column: Int) -> SourceLocation { ModelText.at(line, column) }

    /// A model whose entity `Thing` declares `lines` as attributes: the first on line 6,
    /// every name at column 7.
    private func thing(attributes lines: String...) -> String {
        "model: Test\nversion: 1\nentities:\n  Thing:\n    attributes:\n" + lines.map { "      \($0)\n" }.joined()
    }

    /// A model whose entity `Thing` declares `lines` as relationships: the first on line
    /// 6, every name at column 7.
    private func thing(relationships lines: String...) -> String {
        "model: Test\nversion: 1\nentities:\n  Thing:\n    relationships:\n" + lines.map { "      \($0)\n" }.joined()
    }

    private func attributes(_ text: String) throws -> [AttributeDescription] {
        try #require(try ModelText.description(text).entities.first).attributes
    }

    private func relationships(_ text: String) throws -> [RelationshipDescription] {
        try #require(try ModelText.description(text).entities.first).relationships
    }

    private func diagnostics(_ text: String) throws -> [Diagnostic] {
        try ModelText.decode(text).diagnostics
    }

    private func expect(
        _ text: String, reports expected: [Diagnostic], sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws {
        let actual = try diagnostics(text)
        #expect(actual == expected, sourceLocation: sourceLocation)
    }

    private func error(_ message: String, _ line: Int, _ column: Int, hint: String? = nil) -> Diagnostic {
        Diagnostic(.error, message, at: at(line, column), hint: hint)
    }

    private func warning(_ message: String, _ line: Int, _ column: Int, hint: String? = nil) -> Diagnostic {
        Diagnostic(.warning, message, at: at(line, column), hint: hint)
    }

    /// `a: { type: <type>, default: <text> }` on line 6; the value starts at the returned column.
    private func defaultLine(_ type: AttributeType, _ text: String) -> (line: String, valueColumn: Int) {
        let prefix = "a: { type: \(type.rawValue), default: "
        return (prefix + text + " }", 7 + prefix.count)
    }

    // MARK: - Model file

    @Test func modelVersionIdentifierAndEntitiesInFileOrder() throws {
        let version = try ModelText.description(
            """
            model: Contacts
            version: 3
            identifier: "2026.11"
            entities:
              Zebra:
              Apple: {}

            """)
        #expect(
            version
                == ModelVersionDescription(
                    model: "Contacts", version: 3, identifier: "2026.11",
                    entities: [
                        EntityDescription(name: "Zebra", location: at(5, 3)),
                        EntityDescription(name: "Apple", location: at(6, 3)),
                    ],
                    file: "test.yaml", modelLocation: at(1, 8), versionLocation: at(2, 10)))
    }

    @Test func identifierIsOptional() throws {
        let version = try ModelText.description("model: M\nversion: 1\nentities: { A: }\n")
        #expect(version.identifier == nil)
    }

    /// `xcodeVersion:` keeps an imported version's folder name and current marker for export.
    @Test func xcodeVersionNameAndCurrent() throws {
        let version = try ModelText.description(
            "model: M\nversion: 2\nxcodeVersion: { name: \"M v2\", current: true }\nentities: { A: }\n")
        #expect(version.xcodeVersionName == "M v2")
        #expect(version.xcodeIsCurrent)
        let plain = try ModelText.description("model: M\nversion: 1\nentities: { A: }\n")
        #expect(plain.xcodeVersionName == nil)
        #expect(!plain.xcodeIsCurrent)
        try expect(
            "model: M\nversion: 1\nxcodeVersion: { name: \"a/b\", latest: true }\nentities: { A: }\n",
            reports: [
                error("xcodeVersion: unknown key 'latest'", 3, 30, hint: "expected one of: name, current"),
                error(
                    "xcodeVersion: name: 'a/b' cannot name a folder (no '/', not empty, not starting with '.')", 3, 23),
            ])
    }

    /// `mappedFrom:` lists earlier versions the app ships a mapping model from.
    @Test func mappedFromNamesEarlierVersions() throws {
        let version = try ModelText.description("model: M\nversion: 4\nmappedFrom: [3, 1, 3]\nentities: { A: }\n")
        #expect(version.mappedFrom == [1, 3])
        try expect(
            "model: M\nversion: 2\nmappedFrom: [2, x]\nentities: { A: }\n",
            reports: [
                error("mappedFrom: expected an integer, found 'x'", 3, 17),
                error("mappedFrom: 2 is not an earlier version (this is version 2)", 3, 14),
            ])
    }

    @Test func missingModelVersionAndEntitiesAreReportedTogether() throws {
        try expect(
            "identifier: x\n",
            reports: [
                error("model file: missing required key 'model'", 1, 1),
                error("model file: missing required key 'version'", 1, 1),
                error("model file: missing required key 'entities'", 1, 1),
            ])
    }

    @Test func unknownTopLevelKeyHasADidYouMean() throws {
        try expect(
            "model: M\nversion: 1\nentites: {}\nentities: { A: }\n",
            reports: [
                error("model file: unknown key 'entites'", 3, 1, hint: "did you mean 'entities'?")
            ])
    }

    @Test func badModelNameVersionAndEmptyEntities() throws {
        try expect(
            "model: 2Contacts\nversion: 0\nentities: {}\n",
            reports: [
                error(
                    """
                    model: '2Contacts' is not a valid model name (letters, digits, '_' and '-', starting with a letter)
                    """,
                    1, 8),
                error("version: must be 1 or more, found 0", 2, 10),
                error("entities: a model version needs at least one entity", 3, 11),
            ])
        try expect(
            "model: M\nversion: two\nentities: { A: }\n",
            reports: [
                error("version: expected an integer, found 'two'", 2, 10)
            ])
    }

    @Test func invalidEntityAndPropertyNames() throws {
        try expect(
            """
            model: M
            version: 1
            entities:
              person:
                attributes: { _first: string, first-name: string }
                relationships: { 2owner: { destination: person } }

            """,
            reports: [
                error(
                    """
                    entity 'person': not a valid entity name (ASCII letters, digits and '_', starting with an \
                    uppercase letter)
                    """,
                    4, 3),
                error(
                    """
                    attribute 'person._first': not a valid property name (ASCII letters, digits and '_', starting with \
                    a letter)
                    """,
                    5, 19),
                error(
                    """
                    attribute 'person.first-name': not a valid property name (ASCII letters, digits and '_', starting \
                    with a letter)
                    """,
                    5, 35),
                error(
                    """
                    relationship 'person.2owner': not a valid property name (ASCII letters, digits and '_', starting \
                    with a letter)
                    """,
                    6, 22),
            ])
    }

    /// Core Data accepts property names starting with an uppercase letter (apps ship
    /// `Box` for years): a warning, and the model compiles with the same columns.
    @Test func uppercasePropertyNamesAreWarnedNotRefused() throws {
        try expect(
            """
            model: M
            version: 1
            entities:
              Person:
                attributes: { FirstName: string }
                relationships: { Box: { destination: Person, optional: true } }

            """,
            reports: [
                warning(
                    """
                    attribute 'Person.FirstName': the name starts with an uppercase letter; Core Data accepts it, \
                    but Swift and Objective-C accessors expect a lowercase one
                    """, 5, 19,
                    hint:
                        """
                        keep it if the app shipped it (renaming changes the version hash); otherwise prefer 'firstName'
                        """
                ),
                warning(
                    """
                    relationship 'Person.Box': the name starts with an uppercase letter; Core Data accepts it, \
                    but Swift and Objective-C accessors expect a lowercase one
                    """, 6, 22,
                    hint: "keep it if the app shipped it (renaming changes the version hash); otherwise prefer 'box'"),
            ])
    }

    // MARK: - Attributes

    @Test func shortFormOfEveryTypeAndItsOptionalForm() throws {
        var lines: [String] = []
        var expected: [AttributeDescription] = []
        for (i, type) in AttributeType.allCases.filter({ $0 != .composite }).enumerated() {
            lines += ["\(type.rawValue)Plain: \(type.rawValue)", "\(type.rawValue)Optional: \(type.rawValue)?"]
            expected += [
                AttributeDescription(
                    name: "\(type.rawValue)Plain", type: type, isOptional: false, location: at(6 + 2 * i, 7)),
                AttributeDescription(
                    name: "\(type.rawValue)Optional", type: type, isOptional: true, location: at(7 + 2 * i, 7)),
            ]
        }
        let text =
            "model: Test\nversion: 1\nentities:\n  Thing:\n    attributes:\n" + lines.map { "      \($0)\n" }.joined()
        #expect(try attributes(text) == expected)
        #expect(expected.count == 26)
    }

    @Test func longFormOfEveryTypeEqualsTheShortForm() throws {
        var lines: [String] = []
        var expected: [AttributeDescription] = []
        for (i, type) in AttributeType.allCases.filter({ $0 != .composite }).enumerated() {
            lines += [
                "a\(i): { type: \(type.rawValue) }", "b\(i): { type: \(type.rawValue)?, optional: true }",
                "c\(i): { type: \(type.rawValue), optional: true }",
            ]
            expected += [
                AttributeDescription(name: "a\(i)", type: type, isOptional: false, location: at(6 + 3 * i, 7)),
                AttributeDescription(name: "b\(i)", type: type, isOptional: true, location: at(7 + 3 * i, 7)),
                AttributeDescription(name: "c\(i)", type: type, isOptional: true, location: at(8 + 3 * i, 7)),
            ]
        }
        let text =
            "model: Test\nversion: 1\nentities:\n  Thing:\n    attributes:\n" + lines.map { "      \($0)\n" }.joined()
        #expect(try attributes(text) == expected)
    }

    @Test func everyAttributeKey() throws {
        let decoded = try attributes(
            thing(
                attributes:
                    """
                    photo: { type: binary, optional: true, default: AQID, transient: false, indexed: true, \
                    renamedFrom: picture, hashModifier: v2, externalStorage: true, preserveAfterDeletion: true, min: \
                    1, max: 1024 }
                    """,
                "color: { type: transformable, transformer: ColorTransformer, optional: yes }",
                "note: { type: string?, transient: true }",
                "count: { type: integer32, min: -5, max: 5, default: 0 }",
                "ratio: { type: double, min: 0, max: 1.5 }",
                "startsAt: { type: date, min: 2001-01-01, max: \"2001-01-02T00:00:00Z\" }",
                "code: { type: string, optional: false, indexed: false, transient: no }"))

        var photo = AttributeDescription(name: "photo", type: .binary, isOptional: true, location: at(6, 7))
        photo.defaultValue = .binary([1, 2, 3])
        photo.isIndexed = true
        photo.renamedFrom = "picture"
        photo.hashModifier = "v2"
        photo.allowsExternalStorage = true
        photo.preservesValueInHistoryOnDeletion = true
        photo.minimum = .integer(1)
        photo.maximum = .integer(1024)
        var color = AttributeDescription(name: "color", type: .transformable, isOptional: true, location: at(7, 7))
        color.transformer = "ColorTransformer"
        var note = AttributeDescription(name: "note", type: .string, isOptional: true, location: at(8, 7))
        note.isTransient = true
        var count = AttributeDescription(name: "count", type: .integer32, location: at(9, 7))
        count.minimum = .integer(-5)
        count.maximum = .integer(5)
        count.defaultValue = .integer(0)
        var ratio = AttributeDescription(name: "ratio", type: .double, location: at(10, 7))
        ratio.minimum = .double(0)
        ratio.maximum = .double(1.5)
        var startsAt = AttributeDescription(name: "startsAt", type: .date, location: at(11, 7))
        startsAt.minimum = .date(0)
        startsAt.maximum = .date(86_400)
        let code = AttributeDescription(name: "code", type: .string, location: at(12, 7))
        #expect(decoded == [photo, color, note, count, ratio, startsAt, code])
    }

    @Test func optionalFalseContradictsAQuestionMark() throws {
        try expect(
            thing(attributes: "a: { type: string?, optional: false }"),
            reports: [
                error("attribute 'Thing.a': 'optional: false' contradicts the type 'string?'", 6, 27)
            ])
    }

    @Test func missingTypeAndMisspeltKey() throws {
        try expect(
            thing(attributes: "a: { typ: string }", "b:"),
            reports: [
                error("attribute 'Thing.a': unknown key 'typ'", 6, 12, hint: "did you mean 'type'?"),
                error(
                    "attribute 'Thing.a': missing required key 'type'", 6, 10,
                    hint: "write `a: string` or `a: { type: string, … }`"),
                error(
                    "attribute 'Thing.b': missing required key 'type'", 7, 7,
                    hint: "write `b: string` or `b: { type: string, … }`"),
            ])
    }

    @Test func unknownKeyWithoutACloseMatchListsTheKeys() throws {
        try expect(
            thing(attributes: "a: { type: string, colour: red }"),
            reports: [
                error(
                    "attribute 'Thing.a': unknown key 'colour'", 6, 26,
                    hint: """
                        expected one of: type, optional, default, transient, indexed, renamedFrom, hashModifier, \
                        externalStorage, preserveAfterDeletion, transformer, min, max, scalar, className, syncable, \
                        userInfo, xcode, composite
                        """)
            ])
    }

    @Test func unknownTypesInShortAndLongForm() throws {
        try expect(
            thing(attributes: "a: integr16", "b: { type: Strng? }", "c: varchar"),
            reports: [
                error("attribute 'Thing.a': unknown type 'integr16'", 6, 10, hint: "did you mean 'integer16'?"),
                error("attribute 'Thing.b': unknown type 'Strng'", 7, 18, hint: "did you mean 'string'?"),
                error(
                    "attribute 'Thing.c': unknown type 'varchar'", 8, 10,
                    hint:
                        "types are: integer16, integer32, integer64, decimal, double, float, string, boolean, date, "
                        + "binary, uuid, uri, transformable, "
                        + "composite"),
            ])
    }

    @Test func typeSpecificKeysOnTheWrongType() throws {
        try expect(
            thing(
                attributes:
                    "a: { type: string, externalStorage: true }",
                "b: { type: string, transformer: ColorTransformer }",
                "c: { type: boolean, min: 0 }"),
            reports: [
                error("attribute 'Thing.a': externalStorage applies to binary attributes only, not string", 6, 26),
                error("attribute 'Thing.b': transformer applies to transformable attributes only, not string", 7, 26),
                error("attribute 'Thing.c': min: boolean attributes have no limits", 8, 32),
            ])
    }

    @Test func badFlagAndBadShape() throws {
        try expect(
            thing(
                attributes: "a: { type: string, indexed: maybe }", "b: [string]",
                "c: { type: string, indexed: \"true\" }"),
            reports: [
                error("attribute 'Thing.a': indexed: expected true or false, found 'maybe'", 6, 35),
                error("attribute 'Thing.b': expected a mapping, found a list", 7, 10),
                error("attribute 'Thing.c': indexed: expected true or false, found 'true'", 8, 35),
            ])
    }

    @Test func limitsAreCheckedAgainstEachOtherAndTheDefault() throws {
        try expect(
            thing(
                attributes:
                    "a: { type: integer16, min: 5, max: 1 }",
                "b: { type: integer16, min: 5, default: 1 }",
                "c: { type: string, max: 3, default: abcd }",
                "d: { type: string, min: -1 }",
                "e: { type: decimal, max: \"9.99\", default: 10.00 }"),
            reports: [
                error("attribute 'Thing.a': min is greater than max", 6, 7),
                error("attribute 'Thing.b': default 1 is below min 5", 7, 46),
                error("attribute 'Thing.c': default abcd is above max 3", 8, 43),
                error("attribute 'Thing.d': min (a length): expected a non-negative integer, found '-1'", 9, 31),
                error("attribute 'Thing.e': default 10.00 is above max 9.99", 10, 49),
            ])
    }

    /// Issue 17, item 12: YAML's "\\0" escape puts U+0000 in a scalar. SQL text ends
    /// at the first NUL, so a string default holding one broke the statements that
    /// carry it; no name may hold one either.
    @Test func nulCharactersAreRefusedInDefaultsAndNames() throws {
        try expect(
            """
            model: Test
            version: 1
            entities:
              Thing:
                renamedFrom: "Old\\0Thing"
                attributes:
                  a: { type: string, default: "x\\0y" }
                  b: { type: uri, default: "https://a\\0b" }
                  "c\\0d": string
                relationships:
                  r: { destination: "Thing\\0", inverse: r }

            """,
            reports: [
                error("entity 'Thing': renamedFrom: contains a NUL character (\\0), which is not allowed", 5, 18),
                error("entity 'Thing': attributes: a key contains a NUL character (\\0), which no name may hold", 9, 7),
                error(
                    """
                    attribute 'Thing.a': default: a NUL character (\\0) is not allowed (SQLite's SQL text ends at the \
                    first NUL)
                    """,
                    7, 35),
                error(
                    """
                    attribute 'Thing.b': default: a NUL character (\\0) is not allowed (SQLite's SQL text ends at the \
                    first NUL)
                    """,
                    8, 32),
                error(
                    """
                    relationship 'Thing.r': destination: contains a NUL character (\\0), which is not allowed
                    """, 11, 25),
            ])
    }

    @Test func limitsAreExactBeyondADoublesPrecision() throws {
        // 2^53 + 1 and a 20-digit decimal: a comparison through Double saw no difference.
        try expect(
            thing(
                attributes:
                    "a: { type: integer64, max: 9007199254740992, default: 9007199254740993 }",
                "b: { type: decimal, max: \"1.0000000000000000001\", default: \"1.0000000000000000002\" }",
                "c: { type: decimal, min: \"-1e-30\", default: \"-2e-30\" }",
                "d: { type: integer64, min: 9007199254740993, max: 9007199254740992 }",
                "e: { type: decimal, min: \"0.5\", max: \"5e-1\", default: \".50\" }"),
            reports: [
                error("attribute 'Thing.a': default 9007199254740993 is above max 9007199254740992", 6, 61),
                error("attribute 'Thing.b': default 1.0000000000000000002 is above max 1.0000000000000000001", 7, 66),
                error("attribute 'Thing.c': default -2e-30 is below min -1e-30", 8, 51),
                error("attribute 'Thing.d': min is greater than max", 9, 7),
            ])
    }

    // MARK: - Defaults per type

    @Test(arguments: [
        (AttributeType.integer16, "32767", AttributeValue.integer(32767)),
        (.integer16, "-32768", .integer(-32768)),
        (.integer16, "+7", .integer(7)),
        (.integer32, "2147483647", .integer(2_147_483_647)),
        (.integer32, "-2147483648", .integer(-2_147_483_648)),
        (.integer64, "9223372036854775807", .integer(.max)),
        (.integer64, "-9223372036854775808", .integer(.min)),
        (.decimal, "0.10", .decimal("0.10")),
        (.decimal, "\"0.10\"", .decimal("0.10")),
        (.decimal, "+1.50", .decimal("1.50")),
        (.decimal, "-12.50", .decimal("-12.50")),
        (.decimal, "1.5e-3", .decimal("1.5e-3")),
        (.decimal, ".5", .decimal(".5")),
        (.decimal, "12345678901234567890123456789012345678", .decimal("12345678901234567890123456789012345678")),
        (
            .decimal, "0.00012345678901234567890123456789012345678",
            .decimal("0.00012345678901234567890123456789012345678")
        ),
        (.decimal, "12345678901234567890123456789012345678e10", .decimal("12345678901234567890123456789012345678e10")),
        (.double, "1.5", .double(1.5)),
        (.double, "-2", .double(-2)),
        (.double, "1e300", .double(1e300)),
        (.float, "0.25", .double(0.25)),
        (.string, "hello world", .string("hello world")),
        (.string, "\"\"", .string("")),
        (.string, "'42'", .string("42")),
        (.boolean, "true", .boolean(true)),
        (.boolean, "false", .boolean(false)),
        (.boolean, "yes", .boolean(true)),
        (.boolean, "NO", .boolean(false)),
        (.date, "2001-01-01", .date(0)),
        (.date, "2001-01-01T00:00:00Z", .date(0)),
        (.date, "2001-01-01T02:00:00+02:00", .date(0)),
        (.date, "2000-12-31T19:00:00-05:00", .date(0)),
        (.date, "2001-01-01T00:00:00.5Z", .date(0.5)),
        (.date, "2001-01-01T00:00:00.1Z", .date(0.1)),
        (.date, "2000-12-31T23:59:59.9Z", .date(-0.1)),
        (.date, "2026-01-31T09:30:15.123Z", .date(791_544_615.123)),
        (.date, "2026-01-31T09:30:15.999+01:00", .date(791_541_015.999)),
        (.date, "2026-01-01", .date(788_918_400)),
        (.date, "1970-01-01T00:00:00Z", .date(-978_307_200)),
        (.date, "2024-02-29T12:00Z", .date(730_900_800)),
        (.uuid, "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", .uuid("e621e1f8-c36c-495a-93fc-0c247a3e6e5f")),
        (.binary, "AQID", .binary([1, 2, 3])),
        (.binary, "\"\"", .binary([])),
        (.binary, "/w==", .binary([255])),
        (.binary, "\"AQ\\r\\nID\"", .binary([1, 2, 3])),
        (.binary, "\"AQ ID\\n\"", .binary([1, 2, 3])),
        (.uri, "https://example.com/a?b=c", .uri("https://example.com/a?b=c")),
        (.uri, "urn:isbn:0451450523", .uri("urn:isbn:0451450523")),
    ])
    func defaultParsesExactly(type: AttributeType, text: String, expected: AttributeValue) throws {
        let decoded = try attributes(thing(attributes: defaultLine(type, text).line))
        #expect(decoded.first?.defaultValue == expected)
    }

    @Test(arguments: [
        (AttributeType.integer16, "32768", "32768 is out of range for integer16 (-32768...32767)"),
        (.integer16, "-32769", "-32769 is out of range for integer16 (-32768...32767)"),
        (.integer32, "2147483648", "2147483648 is out of range for integer32 (-2147483648...2147483647)"),
        (
            .integer64, "9223372036854775808",
            "9223372036854775808 is out of range for integer64 (-9223372036854775808...9223372036854775807)"
        ),
        (
            .integer64, "-99999999999999999999",
            "-99999999999999999999 is out of range for integer64 (-9223372036854775808...9223372036854775807)"
        ),
        (.integer32, "1.5", "'1.5' is not an integer"),
        (.integer32, "0x10", "'0x10' is not an integer"),
        (
            .decimal, "1.2.3",
            "'1.2.3' is not an exact decimal number (digits with an optional sign, point and exponent)"
        ),
        (
            .decimal, "123456789012345678901234567890123456789",
            """
            '123456789012345678901234567890123456789' has more than 38 significant digits, which a decimal cannot hold \
            exactly
            """
        ),
        (.double, "1e400", "'1e400' is not a finite number"),
        (.double, ".nan", "'.nan' is not a finite number"),
        (.float, "1e39", "1e39 is out of range for float"),
        (.boolean, "maybe", "'maybe' is not a boolean (true or false)"),
        (
            .date, "2026-02-29",
            "'2026-02-29' is not an ISO 8601 date (2026-01-31, 2026-01-31T09:30:00Z or with an offset like +02:00)"
        ),
        (
            .date, "2026-01-31T24:00:00Z",
            """
            '2026-01-31T24:00:00Z' is not an ISO 8601 date (2026-01-31, 2026-01-31T09:30:00Z or with an offset like \
            +02:00)
            """
        ),
        (
            .date, "yesterday",
            "'yesterday' is not an ISO 8601 date (2026-01-31, 2026-01-31T09:30:00Z or with an offset like +02:00)"
        ),
        (
            .uuid, "E621E1F8C36C495A93FC0C247A3E6E5F",
            "'E621E1F8C36C495A93FC0C247A3E6E5F' is not a UUID (8-4-4-4-12 hexadecimal digits)"
        ),
        (.binary, "AQI*", "'AQI*' is not base64-encoded binary data"),
        (.uri, "example.com", "'example.com' is not an absolute URI (scheme:rest, e.g. https://example.com)"),
        (.transformable, "x", "transformable attributes cannot have a default value"),
    ])
    func defaultThatDoesNotParseIsReportedAtTheValue(type: AttributeType, text: String, message: String) throws {
        let (line, column) = defaultLine(type, text)
        try expect(thing(attributes: line), reports: [error("attribute 'Thing.a': default: \(message)", 6, column)])
    }

    @Test func defaultMustBeAScalar() throws {
        try expect(
            thing(attributes: "a: { type: string, default: [x] }"),
            reports: [
                error("attribute 'Thing.a': default: expected a string value, found a list", 6, 35)
            ])
    }

    @Test func nullDefaultMeansNone() throws {
        #expect(try attributes(thing(attributes: "a: { type: integer16, default: ~ }")).first?.defaultValue == nil)
    }

    // MARK: - Relationships

    @Test func relationshipDefaults() throws {
        #expect(
            try relationships(thing(relationships: "owner: { destination: Person }")) == [
                RelationshipDescription(name: "owner", destination: "Person", location: at(6, 7))
            ])
        let owner = try #require(try relationships(thing(relationships: "owner: { destination: Person }")).first)
        #expect(owner.isOptional)
        #expect(!owner.isToMany)
        #expect(!owner.isOrdered)
        #expect(!owner.isTransient)
        #expect(owner.deleteRule == .nullify)
        #expect(owner.inverse == nil)
        #expect(owner.minCount == nil && owner.maxCount == nil)
        #expect(owner.hashedMaxCount == 1 && owner.hashedMinCount == 0)
    }

    @Test func everyRelationshipKey() throws {
        let decoded = try relationships(
            thing(
                relationships:
                    """
                    posts: { destination: Post, toMany: true, ordered: true, inverse: author, deleteRule: cascade, \
                    optional: false, transient: false, minCount: 1, maxCount: 10, renamedFrom: articles, hashModifier: \
                    v3 }
                    """,
                "cache: { destination: Post, toMany: true, transient: true }",
                "pinned: { destination: Post, maxCount: 1, optional: true }"))
        var posts = RelationshipDescription(name: "posts", destination: "Post", isToMany: true, location: at(6, 7))
        posts.isOrdered = true
        posts.inverse = "author"
        posts.deleteRule = .cascade
        posts.isOptional = false
        posts.minCount = 1
        posts.maxCount = 10
        posts.renamedFrom = "articles"
        posts.hashModifier = "v3"
        var cache = RelationshipDescription(name: "cache", destination: "Post", isToMany: true, location: at(7, 7))
        cache.isTransient = true
        var pinned = RelationshipDescription(name: "pinned", destination: "Post", location: at(8, 7))
        pinned.maxCount = 1
        #expect(decoded == [posts, cache, pinned])
        #expect(posts.hashedMaxCount == 10 && posts.hashedMinCount == 1)
    }

    @Test(arguments: [("nullify", DeleteRule.nullify), ("cascade", .cascade), ("deny", .deny), ("noAction", .noAction)])
    func everyDeleteRule(text: String, rule: DeleteRule) throws {
        let decoded = try relationships(thing(relationships: "owner: { destination: Person, deleteRule: \(text) }"))
        #expect(decoded.first?.deleteRule == rule)
    }

    @Test func relationshipProblems() throws {
        try expect(
            thing(
                relationships:
                    "a: { destination: P, deleteRule: cascde }",
                "b: { destination: P, deleteRule: destroy }",
                "c: { destination: P, ordered: true }",  // an ordered to-one: Xcode keeps it, Core Data hashes it
                "d: { destination: P, maxCount: 2 }",
                "e: { destination: P, toMany: true, minCount: 5, maxCount: 2 }",
                "f: { toMany: true }",
                "g:",
                "h: { destination: P, minCount: -1, inverse: \"\" }",
                "i: { destination: P, kind: toMany }",
                "j: { destination: P, noInverse: true, inverse: x }"),
            reports: [
                error("relationship 'Thing.a': unknown delete rule 'cascde'", 6, 40, hint: "did you mean 'cascade'?"),
                error(
                    "relationship 'Thing.b': unknown delete rule 'destroy'", 7, 40,
                    hint: "delete rules are: nullify, cascade, deny, noAction"),
                error(
                    "relationship 'Thing.d': a to-one relationship has maxCount 1, found 2", 9, 38,
                    hint: "add `toMany: true`"),
                error("relationship 'Thing.e': minCount 5 is greater than maxCount 2", 10, 65),
                error("relationship 'Thing.f': missing required key 'destination'", 11, 10),
                error("relationship 'Thing.g': missing required key 'destination'", 12, 7),
                error("relationship 'Thing.h': minCount: expected a non-negative integer, found '-1'", 13, 38),
                error("relationship 'Thing.h': inverse: must not be empty", 13, 51),
                error(
                    "relationship 'Thing.i': unknown key 'kind'", 14, 28,
                    hint: """
                        expected one of: destination, toMany, ordered, inverse, deleteRule, optional, transient, \
                        minCount, maxCount, renamedFrom, hashModifier, syncable, userInfo, xcode, noInverse
                        """),
                error(
                    "relationship 'Thing.j': noInverse: true, and it names the inverse 'x'", 15, 28,
                    hint: "keep one of the two"),
            ])
    }

    @Test func unboundedToManyHashesMaxCountZeroAndHugeCountsAreCut() throws {
        let decoded = try relationships(
            thing(
                relationships:
                    "a: { destination: P, toMany: true }",
                "b: { destination: P, toMany: true, maxCount: 4294967297, minCount: 4294967296 }"))
        #expect(decoded.map(\.hashedMaxCount) == [0, 1])
        #expect(decoded.map(\.hashedMinCount) == [0, 0])
        #expect(decoded.map(\.maxCount) == [nil, 4_294_967_297])
    }

    // MARK: - Entities

    @Test func everyEntityKey() throws {
        let version = try ModelText.description(
            """
            model: M
            version: 1
            entities:
              Product:
                abstract: true
                renamedFrom: Item
                hashModifier: v2
                attributes: { name: string, sku: string, maker: string, price: decimal }
                uniqueness: [[name, maker], sku]
                indexes:
                  - price
                  - [maker, name]
                  - { name: recent, properties: [maker, { property: price, order: descending }, { property: sku, \
            order: ascending }] }
                  - { properties: [name] }
                  - [{ property: sku, order: descending }]
              Book:
                parent: Product
                abstract: false

            """)
        var product = EntityDescription(name: "Product", location: at(4, 3))
        product.isAbstract = true
        product.renamedFrom = "Item"
        product.hashModifier = "v2"
        product.attributes = [
            AttributeDescription(name: "name", type: .string, location: at(8, 19)),
            AttributeDescription(name: "sku", type: .string, location: at(8, 33)),
            AttributeDescription(name: "maker", type: .string, location: at(8, 46)),
            AttributeDescription(name: "price", type: .decimal, location: at(8, 61)),
        ]
        product.uniqueness = [
            UniquenessConstraint(properties: ["name", "maker"], location: at(9, 18)),
            UniquenessConstraint(properties: ["sku"], location: at(9, 33)),
        ]
        product.indexes = [
            IndexDescription(
                name: "byPrice", elements: [.init(property: "price", isDescending: false, location: at(11, 9))],
                location: at(11, 9)),
            IndexDescription(
                name: "byMakerName",
                elements: [
                    .init(property: "maker", isDescending: false, location: at(12, 10)),
                    .init(property: "name", isDescending: false, location: at(12, 17)),
                ], location: at(12, 9)),
            IndexDescription(
                name: "recent",
                elements: [
                    .init(property: "maker", isDescending: false, location: at(13, 38)),
                    .init(property: "price", isDescending: true, location: at(13, 45)),
                    .init(property: "sku", isDescending: false, location: at(13, 85)),
                ], location: at(13, 9)),
            IndexDescription(
                name: "byName", elements: [.init(property: "name", isDescending: false, location: at(14, 24))],
                location: at(14, 9)),
            IndexDescription(
                name: "bySku", elements: [.init(property: "sku", isDescending: true, location: at(15, 10))],
                location: at(15, 9)),
        ]
        var book = EntityDescription(name: "Book", location: at(16, 3))
        book.parent = "Product"
        #expect(version.entities == [product, book])
        #expect(product.uniqueness.map(\.hashText) == ["name.maker", "sku"])
    }

    @Test func entityProblems() throws {
        try expect(
            """
            model: M
            version: 1
            entities:
              Product:
                abstrct: true
                parent: ""
                uniqueness: [[], [name, [x]]]
                indexes:
                  - { name: "by name", properties: [name] }
                  - { name: x }
                  - [{ property: name, order: sideways }]
                  - []
              Other: [a]

            """,
            reports: [
                error("entity 'Product': unknown key 'abstrct'", 5, 5, hint: "did you mean 'abstract'?"),
                error("entity 'Product': parent: must not be empty", 6, 13),
                error("entity 'Product': uniqueness: a constraint needs at least one property", 7, 18),
                error("entity 'Product': uniqueness: expected a string, found a list", 7, 29),
                error(
                    "entity 'Product': indexes: 'by name' is not a valid index name (ASCII letters, digits and '_')", 9,
                    9),
                error("entity 'Product': indexes: missing required key 'properties'", 10, 9),
                error("entity 'Product': indexes: order must be ascending or descending, found 'sideways'", 11, 35),
                error("entity 'Product': indexes: an index needs at least one property", 12, 9),
                error("entity 'Other': expected a mapping, found a list", 13, 10),
            ])
    }
}
