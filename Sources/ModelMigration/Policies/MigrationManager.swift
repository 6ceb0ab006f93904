import DataModel
import Mapping
import SQLiteStore

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
    public internal(set) var progress: (done: Int64, total: Int64) = (0, 0)

    let connection: Connection
    let reader: SourceReader
    let destinationLayout: StorageLayout
    let buildTables: [String: String]
    /// The source key being handled, for error messages.
    var currentSourceKey: Int64?
    private var nextKeys: [String: Int64] = [:]
    /// Per destination entity: the INSERT and where each value goes, built once.
    private struct InsertPlan {
        var statement: Statement?
        var sql: String
        var attributes: [(name: String, type: AttributeType)]
        var toOne: [String]
        var number: Int64
    }
    private var insertPlans: [String: InsertPlan] = [:]
    /// The mapping's property sources resolved against the destination entity, once.
    private enum DefaultValueSource {
        case copy(String), convert(String, AttributeType, AttributeValue?), constant(AttributeValue?), toOne(String)
    }
    private lazy var defaultSources: [(String, DefaultValueSource)] = resolveDefaultSources()

    init(mapping: EntityMapping, hop: MigrationHop, connection: Connection, buildTables: [String: String]) throws {
        currentEntityMapping = mapping
        sourceVersion = hop.source
        destinationVersion = hop.destination
        self.connection = connection
        reader = SourceReader(connection: connection, version: hop.source, layout: hop.sourceLayout)
        destinationLayout = hop.destinationLayout
        self.buildTables = buildTables
        try connection.execute("""
            CREATE TEMP TABLE IF NOT EXISTS mm_associations (mapping TEXT NOT NULL, source INTEGER NOT NULL, destination INTEGER NOT NULL, entity TEXT NOT NULL);
            CREATE INDEX IF NOT EXISTS temp.mm_associations_source ON mm_associations (mapping, source, destination);
            CREATE INDEX IF NOT EXISTS temp.mm_associations_destination ON mm_associations (mapping, destination, entity, source);
            CREATE TEMP TABLE IF NOT EXISTS mm_keys (namespace TEXT NOT NULL, key TEXT NOT NULL, value INTEGER NOT NULL, PRIMARY KEY (namespace, key));
            """)
    }

    // MARK: Creating destination objects

    /// A destination object for `source`, with every value the mapping provides
    /// (copied, converted or default) and the source's primary key, when `entity` is
    /// the mapping's destination; otherwise an empty object with a new key. Call
    /// `insert` to store it.
    public func createDestinationInstance(for source: SourceObject, entity: String? = nil) throws -> DestinationObject {
        let name = entity ?? currentEntityMapping.destination!
        guard let compiled = destinationVersion.entity(named: name) else {
            throw PolicyError("no entity '\(name)' in version \(destinationVersion.version)")
        }
        if name != currentEntityMapping.destination {
            return try createDestinationInstance(entity: name)
        }
        _ = compiled
        var object = DestinationObject(entity: name, primaryKey: source.primaryKey, values: [:], toOne: [:])
        for (property, how) in defaultSources {
            switch how {
            case .copy(let from): object.values[property] = .some(source.values[from])
            case .convert(let from, let type, let fallback):
                object.values[property] = .some(source.values[from].map { Self.convert($0, to: type) } ?? fallback)
            case .constant(let value): object.values[property] = .some(value)
            case .toOne(let from): object.toOne[property] = .some(source.toOneKeys[from])
            }
        }
        return object
    }

    private func resolveDefaultSources() -> [(String, DefaultValueSource)] {
        guard let name = currentEntityMapping.destination, let compiled = destinationVersion.entity(named: name) else { return [] }
        var result: [(String, DefaultValueSource)] = []
        for property in currentEntityMapping.properties {
            if property.isRelationship {
                guard let relationship = compiled.relationship(named: property.name), !relationship.declaration.isToMany else { continue }
                switch property.source {
                case .copy(let from), .convert(let from, _): result.append((property.name, .toOne(from)))
                default: break
                }
                continue
            }
            guard let attribute = compiled.attribute(named: property.name)?.declaration else { continue }
            switch property.source {
            case .copy(let from): result.append((property.name, .copy(from)))
            case .convert(let from, let conversion):
                let fallback = conversion == .fillDefault || !attribute.isOptional ? attribute.defaultValue : nil
                result.append((property.name, .convert(from, attribute.type, fallback)))
            case .defaultValue(let value): result.append((property.name, .constant(value)))
            case .policy: result.append((property.name, .constant(attribute.defaultValue)))
            }
        }
        return result
    }

    private func insertPlan(for name: String) throws -> InsertPlan {
        if let known = insertPlans[name] { return known }
        guard let entity = destinationVersion.entity(named: name), let number = destinationLayout.entityNumbers[name],
              let table = destinationLayout.table(forEntity: entity.root) else {
            throw PolicyError("no entity '\(name)' in version \(destinationVersion.version)")
        }
        let physical = try physicalTable(for: entity)
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        var plan = InsertPlan(sql: "", attributes: [], toOne: [], number: Int64(number))
        for attribute in entity.attributes where !attribute.declaration.isTransient {
            guard let column = table.column(for: .attribute(entity: attribute.declaredIn, property: attribute.name)) else { continue }
            columns.append(column.name)
            plan.attributes.append((attribute.name, attribute.declaration.type))
        }
        for relationship in entity.relationships where !relationship.declaration.isToMany && !relationship.declaration.isTransient {
            guard let column = table.column(for: .toOne(entity: relationship.declaredIn, relationship: relationship.name)) else { continue }
            columns.append(column.name)
            plan.toOne.append(relationship.name)
        }
        plan.statement = nil
        plan.sql = "INSERT INTO \(SchemaSQL.quote(physical)) (\(columns.map(SchemaSQL.quote).joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
        plan.statement = try connection.prepare(plan.sql)
        insertPlans[name] = plan
        return plan
    }

    /// An empty destination object of `entity` with a new primary key.
    public func createDestinationInstance(entity name: String) throws -> DestinationObject {
        guard let compiled = destinationVersion.entity(named: name) else {
            throw PolicyError("no entity '\(name)' in version \(destinationVersion.version)")
        }
        let table = try physicalTable(for: compiled)
        if nextKeys[table] == nil {
            nextKeys[table] = (try connection.scalarInt64("SELECT max(Z_PK) FROM \(SchemaSQL.quote(table))") ?? 0)
        }
        // Keys only grow: a new object never takes a key already in the table.
        let key = nextKeys[table]! + 1
        nextKeys[table] = key
        var object = DestinationObject(entity: name, primaryKey: key, values: [:], toOne: [:])
        for attribute in compiled.attributes where !attribute.declaration.isTransient {
            object.values[attribute.name] = .some(attribute.declaration.defaultValue)
        }
        return object
    }

    /// The table a destination entity's rows go to during this hop; only tables
    /// created or rebuilt by the hop take new rows.
    func physicalTable(for entity: CompiledEntity) throws -> String {
        guard let table = destinationLayout.table(forEntity: entity.root), let name = buildTables[table.name] else {
            throw PolicyError("a policy can create objects of entities whose table this hop creates or rebuilds; \(entity.name)'s table is not one of them")
        }
        return name
    }

    /// Stores a new destination object (and associates it with the source being handled).
    public func insert(_ object: DestinationObject) throws {
        let plan = try insertPlan(for: object.entity)
        var values: [DatabaseValue] = [.integer(object.primaryKey), .integer(plan.number), .integer(1)]
        values.reserveCapacity(3 + plan.attributes.count + plan.toOne.count)
        for (name, type) in plan.attributes {
            let value = object.values[name] ?? nil
            if let value, let problem = ValueCoding.check(value, fits: type) {
                throw PolicyError("\(object.entity).\(name): \(problem)")
            }
            values.append(ValueCoding.databaseValue(value, as: type))
        }
        for name in plan.toOne {
            values.append((object.toOne[name] ?? nil).map { .integer($0) } ?? .null)
        }
        let statement = plan.statement!
        do throws(SQLiteError) {
            try statement.bind(values)
            try statement.execute()
        } catch {
            if error.kind == .constraint {
                throw PolicyError("\(object.entity) with primary key \(object.primaryKey) already exists (create each destination object once)")
            }
            throw error
        }
        // The one-to-one case (the mapping's entity, the source's key) is implied and
        // not stored: lookups check the destination table instead.
        if let source = currentSourceKey, !(object.entity == currentEntityMapping.destination && object.primaryKey == source) {
            try associate(source: source, destination: object)
        }
    }

    /// Writes changed values and to-one relationships of an object inserted earlier.
    public func update(_ object: DestinationObject) throws {
        guard let entity = destinationVersion.entity(named: object.entity), let table = destinationLayout.table(forEntity: entity.root) else {
            throw PolicyError("no entity '\(object.entity)' in version \(destinationVersion.version)")
        }
        let physical = try physicalTable(for: entity)
        var assignments: [String] = []
        var values: [DatabaseValue] = []
        for (name, value) in object.values.sorted(by: { $0.key < $1.key }) {
            guard let attribute = entity.attribute(named: name), let column = table.column(for: .attribute(entity: attribute.declaredIn, property: name)) else { continue }
            assignments.append("\(SchemaSQL.quote(column.name)) = ?")
            values.append(ValueCoding.databaseValue(value, as: attribute.declaration.type))
        }
        for (name, key) in object.toOne.sorted(by: { $0.key < $1.key }) {
            guard let relationship = entity.relationship(named: name), let column = table.column(for: .toOne(entity: relationship.declaredIn, relationship: name)) else {
                throw PolicyError("\(object.entity) has no to-one relationship '\(name)' in version \(destinationVersion.version)")
            }
            assignments.append("\(SchemaSQL.quote(column.name)) = ?")
            values.append(key.map { .integer($0) } ?? .null)
        }
        guard !assignments.isEmpty else { return }
        let statement = try connection.cachedStatement("UPDATE \(SchemaSQL.quote(physical)) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = ?")
        try statement.bind(values + [.integer(object.primaryKey)])
        try statement.execute()
    }

    // MARK: Associations

    /// Records that `destination` was made from the source object with `source` key.
    public func associate(source: Int64, destination: DestinationObject) throws {
        let statement = try connection.cachedStatement("INSERT INTO mm_associations (mapping, source, destination, entity) VALUES (?, ?, ?, ?)")
        try statement.bind([.text(currentEntityMapping.name), .integer(source), .integer(destination.primaryKey), .text(destination.entity)])
        try statement.execute()
    }

    /// The destination objects made from these source objects by an entity mapping
    /// (Core Data's `destinationInstances(forEntityMappingName:sourceInstances:)`),
    /// as (entity, primary key).
    public func destinationInstances(forEntityMappingName name: String, sourceInstances: [SourceObject]) throws -> [(entity: String, primaryKey: Int64)] {
        var result: [(String, Int64)] = []
        let statement = try connection.cachedStatement("SELECT entity, destination FROM mm_associations INDEXED BY mm_associations_source WHERE mapping = ? AND source = ? ORDER BY destination")
        let implicit = name == currentEntityMapping.name ? currentEntityMapping.destination : nil
        for source in sourceInstances {
            if let entity = implicit, try destinationObject(entity: entity, key: source.primaryKey) != nil {
                result.append((entity, source.primaryKey))
            }
            try statement.bind([.text(name), .integer(source.primaryKey)])
            while try statement.step() { result.append((statement.string(at: 0), statement.int64(at: 1))) }
            statement.reset()
        }
        return result
    }

    /// The source objects a destination object was made from (the reverse).
    public func sourceInstances(forEntityMappingName name: String, destination: DestinationObject) throws -> [SourceObject] {
        let statement = try connection.cachedStatement("SELECT source FROM mm_associations WHERE mapping = ? AND destination = ? AND entity = ? ORDER BY source")
        try statement.bind([.text(name), .integer(destination.primaryKey), .text(destination.entity)])
        var keys: [Int64] = []
        while try statement.step() { keys.append(statement.int64(at: 0)) }
        statement.reset()
        if name == currentEntityMapping.name, destination.entity == currentEntityMapping.destination { keys.insert(destination.primaryKey, at: 0) }
        guard let sourceEntity = currentEntityMapping.source else { return [] }
        return try keys.compactMap { try reader.object(sourceEntity, key: $0) }
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
        let statement = try connection.cachedStatement("INSERT OR REPLACE INTO mm_keys (namespace, key, value) VALUES (?, ?, ?)")
        try statement.bind([.text(namespace), .text(key), .integer(value)])
        try statement.execute()
    }

    /// Reads a destination object inserted earlier in this hop.
    func destinationObject(entity name: String, key: Int64) throws -> DestinationObject? {
        guard let entity = destinationVersion.entity(named: name), let table = destinationLayout.table(forEntity: entity.root) else { return nil }
        let physical = try physicalTable(for: entity)
        let statement = try connection.cachedStatement("SELECT * FROM \(SchemaSQL.quote(physical)) WHERE Z_PK = ?")
        try statement.bind([.integer(key)])
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        let columns = SourceReader.columnIndex(statement)
        var object = DestinationObject(entity: name, primaryKey: key, values: [:], toOne: [:])
        for attribute in entity.attributes where !attribute.declaration.isTransient {
            if let column = table.column(for: .attribute(entity: attribute.declaredIn, property: attribute.name)), let i = columns[column.name] {
                object.values[attribute.name] = .some(ValueCoding.attributeValue(statement.value(at: i), as: attribute.declaration.type))
            }
        }
        for relationship in entity.relationships where !relationship.declaration.isToMany {
            if let column = table.column(for: .toOne(entity: relationship.declaredIn, relationship: relationship.name)), let i = columns[column.name] {
                object.toOne[relationship.name] = .some(statement.isNull(at: i) ? nil : statement.int64(at: i))
            }
        }
        return object
    }

    static func convert(_ value: AttributeValue, to type: AttributeType) -> AttributeValue {
        switch (value, type) {
        case (.integer(let v), .double), (.integer(let v), .float): .double(Double(v))
        case (.integer(let v), .decimal): .decimal(String(v))
        default: value
        }
    }
}
