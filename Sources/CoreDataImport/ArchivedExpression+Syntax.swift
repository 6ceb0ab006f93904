import Predicates

/// A parsed `NSExpression` format string as the expression `NSExpression(format:)`
/// builds and Xcode archives: the inverse of ``ArchivedExpression/format``, so that
/// `ArchivedExpression(parse(e.format)).format == e.format` for every expression the
/// reader gives (ArchivedExpressionWriterTests).
extension ArchivedExpression {
    /// The selectors Foundation gives the four arithmetic operators.
    static let arithmeticSelectors: [ArithmeticOperator: String] = [
        .add: "add:to:", .subtract: "from:subtract:", .multiply: "multiply:by:", .divide: "divide:by:",
    ]

    init(_ syntax: ExpressionSyntax) {
        switch syntax {
        case .keyPath(nil, let components, _): self = .keyPath(base: nil, components: components)
        case .keyPath(let variable?, let components, _):
            self =
                components.isEmpty ? .variable(variable) : .keyPath(base: .variable(variable), components: components)
        case .string(let text, _): self = .constant(.string(text))
        case .integer(let n, _): self = .constant(.integer(n))
        case .double(let d, _): self = .constant(.real(d))
        case .boolean(let b, _): self = .constant(.boolean(b))
        case .null: self = .constant(.null)
        case .list(let items, _): self = .aggregate(items.map(ArchivedExpression.init))
        case .arithmetic(let op, let a, let b, _):
            self = .function(
                operand: nil, selector: Self.arithmeticSelectors[op]!,
                arguments: [ArchivedExpression(a), ArchivedExpression(b)])
        case .negate(.integer(let n, _), _) where n != .min: self = .constant(.integer(-n))
        case .negate(.double(let d, _), _): self = .constant(.real(-d))
        case .negate(let inner, _):
            // Foundation has no unary minus expression: 0 - x computes the same.
            self = .function(
                operand: nil, selector: "from:subtract:",
                arguments: [.constant(.integer(0)), ArchivedExpression(inner)])
        case .function(let name, let arguments, _):
            self = .function(operand: nil, selector: name, arguments: arguments.map(ArchivedExpression.init))
        case .cast(let value, let type, _):
            self = Self.cast(value, type)
        case .ternary(let predicate, let then, let otherwise, _):
            self = .conditional(ArchivedPredicate(predicate), ArchivedExpression(then), ArchivedExpression(otherwise))
        case .index(let base, let index, _):
            let position: ArchivedExpression =
                switch index {
                case .first: .symbol("FIRST")
                case .last: .symbol("LAST")
                case .size: .symbol("SIZE")
                case .position(let n): ArchivedExpression(n)
                }
            self = .function(
                operand: nil, selector: "objectFrom:withIndex:", arguments: [ArchivedExpression(base), position])
        case .invoke(let receiver, let selector, let arguments, _):
            self = .function(
                operand: ArchivedExpression(receiver), selector: selector,
                arguments: arguments.map(ArchivedExpression.init))
        }
    }

    /// `CAST(n, 'NSDate')` of a number is a date constant, as the reader gives one back;
    /// `CAST('inf', 'NSNumber')` a non-finite real; any other cast `castObject:toType:`.
    private static func cast(_ value: ExpressionSyntax, _ type: String) -> ArchivedExpression {
        let number: Double? =
            switch value {
            case .integer(let n, _): Double(n)
            case .double(let d, _): d
            case .negate(.integer(let n, _), _): -Double(n)
            case .negate(.double(let d, _), _): -d
            default: nil
            }
        if type == "NSDate", let number { return .constant(.date(number)) }
        if type == "NSNumber", case .string(let text, _) = value, let d = Double(text), !d.isFinite {
            return .constant(.real(d))
        }
        return .function(
            operand: nil, selector: "castObject:toType:",
            arguments: [ArchivedExpression(value), .constant(.string(type))])
    }
}

extension ArchivedPredicate {
    init(_ syntax: PredicateSyntax) {
        switch syntax {
        case .constant(let value, _): self = .constant(value)
        case .and(let a, let b, _): self = .compound(type: 1, [ArchivedPredicate(a), ArchivedPredicate(b)])
        case .or(let a, let b, _): self = .compound(type: 2, [ArchivedPredicate(a), ArchivedPredicate(b)])
        case .not(let a, _): self = .compound(type: 0, [ArchivedPredicate(a)])
        case .comparison(let c):
            var options = ""
            if !c.options.isEmpty {
                let letters: [(Comparison.Options, String)] = [
                    (.caseInsensitive, "c"), (.diacriticInsensitive, "d"), (.normalized, "n"), (.localeSensitive, "l"),
                ]
                options = "[" + letters.filter { c.options.contains($0.0) }.map(\.1).joined() + "]"
            }
            let modifier = c.quantifier == .all ? "ALL " : c.quantifier == nil ? "" : "ANY "
            let comparison = ArchivedPredicate.comparison(
                modifier: modifier, left: ArchivedExpression(c.lhs), operator: c.op.rawValue, options: options,
                right: ArchivedExpression(c.rhs))
            // NONE is Foundation's NOT (ANY …).
            self = c.quantifier == Comparison.Quantifier.none ? .compound(type: 0, [comparison]) : comparison
        }
    }
}
