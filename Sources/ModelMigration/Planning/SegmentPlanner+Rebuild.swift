import DataModel
import Mapping
import Predicates
import SQLiteStore

/// Tables built anew from the old ones with one set-based `INSERT … SELECT` per
/// entity, following SQLite's 12-step procedure
/// (https://www.sqlite.org/lang_altertable.html#otheralter), and join tables.
extension SegmentPlanner {
    // MARK: Rebuild (INSERT … SELECT)

    /// What the copies of one table's hierarchy gather.
    struct HierarchyCopy {
        /// `CREATE TABLE`, then one `INSERT … SELECT` per copied entity.
        var statements: [SQLFragment]
        /// Per copied entity, a count of the rows it copies (summed into the rows
        /// the new table must hold), and their bound values.
        var expected: [String] = []
        var expectedArguments: [DatabaseValue] = []
        /// The entity numbers copied without a filter.
        var copiedNumbers: Set<Int> = []
        var calls: [PolicyFunctionCall] = []
        var rows: Int64 = 0
        /// The table the rows come from (nil: a new table, nothing to copy).
        var sourceTableName: String?
        /// Copies of objects merged in from other tables (`copyFurtherRows`).
        var otherTableCopies = 0
    }

    /// A table built anew: `CREATE TABLE` under its build name, then one set-based
    /// copy per entity of its hierarchy (entities left to a policy are not copied).
    mutating func build(_ table: Table, as buildName: String) throws {
        var renamed = table
        renamed.name = buildName
        var copy = HierarchyCopy(statements: [SQLFragment(SchemaSQL.createTable(renamed))])
        for entity in destination.entities where entity.root == table.entity {
            try copyRows(of: entity, into: table, as: buildName, copy: &copy)
            try copyFurtherRows(of: entity, into: table, as: buildName, copy: &copy)
        }
        guard let sourceTableName = copy.sourceTableName else {
            steps.append(
                .createTable(
                    MigrationStep.TableBuild(
                        summary: "create table \(table.name)", table: table.name, buildTable: buildName,
                        statements: copy.statements)))
            return
        }
        try warnRemovedEntities(of: sourceTableName, into: table)
        // Over the counting limit each entity's count is the table's estimate: the
        // copies of a shared table's entities, summed, would count it once per entity.
        if copy.otherTableCopies == 0 { copy.rows = min(copy.rows, try count(sourceTableName, nil)) }
        // Every row of the old table is copied (each of its entities, unfiltered):
        // its row count is what the new table must hold, read from the b-tree
        // instead of a scan per entity (apply has checked each row's Z_ENT first).
        var readsEveryRow = false
        if !copy.expected.isEmpty, copy.expectedArguments.isEmpty, copy.otherTableCopies == 0 {
            let stored = Set(
                source.entities.filter { sourceLayout.table(forEntity: $0.root)?.name == sourceTableName }
                    .compactMap { sourceLayout.entityNumbers[$0.name] })
            if stored == copy.copiedNumbers {
                // Exactly one unfiltered copy per stored entity: the copies add up to
                // the whole table only when every row has a Z_ENT of its hierarchy.
                readsEveryRow = copy.expected.count == stored.count
                copy.expected = ["(SELECT count(*) FROM \(SQLText.q(sourceTableName)))"]
            }
        }
        let policyOnly = copy.expected.isEmpty
        steps.append(
            .rebuildTable(
                MigrationStep.TableCopy(
                    summary: policyOnly
                        ? "create the new \(table.name) (its rows come from a policy)"
                        : additionalBuildSummary(table, from: sourceTableName)
                            ?? "rebuild \(table.name) from \(sourceTableName) (SQLite's 12-step procedure)",
                    table: table.name, buildTable: buildName, statements: copy.statements,
                    cost: policyOnly ? .constant : .rewrite(rows: copy.rows),
                    expectedRows: policyOnly
                        ? nil : SQLFragment("SELECT " + copy.expected.joined(separator: " + "), copy.expectedArguments),
                    policyFunctions: copy.calls, readsEveryRowOf: readsEveryRow ? sourceTableName : nil)))
        addRebuildChecks(table)
    }

    /// The copy of one destination entity's rows: an `INSERT … SELECT` from its
    /// source entity's rows (those a mapping file's filter holds for), with the
    /// count they must come to.
    mutating func copyRows(
        of entity: CompiledEntity, into table: Table, as buildName: String, copy: inout HierarchyCopy
    ) throws {
        guard let sourceEntity = sourceEntity(for: entity.name),
            let old = sourceLayout.table(forEntity: sourceEntity.root),
            let number = sourceLayout.entityNumbers[sourceEntity.name],
            let newNumber = destinationLayout.entityNumbers[entity.name]
        else { return }
        copy.sourceTableName = old.name
        let mapping = self.mapping.mapping(forDestination: entity.name)
        // A custom mapping: the policy step writes these rows.
        if mapping?.kind == .custom { return }
        let lineage = Set(lineageNames(destination, entity.name))
        var columns: [String] = []
        var values: [String] = []
        var bound: [DatabaseValue] = []
        for column in table.columns {
            columns.append(SQLText.q(column.name))
            values.append(
                try expression(
                    for: column, entity: entity, lineage: lineage, sourceEntity: sourceEntity,
                    newNumber: newNumber, arguments: &bound, calls: &copy.calls))
        }
        // A mapping file's filter: only the source objects it holds for are copied.
        var filter = SQLFragment("")
        if let text = mapping?.filter {
            filter = try filterCondition(text, of: sourceEntity, alias: "s")
            filter.sql = " AND (\(filter.sql))"
            try warnFiltered(text, entity: entity, sourceEntity: sourceEntity, table: old.name, number: number)
            filteredTables.insert(table.name)
        } else {
            copy.copiedNumbers.insert(number)
        }
        copy.statements.append(
            SQLFragment(
                """
                INSERT INTO \(SQLText.q(buildName)) (\(columns.joined(separator: ", "))) SELECT \
                \(values.joined(separator: ", ")) FROM \(SQLText.q(old.name)) AS s WHERE s.Z_ENT = \
                \(number)\(filter.sql)
                """, bound + filter.arguments))
        copy.expected.append(
            filter.sql.isEmpty
                ? "(SELECT count(*) FROM \(SQLText.q(old.name)) WHERE Z_ENT = \(number))"
                : "(SELECT count(*) FROM \(SQLText.q(old.name)) AS s WHERE s.Z_ENT = \(number)\(filter.sql))")
        copy.expectedArguments += filter.arguments
        copy.rows = copy.rows.adding(saturating: try count(old.name, [number]))
        try warnDropped(mapping, sourceEntity: sourceEntity, numbers: [number])
    }

    /// Source objects a mapping file's filter leaves out are not migrated: say how many.
    mutating func warnFiltered(
        _ filter: String, entity: CompiledEntity, sourceEntity: CompiledEntity, table: String, number: Int
    ) throws {
        let kept = try filterCondition(filter, of: sourceEntity, alias: "f")
        guard
            let dropped = try countWhere(
                table, "f.Z_ENT = \(number) AND NOT coalesce((\(kept.sql)), 0)", kept.arguments)
        else {
            // A later hop filters rows earlier hops of the run write first: what it
            // leaves out is not known before the apply, and must not pass as none.
            if isLaterHop {
                warnings.append(
                    MigrationWarning(
                        message: """
                            \(entity.name): the \(sourceEntity.name) objects the filter `\(filter)` leaves out are not \
                            migrated (deleted, and references to them removed; not counted: an earlier hop of this run \
                            writes them first)
                            """,
                        isDestructive: true, subject: sourceEntity.name))
            }
            return
        }
        guard dropped > 0 else { return }
        warnings.append(
            MigrationWarning(
                message: """
                    \(entity.name): \(dropped) \(sourceEntity.name) object\(dropped == 1 ? "" : "s") \
                    the filter `\(filter)` leaves out \(dropped == 1 ? "is" : "are") not migrated \
                    (deleted, and references to \(dropped == 1 ? "it" : "them") removed)
                    """,
                isDestructive: true, subject: sourceEntity.name, count: dropped))
    }

    /// Rows of entities removed from the hierarchy are not copied: warn as alter() does.
    mutating func warnRemovedEntities(of sourceTableName: String, into table: Table) throws {
        for entity in source.entities where sourceLayout.table(forEntity: entity.root)?.name == sourceTableName {
            guard self.mapping.entityMappings.contains(where: { $0.kind == .remove && $0.source == entity.name }),
                let number = sourceLayout.entityNumbers[entity.name]
            else { continue }
            let removed = try count(sourceTableName, [number])
            let message =
                "entity \(entity.name) is removed: its \(removed) row\(removed == 1 ? " is" : "s are") deleted"
            // A source table rebuilt into several tables (a subentity leaving the
            // hierarchy) comes here once per table: one loss, one warning.
            if removed > 0, !warnings.contains(where: { $0.subject == entity.name && $0.message == message }) {
                warnings.append(
                    MigrationWarning(message: message, isDestructive: true, subject: entity.name, count: removed))
            }
            addReferenceChecks(into: table.name)
        }
    }

    func lineageNames(_ version: CompiledVersion, _ name: String) -> [String] { version.lineage(of: name) }

    /// A mapping file's filter as an SQL condition on the source row `alias`.
    func filterCondition(_ filter: String, of sourceEntity: CompiledEntity, alias: String) throws -> SQLFragment {
        let checked = try TypeChecker(version: source, entity: sourceEntity.name, rowVariables: ["source"]).predicate(
            filter)
        return try PredicateSQL(version: source, layout: sourceLayout).condition(checked, row: alias)
    }

    func expression(
        for column: Column, entity: CompiledEntity, lineage: Set<String>, sourceEntity: CompiledEntity, newNumber: Int,
        arguments: inout [DatabaseValue], calls: inout [PolicyFunctionCall]
    ) throws -> String {
        switch column.role {
        case .primaryKey: return "s.Z_PK"
        case .entityNumber: return String(newNumber)
        case .changeCounter: return "s.Z_OPT"
        case .attribute(let owner, let property):
            return try attributeValue(
                owner: owner, property: property, entity: entity, lineage: lineage, sourceEntity: sourceEntity,
                column: column, arguments: &arguments, calls: &calls)
        case .toOne(let owner, let name):
            guard lineage.contains(owner), let relationship = entity.relationship(named: name) else { return "NULL" }
            if let computed = try computedToOne(entity, relationship, sourceEntity: sourceEntity, arguments: &arguments)
            {
                return computed
            }
            guard let found = pairs(for: entity, relationship) else { return "NULL" }
            // Of several destinations, one the hop migrates: Core Data's inferred value,
            // `destinationInstances(forEntityMappingNamed:sourceInstances:)` of the
            // source set, leaves out the objects a `filter:` drops (fuzzer seed 1600
            // trial 7: the lowest key was a dropped object, and the to-one was nil).
            return destinationOfRow(found.source, reversed: found.reversed, keeping: filteredMembers(of: relationship))
        case .toManyKey(let owner, let name):
            // This row is a destination of owner.name (a to-many without an inverse): the owner's key.
            guard let ownerEntity = destination.entity(named: owner),
                let relationship = ownerEntity.relationship(named: name),
                lineage.contains(relationship.declaration.destination),
                let found = pairs(for: ownerEntity, relationship)
            else { return "NULL" }
            return destinationOfRow(found.source, reversed: !found.reversed)
        case .order(let owner, let name):
            return position(in: owner, name, entity: entity, lineage: lineage, sourceEntity: sourceEntity)
        case .joinKey, .toOneEntity:
            // Entity-type columns are set by `entityTypeSteps` once every table is in place.
            return "NULL"
        }
    }

    /// The value of an attribute's column in a copy: copied, converted, a
    /// default, or a mapping file's expression (every literal bound).
    func attributeValue(
        owner: String, property: String, entity: CompiledEntity, lineage: Set<String>, sourceEntity: CompiledEntity,
        column: Column, arguments: inout [DatabaseValue], calls: inout [PolicyFunctionCall]
    ) throws -> String {
        guard lineage.contains(owner), let attribute = entity.attribute(named: property) else { return "NULL" }
        let type = attribute.declaration.type
        switch mapping.mapping(forDestination: entity.name)?.property(property)?.source {
        case .copy(let from)?:
            guard let old = sourceColumn(sourceEntity, from) else { return "NULL" }
            let value = "s.\(SQLText.q(old.name))"
            // Binary data that allows external storage carries Core Data's marker byte.
            switch (
                sourceEntity.attribute(named: from)?.declaration.allowsExternalStorage == true,
                attribute.declaration.allowsExternalStorage
            ) {
            case (false, true) where type == .binary:
                return "CASE WHEN \(value) IS NULL THEN NULL ELSE CAST(X'01' || \(value) AS BLOB) END"
            case (true, false) where type == .binary:
                return "CASE WHEN substr(\(value), 1, 1) = X'01' THEN substr(\(value), 2) ELSE \(value) END"
            default: break
            }
            return old.type == column.type ? value : "CAST(\(value) AS \(SQLText.castType(type)))"
        case .convert(let from, let conversion)?:
            guard let old = sourceColumn(sourceEntity, from) else { return "NULL" }
            let value =
                old.type == column.type
                ? "s.\(SQLText.q(old.name))" : "CAST(s.\(SQLText.q(old.name)) AS \(SQLText.castType(type)))"
            if conversion == .fillDefault
                || (!attribute.declaration.isOptional && attribute.declaration.defaultValue != nil)
            {
                return "coalesce(\(value), \(SQLText.literal(attribute.declaration.defaultValue, as: type)))"
            }
            return value
        case .defaultValue(let value)?:
            return SQLText.literal(value, as: type)
        case .expression(let text, let nilOnFailure)?:
            return try expressionValue(
                text, nilOnFailure: nilOnFailure, entity: entity, property: property, sourceEntity: sourceEntity,
                arguments: &arguments, calls: &calls)
        default:
            return "NULL"
        }
    }

    /// A mapping file's `value:` expression as the SQL of the copy: checked when the
    /// mapping file was resolved, compiled here with every literal bound, converted to
    /// the attribute's type and held to its rules (range, required) in the same copy.
    func expressionValue(
        _ text: String, nilOnFailure: Bool, entity: CompiledEntity, property: String, sourceEntity: CompiledEntity,
        arguments: inout [DatabaseValue], calls: inout [PolicyFunctionCall]
    ) throws -> String {
        guard let attribute = entity.attribute(named: property) else { return "NULL" }
        let type = attribute.declaration.type
        // Checked when the mapping file was resolved; compiled here with every
        // literal bound as a parameter, identifiers only from the layout.
        let policy = mapping.mapping(forDestination: entity.name)?.policy
        let checked = try TypeChecker(
            version: source, entity: sourceEntity.name, rowVariables: ["source"], entityPolicy: policy
        )
        .value(text, for: attribute.declaration)
        var generator = PredicateSQL(version: source, layout: sourceLayout)
        if !nilOnFailure { generator.failedConversions = ("s.Z_PK", "\(entity.name).\(property)") }
        generator.policyDestination = "\(entity.name).\(property)"
        let fragment = try generator.value(checked, row: "s")
        arguments += fragment.arguments
        if case .policyCall(let policy, let selector, let policyArguments, _) = checked {
            // The registered function holds its result to the attribute's rules
            // itself (type, required, range, min/max), in the same call.
            calls.append(
                PolicyFunctionCall(
                    policy: policy, selector: selector, entity: entity.name, attribute: property,
                    argumentTypes: policyArguments.map(Self.attributeType(of:))))
            return fragment.sql
        }
        let value = "(\(fragment.sql))"
        let label = "\(entity.name).\(property)"
        let converted: String =
            switch type {
            // NSNumber's integerValue truncates toward zero, as CAST does; a REAL
            // beyond Int64 (overflowed integer arithmetic) fails its row instead
            // of being clamped by CAST.
            case .integer16, .integer32, .integer64:
                """
                CAST(\
                \(Self.integral(
                    value, attribute.declaration, label: label, nilOnFailure: nilOnFailure,
                    arguments: &arguments)) AS INTEGER)
                """
            case .double, .float, .date: "CAST(\(value) AS REAL)"
            // Infinity and magnitudes no NSDecimalNumber holds fail their row.
            case .decimal:
                "mm_decimal(\(value), s.Z_PK, \(Self.bound(.text(label), &arguments)), \(nilOnFailure ? 2 : 0))"
            // Its truth as SQLite tests it (its numeric value not 0), nil kept: the value
            // appears once, as its bound arguments do (it was written twice, with the
            // arguments once: SQLITE_RANGE on a TERNARY with literals).
            case .boolean: "(CAST(\(value) AS NUMERIC) <> 0)"
            default: value
            }
        let held = within(
            converted, attribute.declaration, label: "\(entity.name).\(property)", nilOnFailure: nilOnFailure,
            arguments: &arguments)
        guard !attribute.declaration.isOptional else { return held }
        // A required attribute: a nil value fails the copy itself, naming the
        // row (no scan afterwards; `computedRequired` skips that check).
        arguments.append(.text("\(entity.name).\(property)"))
        return "mm_required(\(held), s.Z_PK, ?)"
    }

    /// The attribute type a checked value has, for a policy function's arguments.
    static func attributeType(of value: CheckedExpression) -> AttributeType? {
        if case .keyPath(let path) = value, case .attribute(let attribute) = path.end {
            return attribute.declaration.type
        }
        switch value.type {
        case .integer: return .integer64
        case .double: return .double
        case .decimal: return .decimal
        case .string: return .string
        case .boolean: return .boolean
        case .date: return .date
        case .binary: return .binary
        case .uuid: return .uuid
        case .uri: return .uri
        case .null, .object: return nil
        }
    }

    /// A computed value held to its destination attribute's rules, as a default or
    /// a batch update is: its type's range (integer16, integer32, float) and its
    /// `min`/`max` (the length of strings and binary data). Only the copy knows the
    /// values, so the copy refuses one outside, naming its row (`mm_within`, on the
    /// value already computed: no second pass over the table), or, with
    /// `onFailure: nil`, makes it nil as it does a string that is not a number.
    func within(
        _ value: String, _ attribute: AttributeDescription, label: String, nilOnFailure: Bool,
        arguments: inout [DatabaseValue]
    ) -> String {
        let byLength = attribute.type == .string || attribute.type == .uri || attribute.type == .binary
        func bound(_ limit: AttributeValue?) -> DatabaseValue? {
            switch limit {
            case .integer(let n)?: .integer(n)
            case .double(let n)?, .date(let n)?: n.isFinite ? .real(n) : nil
            case .decimal(let text)?: Double(text).map { .real($0) }
            default: nil
            }
        }
        var low = bound(attribute.minimum), high = bound(attribute.maximum)
        var limits = [
            attribute.minimum.map { "min \($0.displayText)" }, attribute.maximum.map { "max \($0.displayText)" },
        ].compactMap { $0 }
        if low == nil || high == nil {
            // The type's own range, where min and max leave a side open.
            var range: (DatabaseValue, DatabaseValue)?
            if let r = attribute.type.integerRange, attribute.type != .integer64 {
                range = (.integer(r.lowerBound), .integer(r.upperBound))
            }
            if attribute.type == .float {
                range = (.real(-Double(Float.greatestFiniteMagnitude)), .real(Double(Float.greatestFiniteMagnitude)))
            }
            if let range {
                low = low ?? range.0
                high = high ?? range.1
                let shown = attribute.type.integerRange.map { " (\($0.lowerBound)...\($0.upperBound))" } ?? ""
                limits.insert("\(attribute.type.rawValue)\(shown)", at: 0)
            }
        }
        guard low != nil || high != nil else { return value }
        let shownLimits = limits.joined(separator: ", ") + (byLength && attribute.type != .binary ? " (length)" : "")
        arguments += [low ?? .null, high ?? .null, .text(label), .text(shownLimits)]
        let flags = (byLength ? 1 : 0) | (nilOnFailure ? 2 : 0) | (byLength && attribute.type == .binary ? 4 : 0)
        return "mm_within(\(value), ?, ?, \(flags), s.Z_PK, ?, ?)"
    }

    /// `?`, with `value` appended to `arguments`.
    static func bound(_ value: DatabaseValue, _ arguments: inout [DatabaseValue]) -> String {
        arguments.append(value)
        return "?"
    }

    /// `value` through `mm_integer`: a REAL outside Int64 fails the row (or is nil
    /// with `onFailure: nil`), naming the attribute's type range.
    static func integral(
        _ value: String, _ attribute: AttributeDescription, label: String, nilOnFailure: Bool,
        arguments: inout [DatabaseValue]
    ) -> String {
        let range = attribute.type.integerRange ?? Int64.min...Int64.max
        arguments += [.text(label), .text("\(attribute.type.rawValue) (\(range.lowerBound)...\(range.upperBound))")]
        return "mm_integer(\(value), s.Z_PK, ?, ?, \(nilOnFailure ? 2 : 0))"
    }

    /// `SELECT … AS k1, … AS k2` of every pair (k1 the relationship's owner's key,
    /// k2 its destination's; swapped when `reversed`).
    func pairSelect(_ source: PairSource, reversed: Bool) -> String {
        var (a, b, from): (String, String, String)
        switch source {
        case .path(let select, _):
            return reversed ? "SELECT p.k2 AS k1, p.k1 AS k2 FROM (\(select)) AS p" : select
        case .column(let table, let column, let numbers):
            (a, b, from) = (
                "Z_PK", SQLText.q(column),
                "\(SQLText.q(table)) WHERE \(SQLText.q(column)) IS NOT NULL AND Z_ENT IN (\(SQLText.list(numbers)))"
            )
        case .reverseColumn(let table, let column, _):
            (a, b, from) = (SQLText.q(column), "Z_PK", "\(SQLText.q(table)) WHERE \(SQLText.q(column)) IS NOT NULL")
        case .join(let table, let mine, let theirs, _):
            (a, b, from) = (SQLText.q(mine), SQLText.q(theirs), SQLText.q(table))
        }
        if reversed { swap(&a, &b) }
        return "SELECT \(a) AS k1, \(b) AS k2 FROM \(from)"
    }

    /// The position of the pair (`owner`, `destination`) in ordered relationship
    /// `entity.name`: from where the store keeps its order, or, newly ordered, the
    /// destination's key (positions follow primary keys).
    func orderValue(_ entity: String, _ name: String, owner: String, destination destinationKey: String) -> String {
        guard let ownerEntity = destination.entity(named: entity),
            let relationship = ownerEntity.relationship(named: name)
        else {
            return destinationKey
        }
        return orderValue(pairs(for: ownerEntity, relationship), owner: owner, destination: destinationKey)
    }

    /// The position of the pair (`owner`, `destination`) read from `found`.
    func orderValue(_ found: FoundPairs?, owner: String, destination destinationKey: String) -> String {
        guard let found, !found.reversed else { return destinationKey }
        switch found.source {
        case .join(let table, let mine, let theirs, let order?):
            return """
                (SELECT j.\(SQLText.q(order)) FROM \(SQLText.q(table)) AS j \
                WHERE j.\(SQLText.q(mine)) = \(owner) AND j.\(SQLText.q(theirs)) = \(destinationKey))
                """
        case .reverseColumn(let table, let column, let order?):
            return
                """
                (SELECT r.\(SQLText.q(order)) FROM \(SQLText.q(table)) AS r WHERE r.Z_PK = \(destinationKey) AND \
                r.\(SQLText.q(column)) = \(owner))
                """
        default:
            return destinationKey
        }
    }

    mutating func buildJoin(_ table: Table, as buildName: String, parts: [JoinPart]) throws {
        var renamed = table
        renamed.name = buildName
        var sql = [SchemaSQL.createTable(renamed)]
        var cost = StepCost.constant
        if !parts.isEmpty {
            // Columns: the keys of the table's relationship's owner (k1) and
            // destination (k2), then the order of each ordered side, each read from
            // where the store keeps that side's order: the part's own pairs for the
            // table's relationship, its inverse's pairs for the other side.
            var targets = [SQLText.q(table.columns[0].name), SQLText.q(table.columns[1].name)]
            var selects: [String] = []
            for part in parts {
                var values = ["p.k1", "p.k2"]
                for column in table.columns.dropFirst(2) {
                    guard case .order(let entity, let name) = column.role else { continue }
                    if selects.isEmpty { targets.append(SQLText.q(column.name)) }
                    values.append(
                        "\(entity).\(name)" == table.joinRelationship
                            ? orderValue(part.found, owner: "p.k1", destination: "p.k2")
                            : orderValue(entity, name, owner: "p.k2", destination: "p.k1"))
                }
                selects.append("SELECT \(values.joined(separator: ", ")) FROM (\(partSelect(part))) AS p")
            }
            sql.append(
                """
                INSERT OR IGNORE INTO \(SQLText.q(buildName)) (\(targets.joined(separator: ", "))) \
                \(selects.joined(separator: " UNION ALL "))
                """)
            cost = .rewrite(
                rows: try Set(parts.map { Self.storageTable($0.found.source) }).reduce(0) { $0 + (try count($1, nil)) })
        }
        let statements = sql.map { SQLFragment($0) }
        guard let first = parts.first else {
            steps.append(
                .createTable(
                    MigrationStep.TableBuild(
                        summary: "create join table \(table.name)", table: table.name, buildTable: buildName,
                        statements: statements)))
            return
        }
        var summary = "fill join table \(table.name) from the old relationship storage"
        if case .path = first.found.source {
            summary = "fill join table \(table.name) through the mapping file's key path"
        }
        steps.append(
            .fillJoinTable(
                MigrationStep.TableCopy(
                    summary: summary,
                    table: table.name, buildTable: buildName, statements: statements, cost: cost)))
        addRebuildChecks(table)
    }
}
