public import DataModel

/// The type of a checked expression.
public enum ValueType: Sendable, Hashable, CustomStringConvertible {
    case integer, double, decimal, string, boolean, date, binary, uuid, uri
    /// `nil`.
    case null
    /// A to-one relationship's destination object (compared with `nil` only).
    case object(entity: String)

    /// The type of an attribute's values.
    public init(_ type: AttributeType) {
        switch type {
        case .integer16, .integer32, .integer64: self = .integer
        case .float, .double: self = .double
        case .decimal: self = .decimal
        case .string: self = .string
        case .boolean: self = .boolean
        case .date: self = .date
        // A composite is opaque to predicates here: no store of its version is read.
        case .binary, .transformable, .composite: self = .binary
        case .uuid: self = .uuid
        case .uri: self = .uri
        }
    }

    /// Integers, doubles, decimals and booleans (Core Data's `NSNumber`s).
    public var isNumeric: Bool { self == .integer || self == .double || self == .decimal || self == .boolean }
    /// Strings and URIs.
    public var isText: Bool { self == .string || self == .uri }

    public var description: String {
        switch self {
        case .integer: "integer"
        case .double: "double"
        case .decimal: "decimal"
        case .string: "string"
        case .boolean: "boolean"
        case .date: "date"
        case .binary: "binary data"
        case .uuid: "uuid"
        case .uri: "uri"
        case .null: "nil"
        case .object(let entity): "a \(entity) object"
        }
    }
}

/// A key path resolved against a model version: the to-one relationships it
/// follows from the entity it starts at, then what it ends at.
public struct CheckedKeyPath: Sendable, Hashable {
    /// What the key path names at its end.
    public enum End: Sendable, Hashable {
        /// An attribute of the last entity.
        case attribute(CompiledAttribute)
        /// A to-one relationship of the last entity: its destination object.
        case toOne(CompiledRelationship)
    }

    /// The entity the path starts at.
    public var start: String
    /// The to-one relationships followed, in order.
    public var hops: [CompiledRelationship]
    /// What the path ends at.
    public var end: End

    /// Creates a resolved key path.
    public init(start: String, hops: [CompiledRelationship], end: End) {
        self.start = start
        self.hops = hops
        self.end = end
    }

    /// The entity whose property `end` is.
    public var lastEntity: String { hops.last?.declaration.destination ?? start }

    /// The type of the values the path names.
    public var type: ValueType {
        switch end {
        case .attribute(let a): ValueType(a.declaration.type)
        case .toOne(let r): .object(entity: r.declaration.destination)
        }
    }
}

/// A to-many relationship reached through to-one relationships, and optionally a
/// key path inside its destination (`tags.name` for `ANY tags.name == …`,
/// `posts.@sum.wordCount`).
public struct CheckedToMany: Sendable, Hashable {
    /// The entity the path starts at.
    public var start: String
    /// To-one relationships followed before the to-many one.
    public var hops: [CompiledRelationship]
    /// The to-many relationship.
    public var relationship: CompiledRelationship
    /// The entity that holds `relationship` (last hop's destination, or `start`).
    public var owner: String
    /// A key path from the destination entity; nil for `@count` and for the
    /// objects themselves.
    public var element: CheckedKeyPath?
}

/// Core Data's collection operators (`@count`, `@sum`, `@avg`, `@min`, `@max`).
public enum AggregateFunction: String, Sendable, Hashable {
    case count, sum, avg, min, max
}

/// The functions an expression may call.
public enum ExpressionFunction: String, Sendable, Hashable {
    /// `lowercase:`, `uppercase:` (Unicode, as `NSString`'s `lowercaseString`).
    case lowercase, uppercase
    /// `length:`, `FUNCTION(s, 'length')`: the length in UTF-16 code units, as `NSString`.
    case length
    /// `capitalizedString`: each word's first character upper case, the rest lower case.
    case capitalized
    /// `trim:(s)`: leading and trailing white space and line breaks removed.
    case trim
    /// `substringFromIndex:` (arguments: text, index) and `substringToIndex:`: UTF-16 offsets.
    case substringFrom, substringTo
    /// `stringByReplacingOccurrencesOfString:withString:` (text, target, replacement).
    case replace
    /// `replace:matching:with:` (text, ICU pattern, template): every match replaced.
    case replaceMatches
    /// `componentsSeparatedByString:` then `[n]` (text, separator, position; -1 is `[LAST]`).
    case component
    /// `componentsSeparatedByString:` then `[SIZE]` (text, separator).
    case componentCount
    /// `modulus:by:`, `sqrt:`, `raise:toPower:`, `ceiling:`, `floor:`, `trunc:`, `log:`, `ln:`, `exp:`.
    case modulus, sqrt, power, ceiling, floor, trunc, log, ln, exp
    /// `bitwiseAnd:with:`, `bitwiseOr:with:`, `bitwiseXor:with:`, `leftshift:by:`, `rightshift:by:`, `onesComplement:`.
    case bitwiseAnd, bitwiseOr, bitwiseXor, leftShift, rightShift, onesComplement
    /// `sum:`, `min:`, `max:`, `average:` over a list `{a, b, …}` (the arguments): nil items skipped.
    case listSum, listMin, listMax, listAverage
    /// `abs:`.
    case abs
    /// `now()`.
    case now
    /// `CAST(x, 'NSNumber')`: a string's leading number (nil when it has none).
    case toNumber
    /// `CAST(x, 'NSString')`.
    case toString
}

/// A literal value, bound as a parameter when the expression becomes SQL.
public enum LiteralValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case double(Double)
    case string(String)
    case boolean(Bool)
    /// Seconds since 2001-01-01T00:00:00Z.
    case date(Double)
    /// A canonical lowercase UUID (compared with a uuid attribute).
    case uuid(String)

    /// Its type.
    public var type: ValueType {
        switch self {
        case .null: .null
        case .integer: .integer
        case .double: .double
        case .string: .string
        case .boolean: .boolean
        case .date: .date
        case .uuid: .uuid
        }
    }
}

/// An expression checked against a model version: every key path resolved, every
/// type known.
public indirect enum CheckedExpression: Sendable, Hashable {
    case keyPath(CheckedKeyPath)
    case aggregate(AggregateFunction, CheckedToMany, ValueType)
    case literal(LiteralValue)
    case list([CheckedExpression])
    case arithmetic(ArithmeticOperator, CheckedExpression, CheckedExpression, ValueType)
    /// String concatenation (`a + b` on strings).
    case concatenate(CheckedExpression, CheckedExpression)
    case negate(CheckedExpression)
    case function(ExpressionFunction, [CheckedExpression], ValueType)
    /// A number taken as a date (`CAST(n, 'NSDate')`: seconds since 2001-01-01).
    case numberAsDate(CheckedExpression)
    /// `TERNARY(predicate, a, b)`, of the type given.
    case conditional(CheckedPredicate, CheckedExpression, CheckedExpression, ValueType)
    /// `FUNCTION($entityPolicy, 'selector:', …)`: a function of the entity mapping's
    /// policy called with the arguments' values; its type is the destination
    /// attribute's.
    case policyCall(policy: String, selector: String, arguments: [CheckedExpression], ValueType)

    /// The expression's type.
    public var type: ValueType {
        switch self {
        case .keyPath(let path): path.type
        case .aggregate(_, _, let type), .arithmetic(_, _, _, let type), .function(_, _, let type),
            .conditional(_, _, _, let type),
            .policyCall(_, _, _, let type):
            type
        case .literal(let value): value.type
        case .list(let items): items.first?.type ?? .null
        case .concatenate: .string
        case .negate(let e): e.type
        case .numberAsDate: .date
        }
    }
}

/// A predicate checked against a model version.
public indirect enum CheckedPredicate: Sendable, Hashable {
    case constant(Bool)
    case and(CheckedPredicate, CheckedPredicate)
    case or(CheckedPredicate, CheckedPredicate)
    case not(CheckedPredicate)
    /// `lhs op rhs` on values of the row.
    case compare(CheckedExpression, Comparison.Operator, Comparison.Options, CheckedExpression)
    /// `ANY|ALL|NONE relationship.element op rhs`: `element` is evaluated on each
    /// destination row, `rhs` on the row itself.
    case quantified(Comparison.Quantifier, CheckedToMany, Comparison.Operator, Comparison.Options, CheckedExpression)
}
