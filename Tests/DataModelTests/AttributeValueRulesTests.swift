import Testing

@testable import DataModel

/// `AttributeDescription.violations(of:)`: the one check of a value against an
/// attribute, used for model defaults and mapping-file values alike.
@Suite struct AttributeValueRulesTests {
    private func attribute(
        _ type: AttributeType, optional: Bool = false,
        min: AttributeValue? = nil, max: AttributeValue? = nil
    ) -> AttributeDescription {
        var attribute = AttributeDescription(name: "a", type: type, isOptional: optional, location: ModelText.at(1, 1))
        attribute.minimum = min
        attribute.maximum = max
        return attribute
    }

    @Test func numbersAgainstTheirLimits() {
        let age = attribute(.integer16, min: .integer(0), max: .integer(200))
        #expect(age.violations(of: .integer(500)) == ["500 is above max 200"])
        #expect(age.violations(of: .integer(-1)) == ["-1 is below min 0"])
        #expect(age.violations(of: .integer(0)) == [])
        #expect(age.violations(of: .integer(200)) == [])
        let ratio = attribute(.double, min: .double(0), max: .double(1.5))
        #expect(ratio.violations(of: .double(1.75)) == ["1.75 is above max 1.5"])
        let price = attribute(.decimal, max: .decimal("9.99"))
        #expect(price.violations(of: .decimal("9.990")) == [])
        #expect(price.violations(of: .decimal("10")) == ["10 is above max 9.99"])
        let start = attribute(.date, min: .date(0))
        #expect(start.violations(of: .date(-1)) == ["2000-12-31T23:59:59Z is below min 2001-01-01T00:00:00Z"])
    }

    @Test func lengthsOfStringsURIsAndBinaryData() {
        let nick = attribute(.string, min: .integer(2), max: .integer(5))
        #expect(nick.violations(of: .string("abcdef")) == ["abcdef is above max 5"])
        #expect(nick.violations(of: .string("a")) == ["a is below min 2"])
        #expect(nick.violations(of: .string("abcde")) == [])
        // UTF-16 units, as NSString.length counts: an emoji is 2, a combining accent 1 more.
        #expect(nick.violations(of: .string("😀")) == [])
        #expect(nick.violations(of: .string("e\u{301}")) == [])
        #expect(nick.violations(of: .string("😀😀😀")) == ["😀😀😀 is above max 5"])
        #expect(nick.violations(of: .string("é")) == ["é is below min 2"])
        // A value's control characters are said as JSON writes them, not sent to the terminal.
        #expect(nick.violations(of: .string("a\u{1B}]0;x\u{7}\n")) == [#"a\u001b]0;x\u0007\n is above max 5"#])
        #expect(attribute(.binary, max: .integer(2)).violations(of: .binary([1, 2, 3])) == ["AQID is above max 2"])
        #expect(
            attribute(.uri, max: .integer(8)).violations(of: .uri("https://example.com")) == [
                "https://example.com is above max 8"
            ])
    }

    @Test func kindRangeAndNul() {
        #expect(
            attribute(.integer16).violations(of: .integer(70000)) == [
                "70000 is out of range for integer16 (-32768...32767)"
            ])
        #expect(attribute(.float).violations(of: .double(1e300)) == ["1e+300 is out of range for float"])
        #expect(attribute(.integer32).violations(of: .string("5")) == ["\"5\" is not a value of type integer32"])
        #expect(
            attribute(.string).violations(of: .string("a\0b"))
                == ["a NUL character (\\0) is not allowed (SQLite's SQL text ends at the first NUL)"])
        // A limit it breaks is said first: a stored value may hold a NUL (`load` takes it),
        // and `update`'s refusal of one over its maximum names the maximum.
        #expect(
            attribute(.string, max: .integer(3)).violations(of: .string("\0\0\0\0"))
                == [#"\u0000\u0000\u0000\u0000 is above max 3"#])
    }

    @Test func nilIsAValueOfOptionalAttributesOnly() {
        #expect(attribute(.string).violations(of: nil) == ["the attribute is required; nil is not a value for it"])
        #expect(attribute(.string, optional: true).violations(of: nil) == [])
    }
}
