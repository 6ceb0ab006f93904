import Foundation
import PropertyList

/// An `NSExpression` as Xcode archives it in a mapping model (`valueexpressiondata`,
/// `sourceexpressiondata`: an `NSKeyedArchiver` archive with the expression at its
/// root), read back into a value and written in the `NSExpression` format syntax the
/// Predicates module parses (`$source.a.b`, `'text'`, `lowercase:($source.name)`,
/// `FUNCTION($entityPolicy, 'selector:', …)`).
///
/// Only the archive is read; nothing here evaluates an expression. What the format
/// has no text for (subqueries, blocks, set expressions…) decodes to
/// ``unsupported(_:)`` naming the archived class, so it is reported, never dropped.
indirect enum ArchivedExpression: Sendable, Hashable {
    /// `NSConstantValueExpression`.
    case constant(Constant)
    /// `NSVariableExpression`: `$name`.
    case variable(String)
    /// `NSSelfExpression`: `SELF`, the object evaluated against.
    case evaluatedObject
    /// `NSKeyPathExpression`: `key.path` on `base` (`$source.key.path`); `nil` base is SELF.
    case keyPath(base: ArchivedExpression?, components: [String])
    /// `NSFunctionExpression`: a selector sent to `operand` with `arguments`; a
    /// built-in function (`lowercase:`, `add:to:`) has no operand.
    case function(operand: ArchivedExpression?, selector: String, arguments: [ArchivedExpression])
    /// `NSAggregateExpression`: `{a, b}`.
    case aggregate([ArchivedExpression])
    /// `NSTernaryExpression` (expression type 20): `TERNARY(predicate, a, b)`.
    case conditional(ArchivedPredicate, ArchivedExpression, ArchivedExpression)
    /// `NSSymbolicExpression` (expression type 11): `FIRST`, `LAST` or `SIZE`, the index
    /// of `array[FIRST]` (archived as `objectFrom:withIndex:`).
    case symbol(String)
    /// An archived class the format syntax here has no text for.
    case unsupported(String)

    /// A constant value.
    enum Constant: Sendable, Hashable {
        case string(String)
        case integer(Int64)
        case real(Double)
        /// An `NSDecimalNumber`, as its decimal text (`-12345678901234567890.5`).
        case decimal(String)
        case boolean(Bool)
        /// Seconds since 2001-01-01.
        case date(Double)
        case null
    }

    /// Why an archive holds no expression.
    struct Failure: Error, Sendable { let message: String }

    /// Decodes an archive's root expression.
    static func decode(_ bytes: [UInt8]) throws(Failure) -> ArchivedExpression {
        let root: PropertyListValue
        do {
            root = try BinaryPropertyList.decodeArchive(bytes)
        } catch {
            throw Failure(message: "not a binary property list (\(error))")
        }
        let archive: KeyedArchive
        do { archive = try KeyedArchive(root) } catch { throw Failure(message: "not an NSKeyedArchiver archive") }
        var budget = 10_000
        return decode(archive.top, archive, depth: 0, budget: &budget)
    }

    static func decode(_ value: PropertyListValue?, _ archive: KeyedArchive, depth: Int, budget: inout Int)
        -> ArchivedExpression
    {
        budget -= 1
        guard depth < 64, budget > 0 else { return .unsupported("an expression nested too deeply") }
        guard let fields = archive.fields(value) else { return .unsupported("a value that is not an archived object") }
        let className = archive.className(value) ?? "an object of no class"
        func sub(_ key: String) -> ArchivedExpression? {
            archive.resolve(fields[key]) == nil ? nil : decode(fields[key], archive, depth: depth + 1, budget: &budget)
        }
        func list(_ key: String) -> [ArchivedExpression] {
            archive.array(fields[key]).map { decode($0, archive, depth: depth + 1, budget: &budget) }
        }
        switch className {
        case "NSConstantValueExpression":
            return constant(fields["NSConstantValue"], archive)
        case "NSVariableExpression":
            guard let name = archive.string(fields["NSVariable"]) else {
                return .unsupported("NSVariableExpression without a name")
            }
            return .variable(name)
        case "NSSelfExpression":
            return .evaluatedObject
        case "NSSymbolicExpression":
            guard let token = archive.string(fields["NSToken"]) else {
                return .unsupported("NSSymbolicExpression without its token")
            }
            return .symbol(token)
        case "NSKeyPathSpecifierExpression":
            guard let path = archive.string(fields["NSKeyPath"]) else {
                return .unsupported("NSKeyPathSpecifierExpression without a key path")
            }
            return .keyPath(
                base: nil, components: path.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
        case "NSKeyPathExpression", "NSFunctionExpression":
            let selector = archive.string(fields["NSSelectorName"]) ?? ""
            let operand = sub("NSOperand")
            let arguments = list("NSArguments")
            if selector == "valueForKeyPath:", arguments.count == 1, case .keyPath(nil, let components) = arguments[0] {
                switch operand {
                case nil, .evaluatedObject?: return .keyPath(base: nil, components: components)
                case .keyPath(let base, let first)?: return .keyPath(base: base, components: first + components)
                case let base?: return .keyPath(base: base, components: components)
                }
            }
            guard !selector.isEmpty else { return .unsupported("\(className) without a selector") }
            // A built-in function's operand is Foundation's own utility class, archived as a
            // constant by class name, with no value (or not at all): the call is `name(args)`,
            // not FUNCTION(…). A constant with a value is a literal receiver
            // (`FUNCTION('a b', 'componentsSeparatedByString:', ' ')`), kept.
            switch operand {
            case nil, .constant(.null)?, .unsupported?:
                return .function(operand: nil, selector: selector, arguments: arguments)
            default: return .function(operand: operand, selector: selector, arguments: arguments)
            }
        case "NSAggregateExpression":
            return .aggregate(list("NSCollection"))
        case "NSTernaryExpression":
            // Foundation archives it as NSPredicate, NSTrueExpression, NSFalseExpression.
            guard let then = sub("NSTrueExpression"), let otherwise = sub("NSFalseExpression") else {
                return .unsupported("NSTernaryExpression without its true or false expression")
            }
            let predicate = ArchivedPredicate.decode(fields["NSPredicate"], archive, depth: depth + 1, budget: &budget)
            return .conditional(predicate, then, otherwise)
        default:
            return .unsupported(className)
        }
    }

    private static func constant(_ value: PropertyListValue?, _ archive: KeyedArchive) -> ArchivedExpression {
        switch archive.resolve(value) {
        case nil: return .constant(.null)
        case .string(let s)?: return .constant(.string(s))
        case .integer(let n)?: return .constant(.integer(n))
        case .real(let d)?: return .constant(.real(d))
        case .boolean(let b)?: return .constant(.boolean(b))
        case .date(let d)?: return .constant(.date(d))
        default:
            switch archive.className(value) {
            case "NSNull"?: return .constant(.null)
            case "NSDecimalNumber"?, "NSDecimalNumberPlaceholder"?:
                switch archive.decimal(value) {
                case .integer(let n)?: return .constant(.integer(n))
                case .string(let text)?: return .constant(.decimal(text))
                default: return .unsupported("an NSDecimalNumber constant this importer cannot read")
                }
            case "NSDate"?:
                if case .real(let seconds)? = archive.fields(value)?["NS.time"] { return .constant(.date(seconds)) }
                return .unsupported("an NSDate constant without its time")
            case "NSString"?, "NSMutableString"?:
                if let text = archive.string(archive.fields(value)?["NS.string"]) { return .constant(.string(text)) }
                return .unsupported("an NSString constant without its text")
            case let name?: return .unsupported("a constant of class \(name)")
            case nil: return .unsupported("a constant of no class")
            }
        }
    }
}

extension ArchivedExpression {
    /// The expression in `NSExpression` format syntax.
    var format: String {
        switch self {
        case .constant(let constant):
            switch constant {
            case .string(let s): return Self.quoted(s)
            case .integer(let n): return String(n)
            case .real(let d): return d.isFinite ? "\(d)" : "CAST(\(Self.quoted(String(d))), 'NSNumber')"
            case .decimal(let text): return "CAST(\(Self.quoted(text)), 'NSDecimalNumber')"
            case .boolean(let b): return b ? "YES" : "NO"
            case .date(let seconds): return "CAST(\(seconds), 'NSDate')"
            case .null: return "nil"
            }
        case .variable(let name): return "$" + name
        case .evaluatedObject: return "SELF"
        case .symbol(let token): return token
        case .keyPath(let base, let components):
            let path = components.map(Self.key).joined(separator: ".")
            switch base {
            case nil: return path
            case .variable(let name)?: return "$\(name).\(path)"
            case let base?: return "\(base.format).\(path)"
            }
        case .function(nil, let selector, let arguments):
            let args = arguments.map(\.format)
            switch selector {
            case "add:to:" where args.count == 2: return "(\(args[0]) + \(args[1]))"
            case "from:subtract:" where args.count == 2: return "(\(args[0]) - \(args[1]))"
            case "multiply:by:" where args.count == 2: return "(\(args[0]) * \(args[1]))"
            case "divide:by:" where args.count == 2: return "(\(args[0]) / \(args[1]))"
            case "castObject:toType:" where args.count == 2: return "CAST(\(args[0]), \(args[1]))"
            case "now": return "now()"
            // Foundation writes the index function as its `[…]` syntax.
            case "objectFrom:withIndex:" where args.count == 2: return "\(args[0])[\(args[1])]"
            default: return "\(selector)(\(args.joined(separator: ", ")))"
            }
        case .function(let operand?, let selector, let arguments):
            return "FUNCTION("
                + ([operand.format, Self.quoted(selector)] + arguments.map(\.format)).joined(separator: ", ") + ")"
        case .aggregate(let items): return "{" + items.map(\.format).joined(separator: ", ") + "}"
        case .conditional(let predicate, let then, let otherwise):
            return "TERNARY(\(predicate.format), \(then.format), \(otherwise.format))"
        case .unsupported(let what): return "<\(what)>"
        }
    }

    /// The `FUNCTION(operand, selector, …)` calls in the expression: operand text, selector, argument count.
    var functionCalls: [(operand: String, selector: String, arguments: Int)] {
        switch self {
        case .constant, .variable, .evaluatedObject, .symbol, .unsupported: return []
        case .keyPath(let base, _): return base?.functionCalls ?? []
        case .function(let operand, let selector, let arguments):
            let own = operand.map { [($0.format, selector, arguments.count)] } ?? []
            return own + (operand?.functionCalls ?? []) + arguments.flatMap(\.functionCalls)
        case .aggregate(let items): return items.flatMap(\.functionCalls)
        case .conditional(let predicate, let then, let otherwise):
            return predicate.expressions.flatMap(\.functionCalls) + then.functionCalls + otherwise.functionCalls
        }
    }

    /// What of the expression has no format text here, by archived class. Functions and
    /// collection operators have text: whether they run is the type checker's verdict.
    var unsupportedParts: [String] {
        switch self {
        case .unsupported(let what): return [what]
        case .constant, .variable, .evaluatedObject, .symbol: return []
        case .keyPath(let base, _): return base?.unsupportedParts ?? []
        case .function(let operand, _, let arguments):
            return (operand?.unsupportedParts ?? []) + arguments.flatMap(\.unsupportedParts)
        case .aggregate(let items): return items.flatMap(\.unsupportedParts)
        case .conditional(let predicate, let then, let otherwise):
            return predicate.unsupportedParts + then.unsupportedParts + otherwise.unsupportedParts
        }
    }

    /// A string literal in single quotes.
    static func quoted(_ text: String) -> String {
        var result = "'"
        for scalar in text.unicodeScalars {
            switch scalar {
            case "'": result += "\\'"
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "'"
    }

    /// A key path component, `#`-escaped when it spells a keyword of the syntax.
    static func key(_ component: String) -> String {
        component.hasPrefix("@") || !reserved.contains(component.uppercased()) ? component : "#" + component
    }

    private static let reserved: Set<String> = [
        "AND", "OR", "NOT", "BETWEEN", "IN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "ANY", "SOME",
        "ALL", "NONE", "NIL", "NULL", "TRUEPREDICATE", "FALSEPREDICATE", "YES", "NO", "TRUE", "FALSE", "CAST",
        "SUBQUERY", "FUNCTION", "SELF",
    ]
}
