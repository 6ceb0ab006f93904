import FoundationEssentials
import Predicates
import SQLiteStore

/// The SQL of expression functions: SQLite's built-ins where they mean what
/// Foundation means (`replace`, `%`, the math functions of SQLite 3.35+), the `mm_`
/// functions registered on every connection where they don't (Connection+Functions,
/// Connection+StringFunctions). Docs/MappingFiles.md gives each one's semantics.
extension PredicateSQL.Builder {
    func functionValue(_ function: ExpressionFunction, _ args: [CheckedExpression], _ alias: String)
        throws(PredicateSQLError) -> String
    {
        func text(_ i: Int) throws(PredicateSQLError) -> String { try value(args[i], alias, numeric: false) }
        func number(_ i: Int) throws(PredicateSQLError) -> String { try value(args[i], alias, numeric: true) }
        switch function {
        case .now: return bind(.real(generator.now.timeIntervalSinceReferenceDate))
        case .lowercase: return "mm_lower(\(try text(0)))"
        case .uppercase: return "mm_upper(\(try text(0)))"
        case .length: return "mm_utf16_length(\(try text(0)))"
        case .capitalized: return "mm_capitalized(\(try text(0)))"
        case .trim: return "mm_trim(\(try text(0)))"
        case .abs: return "mm_abs(\(try number(0)), \(failingRow()))"
        case .toNumber:
            let argument = try text(0)
            guard let failing = generator.failedConversions else { return "mm_number(\(argument))" }
            return "mm_number_or_fail(\(argument), \(failing.key), \(bind(.text(failing.label))))"
        case .toString: return "mm_string(\(try number(0)))"
        case .substringFrom, .substringTo:
            let (string, index) = (try text(0), try number(1))
            return "mm_substring(\(string), \(index), \(function == .substringFrom ? 0 : 1), \(failingRow()))"
        case .component:
            let (string, separator, index) = (try text(0), try text(1), try number(2))
            return "mm_component(\(string), \(separator), \(index), \(failingRow()))"
        case .componentCount: return "mm_component_count(\(try text(0)), \(try text(1)))"
        case .replace: return "replace(\(try text(0)), \(try text(1)), \(try text(2)))"
        case .replaceMatches: return "mm_replace_matches(\(try text(0)), \(try text(1)), \(try text(2)))"
        case .modulus:
            // `%` on two integers (C's remainder: the dividend's sign); SQLite's `%` would
            // truncate doubles to integers first, `mod` is C's fmod. Both are NULL for 0.
            let (a, b) = (try number(0), try number(1))
            return args.allSatisfy({ $0.type == .integer }) ? "(\(a) % \(b))" : "mod(\(a), \(b))"
        case .sqrt, .ceiling, .floor, .trunc, .log, .ln, .exp:
            let names: [ExpressionFunction: String] = [
                .sqrt: "sqrt", .ceiling: "ceil", .floor: "floor", .trunc: "trunc", .log: "log10",
                .ln: "ln", .exp: "exp",
            ]
            return "\(names[function]!)(\(try number(0)))"
        case .power: return "pow(\(try number(0)), \(try number(1)))"
        case .bitwiseAnd: return "(\(try number(0)) & \(try number(1)))"
        case .bitwiseOr: return "(\(try number(0)) | \(try number(1)))"
        case .bitwiseXor:
            // SQLite has no XOR operator: (a | b) - (a & b), each operand written twice.
            let (a, b) = (try number(0), try number(1))
            let (a2, b2) = (try number(0), try number(1))
            return "((\(a) | \(b)) - (\(a2) & \(b2)))"
        case .leftShift: return "(\(try number(0)) << \(try number(1)))"
        case .rightShift: return "(\(try number(0)) >> \(try number(1)))"
        case .onesComplement: return "(~\(try number(0)))"
        case .listSum, .listMin, .listMax, .listAverage:
            // One row per item; the aggregate skips nil items, as @sum and @max do.
            // (A VALUES list cannot read the outer row in SQLite 3.40: a UNION ALL can.)
            var rows: [String] = []
            for i in args.indices { rows.append("SELECT \(try number(i))\(i == 0 ? " AS v" : "")") }
            let call = [.listSum: "coalesce(sum(v), 0)", .listMin: "min(v)", .listMax: "max(v)"][function] ?? "avg(v)"
            return "(SELECT \(call) FROM (\(rows.joined(separator: " UNION ALL "))))"
        }
    }

    /// The key and label an out-of-range index fails with, or `NULL, NULL` (nil).
    private func failingRow() -> String {
        guard let failing = generator.failedConversions else { return "NULL, NULL" }
        return "\(failing.key), \(bind(.text(failing.label)))"
    }
}
