import Predicates
import PropertyList
import TestSupport
import Testing

@testable import CoreDataImport

/// The archive writer against the reader: every expression kind a mapping file writes,
/// archived as `NSKeyedArchiver` archives it and read back into the same expression and
/// the same format text; the object numbering of an archive Xcode wrote; random trees.
@Suite struct ExpressionArchiverTests {
    /// Format text → expression → archive → expression → format text.
    func roundTrip(_ text: String) throws -> String {
        let expression = ArchivedExpression(try PredicateParser.expression(text))
        let decoded = try ArchivedExpression.decode(ExpressionArchiver.archive(expression))
        #expect(decoded == expression, "\(text)")
        return decoded.format
    }

    @Test(arguments: [
        // key paths and variables
        "$source.refreshedDate", "$source.app.source.identifier", "name", "$source", "$source.order.#in",
        "$source.countries.@distinctUnionOfSets.moods", "$source.moods.@count",
        // constants of each type
        "'privacy'", "'it\\'s \\\\ here\\n'", "42", "-7", "2.5", "-0.25", "YES", "NO", "nil", "CAST(86400.0, 'NSDate')",
        "CAST(-3600.0, 'NSDate')", "{1, 'two', nil}",
        // built-in functions and arithmetic
        "lowercase:($source.email)", "($source.visits + 1)", "($source.a - $source.b)", "($source.a * 2)",
        "($source.a / 2.5)",
        "now()", "CAST($source.pages, 'NSNumber')", "modulus:by:($source.a, 3)", "trim:($source.name)",
        // FUNCTION calls: the policy, the manager, a value's NSString method, an index
        "FUNCTION($entityPolicy, 'migrateIdentifier')",
        "FUNCTION($entityPolicy, 'defaultIsActiveForBundleID:team:', $source.bundleIdentifier, $source.team)",
        """
        FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'PersonToPerson', \
        $source.owner)
        """,
        "FUNCTION($source.name, 'stringByReplacingOccurrencesOfString:withString:', ' ', '-')",
        "FUNCTION($source.fullName, 'componentsSeparatedByString:', ' ')[FIRST]",
        "FUNCTION($source.fullName, 'componentsSeparatedByString:', ' ')[LAST]",
        "FUNCTION($source.fullName, 'componentsSeparatedByString:', ' ')[SIZE]",
        "FUNCTION($source.fullName, 'componentsSeparatedByString:', ' ')[1]",
        // A literal receiver is kept (it read back as a built-in function, `uppercaseString()`).
        "FUNCTION('literal', 'uppercaseString')",
        "FUNCTION('a b', 'componentsSeparatedByString:', ' ')[LAST]",
        // TERNARY with each predicate form
        "TERNARY($source.visits > 10, 'gold', nil)",
        "TERNARY(($source.name CONTAINS[cd] ' ') AND ((ANY $source.orders.total >= 100) OR (NOT ($source.mail == "
            + "nil))), "
            + "uppercase:($source.name), $source.name)",
        "TERNARY(TRUEPREDICATE, 1, 2)", "TERNARY(FALSEPREDICATE, 1, 2)",
        "TERNARY(ALL $source.tags.name BEGINSWITH[c] 'a', 1, 0)",
        "TERNARY($source.name LIKE 'a*', 1, 0)", "TERNARY($source.name MATCHES '[0-9]+', 1, 0)",
        "TERNARY($source.name ENDSWITH[d] 'e', 1, 0)", "TERNARY($source.rank IN {1, 2}, 1, 0)",
        "TERNARY($source.rank BETWEEN {1, 5}, 1, 0)", "TERNARY($source.a != $source.b, 1, 0)",
        "TERNARY($source.a <= 2, 1, 0)",
        "TERNARY($source.a < 2, 1, 0)",
        // [n] and [l] (NSComparisonPredicate.Options 4 and 8) are kept, with [c] and [d]
        "TERNARY($source.name CONTAINS[n] 'x', 1, 0)", "TERNARY($source.name ==[cdl] 'x', 1, 0)",
        // Int64.min (its digits alone overflow) and a decimal no double holds
        "-9223372036854775808", "CAST('-12345678901234567890.123456789', 'NSDecimalNumber')",
    ])
    func everyKindComesBackAsWritten(_ text: String) throws {
        #expect(try roundTrip(text) == text)
    }

    /// What has another spelling in Foundation comes back in Foundation's.
    @Test func foundationsOwnSpellings() throws {
        #expect(
            try roundTrip("TERNARY(NONE $source.tags.name == 'x', 1, 0)")
                == "TERNARY(NOT (ANY $source.tags.name == 'x'), 1, 0)")
        #expect(try roundTrip("-$source.balance") == "(0 - $source.balance)")
        #expect(try roundTrip("CAST('inf', 'NSNumber')") == "CAST('inf', 'NSNumber')")
        #expect(try roundTrip("$source.a + $source.b * 2") == "($source.a + ($source.b * 2))")
    }

    /// The archive of `FUNCTION($entityPolicy, 'migrateSaveStateType:', $source.type)`,
    /// object for object as Xcode wrote it in Delta's `DeltaToDelta2.xcmappingmodel`.
    @Test func objectsAreNumberedAsXcodeNumbersThem() throws {
        let expression = ArchivedExpression(
            try PredicateParser.expression("FUNCTION($entityPolicy, 'migrateSaveStateType:', $source.type)"))
        guard case .dictionary(let root) = try BinaryPropertyList.decodeArchive(ExpressionArchiver.archive(expression)),
            case .array(let objects)? = root["$objects"]
        else {
            Issue.record("not an archive")
            return
        }
        func uid(_ n: Int64) -> PropertyListValue { .dictionary(["CF$UID": .integer(n)]) }
        func type(_ name: String, _ supers: [String]) -> PropertyListValue {
            .dictionary([
                "$classname": .string(name), "$classes": .array(([name] + supers + ["NSObject"]).map { .string($0) }),
            ])
        }
        let expected: [PropertyListValue] = [
            .string("$null"),
            .dictionary([
                "NSOperand": uid(3), "NSSelectorName": uid(2), "NSExpressionType": .integer(4), "NSArguments": uid(6),
                "$class": uid(18),
            ]),
            .string("migrateSaveStateType:"),
            .dictionary(["NSVariable": uid(4), "NSExpressionType": .integer(2), "$class": uid(5)]),
            .string("entityPolicy"),
            type("NSVariableExpression", ["NSExpression"]),
            .dictionary(["NS.objects": .array([uid(7)]), "$class": uid(17)]),
            .dictionary([
                "NSOperand": uid(9), "NSSelectorName": uid(8), "NSExpressionType": .integer(4), "NSArguments": uid(11),
                "$class": uid(16),
            ]),
            .string("valueForKeyPath:"),
            .dictionary(["NSVariable": uid(10), "NSExpressionType": .integer(2), "$class": uid(5)]),
            .string("source"),
            .dictionary(["NS.objects": .array([uid(12)]), "$class": uid(15)]),
            .dictionary(["$class": uid(14), "NSExpressionType": .integer(10), "NSKeyPath": uid(13)]),
            .string("type"),
            type("NSKeyPathSpecifierExpression", ["NSExpression"]),
            type("NSMutableArray", ["NSArray"]),
            type("NSKeyPathExpression", ["NSFunctionExpression", "NSExpression"]),
            type("NSArray", []),
            type("NSFunctionExpression", ["NSExpression"]),
        ]
        #expect(objects == expected)
        #expect(root["$archiver"] == .string("NSKeyedArchiver"))
        #expect(root["$version"] == .integer(100_000))
        #expect(root["$top"] == .dictionary(["root": uid(1)]))
    }

    /// A built-in function's operand is Foundation's `_NSPredicateUtilities`, archived by
    /// class name; a constant `nil` is `$null`.
    @Test func builtInOperandAndNil() throws {
        let bytes = ExpressionArchiver.archive(ArchivedExpression(try PredicateParser.expression("lowercase:(nil)")))
        guard case .dictionary(let root) = try BinaryPropertyList.decodeArchive(bytes),
            case .array(let objects)? = root["$objects"]
        else {
            Issue.record("not an archive")
            return
        }
        #expect(objects.contains(.string("_NSPredicateUtilities")))
        #expect(
            objects.contains {
                if case .dictionary(let d) = $0 {
                    d["NSConstantValue"] == .dictionary(["CF$UID": .integer(0)])
                } else {
                    false
                }
            })
    }

    /// Random expression trees: archived and read back, and written and parsed back.
    @Test func randomExpressions() throws {
        var random = SplitMix64(seed: 0x5EED_E0F0)
        for trial in 0..<500 {
            let expression = Self.expression(depth: 3, &random)
            let decoded = try ArchivedExpression.decode(ExpressionArchiver.archive(expression))
            #expect(decoded == expression, "trial \(trial): \(expression.format)")
            let reparsed = ArchivedExpression(try PredicateParser.expression(expression.format))
            #expect(reparsed == expression, "trial \(trial): \(expression.format)")
        }
    }

    static func expression(depth: Int, _ random: inout SplitMix64) -> ArchivedExpression {
        let leaf = depth == 0 || Int.random(in: 0..<3, using: &random) == 0
        if leaf {
            switch Int.random(in: 0..<8, using: &random) {
            case 0: return .constant(.string(["", "a b", "it's", "é\n"].randomElement(using: &random)!))
            case 1: return .constant(.integer(Int64.random(in: -1000...1000, using: &random)))
            case 2: return .constant(.real(Double(Int.random(in: -40...40, using: &random)) / 4 + 0.25))
            case 3: return .constant(.boolean(Bool.random(using: &random)))
            case 4: return .constant(.null)
            case 5: return .constant(.date(Double(Int.random(in: -100...100, using: &random)) * 3600))
            case 6: return .variable(["source", "manager", "entityPolicy"].randomElement(using: &random)!)
            default:
                let path = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                    ["name", "owner", "visits", "in"].randomElement(using: &random)!
                }
                return .keyPath(base: .variable("source"), components: path)
            }
        }
        func sub() -> ArchivedExpression { expression(depth: depth - 1, &random) }
        switch Int.random(in: 0..<5, using: &random) {
        case 0:
            let selector = ["add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:"].randomElement(
                using: &random)!
            return .function(operand: nil, selector: selector, arguments: [sub(), sub()])
        case 1:
            return .function(
                operand: nil, selector: ["lowercase:", "uppercase:", "abs:"].randomElement(using: &random)!,
                arguments: [sub()])
        case 2:
            return .function(operand: .variable("entityPolicy"), selector: "convert:with:", arguments: [sub(), sub()])
        case 3: return .aggregate((0..<Int.random(in: 0...3, using: &random)).map { _ in sub() })
        default: return .conditional(predicate(depth: depth - 1, &random), sub(), sub())
        }
    }

    static func predicate(depth: Int, _ random: inout SplitMix64) -> ArchivedPredicate {
        if depth > 0, Bool.random(using: &random) {
            let type = Int.random(in: 0...2, using: &random)
            let parts = (0..<(type == 0 ? 1 : 2)).map { _ in predicate(depth: depth - 1, &random) }
            return .compound(type: type, parts)
        }
        if Int.random(in: 0..<6, using: &random) == 0 { return .constant(Bool.random(using: &random)) }
        let op = ["<", "<=", ">", ">=", "==", "!=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE"].randomElement(
            using: &random)!
        let options =
            ["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE"].contains(op)
            ? ["", "[c]", "[d]", "[cd]"].randomElement(using: &random)! : ""
        return .comparison(
            modifier: ["", "ANY ", "ALL "].randomElement(using: &random)!,
            left: .keyPath(base: .variable("source"), components: ["name"]),
            operator: op, options: options, right: expression(depth: 0, &random))
    }

    /// A decimal constant is archived as Foundation archives an `NSDecimalNumber` and
    /// read back by the reader Xcode 3 models use (`KeyedArchive.decimal`), exactly:
    /// hand-worked fields, then random decimals of up to 38 digits.
    @Test func decimalConstantsAreExact() throws {
        let fields = try #require(ExpressionArchiver.decimalFields("-1.50"))
        #expect(fields["NS.exponent"] == .integer(-1) && fields["NS.length"] == .integer(1))
        #expect(fields["NS.negative"] == .boolean(true) && fields["NS.mantissa.bo"] == .integer(1))
        #expect(fields["NS.mantissa"] == .data([15, 0] + [UInt8](repeating: 0, count: 14)))
        // 2^16 needs a second word, least significant first.
        #expect(
            ExpressionArchiver.decimalFields("65536")?["NS.mantissa"]
                == .data([0, 0, 1, 0] + [UInt8](repeating: 0, count: 12)))
        #expect(ExpressionArchiver.decimalFields("0")?["NS.length"] == .integer(0))
        // Beyond NSDecimal: 39 digits, an exponent below -128 or above 127.
        #expect(ExpressionArchiver.decimalFields(String(repeating: "9", count: 39)) == nil)
        #expect(ExpressionArchiver.decimalFields("1e-129") == nil && ExpressionArchiver.decimalFields("1e166") == nil)
        #expect(ExpressionArchiver.decimalFields("1e164") != nil)  // 38 digits times 10^127
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let digits = (0..<Int.random(in: 1...38, using: &generator)).map { _ in
                String(Int.random(in: 0...9, using: &generator))
            }.joined()
            let places = Int.random(in: 0...digits.count, using: &generator)
            let whole = String(digits.dropLast(places))
            var text = (whole.isEmpty ? "0" : whole) + (places > 0 ? "." + digits.suffix(places) : "")
            // The reader's form: no leading zeros before the point, none trailing after it.
            while text.hasPrefix("0"), text.count > 1, !text.hasPrefix("0.") { text.removeFirst() }
            if text.contains(".") { while text.hasSuffix("0") { text.removeLast() } }
            if text.hasSuffix(".") { text.removeLast() }
            if Bool.random(using: &generator), text != "0" { text = "-" + text }
            let decoded = try ArchivedExpression.decode(ExpressionArchiver.archive(.constant(.decimal(text))))
            let expected: ArchivedExpression = Int64(text).map { .constant(.integer($0)) } ?? .constant(.decimal(text))
            #expect(decoded == expected, "\(text)")
        }
    }
}
