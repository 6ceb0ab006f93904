import Foundation
import PropertyList

/// Builds `NSKeyedArchiver` archives of `NSExpression`s in the shape Xcode writes them into
/// a mapping model's `valueexpressiondata` (objects numbered as the archiver numbers them).
final class ExpressionArchive {
    var objects: [PropertyListValue] = [.string("$null")]
    var classes: [String: PropertyListValue] = [:]

    func add(_ value: PropertyListValue) -> PropertyListValue {
        objects.append(value)
        return .dictionary(["CF$UID": .integer(Int64(objects.count - 1))])
    }

    func object(_ name: String, _ fields: [String: PropertyListValue]) -> PropertyListValue {
        let uid =
            classes[name]
            ?? add(
                .dictionary(["$classname": .string(name), "$classes": .array([.string(name), .string("NSObject")])]))
        classes[name] = uid
        var fields = fields
        fields["$class"] = uid
        return add(.dictionary(fields))
    }

    func constant(_ value: PropertyListValue) -> PropertyListValue {
        object("NSConstantValueExpression", ["NSConstantValue": add(value), "NSExpressionType": .integer(0)])
    }

    func date(_ seconds: Double) -> PropertyListValue {
        object(
            "NSConstantValueExpression",
            ["NSConstantValue": object("NSDate", ["NS.time": .real(seconds)]), "NSExpressionType": .integer(0)])
    }

    func null() -> PropertyListValue {
        object(
            "NSConstantValueExpression", ["NSConstantValue": object("NSNull", [:]), "NSExpressionType": .integer(0)])
    }

    func variable(_ name: String) -> PropertyListValue {
        object("NSVariableExpression", ["NSVariable": add(.string(name)), "NSExpressionType": .integer(2)])
    }

    func array(_ items: [PropertyListValue], mutable: Bool = false) -> PropertyListValue {
        object(mutable ? "NSMutableArray" : "NSArray", ["NS.objects": .array(items)])
    }

    /// `$variable.key.path` as Xcode archives it: `valueForKeyPath:` on the variable.
    func keyPath(_ path: String, on base: PropertyListValue?) -> PropertyListValue {
        let specifier = object(
            "NSKeyPathSpecifierExpression", ["NSKeyPath": add(.string(path)), "NSExpressionType": .integer(10)])
        var fields: [String: PropertyListValue] = [
            "NSSelectorName": add(.string("valueForKeyPath:")), "NSExpressionType": .integer(4),
            "NSArguments": array([specifier], mutable: true),
        ]
        if let base { fields["NSOperand"] = base }
        return object("NSKeyPathExpression", fields)
    }

    func source(_ path: String) -> PropertyListValue { keyPath(path, on: variable("source")) }

    func function(_ selector: String, on operand: PropertyListValue?, _ arguments: [PropertyListValue])
        -> PropertyListValue
    {
        var fields: [String: PropertyListValue] = [
            "NSSelectorName": add(.string(selector)), "NSExpressionType": .integer(4), "NSArguments": array(arguments),
        ]
        if let operand { fields["NSOperand"] = operand }
        return object("NSFunctionExpression", fields)
    }

    /// `left op right` as Foundation archives an `NSComparisonPredicate`: its operator
    /// (`NSOperatorType`, `NSModifier`, `NSVariant`, `NSOptions`) and two expressions.
    func comparison(
        _ left: PropertyListValue, _ type: Int64, _ right: PropertyListValue, modifier: Int64 = 0,
        options: Int64 = 0
    ) -> PropertyListValue {
        let op = object(
            type == 4 || type == 5 ? "NSEqualityPredicateOperator" : "NSComparisonPredicateOperator",
            [
                "NSOperatorType": .integer(type), "NSModifier": .integer(modifier), "NSVariant": .integer(type),
                "NSOptions": .integer(options),
            ])
        return object(
            "NSComparisonPredicate", ["NSLeftExpression": left, "NSRightExpression": right, "NSPredicateOperator": op])
    }

    /// `NSCompoundPredicate`: type 0 NOT, 1 AND, 2 OR.
    func compound(_ type: Int64, _ subpredicates: [PropertyListValue]) -> PropertyListValue {
        object(
            "NSCompoundPredicate", ["NSCompoundPredicateType": .integer(type), "NSSubpredicates": array(subpredicates)])
    }

    /// `NSTernaryExpression` (type 20): `NSPredicate`, `NSTrueExpression`, `NSFalseExpression`.
    func ternary(_ predicate: PropertyListValue, _ then: PropertyListValue, _ otherwise: PropertyListValue)
        -> PropertyListValue
    {
        object(
            "NSTernaryExpression",
            [
                "NSPredicate": predicate, "NSTrueExpression": then, "NSFalseExpression": otherwise,
                "NSExpressionType": .integer(20),
            ])
    }

    func dictionary(_ entries: [(String, PropertyListValue)]) -> PropertyListValue {
        object(
            "NSDictionary",
            ["NS.keys": .array(entries.map { add(.string($0.0)) }), "NS.objects": .array(entries.map { add($0.1) })])
    }

    /// The archive's bytes with `root` at its root.
    func bytes(_ root: PropertyListValue) -> [UInt8] {
        BinaryPropertyList.encodeArchive(
            .dictionary([
                "$version": .integer(100_000), "$archiver": .string("NSKeyedArchiver"),
                "$top": .dictionary(["root": root]), "$objects": .array(objects),
            ]))
    }

    /// One expression archived on its own, base64 as `xcmapping.xml` holds it.
    static func base64(_ build: (ExpressionArchive) -> PropertyListValue) -> String {
        let archive = ExpressionArchive()
        let root = build(archive)
        return Data(archive.bytes(root)).base64EncodedString()
    }
}
