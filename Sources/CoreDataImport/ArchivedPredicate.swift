import PropertyList

/// An `NSPredicate` archived inside an expression (the condition of an
/// `NSTernaryExpression`), written back in the predicate format syntax the Predicates
/// module parses. The keys are Foundation's: `NSComparisonPredicate` holds
/// `NSLeftExpression`, `NSRightExpression` and `NSPredicateOperator` (an operator with
/// `NSOperatorType`, `NSModifier` and, for comparisons of strings, `NSOptions`);
/// `NSCompoundPredicate` holds `NSCompoundPredicateType` (0 NOT, 1 AND, 2 OR) and
/// `NSSubpredicates`; `NSTruePredicate` and `NSFalsePredicate` hold nothing.
indirect enum ArchivedPredicate: Sendable, Hashable {
    /// `TRUEPREDICATE` or `FALSEPREDICATE`.
    case constant(Bool)
    /// `[ANY |ALL ]left op[options] right`.
    case comparison(
        modifier: String, left: ArchivedExpression, operator: String, options: String, right: ArchivedExpression)
    /// `NOT`, `AND`, `OR` over the subpredicates.
    case compound(type: Int, [ArchivedPredicate])
    /// What has no format text here.
    case unsupported(String)

    /// `NSPredicateOperatorType` → its symbol in the format syntax.
    private static let operators: [Int64: String] = [
        0: "<", 1: "<=", 2: ">", 3: ">=", 4: "==", 5: "!=", 6: "MATCHES", 7: "LIKE", 8: "BEGINSWITH", 9: "ENDSWITH",
        10: "IN", 99: "CONTAINS", 100: "BETWEEN",
    ]

    /// The `NSPredicateOperatorType` of an operator symbol: the table above read backwards.
    static func operatorType(_ symbol: String) -> Int64? {
        operators.first { $0.value == symbol }?.key
    }

    /// `NSComparisonPredicate.Options` of `[cd]`-style options: the bits the reader reads.
    static func optionBits(_ options: String) -> Int64 {
        (options.contains("c") ? 1 : 0) | (options.contains("d") ? 2 : 0) | (options.contains("n") ? 4 : 0)
            | (options.contains("l") ? 8 : 0)
    }

    /// Decodes the predicate `value` refers to.
    static func decode(_ value: PropertyListValue?, _ archive: KeyedArchive, depth: Int, budget: inout Int)
        -> ArchivedPredicate
    {
        budget -= 1
        guard depth < 64, budget > 0 else { return .unsupported("a predicate nested too deeply") }
        guard let fields = archive.fields(value) else {
            return .unsupported("NSTernaryExpression without its predicate")
        }
        switch archive.className(value) {
        case "NSTruePredicate"?: return .constant(true)
        case "NSFalsePredicate"?: return .constant(false)
        case "NSCompoundPredicate"?:
            guard case .integer(let type)? = archive.resolve(fields["NSCompoundPredicateType"]), (0...2).contains(type)
            else {
                return .unsupported("an NSCompoundPredicate of no known type")
            }
            let subpredicates = archive.array(fields["NSSubpredicates"]).map {
                decode($0, archive, depth: depth + 1, budget: &budget)
            }
            if type == 0 && subpredicates.count != 1 {
                return .unsupported("a NOT predicate of \(subpredicates.count) subpredicates")
            }
            return .compound(type: Int(type), subpredicates)
        case "NSComparisonPredicate"?:
            return comparison(fields, archive, depth: depth, budget: &budget)
        case let name?: return .unsupported(name)
        case nil: return .unsupported("a predicate of no class")
        }
    }

    private static func comparison(
        _ fields: [String: PropertyListValue], _ archive: KeyedArchive, depth: Int,
        budget: inout Int
    ) -> ArchivedPredicate {
        guard let op = archive.fields(fields["NSPredicateOperator"]),
            case .integer(let type)? = archive.resolve(op["NSOperatorType"])
        else {
            return .unsupported("an NSComparisonPredicate without its operator")
        }
        guard let symbol = operators[type] else {
            return .unsupported(
                """
                an NSComparisonPredicate of operator type \(type) \
                (\(archive.className(fields["NSPredicateOperator"]) ?? "no class"))
                """
            )
        }
        var modifier = ""
        switch archive.resolve(op["NSModifier"]) {
        case nil, .integer(0)?: break
        case .integer(1)?: modifier = "ALL "
        case .integer(2)?: modifier = "ANY "
        default: return .unsupported("an NSComparisonPredicate of an unknown modifier")
        }
        // NSComparisonPredicateOptions: 1 case-insensitive [c], 2 diacritic-insensitive [d], 8 normalized [n].
        var options = ""
        if case .integer(let bits)? = archive.resolve(op["NSOptions"]), bits != 0 {
            // NSCaseInsensitive 1, NSDiacriticInsensitive 2, NSNormalized 4, NSLocaleSensitive 8
            // (NSComparisonPredicate.Options), written [c], [d], [n] and [l].
            guard bits & ~15 == 0 else { return .unsupported("an NSComparisonPredicate with options \(bits)") }
            options =
                "[" + (bits & 1 != 0 ? "c" : "") + (bits & 2 != 0 ? "d" : "") + (bits & 4 != 0 ? "n" : "")
                + (bits & 8 != 0 ? "l" : "") + "]"
        }
        guard archive.resolve(fields["NSLeftExpression"]) != nil, archive.resolve(fields["NSRightExpression"]) != nil
        else {
            return .unsupported("an NSComparisonPredicate without its two expressions")
        }
        let left = ArchivedExpression.decode(fields["NSLeftExpression"], archive, depth: depth + 1, budget: &budget)
        let right = ArchivedExpression.decode(fields["NSRightExpression"], archive, depth: depth + 1, budget: &budget)
        return .comparison(modifier: modifier, left: left, operator: symbol, options: options, right: right)
    }

    /// The predicate in format syntax; subpredicates of a compound in parentheses.
    var format: String {
        switch self {
        case .constant(let value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .comparison(let modifier, let left, let op, let options, let right):
            return "\(modifier)\(left.format) \(op)\(options) \(right.format)"
        case .compound(0, let parts): return "NOT (\(parts[0].format))"
        case .compound(let type, let parts):
            // Foundation's own reading of an empty AND / OR.
            guard !parts.isEmpty else { return type == 1 ? "TRUEPREDICATE" : "FALSEPREDICATE" }
            return parts.map { "(\($0.format))" }.joined(separator: type == 1 ? " AND " : " OR ")
        case .unsupported(let what): return "<\(what)>"
        }
    }

    /// The expressions the predicate compares.
    var expressions: [ArchivedExpression] {
        switch self {
        case .constant, .unsupported: return []
        case .comparison(_, let left, _, _, let right): return [left, right]
        case .compound(_, let parts): return parts.flatMap(\.expressions)
        }
    }

    /// What of the predicate has no format text here.
    var unsupportedParts: [String] {
        switch self {
        case .unsupported(let what): return [what]
        case .constant: return []
        case .comparison(_, let left, _, _, let right): return left.unsupportedParts + right.unsupportedParts
        case .compound(_, let parts): return parts.flatMap(\.unsupportedParts)
        }
    }
}
