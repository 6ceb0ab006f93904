import DataModel
import Foundation
import Predicates
public import SQLiteStore

/// Fetches, batch updates and batch deletes on one store at the version it holds
/// (predicates checked against that version, SQL over the store's layout).
public struct StoreRequests {
    /// The store and its version.
    public let access: ObjectAccess

    /// Requests on a store bound to the version it holds.
    public init(access: ObjectAccess) {
        self.access = access
    }

    var version: CompiledVersion { access.version }
    var generator: PredicateSQL { PredicateSQL(version: access.version, layout: access.layout) }

    func entity(_ name: String) throws(RequestError) -> CompiledEntity {
        guard let entity = version.entity(named: name) else {
            let hint = Suggestions.hint(for: name, in: version.entities.map(\.name)).map { " (\($0))" } ?? ""
            throw RequestError(
                .invalidRequest,
                """
                unknown entity '\(name)'\(hint) (model \(version.model) version \(version.version) \
                has \(version.entities.map(\.name).joined(separator: ", ")))
                """)
        }
        return entity
    }

    func checkedPredicate(_ text: String?, entity: String) throws(RequestError) -> CheckedPredicate {
        guard let text else { return .constant(true) }
        do {
            return try TypeChecker(version: version, entity: entity).predicate(text)
        } catch {
            throw RequestError(error, in: "--where")
        }
    }

    func sql(_ body: () throws(PredicateSQLError) -> SQLFragment) throws(RequestError) -> SQLFragment {
        do { return try body() } catch { throw RequestError(.failed, "\(access.store.path): \(error)") }
    }

    /// The columns a fetch reads and their checked values: `--properties`, or every
    /// stored attribute and to-one of the entity (and its subentities').
    func fetchColumns(
        _ request: FetchRequest, of entity: CompiledEntity, checker: TypeChecker
    ) throws(RequestError) -> (columns: [FetchColumn], values: [CheckedExpression]) {
        var columns: [FetchColumn] = []
        var values: [CheckedExpression] = []
        if let properties = request.properties {
            for property in properties {
                do throws(Predicates.PredicateError) {
                    let checked = try checker.expression(property)
                    if case .list = checked {
                        throw Predicates.PredicateError(.type, "a list is not a property", at: 0, in: property)
                    }
                    var attribute: AttributeDescription?
                    if case .keyPath(let path) = checked, case .attribute(let a) = path.end {
                        attribute = a.declaration
                    }
                    columns.append(FetchColumn(name: property, type: checked.type, attribute: attribute))
                    values.append(checked)
                } catch {
                    throw RequestError(error, in: "--properties \(property)")
                }
            }
        } else {
            let names = request.includesSubentities ? version.subtree(of: entity.name) : [entity.name]
            var seen: Set<String> = []
            for name in names {
                guard let e = version.entity(named: name) else { continue }
                for a in e.attributes where !a.declaration.isTransient && seen.insert(a.name).inserted {
                    let path = CheckedKeyPath(start: entity.name, hops: [], end: .attribute(a))
                    columns.append(
                        FetchColumn(
                            name: a.name, type: path.type, attribute: a.declaration,
                            declaredIn: name == entity.name ? nil : a.declaredIn))
                    values.append(.keyPath(path))
                }
                for r in e.relationships
                where !r.declaration.isTransient && !r.declaration.isToMany && seen.insert(r.name).inserted {
                    let path = CheckedKeyPath(start: entity.name, hops: [], end: .toOne(r))
                    columns.append(
                        FetchColumn(name: r.name, type: .integer, declaredIn: name == entity.name ? nil : r.declaredIn))
                    values.append(.keyPath(path))
                }
            }
        }
        return (columns, values)
    }

    /// The SQL a fetch runs, its arguments and its columns (`--json` and the
    /// table read them; tests check the SQL).
    package func compile(_ request: FetchRequest) throws(RequestError) -> (
        statement: SQLFragment, columns: [FetchColumn]
    ) {
        let entity = try entity(request.entity)
        let checker = TypeChecker(version: version, entity: entity.name)
        let (columns, values) = try fetchColumns(request, of: entity, checker: checker)
        let predicate = try checkedPredicate(request.predicate, entity: entity.name)
        var sorts: [(CheckedExpression, Bool)] = []
        for key in request.sortKeys {
            do throws(Predicates.PredicateError) {
                let checked = try checker.expression(key.keyPath)
                guard [.integer, .double, .decimal, .string, .boolean, .date, .uri, .uuid].contains(checked.type) else {
                    throw Predicates.PredicateError(.type, "cannot sort by \(checked.type)", at: 0, in: key.keyPath)
                }
                sorts.append((checked, key.ascending))
            } catch {
                throw RequestError(error, in: "--sort \(key.keyPath)")
            }
        }
        let generator = self.generator
        let table = try sql { () throws(PredicateSQLError) in SQLFragment(try generator.table(of: entity.name).name) }
            .sql
        var arguments: [DatabaseValue] = []
        var selected = ["t0.Z_PK", "t0.Z_ENT"]
        for value in values {
            let fragment = try sql { () throws(PredicateSQLError) in try generator.value(value, row: "t0") }
            selected.append(fragment.sql)
            arguments += fragment.arguments
        }
        let condition = try sql { () throws(PredicateSQLError) in try generator.condition(predicate, row: "t0") }
        var text = """
            SELECT \(selected.joined(separator: ", ")) FROM \(SQLText.q(table)) t0 WHERE \
            \(generator.entityCondition(entity.name, alias: "t0", includeSubentities: request.includesSubentities))
            """
        if predicate != .constant(true) {
            (text, arguments) = (text + " AND \(condition.sql)", arguments + condition.arguments)
        }
        var order: [String] = []
        for (value, ascending) in sorts {
            let fragment = try sql { () throws(PredicateSQLError) in
                var f = try generator.value(value, row: "t0")
                if value.type == .decimal { f.sql = "CAST(\(f.sql) AS REAL)" }
                return f
            }
            order.append("\(fragment.sql) \(ascending ? "ASC" : "DESC")")
            arguments += fragment.arguments
        }
        text += " ORDER BY \((order + ["t0.Z_PK ASC"]).joined(separator: ", "))"
        if request.limit != nil || request.offset != nil {
            text += " LIMIT ? OFFSET ?"
            arguments += [.integer(Int64(request.limit ?? -1)), .integer(Int64(request.offset ?? 0))]
        }
        return (SQLFragment(text, arguments), columns)
    }

    /// Calls `body` with each fetched object, one row at a time (memory does not
    /// grow with the result).
    public func fetch(_ request: FetchRequest, _ body: (FetchedRow) throws -> Void) throws {
        let (statement, columns) = try compile(request)
        let names = Dictionary(access.layout.entityNumbers.map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        var lineage: [String: Set<String>] = [:]
        do {
            let prepared = try access.store.connection.prepare(statement.sql)
            try prepared.bind(statement.arguments)
            while try prepared.step() {
                let entity = names[Int(prepared.int64(at: 1))] ?? "?"
                let ancestors = lineage[entity] ?? Set(version.lineage(of: entity))
                lineage[entity] = ancestors
                var values: [AttributeValue?] = []
                var has: [Bool] = []
                for (index, column) in columns.enumerated() {
                    if let bad = prepared.invalidUTF8Offset(at: Int32(index + 2)) {
                        let error = ObjectAccess.invalidText(
                            entity: entity, key: prepared.int64(at: 0), attribute: column.name,
                            offset: bad, path: access.store.path)
                        throw RequestError(.failed, error.description)
                    }
                    let raw = prepared.value(at: Int32(index + 2))
                    has.append(column.declaredIn.map { ancestors.contains($0) } ?? true)
                    if let attribute = column.attribute {
                        values.append(try ValueCoding.attributeValue(raw, as: attribute, storePath: access.store.path))
                    } else {
                        values.append(Self.value(raw, type: column.type))
                    }
                }
                try body(
                    FetchedRow(entity: entity, primaryKey: prepared.int64(at: 0), values: values, hasProperty: has))
            }
        } catch let error as SQLiteError {
            throw RequestError(.failed, "\(StoreError.from(error, path: access.store.path))")
        }
    }

    /// Every fetched object (for small results; `fetch(_:_:)` streams).
    public func fetchAll(_ request: FetchRequest) throws -> [FetchedRow] {
        var rows: [FetchedRow] = []
        try fetch(request) { rows.append($0) }
        return rows
    }

    /// The number of objects the request fetches (limit and offset applied).
    public func count(_ request: FetchRequest) throws -> Int {
        var plain = request
        plain.sortKeys = []
        plain.properties = []
        let (statement, _) = try compile(plain)
        do {
            let value = try access.store.connection.prepare("SELECT count(*) FROM (\(statement.sql))")
            try value.bind(statement.arguments)
            _ = try value.step()
            return Int(value.int64(at: 0))
        } catch {
            throw RequestError(.failed, "\(StoreError.from(error, path: access.store.path))")
        }
    }

    /// A computed value of a type, from SQLite's storage class.
    static func value(_ raw: DatabaseValue, type: ValueType) -> AttributeValue? {
        switch (type, raw) {
        case (_, .null): return nil
        case (.boolean, .integer(let v)): return .boolean(v != 0)
        case (.date, .real(let v)): return .date(v)
        case (.date, .integer(let v)): return .date(Double(v))
        case (.object, .integer(let v)): return .integer(v)
        default: return ValueCoding.attributeValue(raw, as: type.storageType)
        }
    }
}

extension ValueType {
    /// The attribute type whose stored values read as this type.
    var storageType: AttributeType {
        switch self {
        case .integer, .object, .null: .integer64
        case .double: .double
        case .decimal: .decimal
        case .string: .string
        case .boolean: .boolean
        case .date: .date
        case .binary: .binary
        case .uuid: .uuid
        case .uri: .uri
        }
    }
}
