import PropertyList

/// Writes an ``ArchivedExpression`` as `NSKeyedArchiver` archives an `NSExpression`: the
/// mirror of `ArchivedExpression.decode`, in the shape Xcode stores in a mapping model's
/// `valueexpressiondata` (`$archiver`, `$version` 100000, `$top` → `root`, `$objects`
/// with `$null` first, each class once as `{$classname, $classes}`).
///
/// Objects are numbered as the archiver numbers them: an object takes its number when
/// its encoding starts, then its fields in Foundation's `encodeWithCoder:` order, then
/// its class (Delta's `DeltaToDelta2.xcmappingmodel` is numbered so). Equal strings are
/// archived once. The keys are Foundation's: `NSExpressionType` on every expression;
/// `NSSelectorName`, `NSOperand`, `NSArguments` on a function; `NSVariable`;
/// `NSKeyPath`; `NSConstantValue` (or `NSConstantValueClassName` for a built-in
/// function's operand, `_NSPredicateUtilities`); `NSPredicate`, `NSTrueExpression`,
/// `NSFalseExpression` on a ternary; `NSToken` on a symbolic one (`FIRST`).
struct ExpressionArchiver {
    private var objects: [PropertyListValue] = [.string("$null")]
    private var classes: [String: Int] = [:]
    private var strings: [String: Int] = [:]

    /// The archive of `expression`, at its root.
    static func archive(_ expression: ArchivedExpression) -> [UInt8] {
        var archiver = ExpressionArchiver()
        let root = archiver.encode(expression)
        return BinaryPropertyList.encodeArchive(
            .dictionary([
                "$version": .integer(100_000), "$archiver": .string("NSKeyedArchiver"),
                "$top": .dictionary(["root": root]), "$objects": .array(archiver.objects),
            ]))
    }

    /// `NSExpressionType` of each archived class (Foundation's `NSExpression.ExpressionType`).
    private static let expressionTypes: [String: Int64] = [
        "NSConstantValueExpression": 0, "NSSelfExpression": 1, "NSVariableExpression": 2,
        // A key path is archived as the function `valueForKeyPath:` it is (type 4, as in every corpus archive).
        "NSKeyPathExpression": 4,
        "NSFunctionExpression": 4, "NSKeyPathSpecifierExpression": 10, "NSSymbolicExpression": 11,
        "NSAggregateExpression": 14, "NSTernaryExpression": 20,
    ]

    /// The superclasses `$classes` lists after each class.
    private static let superclasses: [String: [String]] = [
        "NSKeyPathExpression": ["NSFunctionExpression", "NSExpression"],
        "NSMutableArray": ["NSArray"], "NSDate": [], "NSArray": [], "NSDecimalNumber": ["NSNumber", "NSValue"],
        "NSComparisonPredicate": ["NSPredicate"], "NSCompoundPredicate": ["NSPredicate"],
        "NSTruePredicate": ["NSPredicate"], "NSFalsePredicate": ["NSPredicate"],
        "NSSubstringPredicateOperator": ["NSStringPredicateOperator", "NSPredicateOperator"],
        "NSLikePredicateOperator": ["NSMatchingPredicateOperator", "NSStringPredicateOperator", "NSPredicateOperator"],
        "NSMatchingPredicateOperator": ["NSStringPredicateOperator", "NSPredicateOperator"],
    ]

    private static func reference(_ uid: Int) -> PropertyListValue { .dictionary(["CF$UID": .integer(Int64(uid))]) }

    private mutating func reserve() -> Int {
        objects.append(.string("$null"))
        return objects.count - 1
    }

    private mutating func string(_ text: String) -> PropertyListValue {
        if let uid = strings[text] { return Self.reference(uid) }
        objects.append(.string(text))
        strings[text] = objects.count - 1
        return Self.reference(objects.count - 1)
    }

    private mutating func classReference(_ name: String) -> PropertyListValue {
        if let uid = classes[name] { return Self.reference(uid) }
        let hierarchy: [String]
        if let chain = Self.superclasses[name] {
            hierarchy = [name] + chain + ["NSObject"]
        } else if name.hasSuffix("Expression") {
            hierarchy = [name, "NSExpression", "NSObject"]
        } else if name.hasSuffix("PredicateOperator") {
            hierarchy = [name, "NSPredicateOperator", "NSObject"]
        } else {
            hierarchy = [name, "NSObject"]
        }
        objects.append(.dictionary(["$classname": .string(name), "$classes": .array(hierarchy.map { .string($0) })]))
        classes[name] = objects.count - 1
        return Self.reference(objects.count - 1)
    }

    /// Stores the fields of the object numbered `uid`, its class last.
    private mutating func finish(_ uid: Int, _ className: String, _ fields: [String: PropertyListValue])
        -> PropertyListValue
    {
        var fields = fields
        if let type = Self.expressionTypes[className] { fields["NSExpressionType"] = .integer(type) }
        fields["$class"] = classReference(className)
        objects[uid] = .dictionary(fields)
        return Self.reference(uid)
    }

    private mutating func array(_ items: [ArchivedExpression]) -> PropertyListValue {
        let uid = reserve()
        var encoded: [PropertyListValue] = []
        for item in items { encoded.append(encode(item)) }
        return finish(uid, "NSArray", ["NS.objects": .array(encoded)])
    }

    mutating func encode(_ expression: ArchivedExpression) -> PropertyListValue {
        let uid = reserve()
        switch expression {
        case .constant(let constant):
            return finish(uid, "NSConstantValueExpression", ["NSConstantValue": encode(constant)])
        case .variable(let name):
            return finish(uid, "NSVariableExpression", ["NSVariable": string(name)])
        case .evaluatedObject:
            return finish(uid, "NSSelfExpression", [:])
        case .keyPath(let base, let components):
            // `valueForKeyPath:` sent to the base (SELF when there is none), the path as
            // one NSKeyPathSpecifierExpression in a mutable array, as Xcode archives `$source.a.b`.
            let selector = string("valueForKeyPath:")
            let operand = encode(base ?? .evaluatedObject)
            let arguments = reserve()
            let specifier = reserve()
            let path = string(components.joined(separator: "."))
            let list = [finish(specifier, "NSKeyPathSpecifierExpression", ["NSKeyPath": path])]
            let argumentList = finish(arguments, "NSMutableArray", ["NS.objects": .array(list)])
            return finish(
                uid, "NSKeyPathExpression",
                ["NSSelectorName": selector, "NSOperand": operand, "NSArguments": argumentList])
        case .function(let operand, let selector, let arguments):
            let name = string(selector)
            let target = operand.map { encode($0) } ?? utilities()
            let list = array(arguments)
            return finish(
                uid, "NSFunctionExpression", ["NSSelectorName": name, "NSOperand": target, "NSArguments": list])
        case .aggregate(let items):
            return finish(uid, "NSAggregateExpression", ["NSCollection": array(items)])
        case .conditional(let predicate, let then, let otherwise):
            let condition = encode(predicate)
            let whenTrue = encode(then)
            let whenFalse = encode(otherwise)
            return finish(
                uid, "NSTernaryExpression",
                ["NSPredicate": condition, "NSTrueExpression": whenTrue, "NSFalseExpression": whenFalse])
        case .symbol(let token):
            return finish(uid, "NSSymbolicExpression", ["NSToken": string(token)])
        case .unsupported(let what):
            // Never archived: the exporter lists it as an omission first. A string constant
            // keeps the archive well formed should it be.
            return finish(uid, "NSConstantValueExpression", ["NSConstantValue": string("<\(what)>")])
        }
    }

    /// A built-in function's operand: Foundation's `_NSPredicateUtilities` class as a
    /// constant, archived by name (`NSConstantValueClassName`).
    private mutating func utilities() -> PropertyListValue {
        let uid = reserve()
        return finish(uid, "NSConstantValueExpression", ["NSConstantValueClassName": string("_NSPredicateUtilities")])
    }

    /// A constant's value as `NSKeyedArchiver` stores it: strings and numbers inline,
    /// `NSDate` as an object with `NS.time`, nil as `$null`.
    private mutating func encode(_ constant: ArchivedExpression.Constant) -> PropertyListValue {
        switch constant {
        case .string(let text): return string(text)
        case .integer(let n):
            objects.append(.integer(n))
            return Self.reference(objects.count - 1)
        case .real(let d):
            objects.append(.real(d))
            return Self.reference(objects.count - 1)
        case .boolean(let b):
            objects.append(.boolean(b))
            return Self.reference(objects.count - 1)
        case .decimal(let text):
            let uid = reserve()
            return finish(uid, "NSDecimalNumber", Self.decimalFields(text) ?? [:])
        case .date(let seconds):
            let uid = reserve()
            return finish(uid, "NSDate", ["NS.time": .real(seconds)])
        case .null:
            return Self.reference(0)
        }
    }

    // MARK: - Predicates (a TERNARY's condition)

    /// `NSPredicateOperator` subclass by operator type (Foundation's
    /// `+[NSPredicateOperator _newOperatorWithType:modifier:options:]`).
    private static func operatorClass(_ type: Int64) -> String {
        switch type {
        case 0...3: "NSComparisonPredicateOperator"
        case 4, 5: "NSEqualityPredicateOperator"
        case 6: "NSMatchingPredicateOperator"
        case 7: "NSLikePredicateOperator"
        case 8, 9: "NSSubstringPredicateOperator"
        case 100: "NSBetweenPredicateOperator"
        default: "NSInPredicateOperator"
        }
    }

    mutating func encode(_ predicate: ArchivedPredicate) -> PropertyListValue {
        let uid = reserve()
        switch predicate {
        case .constant(let value):
            return finish(uid, value ? "NSTruePredicate" : "NSFalsePredicate", [:])
        case .compound(let type, let parts):
            let subpredicates = reserve()
            var encoded: [PropertyListValue] = []
            for part in parts { encoded.append(encode(part)) }
            let list = finish(subpredicates, "NSArray", ["NS.objects": .array(encoded)])
            return finish(
                uid, "NSCompoundPredicate", ["NSCompoundPredicateType": .integer(Int64(type)), "NSSubpredicates": list])
        case .comparison(let modifier, let left, let symbol, let options, let right):
            let type = ArchivedPredicate.operatorType(symbol) ?? 4
            let operatorUID = reserve()
            var fields: [String: PropertyListValue] = [
                "NSOperatorType": .integer(type),
                "NSModifier": .integer(modifier == "ALL " ? 1 : modifier == "ANY " ? 2 : 0),
            ]
            let bits = ArchivedPredicate.optionBits(options)
            if bits != 0 || (6...9).contains(type) || type == 99 { fields["NSOptions"] = .integer(bits) }
            let op = finish(operatorUID, Self.operatorClass(type), fields)
            let lhs = encode(left)
            let rhs = encode(right)
            return finish(
                uid, "NSComparisonPredicate",
                ["NSPredicateOperator": op, "NSLeftExpression": lhs, "NSRightExpression": rhs])
        case .unsupported(let what):
            return finish(uid, "NSFalsePredicate", ["NSUnsupported": string(what)])
        }
    }
}
