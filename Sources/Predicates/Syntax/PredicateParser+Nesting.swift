extension PredicateParser {
    /// How much of SQLite's parser stack the SQL for `syntax` needs, at most, as
    /// measured on SQLite 3.40: a chain of ANDs or ORs is written flat (8 for the
    /// groups it is cut into), NOT is `(…) IS NOT 1` (2), a comparison may fold and
    /// search on both sides (`substr(mm_fold(a), -length(mm_fold(b)))`, 10), a
    /// quantifier is an `EXISTS` subquery (12 more), each key-path step before the
    /// last is a correlated subquery (9), an aggregate a subquery around
    /// `coalesce(sum(CAST(…)))` (18), a function call or operator about 4.
    public static func nesting(of syntax: PredicateSyntax) -> Int {
        switch syntax {
        case .constant: 0
        case .and, .or: 8 + chain(syntax).map { nesting(of: $0) }.max()!
        case .not(let a, _): 2 + nesting(of: a)
        case .comparison(let c): (c.quantifier == nil ? 10 : 22) + max(nesting(of: c.lhs), nesting(of: c.rhs))
        }
    }

    /// The operands of a chain of ANDs (or ORs), balanced or not.
    private static func chain(_ syntax: PredicateSyntax) -> [PredicateSyntax] {
        switch syntax {
        case .and(let a, let b, _): [a, b].flatMap { if case .and = $0 { chain($0) } else { [$0] } }
        case .or(let a, let b, _): [a, b].flatMap { if case .or = $0 { chain($0) } else { [$0] } }
        default: [syntax]
        }
    }

    /// ``nesting(of:)-swift.type.method`` of an expression.
    public static func nesting(of syntax: ExpressionSyntax) -> Int {
        switch syntax {
        case .string, .integer, .double, .boolean, .null: 0
        case .keyPath(_, let components, _):
            9 * components.dropLast().filter { !$0.hasPrefix("@") }.count
                + (components.contains { $0.hasPrefix("@") } ? 18 : 3)
        case .list(let items, _): 4 + (items.map(nesting(of:)).max() ?? 0)
        case .arithmetic(_, let a, let b, _): 4 + max(nesting(of: a), nesting(of: b))
        case .negate(let a, _), .cast(let a, _, _): 4 + nesting(of: a)
        case .function(_, let arguments, _): 4 + (arguments.map(nesting(of:)).max() ?? 0)
        case .ternary(let condition, let a, let b, _): 6 + max(nesting(of: condition), nesting(of: a), nesting(of: b))
        case .index(let base, let index, _):
            if case .position(let n) = index {
                4 + max(nesting(of: base), nesting(of: n))
            } else {
                4 + nesting(of: base)
            }
        case .invoke(let receiver, _, let arguments, _): 4 + (([receiver] + arguments).map(nesting(of:)).max() ?? 0)
        }
    }
}
