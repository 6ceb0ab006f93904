package import DataModel
package import Foundation
package import Predicates
package import SQLiteStore

/// Why a checked predicate has no SQL form in this store (a layout without the
/// column a relationship needs: a store the model does not describe).
package struct PredicateSQLError: Error, Sendable, CustomStringConvertible {
    /// What is missing.
    package var description: String
}

/// Turns checked predicates and expressions into SQL over a store's layout
/// (Docs/Architecture.md): identifiers come only from the layout and are quoted,
/// values are always bound as parameters, never spliced into the text (the only
/// numbers in the text are entity numbers from the layout).
///
/// - A key path through to-one relationships is a correlated scalar subquery on
///   `Z_PK` per hop, so that the same SQL works in `SELECT`, `UPDATE`, `DELETE` and
///   a migration's `INSERT … SELECT`.
/// - A to-many relationship is a correlated subquery over the destination's
///   table (its column pointing back) or the join table: `EXISTS` for `ANY`,
///   `NOT EXISTS … NOT` for `ALL`, `NOT EXISTS` for `NONE`, aggregates for `@count`,
///   `@sum` (0 when empty, as Core Data), `@avg`, `@min`, `@max`.
/// - `[c]`/`[d]` fold both sides with `mm_fold` (literals folded once here), LIKE's
///   `*`/`?` become a `GLOB` pattern with every other GLOB character escaped,
///   `MATCHES` calls `mm_matches` (ICU's whole-text match), `BEGINSWITH`,
///   `ENDSWITH` and `CONTAINS` are false for an empty or nil string, dates are seconds since
///   2001-01-01, decimals (stored as text) compare as numbers.
/// - `==` and `!=` are null-safe (`IS`, `IS NOT`: nil != 5 holds, nil == nil too), and `NOT` of a
///   comparison with nil operands is true, as `NSPredicate` evaluates it.
package struct PredicateSQL {
    /// The model version of the store.
    package var version: CompiledVersion
    /// The store's layout of that version (bound to its own names).
    package var layout: StorageLayout
    /// `now()`: one instant per statement, as Core Data evaluates it once per fetch.
    package var now: Date
    /// In a mapping file's value: a string that is not a number fails the statement,
    /// naming the row (`key`, e.g. `s.Z_PK`) and `label` (`Book.pages`), instead of
    /// giving nil.
    package var failedConversions: (key: String, label: String)? = nil
    /// In a mapping file's value: the destination (`Person.firstName`) a policy
    /// function's result is stored in, which names the SQL function called.
    package var policyDestination: String = ""

    /// Creates a generator for a store's layout.
    package init(version: CompiledVersion, layout: StorageLayout, now: Date = Date()) {
        self.version = version
        self.layout = layout
        self.now = now
    }

    /// The SQL condition of a predicate on the row `alias` (an alias or a quoted
    /// table name) of `entity`'s table.
    package func condition(_ predicate: CheckedPredicate, row alias: String) throws(PredicateSQLError) -> SQLFragment {
        let builder = Builder(generator: self)
        let sql = try builder.condition(predicate, alias)
        return SQLFragment(sql, builder.arguments)
    }

    /// The SQL value of an expression on the row `alias`.
    package func value(_ expression: CheckedExpression, row alias: String) throws(PredicateSQLError) -> SQLFragment {
        let builder = Builder(generator: self)
        let sql = try builder.value(expression, alias, numeric: false)
        return SQLFragment(sql, builder.arguments)
    }

    /// `Z_ENT IN (…)` for an entity and its subentities, on `alias`.
    package func entityCondition(_ entity: String, alias: String, includeSubentities: Bool = true) -> String {
        let names = includeSubentities ? version.subtree(of: entity) : [entity]
        let numbers = names.compactMap { layout.entityNumbers[$0] }.sorted()
        return "\(alias).Z_ENT IN (\(numbers.map(String.init).joined(separator: ", ")))"
    }

    /// The table storing an entity's rows.
    package func table(of entity: String) throws(PredicateSQLError) -> StorageLayout.Table {
        guard let root = version.entity(named: entity)?.root, let table = layout.table(forEntity: root) else {
            throw PredicateSQLError(description: "no table stores \(entity)")
        }
        return table
    }

}

extension CheckedPredicate {
    /// Whether this is an AND node.
    var isAnd: Bool {
        if case .and = self { return true }
        return false
    }
}

extension PredicateSQL {

    /// One statement's worth of SQL: aliases numbered from 1, arguments in order.
    final class Builder {
        let generator: PredicateSQL
        var arguments: [DatabaseValue] = []
        var aliasCount = 0

        init(generator: PredicateSQL) { self.generator = generator }

        var version: CompiledVersion { generator.version }
        var layout: StorageLayout { generator.layout }

        func bind(_ value: DatabaseValue) -> String {
            arguments.append(value)
            return "?"
        }

        func newAlias() -> String {
            aliasCount += 1
            return "t\(aliasCount)"
        }

        // MARK: Conditions

        func condition(_ p: CheckedPredicate, _ alias: String) throws(PredicateSQLError) -> String {
            switch p {
            case .constant(let value): return value ? "1" : "0"
            case .and, .or:
                var terms: [String] = []
                for operand in Self.chain(p) { terms.append(try condition(operand, alias)) }
                return Self.flat(terms, p.isAnd ? " AND " : " OR ")
            // NSPredicate's NOT is two-valued: NOT (nil == 5) holds. A condition is 0, 1
            // or NULL, and `IS NOT 1` costs SQLite's parser less than `NOT coalesce(…, 0)`.
            case .not(let a): return "(\(try condition(a, alias))) IS NOT 1"
            case .compare(let lhs, let op, let options, let rhs):
                return try compare(lhs, alias, op, options, rhs, alias)
            case .quantified(let quantifier, let many, let op, let options, let rhs):
                let d = newAlias()
                let source = try toManySource(many, ownerAlias: alias, destinationAlias: d)
                let test = try compare(.keyPath(many.element!), d, op, options, rhs, alias)
                switch quantifier {
                case .any: return "EXISTS (SELECT 1 \(source) AND \(test))"
                case .all: return "NOT EXISTS (SELECT 1 \(source) AND (\(test)) IS NOT 1)"
                case .none: return "NOT EXISTS (SELECT 1 \(source) AND \(test))"
                }
            }
        }

        /// The operands of a chain of ANDs (or of ORs), in order: the parser builds a
        /// chain as a balanced tree, which this flattens again.
        static func chain(_ p: CheckedPredicate) -> [CheckedPredicate] {
            switch p {
            case .and(let a, let b): chain(a, and: true) + chain(b, and: true)
            case .or(let a, let b): chain(a, and: false) + chain(b, and: false)
            default: [p]
            }
        }

        private static func chain(_ p: CheckedPredicate, and: Bool) -> [CheckedPredicate] {
            switch p {
            case .and where and: chain(p)
            case .or where !and: chain(p)
            default: [p]
            }
        }

        /// Terms joined without nesting: SQLite parses `(a OR b OR c …)` on a flat stack
        /// (nested parentheses overflow its parser after a few dozen levels), and its
        /// expression tree for the chain is as deep as the chain is long (at most 1,000),
        /// so long chains are cut into groups of at most 100 terms, and groups of groups.
        static func flat(_ terms: [String], _ separator: String) -> String {
            guard terms.count > 100 else { return "(" + terms.joined(separator: separator) + ")" }
            let groups = stride(from: 0, to: terms.count, by: 100).map {
                flat(Array(terms[$0..<min($0 + 100, terms.count)]), separator)
            }
            return flat(groups, separator)
        }

        /// `lhs op rhs`, the left side on row `l`, the right on row `r`.
        func compare(
            _ lhs: CheckedExpression, _ l: String, _ op: Comparison.Operator, _ options: Comparison.Options,
            _ rhs: CheckedExpression, _ r: String
        ) throws(PredicateSQLError) -> String {
            let style = OperandStyle(lhs, rhs, options)
            // Arguments are bound in the order their `?`s appear in the text.
            if op == .matches { return try matches(lhs, l, options, rhs, r, flags: style.flags) }
            if op == .equal || op == .notEqual, case .literal(.null) = lhs {
                return "\(try operand(rhs, r, style)) IS \(op == .equal ? "" : "NOT ")NULL"
            }
            // A comparison that is false whatever the row leaves its left side out of
            // the text, so the values that side bound are taken back (`never(since:)`).
            let mark = arguments.count
            let a = try operand(lhs, l, style)
            switch op {
            case .equal, .notEqual:
                if case .literal(.null) = rhs { return "\(a) IS \(op == .equal ? "" : "NOT ")NULL" }
                // Null-safe both ways, as NSPredicate compares: nil == nil holds, nil == 5
                // does not, nil != 5 does (`IS` still uses an index).
                return "\(a) \(op == .equal ? "IS" : "IS NOT") \(try operand(rhs, r, style))"
            case .less: return "\(a) < \(try operand(rhs, r, style))"
            case .lessOrEqual: return "\(a) <= \(try operand(rhs, r, style))"
            case .greater: return "\(a) > \(try operand(rhs, r, style))"
            case .greaterOrEqual: return "\(a) >= \(try operand(rhs, r, style))"
            case .between, .in:
                guard case .list(let items) = rhs else {
                    throw PredicateSQLError(description: "\(op.rawValue) without a list")
                }
                var parts: [String] = []
                for item in items { parts.append(try operand(item, r, style)) }
                if op == .between { return "\(a) BETWEEN \(parts[0]) AND \(parts[1])" }
                return parts.isEmpty ? never(since: mark) : "\(a) IN (\(parts.joined(separator: ", ")))"
            case .beginsWith, .endsWith, .contains:
                return try substringTest(a, op, rhs, r, style, mark: mark)
            case .like:
                guard case .literal(.string(let pattern)) = rhs else {
                    // A string operator with nil on either side is false, as with BEGINSWITH.
                    if case .literal(.null) = rhs { return never(since: mark) }
                    throw PredicateSQLError(description: "LIKE needs a literal pattern")
                }
                let folded = style.flags != 0 ? TextFolding.fold(pattern, flags: style.flags) : pattern
                return "\(a) GLOB \(bind(.text(Self.glob(fromLike: folded))))"
            case .matches:
                return "0"  // handled above
            }
        }

        /// How a comparison writes its operands: `[c]` and `[d]` fold text (flags 1
        /// and 2), and a numeric side makes the other compare as a number.
        struct OperandStyle {
            let flags: Int
            let text: Bool
            let numeric: Bool

            init(_ lhs: CheckedExpression, _ rhs: CheckedExpression, _ options: Comparison.Options) {
                numeric = lhs.type.isNumeric || rhs.type.isNumeric
                flags = (options.contains(.caseInsensitive) ? 1 : 0) | (options.contains(.diacriticInsensitive) ? 2 : 0)
                text = lhs.type.isText || rhs.type.isText
            }
        }

        /// One side of a comparison on row `alias`, written as `style` says.
        func operand(_ e: CheckedExpression, _ alias: String, _ style: OperandStyle) throws(PredicateSQLError) -> String
        {
            if style.flags != 0, style.text {
                if case .literal(.string(let s)) = e { return bind(.text(TextFolding.fold(s, flags: style.flags))) }
                return "mm_fold(\(try value(e, alias, numeric: false)), \(style.flags))"
            }
            return try value(e, alias, numeric: style.numeric)
        }

        /// A comparison false for every row: the arguments bound since `mark` (its
        /// left side's) are taken back, as that side is left out of the text.
        func never(since mark: Int) -> String {
            arguments.removeSubrange(mark...)
            return "0"
        }

        /// `MATCHES`: `[d]` folds the text inside mm_matches; `[c]` is the regex's own option.
        func matches(
            _ lhs: CheckedExpression, _ l: String, _ options: Comparison.Options,
            _ rhs: CheckedExpression, _ r: String, flags: Int
        ) throws(PredicateSQLError) -> String {
            let subject = try value(lhs, l, numeric: false)
            let pattern: String
            if options.contains(.diacriticInsensitive), case .literal(.string(let s)) = rhs {
                pattern = bind(.text(TextFolding.fold(s, flags: 2)))
            } else {
                pattern = try value(rhs, r, numeric: false)
            }
            return "mm_matches(\(subject), \(pattern), \(flags))"
        }

        /// `BEGINSWITH`, `ENDSWITH`, `CONTAINS` with the left side already written as `a`.
        func substringTest(
            _ a: String, _ op: Comparison.Operator, _ rhs: CheckedExpression, _ r: String,
            _ style: OperandStyle, mark: Int
        ) throws(PredicateSQLError) -> String {
            // NSString's rangeOfString: finds no empty string ({NSNotFound, 0}), so
            // NSPredicate's BEGINSWITH, ENDSWITH and CONTAINS are false for '' and nil
            // (Docs/Predicates.md): an empty literal is false outright, any other
            // operand becomes NULL when empty (nullif with a bound '').
            let flags = style.flags
            var literal = false
            if case .literal(let value) = rhs {
                guard case .string(let s) = value, !(flags != 0 ? TextFolding.fold(s, flags: flags) : s).isEmpty else {
                    return never(since: mark)
                }
                literal = true
            }
            func nonEmpty(_ b: String) -> String { literal ? b : "nullif(\(b), \(bind(.text(""))))" }
            switch op {
            case .beginsWith: return "instr(\(a), \(nonEmpty(try operand(rhs, r, style)))) = 1"
            case .contains: return "instr(\(a), \(nonEmpty(try operand(rhs, r, style)))) > 0"
            default:
                // The suffix is evaluated twice (a literal is bound twice).
                let b1 = try operand(rhs, r, style), b2 = try operand(rhs, r, style)
                return "substr(\(a), -length(\(b1))) = \(nonEmpty(b2))"
            }
        }

        /// Core Data's LIKE pattern (`*` any run, `?` one character, `\` escapes the
        /// next) as a GLOB pattern: GLOB's own `[`, `]` become one-character classes.
        static func glob(fromLike pattern: String) -> String {
            var result = ""
            var escaped = false
            for c in pattern {
                if escaped {
                    result += c == "*" || c == "?" || c == "[" || c == "]" ? "[\(c)]" : String(c)
                    escaped = false
                    continue
                }
                switch c {
                case "\\": escaped = true
                case "*", "?": result.append(c)
                case "[", "]": result += "[\(c)]"
                default: result.append(c)
                }
            }
            if escaped { result += "\\" }
            return result
        }

        // MARK: Values

        /// An expression's value on row `alias`; `numeric` makes decimals (stored
        /// as text) compare and add as numbers.
        func value(_ e: CheckedExpression, _ alias: String, numeric: Bool) throws(PredicateSQLError) -> String {
            switch e {
            case .keyPath(let path):
                let sql = try keyPathValue(path, alias)
                return numeric && path.type == .decimal ? "CAST(\(sql) AS REAL)" : sql
            case .aggregate(let function, let many, _):
                let d = newAlias()
                let source = try toManySource(many, ownerAlias: alias, destinationAlias: d)
                switch function {
                case .count: return "(SELECT count(*) \(source))"
                case .sum, .avg, .min, .max:
                    let element = try value(.keyPath(many.element!), d, numeric: many.element!.type == .decimal)
                    let call = function == .sum ? "coalesce(sum(\(element)), 0)" : "\(function.rawValue)(\(element))"
                    return "(SELECT \(call) \(source))"
                }
            case .literal(let literal):
                return bind(Self.databaseValue(literal))
            case .list(let items):
                var parts: [String] = []
                for item in items { parts.append(try value(item, alias, numeric: numeric)) }
                return "(\(parts.joined(separator: ", ")))"
            case .arithmetic(let op, let a, let b, _):
                let l = try value(a, alias, numeric: true), r = try value(b, alias, numeric: true)
                // NSExpression divides as doubles; SQLite would truncate two integers.
                // A zero divisor fails the row of a copy or an update (`mm_divisor`);
                // a fetch or `onFailure: nil` gets nil, as SQLite gives.
                if op == .divide {
                    let divisor =
                        generator.failedConversions.map { "mm_divisor(\(r), \($0.key), \(bind(.text($0.label))))" } ?? r
                    return "(CAST(\(l) AS REAL) / \(divisor))"
                }
                return "(\(l) \(op.rawValue) \(r))"
            case .concatenate(let a, let b):
                return "(\(try value(a, alias, numeric: false)) || \(try value(b, alias, numeric: false)))"
            case .negate(let a):
                return "(-\(try value(a, alias, numeric: true)))"
            case .numberAsDate(let a):
                return try value(a, alias, numeric: true)
            case .function(let function, let args, _):
                return try functionValue(function, args, alias)
            case .conditional(let test, let a, let b, _):
                // NSPredicate is two-valued: a condition that is NULL (nil operands) is false.
                let condition = try condition(test, alias)
                return
                    """
                    (CASE WHEN \(condition) THEN \(try value(a, alias, numeric: numeric)) ELSE \
                    \(try value(b, alias, numeric: numeric)) END)
                    """
            case .policyCall(let policy, let selector, let args, _):
                // The SQL function the apply registers for the policy's Swift function;
                // the row's key first, for its messages.
                var parts = ["\(alias).Z_PK"]
                for arg in args { parts.append(try value(arg, alias, numeric: false)) }
                let name = PolicyFunctionCall.sqlName(
                    policy: policy, selector: selector, destination: generator.policyDestination)
                return "\(SQLText.q(name))(\(parts.joined(separator: ", ")))"
            }
        }

        static func databaseValue(_ literal: LiteralValue) -> DatabaseValue {
            switch literal {
            case .null: .null
            case .integer(let v): .integer(v)
            case .double(let v): .real(v)
            case .string(let v): .text(v)
            case .boolean(let v): .integer(v ? 1 : 0)
            case .date(let v): .real(v)
            case .uuid(let v): ValueCoding.uuidBytes(v).map { .blob($0) } ?? .null
            }
        }

        // MARK: Key paths

        /// The column of a to-one relationship, in its owner's table.
        func toOneColumn(_ relationship: CompiledRelationship, of entity: String) throws(PredicateSQLError) -> String {
            let table = try generator.table(of: entity)
            guard
                let column = table.column(for: .toOne(entity: relationship.declaredIn, relationship: relationship.name))
            else {
                throw PredicateSQLError(description: "\(entity).\(relationship.name): the store has no column for it")
            }
            return column.name
        }

        /// The primary key of the object reached by `hops` from row `alias`.
        func key(after hops: [CompiledRelationship], from start: String, _ alias: String) throws(PredicateSQLError)
            -> String
        {
            var entity = start
            var key = "\(alias).Z_PK"
            for (index, hop) in hops.enumerated() {
                let column = try toOneColumn(hop, of: entity)
                if index == 0 {
                    key = "\(alias).\(SQLText.q(column))"
                } else {
                    let h = newAlias()
                    key =
                        """
                        (SELECT \(h).\(SQLText.q(column)) FROM \(SQLText.q(try generator.table(of: entity).name)) \(h) \
                        WHERE \(h).Z_PK = \(key))
                        """
                }
                entity = hop.declaration.destination
            }
            return key
        }

        func keyPathValue(_ path: CheckedKeyPath, _ alias: String) throws(PredicateSQLError) -> String {
            let entity = path.lastEntity
            let table = try generator.table(of: entity)
            let column: String
            switch path.end {
            case .attribute(let a):
                guard let c = table.column(for: .attribute(entity: a.declaredIn, property: a.name)) else {
                    throw PredicateSQLError(description: "\(entity).\(a.name): the store has no column for it")
                }
                column = c.name
            case .toOne(let r):
                column = try toOneColumn(r, of: entity)
            }
            if path.hops.isEmpty { return "\(alias).\(SQLText.q(column))" }
            let owner = try key(after: path.hops, from: path.start, alias)
            let h = newAlias()
            return "(SELECT \(h).\(SQLText.q(column)) FROM \(SQLText.q(table.name)) \(h) WHERE \(h).Z_PK = \(owner))"
        }

        /// `FROM … WHERE …` selecting the destination rows (as `destinationAlias`) of a
        /// to-many relationship of the object that row `ownerAlias` reaches.
        func toManySource(_ many: CheckedToMany, ownerAlias: String, destinationAlias d: String)
            throws(PredicateSQLError) -> String
        {
            let owner = try key(after: many.hops, from: many.start, ownerAlias)
            let destination = many.relationship.declaration.destination
            guard let root = version.entity(named: destination)?.root else {
                throw PredicateSQLError(description: "unknown entity \(destination)")
            }
            let table = try generator.table(of: destination)
            let scope = generator.entityCondition(destination, alias: d)
            if !many.relationship.isManyToMany,
                let reverse = layout.reverseColumn(for: many.relationship, destinationRoot: root)
            {
                return
                    "FROM \(SQLText.q(table.name)) \(d) WHERE \(d).\(SQLText.q(reverse.column)) = \(owner) AND \(scope)"
            }
            guard let join = layout.joinTable(for: many.relationship) else {
                throw PredicateSQLError(
                    description: "\(many.owner).\(many.relationship.name): the store has no join table for it")
            }
            let j = newAlias()
            return """
                FROM \(SQLText.q(join.table.name)) \(j) JOIN \(SQLText.q(table.name)) \(d) ON \(d).Z_PK = \
                \(j).\(SQLText.q(join.theirs)) WHERE \(j).\(SQLText.q(join.mine)) = \(owner) AND \(scope)
                """
        }
    }
}
