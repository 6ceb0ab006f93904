import DataModel
import SQLiteStore

/// Small helpers for writing SQL text: literals and lists (quoting is SQLiteStore's
/// `SQLText.q`, the one quoting function).
extension SQLText {
    /// A SQL literal for an attribute value stored in a column of `type`.
    static func literal(_ value: AttributeValue?, as type: AttributeType) -> String {
        "\(ValueCoding.databaseValue(value, as: type))"
    }

    /// `IN (1, 2, 3)` list text.
    static func list(_ numbers: [Int]) -> String {
        numbers.sorted().map(String.init).joined(separator: ", ")
    }

    /// The SQL type a CAST converts to, for a destination attribute type.
    static func castType(_ type: AttributeType) -> String {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: "INTEGER"
        case .double, .float, .date: "REAL"
        case .decimal, .string, .uri: "TEXT"
        case .binary, .uuid, .transformable, .composite: "BLOB"
        }
    }
}

extension Int64 {
    /// `self + other`, held at `Int64.max` (or `.min`) instead of trapping: row
    /// counts come from the store (a huge `Z_PK` makes a huge estimate), and no
    /// number read from a store may crash the planner.
    func adding(saturating other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }
}
