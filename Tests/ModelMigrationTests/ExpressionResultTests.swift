import DataModel
import Foundation
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// What a mapping file's value computes must be what is stored, or the apply fails
/// naming its row: integer overflow (SQLite goes on in REAL, and `CAST` would clamp),
/// and text that is not valid UTF-8 (`length:` and substring offsets count the same
/// UTF-16 units).
@Suite struct ExpressionResultTests {
    /// 15 × Int64.max is 1.38e20 in SQLite's REAL; CAST made it Int64.max.
    @Test func integerOverflowFailsTheApplyNamingItsRow() throws {
        let s = try MappingExpressionTests.scenario(
            mapping: MappingExpressionTests.mapping
                .replacingOccurrences(of: "$source.visits * 2 + 1", with: "$source.visits * 9223372036854775807"))
        defer { s.remove() }
        let before = FileSnapshot(s.storePath).fingerprint
        let plan = try s.plan()
        #expect {
            try Migrator().apply(plan)
        } throws: { error in
            "\(error)".contains(
                """
                Book.score: 1.3835058055282164e+20 of source row Z_PK 1 is outside integer64 \
                (-9223372036854775808...9223372036854775807) (integer arithmetic past Int64 computes in REAL; change \
                the value expression, or correct the row first)
                """) && "\(error)".hasSuffix("nothing was changed")
        }
        #expect(FileSnapshot(s.storePath).fingerprint == before)
        #expect(try s.storeVersion() == 1)
    }

    /// With `onFailure: nil` (an optional attribute) the overflowed value is nil.
    @Test func integerOverflowWithOnFailureNilIsNil() throws {
        let s = try MappingExpressionTests.scenario(
            mapping: MappingExpressionTests.mapping
                .replacingOccurrences(
                    of: "CAST($source.pages, 'NSNumber')", with: "CAST($source.pages, 'NSNumber') * 9223372036854775807"
                ))
        defer { s.remove() }
        try Migrator().apply(try s.plan())
        #expect(
            try s.rows("SELECT Z_PK, ZPAGES FROM ZBOOK ORDER BY Z_PK").map { $0.map { "\($0)" }.joined(separator: " ") }
                == ["1 NULL", "3 NULL"])
    }

    /// A REAL within Int64 is truncated toward zero, as NSNumber's integerValue.
    @Test func aRealWithinRangeIsTruncatedAndStoredAsAnInteger() throws {
        let s = try MappingExpressionTests.scenario(
            mapping: MappingExpressionTests.mapping
                .replacingOccurrences(of: "$source.visits * 2 + 1", with: "$source.visits * 2.5"))
        defer { s.remove() }
        try Migrator().apply(try s.plan())
        #expect(
            try s.rows("SELECT Z_PK, ZSCORE, typeof(ZSCORE) FROM ZBOOK ORDER BY Z_PK").map {
                $0.map { "\($0)" }.joined(separator: " ")
            }
                == ["1 37 'integer'", "3 100 'integer'"])
    }

    /// The cancellable replacement gives what `stringByReplacingMatches` gives:
    /// several matches, groups, text outside the BMP before and between them.
    @Test(arguments: [
        ("a-12 b-3 😀c-456", "([a-z])-?([0-9]+)", "$2$1"), ("xx", "x*", "<$0>"), ("none", "[0-9]", "#"), ("", "a*", "z"),
    ])
    func regexReplacementMatchesFoundation(_ text: String, _ pattern: String, _ template: String) throws {
        let expression = try NSRegularExpression(pattern: pattern)
        let expected = expression.stringByReplacingMatches(
            in: text, range: NSRange(text.startIndex..., in: text), withTemplate: template)
        #expect(RegexReplacement.replace(text, expression, template, isCancelled: { false }) == expected)
        #expect(
            RegexReplacement.replace(
                String(repeating: "a", count: 40) + "b", try NSRegularExpression(pattern: "(a+)+$"), "x",
                isCancelled: { true }) == nil)
    }

    /// `a`, 0xFF, `b`, a 4-byte sequence cut after 2 bytes, `c`, 😀: decoded as
    /// `a\u{FFFD}b\u{FFFD}c😀`, 7 UTF-16 units (counting lead bytes said 9).
    @Test func invalidUTF8CountsTheSameUnitsForLengthAndSubstring() throws {
        let s = try MigrationScenario(
            "Notes",
            versions: [
                "entities:\n  Note:\n    attributes: { text: string }\n",
                "entities:\n  Note:\n    attributes: { text: string, units: integer32?, tail: string? }\n",
            ])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Note", values: ["text": .string("x")])
            try o.store.connection.execute("UPDATE ZNOTE SET ZTEXT = CAST(X'61FF62F09F63F09F9880' AS TEXT)")
        }
        try s.writeMapping(
            "1-to-2.yaml",
            """
            entities:
              Note:
                properties:
                  units: { value: "length:($source.text)" }
                  tail: { value: "FUNCTION($source.text, 'substringFromIndex:', length:($source.text) - 3)" }
            """)
        _ = try s.migrate()
        #expect(try s.rows("SELECT ZUNITS, ZTAIL FROM ZNOTE").map { $0.map { "\($0)" } } == [["7", "'c😀'"]])
    }
}
