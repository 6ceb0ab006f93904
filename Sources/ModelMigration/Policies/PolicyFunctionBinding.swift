import DataModel
public import MigrationPolicies
import SQLiteStore

/// Binds the policy functions a step's SQL calls (`PolicyFunctionCall`) to the
/// policies' Swift code, as SQL functions registered on the apply's connection for
/// the step only. Each call passes the row's key and the arguments' values to the
/// policy function and holds its result to the destination attribute's rules:
/// type, range, `min`/`max`, required. A value that breaks them, or an error the
/// function throws, fails the statement naming the source row, and the apply rolls
/// back.
struct PolicyFunctionBinding {
    let call: PolicyFunctionCall
    let function: PolicyFunction
    let attribute: AttributeDescription

    /// The binding of every call of a step, resolved against `runner`'s policies.
    static func bindings(for calls: [PolicyFunctionCall], hop: MigrationHop, runner: (any PolicyRunning)?) throws
        -> [PolicyFunctionBinding]
    {
        var bindings: [PolicyFunctionBinding] = []
        // Read once per policy and step: the functions of one policy may share state
        // (an object their closures capture), as SplitFullName's two halves do.
        var read: [String: [PolicyFunction]] = [:]
        for call in calls where !bindings.contains(where: { $0.call.sqlName == call.sqlName }) {
            if read[call.policy] == nil { read[call.policy] = runner?.functions(of: call.policy) }
            guard let functions = read[call.policy] else {
                throw MigrationError(
                    kind: .stepFailed,
                    message: """
                        \(call.entity).\(call.attribute) calls policy '\(call.policy)', which is not compiled into \
                        this migrate; nothing was changed
                        """)
            }
            guard let function = functions.first(where: { $0.selector == call.selector }) else {
                throw MigrationError(
                    kind: .stepFailed,
                    message: """
                        \(call.entity).\(call.attribute) calls '\(call.selector)' of policy \(call.policy), which has \
                        no such function (its functions: \
                        \(functions.map(\.selector).sorted().joined(separator: ", "))); nothing was changed
                        """)
            }
            guard
                let attribute = hop.destination.entity(named: call.entity)?.attribute(named: call.attribute)?
                    .declaration
            else {
                throw MigrationError(
                    kind: .stepFailed,
                    message: "\(call.entity).\(call.attribute): no such attribute in version \(hop.to)")
            }
            bindings.append(PolicyFunctionBinding(call: call, function: function, attribute: attribute))
        }
        return bindings
    }

    /// Registers the function on `connection`; `remove` takes it off again.
    func register(on connection: Connection) throws {
        let label = "\(call.entity).\(call.attribute)"
        let name = "policy \(call.policy)'s \(call.selector)"
        let body = function.body, types = call.argumentTypes, attribute = self.attribute
        // Most attributes have no min/max: no length measured per row then.
        let limited = attribute.minimum != nil || attribute.maximum != nil
        try connection.createFunction(call.sqlName, arity: call.sqlArity, deterministic: function.isDeterministic) {
            values in
            let arguments = PolicyArguments(values: values, types: types)
            let result: AttributeValue?
            do {
                result = try body(arguments)
            } catch {
                let message = (error as? PolicyError)?.message ?? "\(error)"
                throw PolicyFunctionFailure(
                    "\(label): \(name) failed on source row Z_PK \(arguments.sourceKey): \(message)")
            }
            guard let result else {
                guard attribute.isOptional else {
                    throw PolicyFunctionFailure(
                        """
                        \(label): \(name) returned nil for source row Z_PK \(arguments.sourceKey), and \(label) is \
                        required
                        """
                    )
                }
                return .null
            }
            if let problem = ValueCoding.check(result, fits: attribute.type)
                ?? (limited ? ValueCoding.checkLimits(result, of: attribute) : nil)
            {
                throw PolicyFunctionFailure(
                    """
                    \(label): \(name) returned \(result.displayText) for source row Z_PK \(arguments.sourceKey): \
                    \(problem)
                    """)
            }
            return ValueCoding.databaseValue(result, as: attribute.type)
        }
    }

    /// Takes the function off `connection`.
    func remove(from connection: Connection) { connection.removeFunction(call.sqlName, arity: call.sqlArity) }
}

/// A policy function's failure on one row: its description is SQLite's message.
struct PolicyFunctionFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension PolicyRunning {
    /// The functions of the policy `name`, or nil when it is not available.
    public func functions(of name: String) -> [PolicyFunction]? { nil }
}
