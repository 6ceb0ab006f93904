public import DataModel
import Foundation
public import Mapping
package import SQLiteStore

/// What a policy works with while it runs (Core Data's `NSMigrationManager`):
/// the current entity mapping, destination objects with the mapping's values
/// applied, source ↔ destination associations (kept in a temporary table, not in
/// memory), keyed lookups for deduplication, and progress.
public final class MigrationManager {
    /// The entity mapping being run.
    public let currentEntityMapping: EntityMapping
    /// The source version of the hop.
    public let sourceVersion: CompiledVersion
    /// The destination version of the hop.
    public let destinationVersion: CompiledVersion
    /// Source objects handled so far.
    public package(set) var progress: (done: Int64, total: Int64) = (0, 0)

    let connection: Connection
    let reader: SourceReader
    let destinationLayout: StorageLayout
    let buildTables: [String: String]
    /// Every entity mapping of the hop (lookups reach across mappings).
    let hopMappings: [EntityMapping]
    /// The source key being handled, for error messages.
    package var currentSourceKey: Int64?
    private var nextKeys: [String: Int64] = [:]
    /// Per destination entity: its shape (stored attributes in column order), their
    /// types, and the INSERT, built once. A class, and per attribute only what
    /// writing a value needs: copying attribute descriptions (names, defaults,
    /// limits) for every value of every row was a large share of a policy's time.
    private final class EntityPlan {
        let shape: ObjectShape
        let attributes: [AttributeDescription]
        /// Each attribute's type, and whether binary data may live outside the row.
        let types: [AttributeType]
        let external: [Bool]
        let toOne: [String]
        let number: Int64
        var insert: Statement?

        init(shape: ObjectShape, attributes: [AttributeDescription], toOne: [String], number: Int64) {
            self.shape = shape
            self.attributes = attributes
            types = attributes.map(\.type)
            external = attributes.map { $0.allowsExternalStorage && $0.type == .binary }
            self.toOne = toOne
            self.number = number
        }
    }
    private var entityPlans: [String: EntityPlan] = [:]
    /// The values of the row being inserted, kept between rows for its capacity.
    private var valueBuffer: [DatabaseValue] = []
    /// The plan used last (most rows in a row go to one entity).
    private var lastPlan: (name: String, plan: EntityPlan)?
    /// How each destination value of the mapping's entity is filled from a source row.
    private enum Fill {
        case copy(Int), convert(Int, AttributeType, AttributeValue?), constant(AttributeValue?)
    }
    private var fills: (source: ObjectIdentifier, values: [(Int, Fill)], toOne: [(String, String)])?

    /// A manager for `mapping`, one of `hopMappings`, the entity mappings of a hop
    /// from `reader`'s version to `destination` (laid out as `destinationLayout`);
    /// `buildTables` names the tables the hop builds for each destination entity.
    package init(
        mapping: EntityMapping, hopMappings: [EntityMapping], destination: CompiledVersion,
        destinationLayout: StorageLayout, connection: Connection, buildTables: [String: String], reader: SourceReader
    ) throws {
        currentEntityMapping = mapping
        sourceVersion = reader.version
        destinationVersion = destination
        self.connection = connection
        self.reader = reader
        self.hopMappings = hopMappings
        self.destinationLayout = destinationLayout
        self.buildTables = buildTables
        try connection.execute(
            """
            CREATE TEMP TABLE IF NOT EXISTS mm_associations (mapping TEXT NOT NULL, source INTEGER NOT NULL, \
            destination INTEGER NOT NULL, entity TEXT NOT NULL);
            CREATE INDEX IF NOT EXISTS temp.mm_associations_source ON mm_associations (mapping, source, destination);
            CREATE INDEX IF NOT EXISTS temp.mm_associations_destination ON mm_associations (mapping, destination, \
            entity, source);
            CREATE TEMP TABLE IF NOT EXISTS mm_keys (namespace TEXT NOT NULL, key TEXT NOT NULL, value INTEGER NOT \
            NULL, PRIMARY KEY (namespace, key));
            """)
    }

    // MARK: Creating destination objects

    /// A destination object for `source`, with every value the mapping provides
    /// (copied, converted or default) and the source's primary key, when `entity` is
    /// the mapping's destination; otherwise an empty object with a new key. An
    /// attribute whose type changed in a way inference refuses holds the source
    /// value converted where nothing is lost, else as it was, which `insert`
    /// refuses unless the policy sets another (Docs/Policies.md). Call `insert` to
    /// store it.
    public func createDestinationInstance(for source: SourceObject, entity: String? = nil) throws -> DestinationObject {
        let name = entity ?? currentEntityMapping.destination!
        if name != currentEntityMapping.destination {
            return try createDestinationInstance(entity: name)
        }
        let plan = try entityPlan(for: name)
        if fills?.source != ObjectIdentifier(source.shape) { fills = try resolveFills(plan, source.shape) }
        var storage = [AttributeValue?](repeating: nil, count: plan.attributes.count)
        for (i, fill) in fills!.values {
            switch fill {
            case .copy(let j): storage[i] = source.storage[j]
            case .convert(let j, let type, let fallback):
                storage[i] = source.storage[j].map { Self.convert($0, to: type) } ?? fallback
            case .constant(let value): storage[i] = value
            }
        }
        var toOne: [String: Int64?] = [:]
        for (property, from) in fills!.toOne { toOne[property] = .some(source.toOneKey(from)) }
        var object = DestinationObject(
            entity: name, primaryKey: source.primaryKey, shape: plan.shape, storage: storage, toOne: toOne)
        object.changeCounter = source.changeCounter
        return object
    }

    /// The mapping's property sources resolved against the two shapes, once per shape.
    private func resolveFills(_ plan: EntityPlan, _ sourceShape: ObjectShape) throws -> (
        ObjectIdentifier, [(Int, Fill)], [(String, String)]
    ) {
        guard let name = currentEntityMapping.destination, let compiled = destinationVersion.entity(named: name) else {
            throw PolicyError("the mapping \(currentEntityMapping.name) has no destination entity")
        }
        var values: [(Int, Fill)] = []
        var toOne: [(String, String)] = []
        for property in currentEntityMapping.properties {
            if property.isRelationship {
                guard let relationship = compiled.relationship(named: property.name), !relationship.declaration.isToMany
                else { continue }
                switch property.source {
                case .copy(let from), .convert(let from, _): toOne.append((property.name, from))
                default: break
                }
                continue
            }
            guard let attribute = compiled.attribute(named: property.name)?.declaration,
                let i = plan.shape.index[property.name]
            else { continue }
            switch property.source {
            case .copy(let from):
                if let j = sourceShape.index[from] { values.append((i, .copy(j))) }
            case .convert(let from, let conversion):
                let fallback = conversion == .fillDefault || !attribute.isOptional ? attribute.defaultValue : nil
                if let j = sourceShape.index[from] {
                    values.append((i, .convert(j, attribute.type, fallback)))
                } else {
                    values.append((i, .constant(fallback)))
                }
            case .defaultValue(let value): values.append((i, .constant(value)))
            case .policy:
                // A type change inference refused (narrowing, unrelated): Core Data's
                // default instance applies `$source.x`, so the value is carried,
                // converted where it fits; one that does not fit fails at insert.
                if let j = typeChangedSource(of: attribute, in: sourceShape) {
                    values.append((i, .convert(j, attribute.type, attribute.isOptional ? nil : attribute.defaultValue)))
                } else {
                    values.append((i, .constant(attribute.defaultValue)))
                }
            // Mapping files refuse expressions on entities a policy makes.
            case .expression: values.append((i, .constant(attribute.defaultValue)))
            }
        }
        return (ObjectIdentifier(sourceShape), values, toOne)
    }

    /// The position in `sourceShape` of the source attribute a destination attribute
    /// left to the policy comes from (its `renamedFrom`, else its own name), when
    /// that attribute's type differs: the value the default instance carries.
    private func typeChangedSource(of attribute: AttributeDescription, in sourceShape: ObjectShape) -> Int? {
        guard let sourceName = currentEntityMapping.source, let sourceEntity = sourceVersion.entity(named: sourceName)
        else { return nil }
        let from =
            attribute.renamedFrom.flatMap { sourceEntity.attribute(named: $0) }
            ?? sourceEntity.attribute(named: attribute.name)
        guard let from, from.declaration.type != attribute.type, !from.declaration.isTransient else { return nil }
        return sourceShape.index[from.name]
    }

    private func entityPlan(for name: String) throws -> EntityPlan {
        if let last = lastPlan, last.name == name { return last.plan }
        if let known = entityPlans[name] {
            lastPlan = (name, known)
            return known
        }
        guard let entity = destinationVersion.entity(named: name), let number = destinationLayout.entityNumbers[name],
            let table = destinationLayout.table(forEntity: entity.root)
        else {
            throw PolicyError("no entity '\(name)' in version \(destinationVersion.version)")
        }
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        var names: [String] = [], attributes: [AttributeDescription] = [], toOne: [String] = []
        for attribute in entity.attributes where !attribute.declaration.isTransient {
            guard let column = table.column(for: .attribute(entity: attribute.declaredIn, property: attribute.name))
            else { continue }
            columns.append(column.name)
            names.append(attribute.name)
            attributes.append(attribute.declaration)
        }
        for relationship in entity.relationships
        where !relationship.declaration.isToMany && !relationship.declaration.isTransient {
            guard
                let column = table.column(for: .toOne(entity: relationship.declaredIn, relationship: relationship.name))
            else { continue }
            columns.append(column.name)
            toOne.append(relationship.name)
        }
        let plan = EntityPlan(
            shape: ObjectShape(names: names, toOneNames: toOne), attributes: attributes, toOne: toOne,
            number: Int64(number))
        if let physical = try? physicalTable(for: entity) {
            plan.insert = try connection.prepare(
                """
                INSERT INTO \(SQLText.q(physical)) (\(columns.map(SQLText.q).joined(separator: ", "))) \
                VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))
                """)
        }
        entityPlans[name] = plan
        return plan
    }

    /// An empty destination object of `entity` with a new primary key.
    public func createDestinationInstance(entity name: String) throws -> DestinationObject {
        guard let compiled = destinationVersion.entity(named: name) else {
            throw PolicyError("no entity '\(name)' in version \(destinationVersion.version)")
        }
        let table = try physicalTable(for: compiled)
        if nextKeys[table] == nil {
            // Above the keys already written and above every source key still to come
            // (the root's Z_MAX is the source's until the hop ends).
            let written = try connection.scalarInt64("SELECT max(Z_PK) FROM \(SQLText.q(table))") ?? 0
            let root = destinationLayout.entityNumbers[compiled.root].map(Int64.init) ?? -1
            let reserved =
                try connection.scalarInt64("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", .integer(root)) ?? 0
            var sourceMax: Int64 = 0
            if let sourceName = currentEntityMapping.source, let sourceEntity = sourceVersion.entity(named: sourceName),
                destinationLayout.table(
                    forEntity: destinationVersion.entity(named: currentEntityMapping.destination ?? "")?.root ?? "")?
                    .name
                    == destinationLayout.table(forEntity: compiled.root)?.name,
                let sourceTable = reader.layout.table(forEntity: sourceEntity.root)
            {
                sourceMax = try connection.scalarInt64("SELECT max(Z_PK) FROM \(SQLText.q(sourceTable.name))") ?? 0
            }
            nextKeys[table] = max(written, reserved, sourceMax)
        }
        // Keys only grow: a new object never takes a key already in the table.
        let (key, overflow) = nextKeys[table]!.addingReportingOverflow(1)
        guard !overflow else {
            throw PolicyError(
                """
                \(name): no primary key left in \(table): the highest key in use is \(nextKeys[table]!), the largest \
                SQLite can store
                """
            )
        }
        nextKeys[table] = key
        let plan = try entityPlan(for: name)
        let defaults = plan.shape.names.map { compiled.attribute(named: $0)?.declaration.defaultValue }
        return DestinationObject(entity: name, primaryKey: key, shape: plan.shape, storage: defaults)
    }

    /// The table a destination entity's rows go to during this hop; only tables
    /// created or rebuilt by the hop take new rows.
    package func physicalTable(for entity: CompiledEntity) throws -> String {
        guard let table = destinationLayout.table(forEntity: entity.root), let name = buildTables[table.name] else {
            throw PolicyError(
                """
                a policy can create objects of entities whose table this hop creates or rebuilds; \(entity.name)'s \
                table is not one of them
                """
            )
        }
        return name
    }

    /// Stores a new destination object (and associates it with the source being handled).
    public func insert(_ object: DestinationObject) throws {
        let plan = try entityPlan(for: object.entity)
        if !object.unknown.isEmpty, let name = object.unknown.keys.sorted().first {
            throw PolicyError("\(object.entity) has no attribute '\(name)' in version \(destinationVersion.version)")
        }
        guard let statement = plan.insert else {
            _ = try physicalTable(for: destinationVersion.entity(named: object.entity)!)
            return
        }
        // The object's storage follows the plan's shape when it was made by this
        // manager; otherwise values are looked up by name.
        let sameShape = object.shape === plan.shape
        // One buffer for every row's values (an array per row was an allocation each).
        var values = valueBuffer
        valueBuffer = []
        defer {
            values.removeAll(keepingCapacity: true)
            valueBuffer = values
        }
        values.append(.integer(object.primaryKey))
        values.append(.integer(plan.number))
        values.append(.integer(object.changeCounter))
        for i in plan.types.indices {
            let value = sameShape ? object.storage[i] : object[plan.shape.names[i]]
            let type = plan.types[i]
            if let value, let problem = ValueCoding.check(value, fits: type) {
                let detail = plan.attributes[i].violations(of: value).first ?? problem
                throw PolicyError("\(object.entity).\(plan.shape.names[i]): \(detail)")
            }
            values.append(
                plan.external[i]
                    ? ValueCoding.databaseValue(value, as: plan.attributes[i])
                    : ValueCoding.databaseValue(value, as: type))
        }
        for name in plan.toOne {
            values.append((object.toOne[name] ?? nil).map { .integer($0) } ?? .null)
        }
        do throws(SQLiteError) {
            try statement.bind(values)
            try statement.execute()
        } catch {
            if error.kind == .constraint {
                throw PolicyError(
                    """
                    \(object.entity) with primary key \(object.primaryKey) already exists (create each destination \
                    object once)
                    """
                )
            }
            throw error
        }
        // The one-to-one case (the mapping's entity, the source's key) is implied and
        // not stored: lookups check the destination table instead.
        if let source = currentSourceKey,
            !(object.entity == currentEntityMapping.destination && object.primaryKey == source)
        {
            try associate(source: source, destination: object)
        }
    }

    /// Writes changed values and to-one relationships of an object inserted earlier.
    public func update(_ object: DestinationObject) throws {
        guard let entity = destinationVersion.entity(named: object.entity),
            let table = destinationLayout.table(forEntity: entity.root)
        else {
            throw PolicyError("no entity '\(object.entity)' in version \(destinationVersion.version)")
        }
        let physical = try physicalTable(for: entity)
        var assignments: [String] = []
        var values: [DatabaseValue] = []
        if let name = object.unknown.keys.sorted().first {
            throw PolicyError("\(object.entity) has no attribute '\(name)' in version \(destinationVersion.version)")
        }
        for i in object.changedPositions {
            let name = object.shape.names[i], value = object.storage[i]
            guard let attribute = entity.attribute(named: name),
                let column = table.column(for: .attribute(entity: attribute.declaredIn, property: name))
            else { continue }
            assignments.append("\(SQLText.q(column.name)) = ?")
            values.append(ValueCoding.databaseValue(value, as: attribute.declaration))
        }
        for (name, key) in object.toOne.sorted(by: { $0.key < $1.key }) {
            guard let relationship = entity.relationship(named: name),
                let column = table.column(for: .toOne(entity: relationship.declaredIn, relationship: name))
            else {
                throw PolicyError(
                    "\(object.entity) has no to-one relationship '\(name)' in version \(destinationVersion.version)")
            }
            assignments.append("\(SQLText.q(column.name)) = ?")
            values.append(key.map { .integer($0) } ?? .null)
        }
        guard !assignments.isEmpty else { return }
        let statement = try connection.cachedStatement(
            "UPDATE \(SQLText.q(physical)) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = ?")
        try statement.bind(values + [.integer(object.primaryKey)])
        try statement.execute()
    }

    // MARK: Associations

    /// Records that `destination` was made from the source object with `source` key.
    public func associate(source: Int64, destination: DestinationObject) throws {
        try associate(source: source, withEntity: destination.entity, primaryKey: destination.primaryKey)
    }

    /// Records that the source object with `source` key stands for the destination
    /// object `entity` with `primaryKey` (created earlier, by this mapping or
    /// another of the hop): a merge.
    public func associate(source: Int64, withEntity entity: String, primaryKey: Int64) throws {
        let statement = try connection.cachedStatement(
            "INSERT INTO mm_associations (mapping, source, destination, entity) VALUES (?, ?, ?, ?)")
        try statement.bind([.text(currentEntityMapping.name), .integer(source), .integer(primaryKey), .text(entity)])
        try statement.execute()
    }

    /// The entity mapping of this hop with that name.
    func entityMapping(named name: String) throws -> EntityMapping {
        guard let mapping = hopMappings.first(where: { $0.name == name }) else {
            throw PolicyError(
                """
                no entity mapping '\(name)' in this hop (its mappings: \
                \(hopMappings.map(\.name).joined(separator: ", ")))
                """
            )
        }
        return mapping
    }

    /// The destination objects made from these source objects by an entity mapping
    /// of this hop, any of them (Core Data's
    /// `destinationInstances(forEntityMappingName:sourceInstances:)`), as (entity,
    /// primary key). A mapping's own destination object has its source's key; others
    /// were associated when inserted or by `associate(source:destination:)`.
    /// Associations of every mapping last for the whole hop, so a policy in the
    /// relationship stage reaches objects any mapping created.
    public func destinationInstances(forEntityMappingName name: String, sourceInstances: [SourceObject]) throws -> [(
        entity: String, primaryKey: Int64
    )] {
        let mapping = try entityMapping(named: name)
        var result: [(String, Int64)] = []
        let statement = try connection.cachedStatement(
            """
            SELECT entity, destination FROM mm_associations INDEXED BY mm_associations_source \
            WHERE mapping = ? AND source = ? ORDER BY destination
            """)
        for source in sourceInstances {
            // The mapping's own object of a source object of its source entity.
            if source.entity == mapping.source, let entity = mapping.destination,
                try destinationExists(entity: entity, key: source.primaryKey)
            {
                result.append((entity, source.primaryKey))
            }
            try statement.bind([.text(name), .integer(source.primaryKey)])
            while try statement.step() { result.append((statement.string(at: 0), statement.int64(at: 1))) }
            statement.reset()
        }
        return result
    }

    /// The source objects a destination object was made from by an entity mapping of
    /// this hop (the reverse).
    public func sourceInstances(forEntityMappingName name: String, destination: DestinationObject) throws
        -> [SourceObject]
    {
        let mapping = try entityMapping(named: name)
        let statement = try connection.cachedStatement(
            "SELECT source FROM mm_associations WHERE mapping = ? AND destination = ? AND entity = ? ORDER BY source")
        try statement.bind([.text(name), .integer(destination.primaryKey), .text(destination.entity)])
        var keys: [Int64] = []
        while try statement.step() { keys.append(statement.int64(at: 0)) }
        statement.reset()
        guard let sourceEntity = mapping.source else { return [] }
        if destination.entity == mapping.destination, !keys.contains(destination.primaryKey),
            try reader.object(sourceEntity, key: destination.primaryKey) != nil
        {
            keys.insert(destination.primaryKey, at: 0)
        }
        return try keys.compactMap { try reader.object(sourceEntity, key: $0) }
    }

    /// Whether a destination object exists with this key (in the table it has during
    /// the hop: the one being built, or the one kept).
    func destinationExists(entity name: String, key: Int64) throws -> Bool {
        guard let entity = destinationVersion.entity(named: name),
            let table = destinationLayout.table(forEntity: entity.root),
            let number = destinationLayout.entityNumbers[name]
        else { return false }
        let physical = buildTables[table.name] ?? table.name
        let numbers = destinationVersion.subtree(of: name).compactMap { destinationLayout.entityNumbers[$0] }
        let statement = try connection.cachedStatement(
            """
            SELECT 1 FROM \(SQLText.q(physical)) WHERE Z_PK = ? AND Z_ENT IN \
            (\((numbers.isEmpty ? [number] : numbers).map(String.init).joined(separator: ",")))
            """)
        try statement.bind([.integer(key)])
        defer { statement.reset() }
        return try statement.step()
    }

    // MARK: Keyed lookups (deduplication without holding everything in memory)

    /// The primary key remembered for `key` in `namespace`, if any.
    public func lookup(_ key: String, in namespace: String) throws -> Int64? {
        let statement = try connection.cachedStatement("SELECT value FROM mm_keys WHERE namespace = ? AND key = ?")
        try statement.bind([.text(namespace), .text(key)])
        defer { statement.reset() }
        return try statement.step() ? statement.int64(at: 0) : nil
    }

    /// Remembers a primary key for `key` in `namespace`.
    public func remember(_ key: String, value: Int64, in namespace: String) throws {
        let statement = try connection.cachedStatement(
            "INSERT OR REPLACE INTO mm_keys (namespace, key, value) VALUES (?, ?, ?)")
        try statement.bind([.text(namespace), .text(key), .integer(value)])
        try statement.execute()
    }

    /// Reads a destination object inserted earlier in this hop.
    package func destinationObject(entity name: String, key: Int64) throws -> DestinationObject? {
        guard let entity = destinationVersion.entity(named: name),
            let table = destinationLayout.table(forEntity: entity.root)
        else { return nil }
        let physical = try physicalTable(for: entity)
        let statement = try connection.cachedStatement("SELECT * FROM \(SQLText.q(physical)) WHERE Z_PK = ?")
        try statement.bind([.integer(key)])
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        let columns = SourceReader.columnIndex(statement)
        let plan = try entityPlan(for: name)
        var storage = [AttributeValue?](repeating: nil, count: plan.attributes.count)
        for (i, attributeName) in plan.shape.names.enumerated() {
            guard let attribute = entity.attribute(named: attributeName),
                let column = table.column(for: .attribute(entity: attribute.declaredIn, property: attributeName)),
                let c = columns[column.name]
            else { continue }
            storage[i] = try ValueCoding.attributeValue(
                statement.value(at: c), as: plan.attributes[i], storePath: connection.path)
        }
        var object = DestinationObject(entity: name, primaryKey: key, shape: plan.shape, storage: storage)
        for relationship in entity.relationships where !relationship.declaration.isToMany {
            if let column = table.column(for: .toOne(entity: relationship.declaredIn, relationship: relationship.name)),
                let i = columns[column.name]
            {
                object.toOne[relationship.name] = .some(statement.isNull(at: i) ? nil : statement.int64(at: i))
            }
        }
        return object
    }

    /// `value` as a value of `type` where it converts without loss (a widening, a
    /// whole number, a text that is a number, a number as text); otherwise `value`
    /// unchanged, which `insert` then refuses with the attribute's rule it breaks.
    package static func convert(_ value: AttributeValue, to type: AttributeType) -> AttributeValue {
        switch (value, type) {
        case (.integer(let v), .double), (.integer(let v), .float): return .double(Double(v))
        case (.integer(let v), .decimal): return .decimal(String(v))
        case (.integer(let v), .string): return .string(String(v))
        case (.integer(let v), .boolean) where v == 0 || v == 1: return .boolean(v == 1)
        case (.boolean(let v), _) where type.isNumeric: return convert(.integer(v ? 1 : 0), to: type)
        case (.double(let v), .decimal) where v.isFinite: return .decimal(AttributeValue.double(v).displayText)
        case (.double(let v), .string) where v.isFinite: return .string(AttributeValue.double(v).displayText)
        case (.double(let v), _) where type.isInteger:
            // Only a whole number within Int64: a fraction is not rounded away.
            return v.rounded() == v && v >= -0x1p63 && v < 0x1p63 ? .integer(Int64(v)) : value
        case (.decimal(let text), _) where type.isInteger, (.string(let text), _) where type.isInteger:
            // Exactly, from the text's digits: through Double, "4.0000000000000001" was 4.
            return exactInteger(in: text).map { .integer($0) } ?? value
        case (.decimal(let text), _) where type.isNumeric, (.string(let text), _) where type.isNumeric:
            return number(in: text).map { convert($0, to: type) } ?? value
        case (.decimal(let text), .string): return .string(text)
        default: return value
        }
    }

    /// The integer a whole text spells exactly (white space around it allowed):
    /// digits with a fraction of zeros or an exponent are whole numbers ("4.0", "1e3");
    /// a fraction that is not zero ("4.0000000000000001"), or a value beyond Int64, is none.
    package static func exactInteger(in text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let integer = Int64(trimmed) { return integer }
        guard let canonical = DefaultValueParser.canonicalDecimal(trimmed) else { return nil }
        let negative = canonical.hasPrefix("-")
        let parts = canonical.split(maxSplits: 1, whereSeparator: { $0 == "e" || $0 == "E" })
        let pieces = parts[0].filter { $0 != "-" }.split(separator: ".", omittingEmptySubsequences: false)
        let fraction = pieces.count > 1 ? String(pieces[1]) : ""
        var digits = String(pieces[0]) + fraction
        guard parts.count < 2 || parts[1].count <= 8, let exponent = parts.count == 2 ? Int(parts[1]) : 0 else {
            return nil
        }
        let shift = exponent - fraction.count
        if shift >= 0 {
            guard shift <= 19 else { return digits.allSatisfy { $0 == "0" } ? 0 : nil }
            digits += String(repeating: "0", count: shift)
        } else {
            let dropped = digits.suffix(-shift)
            guard dropped.allSatisfy({ $0 == "0" }) else { return nil }
            digits = String(digits.dropLast(-shift))
        }
        let trimmedDigits = digits.drop(while: { $0 == "0" })
        return Int64((negative ? "-" : "") + (trimmedDigits.isEmpty ? "0" : trimmedDigits))
    }

    /// The number a whole text spells (white space around it allowed), exactly: an
    /// integer when it has no fraction or exponent.
    private static func number(in text: String) -> AttributeValue? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let integer = Int64(trimmed) { return .integer(integer) }
        guard let double = Double(trimmed), double.isFinite, trimmed.allSatisfy({ "0123456789+-.eE".contains($0) })
        else { return nil }
        return .double(double)
    }
}
