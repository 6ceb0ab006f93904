import DataModel
import Testing

@testable import SQLiteStore

/// Reading stored values never traps, whatever another tool (or SQLite's own
/// integer overflow, which computes in REAL) left in a column; writing refuses
/// what the type cannot hold.
@Suite struct ValueCodingTests {
    /// `Int64(exactly:) ?? Int64(v)` trapped for 1e19 and ±inf: a REAL that is no
    /// Int64 is now read as the double it is, never truncated.
    @Test(arguments: [
        (DatabaseValue.real(7), AttributeType.integer16, AttributeValue.integer(7)),
        (.real(2.5), .integer32, .double(2.5)),
        (.real(1e19), .integer64, .double(1e19)),
        (.real(-9.223372036854775808e18), .integer64, .integer(.min)),
        (.real(9.223372036854775808e18), .integer64, .double(9.223372036854775808e18)),
        (.real(.infinity), .integer64, .double(.infinity)),
        (.real(-.infinity), .integer16, .double(-.infinity)),
        (.real(.infinity), .decimal, .double(.infinity)),
        (.real(1.5), .decimal, .decimal("1.5")),
        (.text("abc"), .decimal, .string("abc")),
        (.text("12.50"), .decimal, .decimal("12.50")),
        (.blob([1, 2]), .uuid, .binary([1, 2])),
        (.real(.infinity), .date, .date(.infinity)),
    ])
    func readsEveryStoredValueAsItIs(stored: DatabaseValue, type: AttributeType, read: AttributeValue) {
        #expect(ValueCoding.attributeValue(stored, as: type) == read)
    }

    /// NaN cannot reach a store (SQLite's record decoder reads it as NULL), but a
    /// value in hand is still read without a trap.
    @Test func readsNaNWithoutATrap() {
        guard case .double(let v)? = ValueCoding.attributeValue(.real(.nan), as: .integer64) else {
            Issue.record("expected a double")
            return
        }
        #expect(v.isNaN)
    }

    /// One rule for what a double, float or date can keep, in inserts and in the
    /// model's own checks (`AttributeDescription.violations`).
    @Test(
        arguments: [
            (AttributeType.double, Double.nan, "NaN cannot be stored (SQLite stores it as NULL)"),
            (.double, .infinity, nil),
            (.float, -.infinity, nil),
            (.float, 1e39, "1e+39 is out of range for float"),
            (.float, 1e-50, "1e-50 is too small for float (it would be stored as 0)"),
            (.float, 1e-45, nil),
            (.date, .infinity, "inf is not a date (a date is a finite number of seconds since 2001-01-01)"),
            (.date, .nan, "NaN cannot be stored (SQLite stores it as NULL)"),
            (.date, 1e15, nil),
        ] as [(AttributeType, Double, String?)])
    func refusesDoublesTheTypeCannotKeep(type: AttributeType, value: Double, problem: String?) {
        let attributeValue: AttributeValue = type == .date ? .date(value) : .double(value)
        #expect(ValueCoding.check(attributeValue, fits: type) == problem)
        let attribute = AttributeDescription(
            name: "x", type: type, isOptional: true, location: SourceLocation(file: "m.yaml", line: 1, column: 1))
        #expect(attribute.violations(of: attributeValue) == (problem.map { [$0] } ?? []))
    }
}
