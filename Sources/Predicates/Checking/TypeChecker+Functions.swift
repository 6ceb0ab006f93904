import DataModel

/// `TERNARY`, indexes, the string methods a mapping model calls through
/// `FUNCTION(receiver, 'selector:', …)`, and the rest of `NSExpression`'s documented
/// functions that have a set-based SQL form (Docs/MappingFiles.md, "Expressions").
extension TypeChecker.Run {
    static let moreFunctionNames = [
        "modulus:by:", "sqrt:", "raise:toPower:", "ceiling:", "floor:", "trunc:", "log:", "ln:", "exp:",
        "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:", "leftshift:by:", "rightshift:by:",
        "onesComplement:", "noindex:", "trim:", "replace:matching:with:", "objectFrom:withIndex:",
    ]

    /// NSExpression's functions that have no set-based form here, and why.
    static let refusedFunctions: [String: String] = [
        "median:": "median: has no set-based SQL form here (write it in a policy)",
        "mode:": "mode: has no set-based SQL form here (write it in a policy)",
        "stddev:": "stddev: has no set-based SQL form here (write it in a policy)",
        "random":
            "random is not deterministic: a migration's values must not depend on when it runs (write it in a policy)",
        "random:":
            "random: is not deterministic: a migration's values must not depend on when it runs (write it in a policy)",
        "randomn:":
            """
        randomn: is not deterministic: a migration's values must not depend on when it runs (write it in a policy)
        """,
        "distanceToLocation:fromLocation:":
            "distanceToLocation:fromLocation: needs CLLocation objects, which no store column holds",
        "castObject:toType:": "castObject:toType: is written CAST(x, 'NSNumber') here",
    ]

    static let stringMethods = [
        "componentsSeparatedByString:", "substringFromIndex:", "substringToIndex:",
        "stringByReplacingOccurrencesOfString:withString:", "uppercaseString", "lowercaseString",
        "capitalizedString", "length",
    ]

    /// A string operand (or nil): `what` names it in the error.
    func text(_ syntax: ExpressionSyntax, _ what: String) throws(PredicateError) -> CheckedExpression {
        let e = try expression(syntax)
        guard e.type.isText || e.type == .null else {
            throw fail("\(what) takes a string, not \(e.type)", at: syntax.position)
        }
        return e
    }

    /// A number operand (or nil); `integer` allows integers only.
    func number(_ syntax: ExpressionSyntax, _ what: String, integer: Bool = false) throws(PredicateError)
        -> CheckedExpression
    {
        let e = try expression(syntax)
        if e.type == .null { return e }
        if integer {
            guard e.type == .integer else { throw fail("\(what) takes an integer, not \(e.type)", at: syntax.position) }
        } else {
            guard e.type == .integer || e.type == .double || e.type == .decimal else {
                throw fail("\(what) takes a number, not \(e.type)", at: syntax.position)
            }
        }
        return e
    }

    // MARK: TERNARY

    func ternary(_ condition: PredicateSyntax, _ a: ExpressionSyntax, _ b: ExpressionSyntax, at: Int)
        throws(PredicateError) -> CheckedExpression
    {
        let test = try predicate(condition)
        let whenTrue = try expression(a), whenFalse = try expression(b)
        for (side, syntax) in [(whenTrue, a), (whenFalse, b)] {
            if case .list = side { throw fail("TERNARY gives one value, not a list", at: syntax.position) }
        }
        let l = whenTrue.type, r = whenFalse.type
        let type: ValueType
        if l == .null || l == r {
            type = r
        } else if r == .null {
            type = l
        } else if l.isText && r.isText {
            type = .string
        } else if Self.isNumber(l), Self.isNumber(r) {
            type = .double
        } else {
            throw fail("TERNARY's two values differ in type: \(l) and \(r)", at: b.position)
        }
        return .conditional(test, whenTrue, whenFalse, type)
    }

    static func isNumber(_ t: ValueType) -> Bool { t == .integer || t == .double || t == .decimal || t == .boolean }

    // MARK: Indexes

    /// `FUNCTION(s, 'componentsSeparatedByString:', sep)[…]`: the only array a value
    /// expression has (a to-many relationship is a set: it has no order to index).
    func indexed(_ base: ExpressionSyntax, _ index: IndexSyntax, at: Int) throws(PredicateError) -> CheckedExpression {
        guard let (receiver, separator) = Self.components(base) else {
            throw fail(
                """
                an index ([FIRST], [LAST], [SIZE], [n]) applies to FUNCTION(…, 'componentsSeparatedByString:', …) \
                here, the one list a value has an order in
                """, at: at)
        }
        let string = try text(receiver, "componentsSeparatedByString:")
        let sep = try text(separator, "componentsSeparatedByString:")
        switch index {
        case .size: return .function(.componentCount, [string, sep], .integer)
        case .first: return .function(.component, [string, sep, .literal(.integer(0))], .string)
        // `[LAST]` is index Int64.min, a number no written or computed index can be
        // (a computed -1 is out of range, as NSArray's objectAtIndex: raises for it).
        case .last: return .function(.component, [string, sep, .literal(.integer(Int64.min))], .string)
        case .position(let n):
            if case .integer(let value, let valueAt) = n, value < 0 {
                throw fail(
                    "an index counts from 0; \(value) is before the first element ([LAST] is the last)", at: valueAt)
            }
            return .function(.component, [string, sep, try number(n, "an index", integer: true)], .string)
        }
    }

    /// The string and separator of a `componentsSeparatedByString:` call.
    static func components(_ syntax: ExpressionSyntax) -> (ExpressionSyntax, ExpressionSyntax)? {
        guard case .invoke(let receiver, "componentsSeparatedByString:", let arguments, _) = syntax,
            arguments.count == 1
        else { return nil }
        return (receiver, arguments[0])
    }

    // MARK: Functions

    /// The functions of ``moreFunctionNames``; nil for a name that is none of them.
    func moreFunction(_ name: String, _ arguments: [ExpressionSyntax], at: Int) throws(PredicateError)
        -> CheckedExpression?
    {
        if let reason = Self.refusedFunctions[name] { throw fail(reason, at: at) }
        let arities = [
            "modulus:by:": 2, "raise:toPower:": 2, "bitwiseAnd:with:": 2, "bitwiseOr:with:": 2, "bitwiseXor:with:": 2,
            "leftshift:by:": 2, "rightshift:by:": 2, "replace:matching:with:": 3, "objectFrom:withIndex:": 2,
        ]
        guard Self.moreFunctionNames.contains(name) else { return nil }
        let expected = arities[name] ?? 1
        guard arguments.count == expected else {
            throw fail(
                "\(name) takes \(expected == 1 ? "one argument" : "\(expected) arguments"), found \(arguments.count)",
                at: at)
        }
        switch name {
        case "modulus:by:", "raise:toPower:":
            let a = try number(arguments[0], name), b = try number(arguments[1], name)
            let integers = a.type == .integer && b.type == .integer
            return name == "modulus:by:"
                ? .function(.modulus, [a, b], integers ? .integer : .double) : .function(.power, [a, b], .double)
        case "sqrt:", "log:", "ln:", "exp:":
            let function: ExpressionFunction = ["sqrt:": .sqrt, "log:": .log, "ln:": .ln][name] ?? .exp
            return .function(function, [try number(arguments[0], name)], .double)
        case "ceiling:", "floor:", "trunc:":
            let a = try number(arguments[0], name)
            let function: ExpressionFunction = ["ceiling:": .ceiling, "floor:": .floor][name] ?? .trunc
            return .function(function, [a], a.type == .integer ? .integer : .double)
        case "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:", "leftshift:by:", "rightshift:by:":
            let function: ExpressionFunction =
                [
                    "bitwiseAnd:with:": .bitwiseAnd, "bitwiseOr:with:": .bitwiseOr, "bitwiseXor:with:": .bitwiseXor,
                    "leftshift:by:": .leftShift,
                ][name] ?? .rightShift
            return .function(
                function,
                [try number(arguments[0], name, integer: true), try number(arguments[1], name, integer: true)], .integer
            )
        case "onesComplement:":
            return .function(.onesComplement, [try number(arguments[0], name, integer: true)], .integer)
        case "noindex:":
            return try expression(arguments[0])
        case "trim:":
            return .function(.trim, [try text(arguments[0], name)], .string)
        case "replace:matching:with:":
            return try replaceMatches(arguments)
        default:  // objectFrom:withIndex:, as NSExpression archives `array[n]`
            return try indexed(arguments[0], .position(arguments[1]), at: at)
        }
    }

    /// `replace:matching:with:(text, pattern, template)`: a literal pattern is checked now.
    func replaceMatches(_ arguments: [ExpressionSyntax]) throws(PredicateError) -> CheckedExpression {
        let subject = try text(arguments[0], "replace:matching:with:")
        let pattern = try text(arguments[1], "replace:matching:with:")
        if case .literal(.string(let p)) = pattern, !RegularExpressionCheck.isValid(p) || p.isEmpty {
            throw fail("not a valid regular expression: \(p)", at: arguments[1].position)
        }
        return .function(
            .replaceMatches, [subject, pattern, try text(arguments[2], "replace:matching:with:")], .string)
    }

    /// `sum:({a, b})`, `count:`, `min:`, `max:`, `average:` over a list of values.
    func listFunction(_ name: String, _ items: [ExpressionSyntax], at: Int) throws(PredicateError) -> CheckedExpression
    {
        if name == "count:" { return .literal(.integer(Int64(items.count))) }
        // One SELECT per item in a UNION ALL: SQLite compounds at most 500 (SQLITE_MAX_COMPOUND_SELECT).
        guard items.count <= 500 else {
            throw fail(
                "\(name) takes at most 500 items here (SQLite's limit on a compound SELECT); found \(items.count)",
                at: at)
        }
        guard !items.isEmpty else {
            return name == "sum:" ? .literal(.integer(0)) : .literal(.null)
        }
        var checked: [CheckedExpression] = []
        for item in items {
            let e = try expression(item)
            let ordered = name == "min:" || name == "max:"
            guard
                e.type == .integer || e.type == .double || e.type == .decimal || e.type == .null
                    || (ordered && e.type == .date)
            else {
                throw fail("\(name) takes numbers\(ordered ? " or dates" : ""), not \(e.type)", at: item.position)
            }
            checked.append(e)
        }
        let types = Set(checked.map(\.type)).subtracting([.null])
        if types.contains(.date), types.count > 1 { throw fail("\(name) mixes dates and numbers", at: at) }
        switch name {
        case "sum:": return .function(.listSum, checked, types == [.integer] ? .integer : .double)
        case "average:": return .function(.listAverage, checked, .double)
        default:
            let type: ValueType = types.count == 1 ? types.first! : types.isEmpty ? .null : .double
            return .function(name == "min:" ? .listMin : .listMax, checked, type)
        }
    }

    // MARK: String methods

    /// `FUNCTION(receiver, 'selector', arguments…)` where the receiver is a string: the
    /// `NSString` methods a field split needs.
    func stringMethod(_ selector: String, _ receiver: ExpressionSyntax, _ arguments: [ExpressionSyntax], at: Int)
        throws(PredicateError)
        -> CheckedExpression
    {
        let expected = selector.filter { $0 == ":" }.count
        guard arguments.count == expected else {
            throw fail(
                "'\(selector)' takes \(expected == 0 ? "no arguments" : "\(expected)"), found \(arguments.count)",
                at: at)
        }
        switch selector {
        case "componentsSeparatedByString:":
            throw fail(
                """
                componentsSeparatedByString: gives a list of strings; take one with [FIRST], [LAST] or [n], \
                or count them with [SIZE] (as in FUNCTION(…, 'componentsSeparatedByString:', ' ')[FIRST])
                """, at: at)
        case "stringByTrimmingCharactersInSet:":
            throw fail(
                "an NSCharacterSet has no text in the format syntax; trim:(x) trims white space and line breaks", at: at
            )
        case "stringByReplacingOccurrencesOfString:withString:options:range:":
            throw fail(
                "options and ranges have no text in the format syntax; replace:matching:with:(x, 'pattern', "
                    + "'template') replaces "
                    + "regular-expression matches", at: at)
        default: break
        }
        guard Self.stringMethods.contains(selector) else {
            let hint = Suggestions.hint(for: selector, in: Self.stringMethods).map { " (\($0))" } ?? ""
            throw fail(
                "unknown string method '\(selector)'\(hint); supported: \(Self.stringMethods.joined(separator: ", "))",
                at: at)
        }
        let string = try text(receiver, "'\(selector)'")
        switch selector {
        case "substringFromIndex:", "substringToIndex:":
            let n = try number(arguments[0], "'\(selector)'", integer: true)
            if case .literal(.integer(let value)) = n, value < 0 {
                throw fail(
                    "an index counts from 0; \(value) is before the start of the string", at: arguments[0].position)
            }
            return .function(selector == "substringFromIndex:" ? .substringFrom : .substringTo, [string, n], .string)
        case "stringByReplacingOccurrencesOfString:withString:":
            return .function(
                .replace, [string, try text(arguments[0], "'\(selector)'"), try text(arguments[1], "'\(selector)'")],
                .string)
        case "uppercaseString": return .function(.uppercase, [string], .string)
        case "lowercaseString": return .function(.lowercase, [string], .string)
        case "capitalizedString": return .function(.capitalized, [string], .string)
        default: return .function(.length, [string], .integer)
        }
    }
}
