/// A predicate as written: Core Data's predicate format string syntax (Apple's
/// "Predicate Format String Syntax"), every node with the position it starts at.
public indirect enum PredicateSyntax: Sendable, Hashable {
    /// `TRUEPREDICATE` or `FALSEPREDICATE`.
    case constant(Bool, at: Int)
    /// `a AND b` / `a && b`.
    case and(PredicateSyntax, PredicateSyntax, at: Int)
    /// `a OR b` / `a || b`.
    case or(PredicateSyntax, PredicateSyntax, at: Int)
    /// `NOT a` / `!a`.
    case not(PredicateSyntax, at: Int)
    /// `[ANY|ALL|NONE] lhs op[options] rhs`.
    case comparison(Comparison)

    /// Where the node starts: a 0-based offset in Unicode scalars.
    public var position: Int {
        switch self {
        case .constant(_, let at), .and(_, _, let at), .or(_, _, let at), .not(_, let at): at
        case .comparison(let c): c.position
        }
    }
}

/// One comparison of a predicate.
public struct Comparison: Sendable, Hashable {
    /// `ANY`/`SOME`, `ALL`, `NONE` before the left-hand side, when written.
    public enum Quantifier: String, Sendable, Hashable { case any = "ANY", all = "ALL", none = "NONE" }

    /// The comparison operators of the format string syntax.
    public enum Operator: String, Sendable, Hashable {
        case equal = "=="
        case notEqual = "!="
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
        case between = "BETWEEN"
        case `in` = "IN"
        case beginsWith = "BEGINSWITH"
        case endsWith = "ENDSWITH"
        case contains = "CONTAINS"
        case like = "LIKE"
        case matches = "MATCHES"

        /// The string operators, which take `[c]`, `[d]` and `[cd]`.
        public var isStringOperator: Bool {
            switch self {
            case .beginsWith, .endsWith, .contains, .like, .matches: true
            default: false
            }
        }
    }

    /// `[c]` (case-insensitive), `[d]` (diacritic-insensitive), `[n]` (normalized) and
    /// `[l]` (locale-sensitive): `NSComparisonPredicate.Options`' bits. Only `[c]` and
    /// `[d]` change a comparison here; `[n]` and `[l]` are kept so that an expression
    /// goes back to Xcode as it was written.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// `[c]`.
        public static let caseInsensitive = Options(rawValue: 1)
        /// `[d]`.
        public static let diacriticInsensitive = Options(rawValue: 2)
        /// `[n]`: the text is already Unicode scalars as stored, so it compares the same.
        package static let normalized = Options(rawValue: 4)
        /// `[l]`: Core Data's SQLite store compares the stored text whatever the locale.
        package static let localeSensitive = Options(rawValue: 8)
        /// The options that change what a comparison gives.
        package static let folding: Options = [.caseInsensitive, .diacriticInsensitive]
    }

    public var quantifier: Quantifier?
    public var lhs: ExpressionSyntax
    public var op: Operator
    public var options: Options
    public var rhs: ExpressionSyntax
    /// Where the comparison starts (its quantifier or its left-hand side).
    public var position: Int
    /// Where the operator is written.
    public var operatorPosition: Int
}

/// An expression as written: `NSExpression` format syntax.
public indirect enum ExpressionSyntax: Sendable, Hashable {
    /// A key path (`author.name`, `posts.@count`, `$source.visits`): its components,
    /// `@count`-style operators included, and the variable it starts from.
    case keyPath(variable: String?, components: [String], at: Int)
    case string(String, at: Int)
    /// An integer literal that fits 64 bits.
    case integer(Int64, at: Int)
    case double(Double, at: Int)
    /// `YES`/`NO`/`TRUE`/`FALSE`.
    case boolean(Bool, at: Int)
    /// `nil`/`NULL`.
    case null(at: Int)
    /// `{a, b, …}`.
    case list([ExpressionSyntax], at: Int)
    /// `a + b`, `a - b`, `a * b`, `a / b`.
    case arithmetic(ArithmeticOperator, ExpressionSyntax, ExpressionSyntax, at: Int)
    /// `-a`.
    case negate(ExpressionSyntax, at: Int)
    /// `lowercase:(x)`, `now()`, `add:to:(a, b)`: the function's name as Apple writes it.
    case function(String, [ExpressionSyntax], at: Int)
    /// `CAST(x, 'NSDate')`.
    case cast(ExpressionSyntax, String, at: Int)
    /// `TERNARY(predicate, a, b)`: `a` where the predicate holds, else `b`.
    case ternary(PredicateSyntax, ExpressionSyntax, ExpressionSyntax, at: Int)
    /// `array[FIRST]`, `array[LAST]`, `array[SIZE]`, `array[n]`: NSExpression's index
    /// syntax (`at` is where the `[` is written).
    case index(ExpressionSyntax, IndexSyntax, at: Int)
    /// `FUNCTION(receiver, 'selector:with:', argument, …)`: `NSExpression`'s method
    /// call on a receiver (`$entityPolicy`, `$manager`, a key path or a value), the
    /// selector as written inside the quotes.
    case invoke(receiver: ExpressionSyntax, selector: String, arguments: [ExpressionSyntax], at: Int)

    /// Where the node starts: a 0-based offset in Unicode scalars.
    public var position: Int {
        switch self {
        case .keyPath(_, _, let at), .string(_, let at), .integer(_, let at), .double(_, let at), .boolean(_, let at),
            .null(let at), .list(_, let at), .arithmetic(_, _, _, let at), .negate(_, let at), .function(_, _, let at),
            .cast(_, _, let at), .ternary(_, _, _, let at), .invoke(_, _, _, let at):
            at
        case .index(let base, _, _):
            base.position
        }
    }
}

/// What `[…]` after an expression selects.
public indirect enum IndexSyntax: Sendable, Hashable {
    /// `[FIRST]`.
    case first
    /// `[LAST]`.
    case last
    /// `[SIZE]`: the number of elements.
    case size
    /// `[n]`: the element at the 0-based position `n`.
    case position(ExpressionSyntax)
}

/// The four arithmetic operators.
public enum ArithmeticOperator: String, Sendable, Hashable {
    case add = "+", subtract = "-", multiply = "*", divide = "/"
}
