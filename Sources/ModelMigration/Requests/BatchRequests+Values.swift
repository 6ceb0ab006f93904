import DataModel
import Foundation
import Predicates
import SQLiteStore

// An update's new values held to the model's rules, set-based (BatchRequests.swift
// runs the update).
extension StoreRequests {
    /// The model's rules for the new values, as one SQL condition per attribute
    /// selecting candidate rows; the rows found are named with the exact message
    /// of `AttributeDescription.violations(of:)`.
    func checkValues(
        _ attributes: [CompiledAttribute], entity: CompiledEntity, table: StorageLayout.Table, keys: String
    ) throws {
        var problems: [String] = []
        var total = 0
        for attribute in attributes {
            let a = attribute.declaration
            guard let column = table.column(for: .attribute(entity: attribute.declaredIn, property: attribute.name))
            else { continue }
            let c = SQLText.q(column.name)
            let (conditions, arguments) = Self.violations(of: a, column: c)
            guard !conditions.isEmpty else { continue }
            let whereClause = "Z_PK IN (\(keys)) AND (\(conditions.joined(separator: " OR ")))"
            let found = try rows(
                "SELECT Z_PK, \(c) FROM \(SQLText.q(table.name)) WHERE \(whereClause) ORDER BY Z_PK LIMIT 5", arguments)
            guard !found.isEmpty else { continue }
            let count = Int(
                try rows("SELECT count(*) FROM \(SQLText.q(table.name)) WHERE \(whereClause)", arguments)[0][0].int64
                    ?? 0)
            total += count
            for row in found {
                let value = ValueCoding.attributeValue(row[1], as: a.type)
                let detail =
                    a.violations(of: value).first
                    ?? (MessageText.visible(row[1].description) + " is not a value of type \(a.type.rawValue)")
                problems.append("\(entity.name) \(row[0].int64 ?? 0): \(attribute.name): \(detail)")
            }
            if count > found.count {
                problems.append("… and \(count - found.count) more objects with a bad \(attribute.name)")
            }
        }
        if !problems.isEmpty {
            throw RequestError(
                .refused,
                "\(total) object\(total == 1 ? "" : "s") would break the model; nothing was changed:\n  "
                    + problems.joined(separator: "\n  "))
        }
    }

    /// SQL conditions that hold for a stored value of `a` in column `c` that breaks the
    /// model's rules (required, the type's range, min and max), with their bound values.
    static func violations(
        of a: AttributeDescription, column c: String
    ) -> (conditions: [String], arguments: [DatabaseValue]) {
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        if !a.isOptional { conditions.append("\(c) IS NULL") }
        func bound(_ value: AttributeValue?, _ op: String, measure: String) {
            switch value {
            case .integer(let v)?:
                conditions.append("\(measure) \(op) ?")
                arguments.append(.integer(v))
            case .double(let v)?, .date(let v)?:
                conditions.append("\(measure) \(op) ?")
                arguments.append(.real(v))
            case .decimal(let v)?:
                conditions.append("\(measure) \(op) ?")
                arguments.append(.real(Double(v) ?? 0))
            default: break
            }
        }
        // A string's length in UTF-16 units (`AttributeDescription.limitLength`), binary data's in bytes.
        let measured =
            a.type == .string || a.type == .uri
            ? "mm_utf16_length(\(c))"
            : a.type == .binary ? "length(CAST(\(c) AS BLOB))" : a.type == .decimal ? "CAST(\(c) AS REAL)" : c
        if let range = a.type.integerRange {
            conditions.append("typeof(\(c)) NOT IN (?, ?)")
            arguments += [.text("integer"), .text("null")]
            bound(.integer(range.lowerBound), "<", measure: c)
            bound(.integer(range.upperBound), ">", measure: c)
        }
        if a.type == .boolean { conditions.append("\(c) NOT IN (0, 1)") }
        // SQLite computes past the ends in REAL: 1e308 * 10 is infinity, which a
        // date or decimal cannot be (a double or float can: Core Data's NSNumber
        // holds it), and a float keeps only what Float keeps. NaN never arrives:
        // SQLite turns it into NULL.
        if a.type == .date || a.type == .decimal {
            conditions.append("\(c) IN (?, ?)")
            arguments += [.real(.infinity), .real(-.infinity)]
        }
        // A decimal beyond NSDecimalNumber: 38 digits times 10^-128 to 10^127.
        if a.type == .decimal {
            conditions.append(
                "abs(CAST(\(c) AS REAL)) >= ? OR (CAST(\(c) AS REAL) <> 0 AND abs(CAST(\(c) AS REAL)) < ?)")
            arguments += [.real(1e165), .real(1e-128)]
        }
        if a.type == .float {
            conditions.append("(abs(\(c)) > ? AND abs(\(c)) < ?) OR (\(c) <> 0 AND abs(\(c)) <= ?)")
            arguments += [
                .real(Double(Float.greatestFiniteMagnitude)), .real(.infinity),
                .real(Double(Float.leastNonzeroMagnitude) / 2),
            ]
        }
        bound(a.minimum, "<", measure: measured)
        bound(a.maximum, ">", measure: measured)
        return (conditions, arguments)
    }
}
