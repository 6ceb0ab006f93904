import DataModel
import Foundation
import MigrationPolicies
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// Values keep their exact meaning: a text becomes an integer only when it spells
/// one exactly, integer overflow in a function fails naming its row, and decimals
/// stay within what NSDecimalNumber holds.
@Suite struct ValueExactnessTests {
    @Test(arguments: [
        ("4", Int64(4)), ("4.0", 4), ("  7 ", 7), ("1e3", 1000), ("12.5e1", 125), ("-0.0", 0), ("-12.000", -12),
        ("9223372036854775807", .max), ("-9223372036854775808", .min), ("0e99999", 0), ("5000e-3", 5), ("4.", 4),
    ])
    func textThatSpellsAnIntegerBecomesIt(text: String, value: Int64) {
        #expect(MigrationManager.exactInteger(in: text) == value)
    }

    /// Through Double, "4.0000000000000001" was 4 and "9223372036854775808" was Int64.max.
    @Test(arguments: ["4.0000000000000001", "1.25e1", "9223372036854775808", "1e19", "abc", "", "0x10", "1e-1", "4.5."])
    func textThatDoesNotIsNoInteger(text: String) {
        #expect(MigrationManager.exactInteger(in: text) == nil)
    }

    /// A policy's default instance carries a string into an integer attribute only
    /// when it converts exactly; otherwise the value stays a string, which insert
    /// refuses naming the attribute.
    @Test func aPolicyConversionNeverRoundsAText() {
        #expect(
            MigrationManager.convert(.string("4.0000000000000001"), to: .integer32) == .string("4.0000000000000001"))
        #expect(MigrationManager.convert(.string("40.000"), to: .integer32) == .integer(40))
        #expect(MigrationManager.convert(.decimal("2.50"), to: .integer64) == .decimal("2.50"))
        #expect(MigrationManager.convert(.string("0.1"), to: .double) == .double(0.1))
    }

    /// NSDecimalNumber: a mantissa of at most 38 digits times 10^-128 … 10^127.
    @Test(arguments: [
        ("1e127", true), ("1e164", true), ("1e165", false), ("1e-128", true), ("1e-129", false), ("123e-130", false),
        ("0e-999999", true), ("0.000", true), ("-1.5e-127", true), ("10e163", true), ("1e99999999999999999999", false),
        // Trailing zeros are not significant digits: 10^39 is 1 × 10^39.
        ("1000000000000000000000000000000000000000", true), ("1.0000000000000000000000000000000000000000", true),
    ])
    func decimalsStayWithinNSDecimalNumber(text: String, fits: Bool) {
        let parsed = DefaultValueParser.parse(text, as: .decimal)
        if fits {
            #expect((try? parsed.get()) != nil, "\(text)")
        } else {
            #expect((try? parsed.get()) == nil, "\(text)")
        }
    }

    /// `abs:` of Int64.min fails the apply naming the row (SQLite's abs() said only
    /// "integer overflow"); the store is unchanged.
    @Test func absOfTheSmallestIntegerFailsNamingItsRow() throws {
        let s = try MappingExpressionTests.scenario(
            mapping: MappingExpressionTests.mapping.replacingOccurrences(
                of: "$source.visits * 2 + 1", with: "abs:($source.visits - 15 - 9223372036854775807 - 1)"))
        defer { s.remove() }
        let before = FileSnapshot(s.storePath).fingerprint
        let plan = try s.plan()
        #expect {
            try Migrator().apply(plan)
        } throws: { error in
            "\(error)".contains(
                "Book.score: abs: of -9223372036854775808 in source row Z_PK 1 is 2^63, beyond Integer 64")
                && "\(error)".hasSuffix("nothing was changed")
        }
        #expect(FileSnapshot(s.storePath).fingerprint == before)
    }

    /// A mapping file's value headed for a decimal: an infinity or a magnitude no
    /// NSDecimalNumber holds fails the apply naming its row (it committed "Inf").
    @Test func aComputedDecimalOutsideTheRangeFailsNamingItsRow() throws {
        let s = try MigrationScenario(
            "Dec",
            versions: [
                "entities:\n  Item:\n    attributes:\n      d: decimal?\n",
                "entities:\n  Item:\n    attributes:\n      d: decimal?\n      e: decimal?\n",
            ])
        defer { s.remove() }
        try s.writeMapping(
            "1-to-2.yaml", "entities:\n  Item:\n    properties:\n      e: { value: \"$source.d * $source.d\" }\n")
        try s.withObjects {
            try $0.insert("Item", values: ["d": .decimal("99999999999999999999999999999999999999e127")])
        }
        let before = FileSnapshot(s.storePath).fingerprint
        #expect {
            try Migrator().apply(try s.plan())
        } throws: { error in
            "\(error)".contains("Item.e: inf is not a decimal number (source row Z_PK 1;")
        }
        #expect(FileSnapshot(s.storePath).fingerprint == before)
    }
}
