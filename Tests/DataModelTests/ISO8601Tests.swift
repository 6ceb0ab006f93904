import Testing

@testable import DataModel

@Suite struct ISO8601Tests {
    @Test(arguments: [
        ("2001-01-01", 0.0),
        ("2001-01-01T00:00:00.1Z", 0.1),
        ("2000-12-31T23:59:59.9Z", -0.1),
        ("2000-12-31T23:59:59.25Z", -0.75),
        ("2001-01-01T00:00:00.1000Z", 0.1),
        ("2026-01-31T09:30:15.123Z", 791_544_615.123),
        ("2026-01-31 09:30:15.123+0100", 791_541_015.123),
        ("1970-01-01T00:00:00.000001Z", -978_307_199.999999),
    ])
    func parsesToTheNearestDouble(text: String, seconds: Double) {
        #expect(ISO8601.parse(text) == seconds)
    }

    @Test(arguments: [
        "2026-13-01", "2026-01-01T", "2026-01-01T10:00:00.Z", "2026-01-01T10:00:00+25:00", "2026-01-01T10:00:00ZZ",
        "26-01-01",
    ])
    func rejectsMalformedDates(text: String) {
        #expect(ISO8601.parse(text) == nil)
    }

    @Test(arguments: [
        (0.0, "2001-01-01T00:00:00Z"),
        (0.1, "2001-01-01T00:00:00.1Z"),
        (-0.5, "2000-12-31T23:59:59.5Z"),
        (791_544_615.123, "2026-01-31T09:30:15.123Z"),
        (-978_307_200.0, "1970-01-01T00:00:00Z"),
        // Rounding to microseconds carries into the next second (it printed ".1").
        (0.9999996, "2001-01-01T00:00:01Z"),
        (-0.0000001, "2001-01-01T00:00:00Z"),
    ])
    func formatsWithMicrosecondsAtMost(seconds: Double, text: String) {
        #expect(ISO8601.format(secondsSinceReferenceDate: seconds) == text)
    }
}
