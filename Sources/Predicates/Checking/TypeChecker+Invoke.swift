import DataModel

/// `FUNCTION(receiver, 'selector:', argument, …)`, Apple's `NSExpression` method call.
/// `$entityPolicy`, the entity mapping's policy, is called as the whole value (its
/// result is the destination attribute's value) with values of the source row as
/// arguments; a value receiver takes NSString's methods (`TypeChecker+Functions`);
/// other receivers are refused, naming them.
extension TypeChecker.Run {
    /// `FUNCTION(…)` inside an expression: refused, naming what to write instead.
    func invoke(
        _ receiver: ExpressionSyntax, _ selector: String, _ arguments: [ExpressionSyntax],
        at: Int
    ) throws(PredicateError) -> CheckedExpression {
        if case .keyPath("entityPolicy", [], _) = receiver {
            if checker.isMappingFilter {
                // Core Data runs the filter as the source fetch's predicate, in the store's
                // SQL, where no policy method runs; here the filter chooses the rows the
                // copy reads, and a policy function computes one attribute of a row chosen.
                throw fail(
                    """
                    a filter cannot call policy functions: FUNCTION($entityPolicy, '\(selector)', …) computes an \
                    attribute's value inside the copy, and the filter chooses which source objects are copied before \
                    that (filter on the source object's own values, as in visits > 0)
                    """, at: at)
            }
            _ = try policyCallArguments(selector, arguments, at: at)
            throw fail(
                """
                FUNCTION($entityPolicy, '\(selector)', …) must be the whole value: its result is the destination \
                attribute's value (compute the rest in the policy function)
                """, at: at)
        }
        // A value (a key path to an attribute, a literal, another call) receives an
        // NSString method; another bare variable ($manager) is an object.
        if case .keyPath(_?, let components, _) = receiver, components.isEmpty {
            throw fail(
                "FUNCTION cannot call '\(selector)' on \(Self.describe(receiver)) here (no such receiver is known)",
                at: receiver.position)
        }
        return try stringMethod(selector, receiver, arguments, at: at)
    }

    /// `FUNCTION($entityPolicy, 'selector:', …)` as the value of an attribute of `type`.
    func policyCall(_ selector: String, _ arguments: [ExpressionSyntax], type: ValueType, at: Int)
        throws(PredicateError) -> CheckedExpression
    {
        let checked = try policyCallArguments(selector, arguments, at: at)
        return .policyCall(policy: checker.entityPolicy ?? "", selector: selector, arguments: checked, type)
    }

    /// The arguments checked: one per colon of the selector, each a value of the row.
    func policyCallArguments(_ selector: String, _ arguments: [ExpressionSyntax], at: Int) throws(PredicateError)
        -> [CheckedExpression]
    {
        guard let policy = checker.entityPolicy else {
            throw fail(
                """
                FUNCTION($entityPolicy, '\(selector)', …) calls the entity mapping's policy, and it names none \
                (add `policy: <Name>` to the entity)
                """, at: at)
        }
        let arity = selector.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: ":") ? 1 : 0) }
        guard arguments.count == arity else {
            throw fail(
                """
                '\(selector)' takes \
                \(arity == 0 ? "no arguments" : arity == 1 ? "one argument" : "\(arity) arguments") (one per ':'), \
                found \(arguments.count)
                """, at: at)
        }
        var checked: [CheckedExpression] = []
        for argument in arguments {
            if case .keyPath(let variable?, [], let position) = argument, checker.rowVariables.contains(variable) {
                throw fail(
                    """
                    $\(variable) is the whole source object; \(policy)'s functions run inside the copy and take values \
                    (pass its keys, as in $\(variable).name)
                    """, at: position)
            }
            let value = try expression(argument)
            switch value.type {
            case .object(let entity):
                throw fail(
                    "an argument of FUNCTION is a value; this one is a \(entity) object (pass one of its keys)",
                    at: argument.position)
            default:
                if case .list = value {
                    throw fail("an argument of FUNCTION is one value, not a list", at: argument.position)
                }
            }
            checked.append(value)
        }
        return checked
    }

    /// How an error names a FUNCTION receiver as written.
    static func describe(_ receiver: ExpressionSyntax) -> String {
        switch receiver {
        case .keyPath(let variable?, let components, _):
            "'" + (["$" + variable] + components).joined(separator: ".") + "'"
        case .keyPath(nil, let components, _): "'" + components.joined(separator: ".") + "'"
        case .string, .integer, .double, .boolean, .null: "a constant"
        default: "the expression"
        }
    }
}
