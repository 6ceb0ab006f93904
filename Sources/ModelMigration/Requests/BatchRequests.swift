import DataModel
import Foundation
import Predicates
import SQLiteStore

/// `NSBatchUpdateRequest`: set attributes of every object a predicate selects, in
/// one set-based statement.
public struct BatchUpdateRequest: Sendable, Hashable {
    /// One `KEY = EXPR`.
    public struct Assignment: Sendable, Hashable {
        /// The attribute.
        public var key: String
        /// An expression over the object (`visits + 1`, `lowercase:(email)`, `nil`).
        public var value: String

        /// Creates an assignment.
        public init(key: String, value: String) {
            self.key = key
            self.value = value
        }

        /// Parses `KEY = EXPR` (the first `=` that is not part of `==`, `!=`, `<=`, `>=`).
        public init?(parsing text: String) {
            guard let equals = text.firstIndex(of: "=") else { return nil }
            let key = text[..<equals].trimmingCharacters(in: .whitespaces)
            let value = text[text.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty, !value.isEmpty, !value.hasPrefix("=") else { return nil }
            self.init(key: key, value: value)
        }
    }

    /// The entity.
    public var entity: String
    /// The predicate selecting objects; nil selects every one.
    public var predicate: String?
    /// The attributes to set.
    public var assignments: [Assignment]
    /// Objects of subentities too (Core Data's default).
    public var includesSubentities = true

    /// Creates a request.
    public init(entity: String, predicate: String? = nil, assignments: [Assignment]) {
        self.entity = entity
        self.predicate = predicate
        self.assignments = assignments
    }
}

/// `NSBatchDeleteRequest`: delete every object a predicate selects, following
/// the model's delete rules.
public struct BatchDeleteRequest: Sendable, Hashable {
    /// The entity.
    public var entity: String
    /// The predicate selecting objects; nil selects every one.
    public var predicate: String?
    /// Objects of subentities too (Core Data's default).
    public var includesSubentities = true

    /// Creates a request.
    public init(entity: String, predicate: String? = nil) {
        self.entity = entity
        self.predicate = predicate
    }
}

/// What a batch request changed (or, in a dry run, would change).
public struct BatchResult: Sendable, Hashable, Codable {
    /// The entity of the request.
    public var entity: String
    /// Objects the predicate selected (updated, or deleted before cascades).
    public var matched: Int
    /// Objects changed or deleted, by entity (cascades included for deletes).
    public var byEntity: [String: Int]
    /// Deletes: references to deleted objects set to nil (nullify), in rows that remain.
    public var referencesCleared: Int
    /// Deletes: join-table rows removed.
    public var joinRowsRemoved: Int
    /// True when nothing was written (`--dry-run`).
    public var dryRun: Bool

    /// Every object changed or deleted.
    public var total: Int { byEntity.values.reduce(0, +) }
}

extension StoreRequests {
    // MARK: Transactions

    /// Runs `body` in one `BEGIN EXCLUSIVE` transaction, waiting up to `timeout`
    /// seconds for other writers and readers (as `apply` waits), committing unless
    /// `dryRun`. After any failure the store is proven unchanged (as apply proves
    /// it): rolled back, no journal left, its fingerprint as before.
    func inWriteTransaction<T>(timeout: Double, dryRun: Bool, _ body: () throws -> T) throws -> T {
        let store = access.store
        guard !store.connection.isReadOnly else {
            throw RequestError(.failed, "\(store.path): the store is open read-only")
        }
        store.connection.busyTimeout = timeout
        func failed(_ error: any Error) -> any Error {
            guard let error = error as? SQLiteError else { return error }
            return RequestError(.failed, "\(StoreError.from(error, path: store.path)); nothing was changed")
        }
        func notBegun(_ error: any Error) -> any Error {
            guard let error = error as? SQLiteError, error.kind == .busy || error.kind == .locked else {
                return failed(error)
            }
            let who = LockHolders.describe(path: store.resolvedPath).map { " (held by \($0))" } ?? ""
            return RequestError(
                .failed,
                """
                \(store.path): another migration, writer or reader holds the store\(who); \
                waited \(Migrator.seconds(timeout)) s (--timeout); nothing was changed
                """)
        }
        do {
            // Exclusive, as apply's: in rollback-journal mode the wait for readers is
            // here, bounded by --timeout, and not again at the commit, where a
            // signal could no longer stop the work.
            return try StoreFingerprint.guardedTransaction(store, notBegun: notBegun, failed: failed) {
                (try body(), dryRun ? .rollback : .commit)
            }
        } catch let error as UnprovenWrite {
            // The store could not be proven unchanged: said in the request's terms.
            var failure = RequestError(.failed, "\(error)")
            failure.isUnproven = true
            throw failure
        }
    }

    func execute(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> Int {
        let statement = try access.store.connection.prepare(sql)
        try statement.bind(arguments)
        try statement.execute()
        return access.store.connection.changes
    }

    func rows(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> [[DatabaseValue]] {
        let statement = try access.store.connection.prepare(sql)
        try statement.bind(arguments)
        return try statement.rows()
    }

    func countsByEntity(table: String, keys: String, _ arguments: [DatabaseValue]) throws -> [String: Int] {
        let names = Dictionary(access.layout.entityNumbers.map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        var counts: [String: Int] = [:]
        for row in try rows(
            "SELECT s.Z_ENT, count(*) FROM \(SQLText.q(table)) s WHERE s.Z_PK IN (\(keys)) GROUP BY s.Z_ENT", arguments)
        {
            counts[names[Int(row[0].int64 ?? 0)] ?? "?", default: 0] += Int(row[1].int64 ?? 0)
        }
        return counts
    }

    // MARK: Update

    /// Runs a batch update in one transaction: the selected objects get the new
    /// values and `Z_OPT + 1`; values the model refuses (type, required, min/max)
    /// and broken uniqueness constraints refuse the whole update, naming objects.
    public func update(_ request: BatchUpdateRequest, dryRun: Bool = false, timeout: Double = 5) throws -> BatchResult {
        let entity = try entity(request.entity)
        let predicate = try checkedPredicate(request.predicate, entity: entity.name)
        let checker = TypeChecker(version: version, entity: entity.name)
        guard !request.assignments.isEmpty else { throw RequestError(.invalidRequest, "--set: nothing to set") }
        let assignments = try checkedAssignments(request.assignments, entity: entity, checker: checker)
        let generator = self.generator
        let table = try generator.table(of: entity.name)
        let quoted = SQLText.q(table.name)
        let condition = try sql { () throws(PredicateSQLError) in try generator.condition(predicate, row: "t0") }
        var sets: [String] = []
        var setArguments: [DatabaseValue] = []
        for (attribute, value) in assignments {
            guard let column = table.column(for: .attribute(entity: attribute.declaredIn, property: attribute.name))
            else {
                throw RequestError(.failed, "\(access.store.path): no column stores \(entity.name).\(attribute.name)")
            }
            // An index past the end or a text that is no number fails the update
            // naming the object, as it fails a migration (NSRangeException); update
            // has no `onFailure: nil` to opt into nil.
            var valueGenerator = generator
            valueGenerator.failedConversions = ("\(quoted).Z_PK", "\(entity.name).\(attribute.name)")
            let fragment = try sql { () throws(PredicateSQLError) in try valueGenerator.value(value, row: quoted) }
            var valueSQL = fragment.sql
            // A uuid attribute set from a string literal stores the 16 bytes.
            if attribute.declaration.type == .uuid, case .literal(.string(let text)) = value {
                valueSQL = "?"
                setArguments.append(ValueCoding.uuidBytes(text).map { .blob($0) } ?? .null)
            } else {
                setArguments += fragment.arguments
            }
            if attribute.declaration.type == .boolean { valueSQL = "(\(valueSQL) <> 0)" }
            sets.append("\(SQLText.q(column.name)) = \(valueSQL)")
        }
        if let opt = table.column(for: .changeCounter) {
            sets.append("\(SQLText.q(opt.name)) = \(SchemaSQL.incremented(opt.name))")
        }
        let scope = generator.entityCondition(entity.name, alias: "t0", includeSubentities: request.includesSubentities)
        let batch = "SELECT pk FROM temp.mm_batch"
        return try inWriteTransaction(timeout: timeout, dryRun: dryRun) {
            do {
                _ = try execute("CREATE TEMP TABLE IF NOT EXISTS mm_batch (pk INTEGER PRIMARY KEY)")
                _ = try execute("DELETE FROM temp.mm_batch")
                let matched = try execute(
                    "INSERT INTO temp.mm_batch SELECT t0.Z_PK FROM \(quoted) t0 WHERE \(scope) AND \(condition.sql)",
                    condition.arguments)
                do {
                    _ = try execute(
                        "UPDATE \(quoted) SET \(sets.joined(separator: ", ")) WHERE Z_PK IN (\(batch))", setArguments)
                } catch let error as SQLiteError where error.resultCode & 0xff == 19 {  // SQLITE_CONSTRAINT
                    throw RequestError(
                        .refused,
                        """
                        \(entity.name): the update breaks a uniqueness constraint (\(Self.uniqueness(entity))): \
                        \(error.message); nothing was changed
                        """)
                } catch let error as SQLiteError where Self.objectFailure(error.message, entity: entity.name) != nil {
                    throw RequestError(
                        .refused, Self.objectFailure(error.message, entity: entity.name)! + "; nothing was changed")
                }
                try checkValues(assignments.map(\.attribute), entity: entity, table: table, keys: batch)
                let byEntity = try countsByEntity(table: table.name, keys: batch, [])
                _ = try execute("DELETE FROM temp.mm_batch")
                return BatchResult(
                    entity: entity.name, matched: matched, byEntity: byEntity, referencesCleared: 0, joinRowsRemoved: 0,
                    dryRun: dryRun)
            } catch let error as SQLiteError {
                throw RequestError(.failed, "\(StoreError.from(error, path: access.store.path)); nothing was changed")
            }
        }
    }

    /// `--set` assignments checked against the entity: stored attributes, each set
    /// once, each value of its attribute's type.
    private func checkedAssignments(
        _ requested: [BatchUpdateRequest.Assignment], entity: CompiledEntity, checker: TypeChecker
    ) throws -> [(attribute: CompiledAttribute, value: CheckedExpression)] {
        var assignments: [(attribute: CompiledAttribute, value: CheckedExpression)] = []
        for assignment in requested {
            guard let attribute = entity.attribute(named: assignment.key), !attribute.declaration.isTransient else {
                let what =
                    entity.relationship(named: assignment.key) != nil
                    ? "is a relationship; batch updates set attributes"
                    : entity.attribute(named: assignment.key) != nil
                        ? "is transient (not stored)"
                        : "is not an attribute of \(entity.name)"
                            + (Suggestions.hint(for: assignment.key, in: entity.attributes.map(\.name)).map {
                                " (\($0))"
                            } ?? "")
                throw RequestError(.invalidRequest, "--set \(assignment.key): '\(assignment.key)' \(what)")
            }
            if assignments.contains(where: { $0.attribute.name == attribute.name }) {
                throw RequestError(.invalidRequest, "--set \(assignment.key): set twice")
            }
            do {
                assignments.append((attribute, try checker.value(assignment.value, for: attribute.declaration)))
            } catch {
                throw RequestError(error, in: "--set \(assignment.key)")
            }
        }
        return assignments
    }

    /// A value's failure for one row (`mm_substring`, `mm_component`,
    /// `mm_number_or_fail`, worded for a migration's source row and its
    /// `onFailure: nil`), reworded for the object an update sets:
    /// `Person 3: nickname: substringFromIndex: 99 is beyond the end of 'Ann' (3 UTF-16 units)`.
    static func objectFailure(_ message: String, entity: String) -> String? {
        guard message.hasPrefix(entity + "."), let colon = message.firstIndex(of: ":"),
            let row = message.range(of: " source row Z_PK ", options: .backwards)
        else { return nil }
        let attribute = message[message.index(after: message.index(message.startIndex, offsetBy: entity.count))..<colon]
        let digits = message[row.upperBound...].prefix { $0.isNumber || $0 == "-" }
        var before = String(message[message.index(colon, offsetBy: 2)..<row.lowerBound])
        for word in [" in", " of"] where before.hasSuffix(word) { before.removeLast(word.count) }
        var after = String(message[message.index(row.upperBound, offsetBy: digits.count)...])
        // The hint names `onFailure: nil`, which only a mapping file has.
        if let hint = after.range(of: " (", options: .backwards), after.hasSuffix(")") {
            after = String(after[..<hint.lowerBound])
        }
        return "\(entity) \(digits): \(attribute): \(before)\(after)"
    }

    static func uniqueness(_ entity: CompiledEntity) -> String {
        entity.uniqueness.isEmpty
            ? "a unique index" : entity.uniqueness.map { "[\($0.joined(separator: ", "))]" }.joined(separator: ", ")
    }

    // MARK: Delete

    /// Runs a batch delete in one transaction, following delete rules: cascade
    /// deletes the destinations (recursively), nullify (and no action) clears the
    /// references remaining rows hold, deny refuses the whole delete naming the
    /// objects whose relationship still has destinations; join rows go too.
    public func delete(_ request: BatchDeleteRequest, dryRun: Bool = false, timeout: Double = 5) throws -> BatchResult {
        let entity = try entity(request.entity)
        let predicate = try checkedPredicate(request.predicate, entity: entity.name)
        let generator = self.generator
        let table = try generator.table(of: entity.name)
        let condition = try sql { () throws(PredicateSQLError) in try generator.condition(predicate, row: "t0") }
        let scope = generator.entityCondition(entity.name, alias: "t0", includeSubentities: request.includesSubentities)
        return try inWriteTransaction(timeout: timeout, dryRun: dryRun) {
            do {
                _ = try execute(
                    """
                    CREATE TEMP TABLE IF NOT EXISTS mm_doomed (root TEXT NOT NULL, pk INTEGER NOT NULL, PRIMARY KEY \
                    (root, pk)) WITHOUT ROWID
                    """
                )
                _ = try execute("DELETE FROM temp.mm_doomed")
                defer { _ = try? execute("DELETE FROM temp.mm_doomed") }
                let matched = try execute(
                    """
                    INSERT INTO temp.mm_doomed SELECT ?, t0.Z_PK FROM \(SQLText.q(table.name)) t0 \
                    WHERE \(scope) AND \(condition.sql)
                    """,
                    [.text(entity.root)] + condition.arguments)
                try cascade()
                try refuseDenied()
                try refuseBrokenRelationships()
                var result = BatchResult(
                    entity: entity.name, matched: matched, byEntity: [:], referencesCleared: 0, joinRowsRemoved: 0,
                    dryRun: dryRun)
                result.referencesCleared = try clearReferences()
                for t in access.layout.tables where t.joinRelationship != nil {
                    var parts: [String] = []
                    var arguments: [DatabaseValue] = []
                    for column in t.columns.prefix(2) {
                        guard case .joinKey(let owner, _) = column.role, let root = version.entity(named: owner)?.root
                        else { continue }
                        parts.append("\(SQLText.q(column.name)) IN (SELECT pk FROM temp.mm_doomed WHERE root = ?)")
                        arguments.append(.text(root))
                    }
                    if !parts.isEmpty {
                        result.joinRowsRemoved += try execute(
                            "DELETE FROM \(SQLText.q(t.name)) WHERE \(parts.joined(separator: " OR "))", arguments)
                    }
                }
                for t in access.layout.tables where t.joinRelationship == nil {
                    let keys = "SELECT pk FROM temp.mm_doomed WHERE root = ?"
                    for (name, count) in try countsByEntity(table: t.name, keys: keys, [.text(t.entity)]) {
                        result.byEntity[name, default: 0] += count
                    }
                    _ = try execute("DELETE FROM \(SQLText.q(t.name)) WHERE Z_PK IN (\(keys))", [.text(t.entity)])
                }
                return result
            } catch let error as SQLiteError {
                throw RequestError(.failed, "\(StoreError.from(error, path: access.store.path)); nothing was changed")
            }
        }
    }

    /// Relationships stored in the layout, each once, with its owner entity.
    var storedRelationships: [(entity: CompiledEntity, relationship: CompiledRelationship)] {
        version.entities.flatMap { e in
            e.relationships.filter { $0.declaredIn == e.name && !$0.declaration.isTransient }.map { (e, $0) }
        }
    }

    /// `SELECT s.Z_PK …` of the doomed rows of an entity (and its subentities), as `s`.
    func doomedSource(_ entity: CompiledEntity) -> (sql: String, arguments: [DatabaseValue])? {
        guard let table = access.layout.table(forEntity: entity.root) else { return nil }
        let scope = generator.entityCondition(entity.name, alias: "s")
        return (
            "FROM temp.mm_doomed m JOIN \(SQLText.q(table.name)) s ON s.Z_PK = m.pk WHERE m.root = ? AND \(scope)",
            [.text(entity.root)]
        )
    }

    /// The destinations of a relationship of the doomed rows: `SELECT key …`.
    func destinations(_ entity: CompiledEntity, _ relationship: CompiledRelationship) -> (
        sql: String, arguments: [DatabaseValue]
    )? {
        guard let (source, arguments) = doomedSource(entity),
            let destination = version.entity(named: relationship.declaration.destination),
            let table = access.layout.table(forEntity: entity.root)
        else { return nil }
        let r = relationship.declaration
        if !r.isToMany {
            guard let column = table.column(for: .toOne(entity: relationship.declaredIn, relationship: r.name)) else {
                return nil
            }
            let c = "s.\(SQLText.q(column.name))"
            return ("SELECT \(c) \(source) AND \(c) IS NOT NULL", arguments)
        }
        if !relationship.isManyToMany,
            let reverse = access.layout.reverseColumn(for: relationship, destinationRoot: destination.root)
        {
            return (
                """
                SELECT d.Z_PK FROM \(SQLText.q(reverse.table.name)) d \
                WHERE d.\(SQLText.q(reverse.column)) IN (SELECT s.Z_PK \(source)) \
                AND \(generator.entityCondition(destination.name, alias: "d"))
                """, arguments
            )
        }
        guard let join = access.layout.joinTable(for: relationship) else { return nil }
        return (
            """
            SELECT j.\(SQLText.q(join.theirs)) FROM \(SQLText.q(join.table.name)) j \
            WHERE j.\(SQLText.q(join.mine)) IN (SELECT s.Z_PK \(source))
            """, arguments
        )
    }

    /// Adds the destinations of cascading relationships until nothing new is doomed.
    func cascade() throws {
        let cascading = storedRelationships.filter { $0.relationship.declaration.deleteRule == .cascade }
        var added = 1
        while added > 0 {
            added = 0
            for (entity, relationship) in cascading {
                guard let root = version.entity(named: relationship.declaration.destination)?.root,
                    let (sql, arguments) = destinations(entity, relationship)
                else { continue }
                added += try execute(
                    "INSERT OR IGNORE INTO temp.mm_doomed (root, pk) SELECT ?, k.* FROM (\(sql)) k",
                    [.text(root)] + arguments)
            }
        }
    }

    /// Deny: doomed objects whose relationship reaches objects that stay.
    func refuseDenied() throws {
        var problems: [String] = []
        for (entity, relationship) in storedRelationships where relationship.declaration.deleteRule == .deny {
            guard let destination = version.entity(named: relationship.declaration.destination),
                let (source, arguments) = doomedSource(entity), let table = access.layout.table(forEntity: entity.root)
            else { continue }
            let r = relationship.declaration
            let staying = "NOT EXISTS (SELECT 1 FROM temp.mm_doomed x WHERE x.root = ? AND x.pk = %@)"
            var test: String
            if !r.isToMany,
                let column = table.column(for: .toOne(entity: relationship.declaredIn, relationship: r.name))
            {
                let c = "s.\(SQLText.q(column.name))"
                test = "\(c) IS NOT NULL AND " + staying.replacingOccurrences(of: "%@", with: c)
            } else if !relationship.isManyToMany,
                let reverse = access.layout.reverseColumn(for: relationship, destinationRoot: destination.root)
            {
                test = """
                    EXISTS (SELECT 1 FROM \(SQLText.q(reverse.table.name)) d WHERE d.\(SQLText.q(reverse.column)) = \
                    s.Z_PK AND \(generator.entityCondition(destination.name, alias: "d")) AND \
                    \(staying.replacingOccurrences(of: "%@", with: "d.Z_PK")))
                    """
            } else if let join = access.layout.joinTable(for: relationship) {
                test = """
                    EXISTS (SELECT 1 FROM \(SQLText.q(join.table.name)) j WHERE j.\(SQLText.q(join.mine)) = s.Z_PK \
                    AND \(staying.replacingOccurrences(of: "%@", with: "j.\(SQLText.q(join.theirs))")))
                    """
            } else {
                continue
            }
            let found = try rows(
                "SELECT s.Z_PK \(source) AND \(test) ORDER BY s.Z_PK LIMIT 6", arguments + [.text(destination.root)])
            guard !found.isEmpty else { continue }
            let keys = found.prefix(5).map { String($0[0].int64 ?? 0) }.joined(separator: ", ")
            problems.append(
                """
                \(entity.name).\(r.name) has delete rule deny, and \(entity.name) \
                \(keys)\(found.count > 5 ? " and more" : "") still \(found.count == 1 ? "has" : "have") \(r.name) that \
                would stay
                """)
        }
        if !problems.isEmpty {
            throw RequestError(
                .refused, "the delete is refused; nothing was deleted:\n  " + problems.joined(separator: "\n  "))
        }
    }

    /// Objects that stay but lose destinations of a relationship the model
    /// requires: a required to-one that nullify would clear, or a to-many left below
    /// its `minCount` (empty is fine when the to-many is optional, or required with no
    /// `minCount`, as in Core Data: Docs/Objects.md, "Required to-many relationships"). Core Data's save validation
    /// refuses such a save (`NSValidationMissingMandatoryPropertyError`,
    /// `NSValidationRelationshipLacksMinimumCountError`) for the objects the delete
    /// changed; so does this, naming them, and nothing is deleted. Objects the delete
    /// does not touch are not judged (a store may already hold violations).
    func refuseBrokenRelationships() throws {
        var problems: [String] = []
        for (entity, relationship) in storedRelationships {
            let r = relationship.declaration
            guard ObjectAccess.hasCountRule(r), let destination = version.entity(named: r.destination),
                let table = access.layout.table(forEntity: entity.root)
            else { continue }
            let q = SQLText.q
            let staying = "s.Z_PK NOT IN (SELECT pk FROM temp.mm_doomed WHERE root = ?)"
            let doomed = "IN (SELECT pk FROM temp.mm_doomed WHERE root = ?)"
            let scope = generator.entityCondition(entity.name, alias: "s")
            let sql: String
            var arguments: [DatabaseValue]
            if !r.isToMany {
                guard !r.isOptional,
                    let column = table.column(for: .toOne(entity: relationship.declaredIn, relationship: r.name))
                else { continue }
                sql = """
                    SELECT s.Z_PK, 0 FROM \(q(table.name)) s WHERE \(scope) AND s.\(q(column.name)) \(doomed) AND \
                    \(staying) ORDER BY s.Z_PK LIMIT 6
                    """
                arguments = [.text(destination.root), .text(entity.root)]
            } else {
                // Each owner's destinations as (key) rows: `FROM … WHERE <owner is s>`.
                let members: String
                let key: String
                if !relationship.isManyToMany,
                    let reverse = access.layout.reverseColumn(for: relationship, destinationRoot: destination.root)
                {
                    members = """
                        FROM \(q(reverse.table.name)) d WHERE d.\(q(reverse.column)) = s.Z_PK \
                        AND \(generator.entityCondition(destination.name, alias: "d"))
                        """
                    key = "d.Z_PK"
                } else if let join = access.layout.joinTable(for: relationship) {
                    members = "FROM \(q(join.table.name)) j WHERE j.\(q(join.mine)) = s.Z_PK"
                    key = "j.\(q(join.theirs))"
                } else {
                    continue
                }
                let minimum = Int64(clamping: r.minCount ?? 0)
                let broken = r.isOptional ? "n > 0 AND n < \(minimum)" : "n < \(minimum)"
                sql = """
                    SELECT pk, n FROM (SELECT s.Z_PK AS pk, (SELECT count(*) \(members) AND \(key) NOT \(doomed)) AS n \
                    FROM \(q(table.name)) s WHERE \(scope) AND \(staying) AND EXISTS (SELECT 1 \(members) AND \(key) \
                    \(doomed))) WHERE \(broken) ORDER BY pk LIMIT 6
                    """
                arguments = [.text(destination.root), .text(entity.root), .text(destination.root)]
            }
            let found = try rows(sql, arguments)
            guard !found.isEmpty else { continue }
            let keys = found.prefix(5).map { String($0[0].int64 ?? 0) }.joined(separator: ", ")
            let more = found.count > 5 ? " and more" : ""
            if !r.isToMany {
                problems.append(
                    """
                    \(entity.name).\(r.name) is required, and \(entity.name) \(keys)\(more) would be left without it \
                    (their \(r.name) is among the objects deleted; delete them too, or point them elsewhere first)
                    """)
            } else {
                let counts = found.prefix(5).map { "\($0[0].int64 ?? 0) (\($0[1].int64 ?? 0) left)" }.joined(
                    separator: ", ")
                let least = r.minCount ?? 0
                let rule = "needs \(r.isOptional ? "none or " : "")at least \(least) object\(least == 1 ? "" : "s")"
                problems.append(
                    "\(entity.name).\(r.name) \(rule), and \(entity.name) \(counts)\(more) would have fewer")
            }
        }
        if !problems.isEmpty {
            throw RequestError(
                .refused,
                "the delete is refused: objects that stay would break the model; nothing was deleted:\n  "
                    + problems.joined(separator: "\n  "))
        }
    }

    /// Nullify: every key left pointing at a doomed row, in rows that stay, is set
    /// to nil (with its entity and order columns), and those rows get `Z_OPT + 1`.
    func clearReferences() throws -> Int {
        var cleared = 0
        for table in access.layout.tables where table.joinRelationship == nil {
            for column in table.columns {
                let target: String?
                var companions: [String] = []
                switch column.role {
                case .toOne(let owner, let name):
                    guard let relationship = version.entity(named: owner)?.relationship(named: name) else { continue }
                    target = version.entity(named: relationship.declaration.destination)?.root
                    if let c = table.column(for: .toOneEntity(entity: owner, relationship: name)) {
                        companions.append(c.name)
                    }
                    if let inverseOwner = relationship.inverseEntity, let inverse = relationship.declaration.inverse,
                        let c = table.column(for: .order(entity: inverseOwner, relationship: inverse))
                    {
                        companions.append(c.name)
                    }
                case .toManyKey(let owner, let name):
                    target = version.entity(named: owner)?.root
                    if let c = table.column(for: .order(entity: owner, relationship: name)) {
                        companions.append(c.name)
                    }
                default:
                    continue
                }
                guard let target else { continue }
                let c = SQLText.q(column.name)
                var sets = ([column.name] + companions).map { "\(SQLText.q($0)) = NULL" }
                if let opt = table.column(for: .changeCounter) {
                    sets.append("\(SQLText.q(opt.name)) = \(SchemaSQL.incremented(opt.name))")
                }
                cleared += try execute(
                    """
                    UPDATE \(SQLText.q(table.name)) SET \(sets.joined(separator: ", ")) WHERE \(c) IN (SELECT pk FROM \
                    temp.mm_doomed WHERE root = ?) AND Z_PK NOT IN (SELECT pk FROM temp.mm_doomed WHERE root = ?)
                    """, [.text(target), .text(table.entity)])
            }
        }
        return cleared
    }
}
