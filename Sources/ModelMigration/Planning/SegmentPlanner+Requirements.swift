import DataModel
import Mapping
import SQLiteStore

/// Changes whose success the stored data decides, as checks on the hop's source
/// tables: the planner runs them on the store (none violated, the hop migrates;
/// some, exit 4 naming the objects and the remedies), and `apply` runs them again
/// right before the hop's steps.
///
/// - an optional attribute made required without a default: no stored nil;
/// - a new uniqueness constraint (or unique index): no value held twice;
/// - a tightened `min`/`max`: every stored value (or length) within it;
/// - a to-many made to-one: no object with several destinations.
extension SegmentPlanner {
    mutating func addRequirements() {
        let file = "Migrations/\(destination.model)/\(source.version)-to-\(destination.version).yaml"
        for requirement in mapping.requirements ?? [] {
            switch requirement.kind {
            case .noNil: addNoNil(requirement, file: file)
            case .noObjects: addNoObjects(requirement, file: file)
            }
        }
        // A further mapping's copies (a merge) must fit the ranges too: judged with its own
        // source's values, as its copy reads them.
        let own = mapping
        for further in own.furtherMappings where further.kind != .custom {
            guard let name = further.destination, let entity = destination.entity(named: name) else { continue }
            mapping = own.puttingFirst(further)
            if let sourceEntity = sourceEntity(for: name) {
                addRanges(of: entity, further, from: sourceEntity, file: file)
            }
        }
        mapping = own
        for entity in destination.entities {
            guard let entityMapping = mapping.mapping(forDestination: entity.name), entityMapping.kind != .custom,
                let sourceEntity = sourceEntity(for: entity.name)
            else { continue }
            addRanges(of: entity, entityMapping, from: sourceEntity, file: file)
            for relationship in entity.relationships {
                let source = entityMapping.property(relationship.name)?.source
                // An inherited relationship is judged with its parent's objects, unless
                // this entity reads it from a relationship of its own (moved up).
                if relationship.declaredIn != entity.name, let from = sourceName(entity.name, relationship.name),
                    readsAsDeclarer(entity, relationship.name, from: from, in: sourceEntity)
                {
                    continue
                }
                if !relationship.declaration.isToMany, case .convert(let from, .reshape)? = source,
                    sourceEntity.relationship(named: from)?.declaration.isToMany == true
                {
                    addSingleDestination(relationship, of: entity, from: from, in: sourceEntity, file: file)
                }
                // Carried pairs, reshaped or reordered included: the new rules judge them.
                switch source {
                case .copy(let from)?, .convert(let from, .reshape)?, .convert(let from, .reorder)?:
                    addCounts(relationship, of: entity, from: from, in: sourceEntity, file: file)
                default: break
                }
            }
        }
        addMergedCounts(file: file)
        for index in destinationLayout.indexes where index.isUnique {
            addUnique(index, file: file)
        }
        for entity in destination.entities where entity.isAbstract {
            addNoOwnObjects(entity, file: file)
        }
    }

    /// Whether a subentity of `owner` reads `owner`'s attribute `property` from
    /// another source column than `owner`'s own mapping (none, when the property
    /// moved up to `owner`).
    func readBySubentities(_ owner: String, _ property: String) -> Bool {
        subtree(destination, owner).dropFirst().contains { name in
            guard let entity = destination.entity(named: name), let reader = sourceEntity(for: name),
                let from = sourceName(name, property)
            else { return false }
            return !readsAsDeclarer(entity, property, from: from, in: reader)
        }
    }

    /// Whether `entity`'s mapping reads the inherited property `name` from the
    /// source column its declaring entity's mapping reads it from: the declarer's
    /// checks, scoped to its subentities' rows too, then cover this entity's objects.
    /// A property moved up from a subentity is read from the subentity's own column.
    func readsAsDeclarer(_ entity: CompiledEntity, _ name: String, from: String, in reader: CompiledEntity) -> Bool {
        guard let declarer = entity.attribute(named: name)?.declaredIn ?? entity.relationship(named: name)?.declaredIn,
            let declarerSource = sourceEntity(for: declarer), let declarerFrom = sourceName(declarer, name),
            reader.root == declarerSource.root
        else { return false }
        if entity.relationship(named: name) != nil {
            guard let pairs = pairSource(reader, from), let declared = pairSource(declarerSource, declarerFrom) else {
                return false
            }
            // The same storage: a to-one's column is read for the subentity's rows alone.
            if case .column(let table, let column, _) = pairs, case .column(table, column, _) = declared { return true }
            return pairs == declared
        }
        guard let column = sourceColumn(reader, from), let declarerColumn = sourceColumn(declarerSource, declarerFrom)
        else { return false }
        return column.name == declarerColumn.name
    }

    /// An entity made abstract can have no objects of its own (Core Data's
    /// `NSEntityDescription.isAbstract`: "you cannot create instances"; its
    /// lightweight migration fails on a store holding some): stored objects of the
    /// entity itself, not of its subentities, refuse the hop.
    mutating func addNoOwnObjects(_ entity: CompiledEntity, file: String) {
        guard let entityMapping = mapping.mapping(forDestination: entity.name), entityMapping.kind != .custom,
            let sourceEntity = sourceEntity(for: entity.name), !sourceEntity.isAbstract,
            let number = sourceLayout.entityNumbers[sourceEntity.name],
            let table = sourceLayout.table(forEntity: sourceEntity.root)
        else { return }
        // Only the objects its `filter:` keeps would be made (fuzzer seed 1001 trial
        // 179: a filtered mapping into an abstract entity made instances of it).
        let filter = "Z_ENT = \(number)" + keptScope(entity.name, in: table.name)
        let why =
            sourceEntity.name == entity.name
            ? "becomes abstract (it can have no objects of its own), and the store holds \(sourceEntity.name) objects"
            : """
            is abstract (it can have no objects of its own), and its mapping makes them from stored \
            \(sourceEntity.name) objects
            """
        let concrete = destination.entities.filter {
            !$0.isAbstract && $0.name != entity.name && subtree(destination, entity.name).contains($0.name)
        }
        let target = concrete.first?.name ?? "a concrete subentity"
        requirements.append(
            MigrationCheck(
                summary: "\(entity.name) \(why)",
                sql: "SELECT count(*) FROM \(SQLText.q(table.name)) WHERE \(filter)",
                rowsSQL: "SELECT 'Z_PK ' || Z_PK FROM \(SQLText.q(table.name)) WHERE \(filter) ORDER BY Z_PK LIMIT 5",
                remedy: """
                    keep \(entity.name) concrete, delete those objects first, or write \(file) moving them to \
                    \(target): `\(entity.name): { filter: "FALSEPREDICATE" }` (they leave \(entity.name)) and \
                    `\(target): { source: \(sourceEntity.name) }` (they become \(target) objects; \(target)'s own \
                    stored objects would then be dropped, which the plan warns of)
                    """))
    }

    /// A new required to-one relationship: stored objects of the entity would have no
    /// destination (Core Data's validation refuses them, error 1570); with none, the
    /// hop migrates. The entity's own objects only: each subentity's mapping fills
    /// the inherited property for its objects (from a property of its own when the
    /// relationship moved up) or has a requirement of its own.
    mutating func addNoObjects(_ requirement: DataRequirement, file: String) {
        guard let entityMapping = mapping.mapping(forDestination: requirement.entity), entityMapping.kind != .custom,
            case .defaultValue(nil)? = entityMapping.property(requirement.property)?.source,
            let sourceEntity = source.entity(named: requirement.sourceEntity),
            let number = sourceLayout.entityNumbers[sourceEntity.name],
            let table = sourceLayout.table(forEntity: sourceEntity.root)
        else { return }
        let filter = "Z_ENT = \(number)\(keptScope(requirement.entity, in: table.name))"
        let attribute = destination.entity(named: requirement.entity)?.attribute(named: requirement.property)?
            .declaration
        let what =
            attribute == nil
            ? """
            is a new required to-one relationship, and stored \(requirement.sourceEntity) objects would have no \
            destination
            """
            : """
            is a new required attribute without a default, and stored \(requirement.sourceEntity) objects would have \
            no value
            """
        let defaultHint =
            attribute.map { "add a default (`\(requirement.property): { type: \($0.type.rawValue), default: … }`), " }
            ?? ""
        requirements.append(
            MigrationCheck(
                summary: "\(requirement.entity).\(requirement.property) \(what)",
                sql: "SELECT count(*) FROM \(SQLText.q(table.name)) WHERE \(filter)",
                rowsSQL: "SELECT 'Z_PK ' || Z_PK FROM \(SQLText.q(table.name)) WHERE \(filter) ORDER BY Z_PK LIMIT 5",
                remedy: """
                    \(defaultHint)make it optional in this version (and required in a later one once filled), \
                    or write \(file) with a policy that sets it
                    """))
    }

    /// When the entity mapping making `entity` has a `filter:`, a condition on the
    /// source rows keeping only those it migrates:
    /// objects the filter leaves out are not validated (Core Data validates the
    /// destination objects it made), so no requirement counts them. `key` is the
    /// column holding the source row's key. Empty without a filter.
    func keptScope(_ entity: String, in table: String, key: String = "Z_PK") -> String {
        guard let entityMapping = mapping.mapping(forDestination: entity), let filter = entityMapping.filter,
            let sourceName = entityMapping.source, let sourceEntity = source.entity(named: sourceName),
            let kept = try? filterCondition(filter, of: sourceEntity, alias: "mm_f")
        else { return "" }
        return " AND \(key) IN (SELECT mm_f.Z_PK FROM \(SQLText.q(table)) AS mm_f WHERE coalesce((\(kept.inlined)), 0))"
    }

    /// The source rows of `sourceEntity` (with its subentities) that the hop migrates
    /// into `entity` (with its subentities), as a condition: each subentity through
    /// its own entity mapping, with that mapping's `filter:` (a filter on a parent
    /// does not hold for its subentities' objects, which have mappings of their own).
    /// `prefix` qualifies the columns (`t.`).
    func migratedScope(_ entity: String, from sourceEntity: CompiledEntity, in table: String, prefix: String = "")
        -> String
    {
        let sources = Set(subtree(source, sourceEntity.name))
        var parts: [String] = []
        for name in subtree(destination, entity) {
            guard let entityMapping = mapping.mapping(forDestination: name), let from = entityMapping.source,
                sources.contains(from),
                let number = sourceLayout.entityNumbers[from]
            else { continue }
            parts.append("(\(prefix)Z_ENT = \(number)\(keptScope(name, in: table, key: "\(prefix)Z_PK")))")
        }
        guard !parts.isEmpty else { return "\(prefix)Z_ENT IN (\(SQLText.list(sourceScope(sourceEntity))))" }
        return "(" + parts.joined(separator: " OR ") + ")"
    }

    /// The rows ``migratedScope(_:from:in:prefix:)`` gives, less those of
    /// subentities whose own mappings do not read `property` from `column` (a
    /// mapping file's constant or expression, or a column of their own, replaces
    /// it): a rule on the copied values judges only the objects that receive them.
    func readingScope(
        _ entity: String, _ property: String, column: String, from sourceEntity: CompiledEntity, in table: String
    ) -> String {
        let sources = Set(subtree(source, sourceEntity.name))
        var parts: [String] = []
        for name in subtree(destination, entity) {
            guard let entityMapping = mapping.mapping(forDestination: name), let from = entityMapping.source,
                sources.contains(from),
                let number = sourceLayout.entityNumbers[from], let reader = source.entity(named: from)
            else { continue }
            if name != entity {
                switch entityMapping.property(property)?.source {
                case .copy(let read)?, .convert(let read, _)?:
                    guard sourceColumn(reader, read)?.name == column else { continue }
                default:
                    continue
                }
            }
            parts.append("(Z_ENT = \(number)\(keptScope(name, in: table, key: "Z_PK")))")
        }
        guard !parts.isEmpty else { return migratedScope(entity, from: sourceEntity, in: table) }
        return "(" + parts.joined(separator: " OR ") + ")"
    }

    /// A source column's value as the hop's copy writes it: nils a fill gives the
    /// default (`.fillDefault`, or widened into a required attribute with a default)
    /// are compared as the default.
    func copiedValue(_ source: PropertySource?, into attribute: AttributeDescription?, from column: String) -> (
        sql: String, filled: Bool
    ) {
        let fills: Bool =
            switch source {
            case .convert(_, .fillDefault)?: true
            case .convert(_, .widen)?: attribute.map { !$0.isOptional && $0.defaultValue != nil } ?? false
            default: false
            }
        guard fills, let attribute else { return (SQLText.q(column), false) }
        return ("coalesce(\(SQLText.q(column)), \(SQLText.literal(attribute.defaultValue, as: attribute.type)))", true)
    }

    /// The rows each owner's entity mappings migrate (their filters, their
    /// subentities'), as ` AND (…)`.
    func keptCondition(_ owners: Set<String>, in table: String) -> String {
        let scopes = owners.sorted().compactMap { owner in
            sourceEntity(for: owner).map { migratedScope(owner, from: $0, in: table) }
        }
        return " AND (" + scopes.joined(separator: " OR ") + ")"
    }

    /// Source rows of `entity` and its subentities that map to destination rows.
    func sourceScope(_ sourceEntity: CompiledEntity) -> [Int] {
        numbers(sourceLayout, subtree(source, sourceEntity.name))
    }

    mutating func addNoNil(_ requirement: DataRequirement, file: String) {
        guard let entityMapping = mapping.mapping(forDestination: requirement.entity), entityMapping.kind != .custom,
            let sourceEntity = source.entity(named: requirement.sourceEntity),
            let column = sourceColumn(sourceEntity, requirement.sourceProperty),
            let table = sourceLayout.table(forEntity: sourceEntity.root)
        else { return }
        switch entityMapping.property(requirement.property)?.source {
        case .copy(let from)? where from == requirement.sourceProperty: break
        case .convert(let from, .widen)? where from == requirement.sourceProperty: break
        default: return  // a mapping file sets it some other way
        }
        let filter =
            readingScope(
                requirement.entity, requirement.property, column: column.name, from: sourceEntity, in: table.name)
            + " AND \(SQLText.q(column.name)) IS NULL"
        requirements.append(
            MigrationCheck(
                summary: """
                    \(requirement.entity).\(requirement.property) becomes required without a default, \
                    and stored \(requirement.sourceEntity) objects hold nil
                    """,
                sql: "SELECT count(*) FROM \(SQLText.q(table.name)) WHERE \(filter)",
                rowsSQL: "SELECT 'Z_PK ' || Z_PK FROM \(SQLText.q(table.name)) WHERE \(filter) ORDER BY Z_PK LIMIT 5",
                remedy: """
                    add a default (`\(requirement.property): { …, default: … }`) so that nil values take it, set the \
                    values first, or write \(file) with a policy for \(requirement.entity)
                    """))
    }

    mutating func addRange(
        _ attribute: CompiledAttribute, of entity: CompiledEntity, from: String, in sourceEntity: CompiledEntity,
        file: String
    ) {
        let new = attribute.declaration
        guard new.minimum != nil || new.maximum != nil, let old = sourceEntity.attribute(named: from)?.declaration,
            old.minimum != new.minimum || old.maximum != new.maximum,
            let column = sourceColumn(sourceEntity, from), let table = sourceLayout.table(forEntity: sourceEntity.root)
        else { return }
        func number(_ value: AttributeValue?) -> String? {
            switch value {
            case .integer(let n)?: String(n)
            case .double(let n)?, .date(let n)?: n.isFinite ? String(n) : nil
            case .decimal(let text)?: Double(text).map { String($0) }
            default: nil
            }
        }
        let measured: String
        switch new.type {
        // UTF-16 units, as `AttributeDescription.limitLength` counts (SQLite's `length` counts code points).
        case .string, .uri: measured = "mm_utf16_length(\(SQLText.q(column.name)))"
        case .binary: measured = "length(CAST(\(SQLText.q(column.name)) AS BLOB))"
        case .integer16, .integer32, .integer64, .double, .float, .date, .decimal:
            measured = "CAST(\(SQLText.q(column.name)) AS REAL)"
        default: return
        }
        var bounds: [String] = []
        if let lower = number(new.minimum) { bounds.append("\(measured) < \(lower)") }
        if let upper = number(new.maximum) { bounds.append("\(measured) > \(upper)") }
        guard !bounds.isEmpty else { return }
        let filter =
            readingScope(entity.name, attribute.name, column: column.name, from: sourceEntity, in: table.name)
            + " AND \(SQLText.q(column.name)) IS NOT NULL AND (\(bounds.joined(separator: " OR ")))"
        let limits = [new.minimum.map { "min \($0.displayText)" }, new.maximum.map { "max \($0.displayText)" }]
            .compactMap { $0 }.joined(separator: ", ")
        requirements.append(
            MigrationCheck(
                summary: """
                    \(entity.name).\(attribute.name) gets \
                    \(limits)\(new.type == .string || new.type == .uri || new.type == .binary ? " (length)" : ""), and \
                    stored values are outside it
                    """,
                sql: "SELECT count(*) FROM \(SQLText.q(table.name)) WHERE \(filter)",
                rowsSQL:
                    """
                    SELECT 'Z_PK ' || Z_PK || ': ' || \(SQLText.shownValue(SQLText.q(column.name))) \
                    FROM \(SQLText.q(table.name)) WHERE \(filter) ORDER BY Z_PK LIMIT 5
                    """,
                remedy:
                    "correct those values first, loosen the limit, or write \(file) with a policy for \(entity.name)"))
    }

    mutating func addSingleDestination(
        _ relationship: CompiledRelationship, of entity: CompiledEntity, from: String,
        in sourceEntity: CompiledEntity, file: String
    ) {
        guard let pairs = pairSource(sourceEntity, from) else { return }
        // Only the members and owners the hop migrates count: a `filter:` (of the
        // entity or of a subentity) leaves the others out, and Core Data validates
        // what it made.
        let kept = filteredMembers(of: relationship, carried: sourceEntity.relationship(named: from))
        func migrated(_ key: String) -> String {
            kept.map { " AND \(key) IN (SELECT d.Z_PK FROM \(SQLText.q($0.table)) AS d WHERE \($0.condition))" } ?? ""
        }
        var owners: String
        switch pairs {
        case .join(let table, let mine, let theirs, _):
            owners = """
                SELECT \(SQLText.q(mine)) AS owner, count(*) AS n FROM \(SQLText.q(table)) AS j WHERE \
                1\(migrated("j.\(SQLText.q(theirs))")) GROUP BY \(SQLText.q(mine)) HAVING count(*) > 1
                """
        case .reverseColumn(let table, let column, _):
            owners = """
                SELECT \(SQLText.q(column)) AS owner, count(*) AS n FROM \(SQLText.q(table)) AS m WHERE \
                \(SQLText.q(column)) IS NOT NULL\(migrated("m.Z_PK")) GROUP BY \(SQLText.q(column)) HAVING count(*) > 1
                """
        case .column, .path:
            return
        }
        if let table = sourceLayout.table(forEntity: sourceEntity.root) {
            let scope = migratedScope(entity.name, from: sourceEntity, in: table.name, prefix: "o.")
            owners =
                """
                SELECT * FROM (\(owners)) WHERE owner IN (SELECT o.Z_PK FROM \(SQLText.q(table.name)) AS o WHERE \
                \(scope))
                """
        }
        requirements.append(
            MigrationCheck(
                summary:
                    """
                    \(entity.name).\(relationship.name) becomes to-one, and stored \(sourceEntity.name) objects have \
                    several destinations
                    """,
                sql: "SELECT count(*) FROM (\(owners))",
                rowsSQL:
                    "SELECT 'Z_PK ' || owner || ': ' || n || ' destinations' FROM (\(owners)) ORDER BY owner LIMIT 5",
                remedy: """
                    keep it to-many, reduce those objects to one destination first, \
                    or write \(file) with a policy for \(entity.name) that chooses the one to keep
                    """))
    }

    /// Copied, widened or nil filled with the default: the stored values must fit a new
    /// min/max (a default fills only nils).
    mutating func addRanges(
        of entity: CompiledEntity, _ entityMapping: EntityMapping, from sourceEntity: CompiledEntity, file: String
    ) {
        for attribute in entity.attributes {
            switch entityMapping.property(attribute.name)?.source {
            case .copy(let from)?, .convert(let from, .widen)?, .convert(let from, .fillDefault)?:
                // An inherited attribute is checked with its parent's objects,
                // unless this entity reads it from a column of its own (moved up).
                if attribute.declaredIn != entity.name,
                    readsAsDeclarer(entity, attribute.name, from: from, in: sourceEntity)
                {
                    continue
                }
                addRange(attribute, of: entity, from: from, in: sourceEntity, file: file)
            default: continue
            }
        }
    }

    /// A relationship whose pairs are carried (copied, reshaped or reordered) and
    /// whose rules tighten (a to-one made required, a to-many given a larger
    /// `minCount`, a smaller `maxCount`): stored objects that break them refuse the
    /// hop, as Core Data's validation stage refuses them. A change of shape (a to-one
    /// made to-many, a one-to-many made many-to-many) leaves no old limit to compare
    /// with: every rule of the new relationship is checked.
    mutating func addCounts(
        _ relationship: CompiledRelationship, of entity: CompiledEntity, from: String, in sourceEntity: CompiledEntity,
        file: String
    ) {
        guard let carried = sourceEntity.relationship(named: from),
            let table = sourceLayout.table(forEntity: sourceEntity.root),
            let pairs = pairSource(sourceEntity, from)
        else { return }
        let new = relationship.declaration
        let sameShape =
            carried.declaration.isToMany == new.isToMany && carried.isManyToMany == relationship.isManyToMany
        var old = carried.declaration
        if !sameShape { (old.isOptional, old.minCount, old.maxCount) = (true, nil, nil) }
        let count: String
        // Only members the hop migrates count: a `filter:` on the destination's
        // mapping leaves the others out, and Core Data validates what it made.
        let kept = filteredMembers(of: relationship, carried: carried)
        switch pairs {
        case .column(_, let column, _):
            let member =
                kept.map {
                    """
                     AND t.\(SQLText.q(column)) IN (SELECT d.Z_PK FROM \(SQLText.q($0.table)) AS d WHERE \
                    \($0.condition))
                    """
                } ?? ""
            count = "(t.\(SQLText.q(column)) IS NOT NULL\(member))"
        case .reverseColumn(let other, let column, _):
            let member = kept.map { " AND \($0.condition)" } ?? ""
            count = "(SELECT count(*) FROM \(SQLText.q(other)) AS d WHERE d.\(SQLText.q(column)) = t.Z_PK\(member))"
        case .join(let join, let mine, let theirs, _):
            let member =
                kept.map {
                    """
                     AND j.\(SQLText.q(theirs)) IN (SELECT d.Z_PK FROM \(SQLText.q($0.table)) AS d WHERE \
                    \($0.condition))
                    """
                } ?? ""
            count = "(SELECT count(*) FROM \(SQLText.q(join)) AS j WHERE j.\(SQLText.q(mine)) = t.Z_PK\(member))"
        case .path: return
        }
        var rules: [(condition: String, what: String)] = []
        if !new.isToMany, !new.isOptional, old.isOptional {
            rules.append(("\(count) = 0", "becomes required, and stored objects have none"))
        }
        // Objects merged into the destination (further mappings) join through their own
        // relationships, which these counts do not see: a minimum is then proved after the
        // copy (`memberCountChecks`), never refused on a count that misses them.
        let mergedInto = subtree(destination, new.destination).contains {
            mapping.mappings(forDestination: $0).count > 1
        }
        if new.isToMany, let minimum = new.minCount, minimum > (old.minCount ?? 0), !mergedInto {
            // Counts bind only a non-empty set, or a required one (Docs/Objects.md).
            let empty = new.isOptional ? " AND \(count) > 0" : ""
            rules.append(
                ("\(count) < \(minimum)\(empty)", "needs at least \(minimum) objects, and stored objects have fewer"))
        }
        if new.isToMany, let maximum = new.maxCount, maximum > 0,
            maximum < (old.maxCount.flatMap { $0 > 0 ? $0 : nil } ?? .max)
        {
            rules.append(("\(count) > \(maximum)", "allows at most \(maximum) objects, and stored objects have more"))
        }
        let scope = migratedScope(entity.name, from: sourceEntity, in: table.name, prefix: "t.")
        for rule in rules {
            let filter = "\(scope) AND \(rule.condition)"
            requirements.append(
                MigrationCheck(
                    summary: "\(entity.name).\(relationship.name) \(rule.what)",
                    sql: "SELECT count(*) FROM \(SQLText.q(table.name)) AS t WHERE \(filter)",
                    rowsSQL:
                        """
                        SELECT 'Z_PK ' || t.Z_PK FROM \(SQLText.q(table.name)) AS t WHERE \(filter) ORDER BY t.Z_PK \
                        LIMIT 5
                        """,
                    remedy:
                        """
                        keep the old rule in this version, correct those objects first, or write \(file) with a policy \
                        for \(entity.name)
                        """
                ))
        }
    }

    /// When a `filter:` leaves out some objects of a relationship's destination (its
    /// entity or a subentity), the source rows the hop migrates there, as a condition
    /// on `d.` over the destination's source table; nil when every object goes on.
    /// A destination narrowed to a subentity (`carried`'s destination was its
    /// ancestor) leaves out the members of the other entities the same way.
    func filteredMembers(of relationship: CompiledRelationship, carried: CompiledRelationship? = nil) -> (
        table: String, condition: String
    )? {
        let name = relationship.declaration.destination
        guard let old = sourceEntity(for: name), let table = sourceLayout.table(forEntity: old.root) else { return nil }
        let narrowed =
            carried.map {
                $0.declaration.destination != old.name && subtree(source, $0.declaration.destination).contains(old.name)
            } ?? false
        // Subentities of the old destination whose objects go elsewhere (out of the
        // hierarchy, or nowhere) leave the relationship too.
        let into = Set(subtree(destination, name).compactMap { mapping.mapping(forDestination: $0)?.source })
        let leaving = subtree(source, old.name).contains { !into.contains($0) }
        guard
            narrowed || leaving
                || subtree(destination, name).contains(where: { mapping.mapping(forDestination: $0)?.filter != nil })
        else { return nil }
        return (table.name, migratedScope(name, from: old, in: table.name, prefix: "d."))
    }
}
