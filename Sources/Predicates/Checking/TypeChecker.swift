public import DataModel

/// Checks predicates and expressions against one entity of a compiled model
/// version: key paths must name stored properties (through to-one relationships,
/// or over to-many ones with `ANY`/`ALL`/`NONE` and `@count`-style operators),
/// and operands must have types that compare. Every error names the entity and
/// points at a column.
public struct TypeChecker: Sendable {
    /// The model version.
    public var version: CompiledVersion
    /// The entity bare key paths start at.
    public var entity: String
    /// Variables that stand for the entity's row (`source` in mapping files, for
    /// `$source.name`).
    public var rowVariables: Set<String>
    /// The policy `$entityPolicy` stands for (a mapping file's `policy:` on the
    /// entity): `FUNCTION($entityPolicy, 'selector:', …)` calls one of its functions.
    public var entityPolicy: String?
    /// Whether the text is a mapping file's `filter:`, which chooses the source
    /// objects before any value is computed: it cannot call the policy's functions.
    public var isMappingFilter = false

    /// Creates a checker for key paths of `entity`.
    public init(version: CompiledVersion, entity: String, rowVariables: Set<String> = [], entityPolicy: String? = nil) {
        self.version = version
        self.entity = entity
        self.rowVariables = rowVariables
        self.entityPolicy = entityPolicy
    }

    /// Parses and checks a predicate.
    public func predicate(_ text: String) throws(PredicateError) -> CheckedPredicate {
        try Run(checker: self, source: text).predicate(try PredicateParser.predicate(text))
    }

    /// Parses and checks an expression.
    public func expression(_ text: String) throws(PredicateError) -> CheckedExpression {
        try Run(checker: self, source: text).expression(try PredicateParser.expression(text))
    }

    /// Parses and checks an expression whose value is stored in `attribute`:
    /// its type must fit, and a literal must satisfy the attribute's rules.
    public func value(_ text: String, for attribute: AttributeDescription) throws(PredicateError) -> CheckedExpression {
        let syntax = try PredicateParser.expression(text)
        let run = Run(checker: self, source: text)
        if case .invoke(.keyPath("entityPolicy", [], _), let selector, let arguments, let at) = syntax {
            // The policy function's result is the attribute's value: checked as it is made.
            return try run.policyCall(selector, arguments, type: ValueType(attribute.type), at: at)
        }
        let checked = try run.expression(syntax)
        try run.assignable(checked, to: attribute, at: syntax.position)
        return checked
    }

    /// One check of one text (errors need the text).
    struct Run {
        var checker: TypeChecker
        var source: String
        var version: CompiledVersion { checker.version }

        func fail(_ detail: String, at offset: Int) -> PredicateError {
            PredicateError(.type, detail, at: offset, in: source)
        }

        // MARK: Predicates

        func predicate(_ syntax: PredicateSyntax) throws(PredicateError) -> CheckedPredicate {
            switch syntax {
            case .constant(let value, _): return .constant(value)
            case .and(let a, let b, _): return .and(try predicate(a), try predicate(b))
            case .or(let a, let b, _): return .or(try predicate(a), try predicate(b))
            case .not(let a, _): return .not(try predicate(a))
            case .comparison(let c): return try comparison(c)
            }
        }

        func comparison(_ c: Comparison) throws(PredicateError) -> CheckedPredicate {
            if let quantifier = c.quantifier {
                guard case .keyPath(let variable, let components, let at) = c.lhs,
                    case .toMany(let many)? = try resolve(variable: variable, components, at: at, allowToMany: true)
                else {
                    throw fail(
                        """
                        \(quantifier.rawValue) needs a to-many key path on its left (as in \(quantifier.rawValue) \
                        tags.name == 'x')
                        """,
                        at: c.lhs.position)
                }
                guard let element = many.element else {
                    throw fail(
                        """
                        \(quantifier.rawValue) compares values of the objects of '\(many.relationship.name)': \
                        name one (as in \(quantifier.rawValue) \(many.relationship.name).name == …)
                        """, at: c.lhs.position)
                }
                let rhs = try expression(c.rhs)
                try compatible(.keyPath(element), c.op, c.options, rhs, c)
                return .quantified(quantifier, many, c.op, c.options, rhs)
            }
            let lhs = try expression(c.lhs)
            let rhs = try expression(c.rhs)
            try compatible(lhs, c.op, c.options, rhs, c)
            return .compare(lhs, c.op, c.options, rhs)
        }

        /// Whether `lhs op rhs` makes sense for the operand types.
        func compatible(
            _ lhs: CheckedExpression, _ op: Comparison.Operator, _ options: Comparison.Options,
            _ rhs: CheckedExpression, _ c: Comparison
        ) throws(PredicateError) {
            let l = lhs.type
            if case .list = rhs, op != .in, op != .between {
                throw fail("a list is only a value for IN and BETWEEN", at: c.rhs.position)
            }
            func mismatch(_ r: ValueType, at offset: Int) -> PredicateError {
                var hint = ""
                if l == .date, r.isNumeric || r == .string { hint = " (write CAST(…, 'NSDate') for a date)" }
                if r == .date, l.isNumeric { hint = " (write CAST(…, 'NSDate') for a date)" }
                if l.isNumeric, r.isText || (r.isNumeric && l.isText) {
                    hint = " (CAST(…, 'NSNumber') converts a string to a number)"
                }
                return fail("cannot compare \(l) \(describe(lhs)) with \(r) using \(op.rawValue)\(hint)", at: offset)
            }
            switch op {
            case .in, .between:
                guard case .list(let items) = rhs else {
                    throw fail(
                        """
                        \(op.rawValue) needs a list in braces on its right \
                        (as in \(op == .between ? "BETWEEN {1, 10}" : "IN {'a', 'b'}")), found \(rhs.type)
                        """, at: c.rhs.position)
                }
                if op == .between, items.count != 2 {
                    throw fail("BETWEEN needs two values, {lower, upper}; found \(items.count)", at: c.rhs.position)
                }
                for item in items where !Self.comparable(l, item.type, ordered: op == .between) {
                    throw mismatch(item.type, at: c.rhs.position)
                }
                if !options.isDisjoint(with: .folding), !l.isText {
                    throw fail("[c] and [d] apply to strings, not \(l)", at: c.operatorPosition)
                }
            case .beginsWith, .endsWith, .contains, .like, .matches:
                guard l.isText || l == .null else {
                    throw fail("\(op.rawValue) compares strings; \(describe(lhs)) is \(l)", at: c.lhs.position)
                }
                guard rhs.type.isText || rhs.type == .null else { throw mismatch(rhs.type, at: c.rhs.position) }
                if op == .like, !Self.isLiteral(rhs) {
                    throw fail(
                        """
                        LIKE needs a string literal pattern ('*' any characters, '?' one); \
                        compare with ==, BEGINSWITH, ENDSWITH or CONTAINS otherwise
                        """, at: c.rhs.position)
                }
                if op == .matches, case .literal(.string(let pattern)) = rhs, !RegularExpressionCheck.isValid(pattern) {
                    throw fail("not a valid regular expression: \(pattern)", at: c.rhs.position)
                }
            case .equal, .notEqual:
                if case .list = rhs { throw fail("a list is only a value for IN and BETWEEN", at: c.rhs.position) }
                guard Self.comparable(l, rhs.type, ordered: false) else { throw mismatch(rhs.type, at: c.rhs.position) }
                if !options.isDisjoint(with: .folding), !(l.isText || rhs.type.isText) {
                    throw fail("[c] and [d] apply to strings, not \(l)", at: c.operatorPosition)
                }
            case .less, .lessOrEqual, .greater, .greaterOrEqual:
                if l == .null || rhs.type == .null {
                    throw fail(
                        "nil can only be compared with == or != (found \(op.rawValue))",
                        at: l == .null ? c.lhs.position : c.rhs.position)
                }
                guard Self.comparable(l, rhs.type, ordered: true) else { throw mismatch(rhs.type, at: c.rhs.position) }
            }
            if case .list = lhs { throw fail("a list cannot be the left side of a comparison", at: c.lhs.position) }
        }

        static func comparable(_ a: ValueType, _ b: ValueType, ordered: Bool) -> Bool {
            if a == .null || b == .null { return !ordered }
            if a.isNumeric && b.isNumeric { return true }
            if a.isText && b.isText { return true }
            if a == b { return ordered ? ![.binary, .uuid, .boolean].contains(a) && !Self.isObject(a) : true }
            return false
        }

        static func isLiteral(_ e: CheckedExpression) -> Bool { if case .literal = e { true } else { false } }

        static func isObject(_ t: ValueType) -> Bool { if case .object = t { true } else { false } }

        func describe(_ e: CheckedExpression) -> String {
            switch e {
            case .keyPath(let p): "'" + (p.hops.map(\.name) + [name(of: p.end)]).joined(separator: ".") + "'"
            case .literal: "the value"
            default: "the expression"
            }
        }

        func name(of end: CheckedKeyPath.End) -> String {
            switch end {
            case .attribute(let a): a.name
            case .toOne(let r): r.name
            }
        }

        // MARK: Expressions

        func expression(_ syntax: ExpressionSyntax) throws(PredicateError) -> CheckedExpression {
            switch syntax {
            case .keyPath(let variable, let components, let at):
                switch try resolve(variable: variable, components, at: at, allowToMany: false) {
                case .scalar(let path)?: return .keyPath(path)
                case .aggregate(let function, let many, let type)?: return .aggregate(function, many, type)
                case .toMany?, nil: throw fail("internal: unresolved key path", at: at)
                }
            case .string(let s, _): return .literal(.string(s))
            case .integer(let v, _): return .literal(.integer(v))
            case .double(let v, _): return .literal(.double(v))
            case .boolean(let v, _): return .literal(.boolean(v))
            case .null: return .literal(.null)
            case .list(let items, let at):
                let checked = try items.map { (item) throws(PredicateError) in try expression(item) }
                if let first = checked.first,
                    let odd = checked.first(where: {
                        !Self.comparable(first.type, $0.type, ordered: false) || $0.type == .null && first.type != .null
                    })
                {
                    throw fail("a list mixes \(first.type) and \(odd.type) values", at: at)
                }
                for item in checked { if case .list = item { throw fail("lists do not nest", at: at) } }
                return .list(checked)
            case .negate(let inner, let at):
                let e = try expression(inner)
                guard e.type == .integer || e.type == .double || e.type == .decimal else {
                    throw fail("cannot negate \(e.type)", at: at)
                }
                return .negate(e)
            case .arithmetic(let op, let a, let b, let at):
                return try arithmetic(op, try expression(a), try expression(b), at: at)
            case .cast(let inner, let typeName, let at):
                return try cast(inner, typeName, at: at)
            case .function(let name, let arguments, let at):
                return try function(name, arguments, at: at)
            case .ternary(let condition, let a, let b, let at):
                return try ternary(condition, a, b, at: at)
            case .index(let base, let index, let at):
                return try indexed(base, index, at: at)
            case .invoke(let receiver, let selector, let arguments, let at):
                return try invoke(receiver, selector, arguments, at: at)
            }
        }

        func arithmetic(_ op: ArithmeticOperator, _ l: CheckedExpression, _ r: CheckedExpression, at: Int)
            throws(PredicateError) -> CheckedExpression
        {
            let a = l.type, b = r.type
            if op == .add, a.isText, b.isText { return .concatenate(l, r) }
            func numberLike(_ t: ValueType) -> Bool { t == .integer || t == .double || t == .decimal }
            if numberLike(a), numberLike(b) {
                let type: ValueType = a == .integer && b == .integer && op != .divide ? .integer : .double
                return .arithmetic(op, l, r, type)
            }
            if a == .date, numberLike(b), op == .add || op == .subtract { return .arithmetic(op, l, r, .date) }
            if numberLike(a), b == .date, op == .add { return .arithmetic(op, l, r, .date) }
            if a == .date, b == .date, op == .subtract { return .arithmetic(op, l, r, .double) }
            if a == .null || b == .null { return .literal(.null) }
            throw fail("cannot apply \(op.rawValue) to \(a) and \(b)", at: at)
        }

        func cast(_ inner: ExpressionSyntax, _ typeName: String, at: Int) throws(PredicateError) -> CheckedExpression {
            let e = try expression(inner)
            switch typeName {
            case "NSDate":
                if case .literal(.string(let text)) = e {
                    guard let seconds = ISO8601.parse(text) else {
                        throw fail("'\(text)' is not an ISO 8601 date (as in 2026-01-31T12:00:00Z)", at: inner.position)
                    }
                    return .literal(.date(seconds))
                }
                if case .literal(let value) = e {
                    switch value {
                    case .integer(let v): return .literal(.date(Double(v)))
                    case .double(let v): return .literal(.date(v))
                    default: break
                    }
                }
                if e.type == .date { return e }
                guard e.type == .integer || e.type == .double || e.type == .decimal else {
                    throw fail(
                        """
                        CAST to NSDate takes a number of seconds since 2001-01-01 or an ISO 8601 string literal, not \
                        \(e.type)
                        """,
                        at: inner.position)
                }
                return .numberAsDate(e)
            case "NSNumber", "NSDecimalNumber":
                if e.type.isNumeric || e.type == .null { return e }
                guard e.type.isText else {
                    throw fail("CAST to \(typeName) takes a string or a number, not \(e.type)", at: inner.position)
                }
                return .function(.toNumber, [e], .double)
            case "NSString":
                if e.type.isText || e.type == .null { return e }
                guard e.type.isNumeric else {
                    throw fail("CAST to NSString takes a number or a string, not \(e.type)", at: inner.position)
                }
                return .function(.toString, [e], .string)
            default:
                throw fail(
                    "CAST to '\(typeName)' is not supported (NSDate, NSNumber, NSDecimalNumber, NSString are)", at: at)
            }
        }

        static let functionNames =
            [
                "lowercase:", "uppercase:", "length:", "abs:", "now", "add:to:", "from:subtract:",
                "multiply:by:", "divide:by:", "sum:", "count:", "min:", "max:", "average:",
            ] + moreFunctionNames

        func function(_ name: String, _ arguments: [ExpressionSyntax], at: Int) throws(PredicateError)
            -> CheckedExpression
        {
            func arity(_ n: Int) throws(PredicateError) {
                guard arguments.count == n else {
                    throw fail(
                        """
                        \(name) takes \(n == 0 ? "no arguments" : n == 1 ? "one argument" : "\(n) arguments"), found \
                        \(arguments.count)
                        """,
                        at: at)
                }
            }
            switch name {
            case "lowercase:", "uppercase:":
                try arity(1)
                let e = try expression(arguments[0])
                guard e.type.isText || e.type == .null else {
                    throw fail("\(name) takes a string, not \(e.type)", at: arguments[0].position)
                }
                return .function(name == "lowercase:" ? .lowercase : .uppercase, [e], .string)
            case "length:":
                try arity(1)
                let e = try expression(arguments[0])
                guard e.type.isText || e.type == .null else {
                    throw fail("length: takes a string, not \(e.type)", at: arguments[0].position)
                }
                return .function(.length, [e], .integer)
            case "abs:":
                try arity(1)
                let e = try expression(arguments[0])
                guard e.type == .integer || e.type == .double || e.type == .decimal else {
                    throw fail("abs: takes a number, not \(e.type)", at: arguments[0].position)
                }
                return .function(.abs, [e], e.type == .integer ? .integer : .double)
            case "now", "now:":
                try arity(0)
                return .function(.now, [], .date)
            case "add:to:", "from:subtract:", "multiply:by:", "divide:by:":
                try arity(2)
                let op: ArithmeticOperator =
                    ["add:to:": .add, "from:subtract:": .subtract, "multiply:by:": .multiply][name] ?? .divide
                return try arithmetic(op, try expression(arguments[0]), try expression(arguments[1]), at: at)
            case "sum:", "count:", "min:", "max:", "average:":
                try arity(1)
                if case .list(let items, let listAt) = arguments[0] { return try listFunction(name, items, at: listAt) }
                guard case .keyPath(let variable, let components, let pathAt) = arguments[0],
                    case .toMany(let many)? = try resolve(variable: variable, components, at: pathAt, allowToMany: true)
                else {
                    throw fail(
                        """
                        \(name) takes a to-many key path (as in \(name)(posts\(name == "count:" ? "" : ".wordCount")))
                        """,
                        at: arguments[0].position)
                }
                let function: AggregateFunction =
                    ["sum:": .sum, "count:": .count, "min:": .min, "max:": .max][name] ?? .avg
                return .aggregate(function, many, try aggregateType(function, many, at: pathAt))
            default:
                if let checked = try moreFunction(name, arguments, at: at) { return checked }
                let hint = Suggestions.hint(for: name, in: Self.functionNames).map { " (\($0))" } ?? ""
                throw fail(
                    "unknown function '\(name)'\(hint); supported: \(Self.functionNames.joined(separator: ", "))",
                    at: at)
            }
        }

        // MARK: Key paths

        /// Key-value coding's set and array operators: their value is a collection.
        static let setOperators: Set<String> = [
            "@distinctUnionOfSets", "@unionOfSets", "@distinctUnionOfObjects", "@unionOfObjects",
            "@distinctUnionOfArrays", "@unionOfArrays",
        ]

        enum Resolved {
            case scalar(CheckedKeyPath)
            case toMany(CheckedToMany)
            case aggregate(AggregateFunction, CheckedToMany, ValueType)
        }

        /// A key path's variable is one of the row variables here, and names a key.
        func checkVariable(_ variable: String?, hasKeys: Bool, at: Int) throws(PredicateError) {
            if let variable, !checker.rowVariables.contains(variable) {
                let known = checker.rowVariables.sorted().map { "$" + $0 }
                let list = known.isEmpty ? "no variables here" : "known: \(known.joined(separator: ", "))"
                throw fail("unknown variable '$\(variable)' (\(list))", at: at)
            }
            guard hasKeys else {
                throw fail(
                    "'$\(variable ?? "")' is an object; name one of its keys (as in $\(variable ?? "").name)", at: at)
            }
        }

        func resolve(variable: String?, _ components: [String], at: Int, allowToMany: Bool) throws(PredicateError)
            -> Resolved?
        {
            try checkVariable(variable, hasKeys: !components.isEmpty, at: at)
            var entityName = checker.entity
            var hops: [CompiledRelationship] = []
            var index = 0
            // Offsets of each component, for errors: the variable, then name + "."
            func offset(of i: Int) -> Int {
                at + (variable.map { $0.unicodeScalars.count + 2 } ?? 0)
                    + components.prefix(i).reduce(0) { $0 + $1.unicodeScalars.count + 1 }
            }
            while index < components.count {
                let key = components[index]
                guard let entity = version.entity(named: entityName) else {
                    throw fail("unknown entity \(entityName)", at: at)
                }
                if key.hasPrefix("@") {
                    throw fail(
                        """
                        '\(key)' must follow a to-many relationship (\(entityName) is reached by to-one relationships \
                        here)
                        """,
                        at: offset(of: index))
                }
                if let attribute = entity.attribute(named: key), !attribute.declaration.isTransient {
                    if index + 1 < components.count {
                        throw fail(
                            """
                            '\(key)' is an attribute of \(entityName) (\(attribute.declaration.type.rawValue)); \
                            it has no key '\(components[index + 1])'
                            """, at: offset(of: index + 1))
                    }
                    return .scalar(CheckedKeyPath(start: checker.entity, hops: hops, end: .attribute(attribute)))
                }
                if let attribute = entity.attribute(named: key), attribute.declaration.isTransient {
                    throw fail(
                        "'\(key)' is a transient attribute of \(entityName): it is not stored, so no query can read it",
                        at: offset(of: index))
                }
                guard let relationship = entity.relationship(named: key), !relationship.declaration.isTransient else {
                    let names =
                        entity.attributes.filter { !$0.declaration.isTransient }.map(\.name)
                        + entity.relationships.map(\.name)
                    let hint = Suggestions.hint(for: key, in: names).map { " (\($0))" } ?? ""
                    throw fail("\(entityName) has no attribute or relationship '\(key)'\(hint)", at: offset(of: index))
                }
                if !relationship.declaration.isToMany {
                    if index + 1 == components.count {
                        return .scalar(CheckedKeyPath(start: checker.entity, hops: hops, end: .toOne(relationship)))
                    }
                    hops.append(relationship)
                    entityName = relationship.declaration.destination
                    index += 1
                    continue
                }
                // A to-many relationship: an operator or a key inside its destination follows.
                var many = CheckedToMany(
                    start: checker.entity, hops: hops, relationship: relationship, owner: entityName, element: nil)
                let rest = Array(components[(index + 1)...])
                let destination = relationship.declaration.destination
                if let op = rest.first, op.hasPrefix("@") {
                    return try aggregate(
                        op, of: many, Array(rest.dropFirst()), key: key, at: offset(of: index + 1),
                        innerAt: offset(of: index + 2))
                }
                guard allowToMany else {
                    throw fail(
                        """
                        '\(key)' is a to-many relationship of \(entityName): use ANY, ALL or NONE before the key path, \
                        or \(key).@count
                        """,
                        at: offset(of: index))
                }
                if !rest.isEmpty { many.element = try element(rest, of: destination, at: offset(of: index + 1)) }
                return .toMany(many)
            }
            return nil
        }

        /// `key.@op` or `key.@op.inner`: a collection operator on the to-many `many`,
        /// written at `at`, with the key after it (if any) at `innerAt`.
        func aggregate(
            _ op: String, of many: CheckedToMany, _ inner: [String], key: String, at: Int,
            innerAt: Int
        ) throws(PredicateError) -> Resolved {
            var many = many
            guard let function = AggregateFunction(rawValue: String(op.dropFirst())) else {
                if Self.setOperators.contains(op) {
                    throw fail(
                        """
                        \(op) gives a set of objects, not a value: it has no SQL form in a value or a filter (a \
                        relationship's value is written FUNCTION($manager, \
                        'destinationInstancesForEntityMappingNamed:sourceInstances:', …))
                        """, at: at)
                }
                throw fail("unknown collection operator '\(op)' (@count, @sum, @avg, @min, @max)", at: at)
            }
            if function == .count {
                if !inner.isEmpty { throw fail("@count takes no key after it", at: innerAt) }
            } else {
                guard !inner.isEmpty else {
                    throw fail(
                        "@\(function.rawValue) needs a key after it (as in \(key).@\(function.rawValue).price)", at: at)
                }
                many.element = try element(inner, of: many.relationship.declaration.destination, at: innerAt)
            }
            return .aggregate(function, many, try aggregateType(function, many, at: at))
        }

        /// A key path inside a to-many relationship's destination (to-one hops only).
        func element(_ components: [String], of destination: String, at: Int) throws(PredicateError) -> CheckedKeyPath {
            let inner = TypeChecker(version: version, entity: destination)
            let run = Run(checker: inner, source: source)
            switch try run.resolve(variable: nil, components, at: at, allowToMany: false) {
            case .scalar(let path)?: return path
            default: throw fail("expected a key of \(destination)", at: at)
            }
        }

        func aggregateType(_ function: AggregateFunction, _ many: CheckedToMany, at: Int) throws(PredicateError)
            -> ValueType
        {
            guard function != .count else { return .integer }
            guard let element = many.element else {
                throw fail("@\(function.rawValue) needs a key of \(many.relationship.declaration.destination)", at: at)
            }
            let type = element.type
            switch function {
            case .sum, .avg:
                guard type == .integer || type == .double || type == .decimal else {
                    throw fail("@\(function.rawValue) adds numbers; '\(name(of: element.end))' is \(type)", at: at)
                }
                return function == .avg || type != .integer ? .double : .integer
            default:
                guard type.isNumeric || type.isText || type == .date else {
                    throw fail(
                        "@\(function.rawValue) orders numbers, strings or dates; '\(name(of: element.end))' is \(type)",
                        at: at)
                }
                return type
            }
        }

        // MARK: Assignments

        /// Whether `value` may be stored in `attribute`.
        func assignable(_ value: CheckedExpression, to attribute: AttributeDescription, at: Int) throws(PredicateError)
        {
            let target = ValueType(attribute.type)
            let type = value.type
            let fits: Bool
            switch target {
            case .integer, .double, .decimal:
                fits = type == .integer || type == .double || type == .decimal || type == .boolean
            case .boolean: fits = type == .boolean || type == .integer
            case .string, .uri: fits = type.isText
            case .uuid:
                if case .literal(.string(let text)) = value {
                    guard DefaultValueParser.canonicalUUIDValue(text) != nil else {
                        throw fail("'\(text)' is not a UUID", at: at)
                    }
                    fits = true
                } else {
                    fits = type == .uuid
                }
            default: fits = type == target
            }
            if type == .null {
                if !attribute.isOptional {
                    throw fail("'\(attribute.name)' is required; nil is not a value for it", at: at)
                }
                return
            }
            guard fits else {
                throw fail("'\(attribute.name)' is \(attribute.type.rawValue); the value is \(type)", at: at)
            }
            if case .literal(let literal) = value, let attributeValue = literal.attributeValue(for: attribute.type) {
                if let problem = attribute.violations(of: attributeValue).first {
                    throw fail("'\(attribute.name)': \(problem)", at: at)
                }
            }
        }
    }
}
