import DataModel

/// Reads and writes objects of one model version in a store, with the store's own
/// entity numbers. Prepared statements are cached, so loops insert and fetch
/// without building SQL per row.
public final class ObjectAccess {
    /// The store.
    public let store: Store
    /// The model version the store holds.
    public let version: CompiledVersion
    /// The store's layout of that version.
    public let layout: StorageLayout
    private var connection: Connection { store.connection }

    /// Binds a store to the version it holds.
    public init(store: Store, version: CompiledVersion) throws(StoreError) {
        self.store = store
        self.version = version
        layout = try store.layout(for: version)
    }

    // MARK: Lookup

    func entity(_ name: String) throws(StoreError) -> CompiledEntity {
        guard let entity = version.entity(named: name) else {
            throw StoreError(.unknownEntity, "unknown entity '\(name)' (model \(version.model) version \(version.version) has \(version.entities.map(\.name).joined(separator: ", ")))", path: store.path)
        }
        return entity
    }

    func table(of entity: CompiledEntity) -> StorageLayout.Table {
        layout.table(forEntity: entity.root)!
    }

    /// The entity numbers of `entity` and, when asked, all its subentities.
    func entityNumbers(_ entity: CompiledEntity, includeSubentities: Bool) -> [Int] {
        let names = includeSubentities ? version.subtree(of: entity.name) : [entity.name]
        return names.compactMap { layout.entityNumbers[$0] }.sorted()
    }

    func nameOfEntity(number: Int) -> String? {
        layout.entityNumbers.first { $0.value == number }?.key
    }

    private func quote(_ name: String) -> String { SchemaSQL.quote(name) }

    private func run(_ sql: String, _ values: [DatabaseValue]) throws(StoreError) {
        do {
            let statement = try connection.cachedStatement(sql)
            try statement.bind(values)
            try statement.execute()
        } catch {
            throw StoreError.from(error, path: store.path)
        }
    }

    private func wrap<T>(_ body: () throws(SQLiteError) -> T) throws(StoreError) -> T {
        do { return try body() } catch { throw StoreError.from(error, path: store.path) }
    }

    // MARK: Counting and fetching

    /// The number of objects of an entity (and its subentities, by default).
    public func count(_ entityName: String, includeSubentities: Bool = true) throws(StoreError) -> Int64 {
        let entity = try entity(entityName)
        let numbers = entityNumbers(entity, includeSubentities: includeSubentities)
        let table = table(of: entity)
        return try wrap { () throws(SQLiteError) -> Int64 in
            try connection.scalarInt64("SELECT count(*) FROM \(quote(table.name)) WHERE Z_ENT IN (\(numbers.map(String.init).joined(separator: ",")))") ?? 0
        }
    }

    /// Whether a row with this primary key exists among `entity` and its subentities.
    public func exists(_ entityName: String, primaryKey: Int64) throws(StoreError) -> Bool {
        let entity = try entity(entityName)
        let numbers = entityNumbers(entity, includeSubentities: true)
        let sql = "SELECT 1 FROM \(quote(table(of: entity).name)) WHERE Z_PK = ? AND Z_ENT IN (\(numbers.map(String.init).joined(separator: ",")))"
        return try wrap { () throws(SQLiteError) -> Bool in
            let statement = try connection.cachedStatement(sql)
            try statement.bind([.integer(primaryKey)])
            defer { statement.reset() }
            return try statement.step()
        }
    }

    /// Calls `body` with each object of an entity in primary-key order, reading one
    /// row at a time (memory does not grow with the table).
    public func forEach(_ entityName: String, includeSubentities: Bool = true, limit: Int? = nil,
                        includeRelationships: Bool = true, _ body: (StoredObject) throws -> Void) throws {
        let entity = try entity(entityName)
        let table = table(of: entity)
        let numbers = entityNumbers(entity, includeSubentities: includeSubentities)
        var sql = "SELECT * FROM \(quote(table.name)) WHERE Z_ENT IN (\(numbers.map(String.init).joined(separator: ","))) ORDER BY Z_PK"
        if let limit { sql += " LIMIT \(max(0, limit))" }
        let statement = try connection.prepare(sql)
        let names = statement.columnNames
        let index = Dictionary(names.enumerated().map { ($0.element, Int32($0.offset)) }, uniquingKeysWith: { a, _ in a })
        while try statement.step() {
            let number = Int(statement.int64(at: index["Z_ENT"]!))
            guard let name = nameOfEntity(number: number), let rowEntity = version.entity(named: name) else { continue }
            var object = StoredObject(entity: name, primaryKey: statement.int64(at: index["Z_PK"]!))
            for attribute in rowEntity.attributes where !attribute.declaration.isTransient {
                guard let column = table.column(for: .attribute(entity: attribute.declaredIn, property: attribute.name)),
                      let i = index[column.name] else { continue }
                if let value = try ValueCoding.attributeValue(statement.value(at: i), as: attribute.declaration, storePath: store.path) {
                    object.values[attribute.name] = value
                }
            }
            if includeRelationships {
                for relationship in rowEntity.relationships where !relationship.declaration.isTransient {
                    object.relationships[relationship.name] = try destinations(of: relationship, from: object.primaryKey, row: statement, index: index, table: table)
                }
            }
            try body(object)
        }
    }

    /// Every object of an entity, in primary-key order.
    public func fetch(_ entityName: String, includeSubentities: Bool = true, limit: Int? = nil) throws -> [StoredObject] {
        var result: [StoredObject] = []
        try forEach(entityName, includeSubentities: includeSubentities, limit: limit) { result.append($0) }
        return result
    }

    /// One object by primary key.
    public func object(_ entityName: String, primaryKey: Int64) throws -> StoredObject? {
        let entity = try entity(entityName)
        let table = table(of: entity)
        let numbers = entityNumbers(entity, includeSubentities: true)
        var found: StoredObject?
        let statement = try connection.prepare("SELECT Z_ENT FROM \(quote(table.name)) WHERE Z_PK = ? AND Z_ENT IN (\(numbers.map(String.init).joined(separator: ",")))")
        try statement.bind([.integer(primaryKey)])
        guard try statement.step(), let name = nameOfEntity(number: Int(statement.int64(at: 0))) else { return nil }
        try forEach(name, includeSubentities: false, limit: nil) { object in
            if object.primaryKey == primaryKey { found = object }
        }
        return found
    }

    private func destinations(of relationship: CompiledRelationship, from primaryKey: Int64, row: Statement,
                              index: [String: Int32], table: StorageLayout.Table) throws -> [Int64] {
        let r = relationship.declaration
        if !r.isToMany {
            guard let column = table.column(for: .toOne(entity: relationship.declaredIn, relationship: r.name)),
                  let i = index[column.name], !row.isNull(at: i) else { return [] }
            return [row.int64(at: i)]
        }
        guard let destination = version.entity(named: r.destination) else { return [] }
        let destinationTable = self.table(of: destination)
        if !relationship.isManyToMany, let (_, column, order) = layout.reverseColumn(for: relationship, destinationRoot: destination.root) {
            let sql = "SELECT Z_PK FROM \(quote(destinationTable.name)) WHERE \(quote(column)) = ? ORDER BY \(order.map { "\(quote($0)), " } ?? "")Z_PK"
            return try primaryKeys(sql, primaryKey)
        }
        guard let (join, mine, theirs) = joinTable(for: relationship) else { return [] }
        let order = join.column(for: .order(entity: relationship.declaredIn, relationship: r.name))
        let sql = "SELECT \(quote(theirs)) FROM \(quote(join.name)) WHERE \(quote(mine)) = ? ORDER BY \(order.map { "\(quote($0.name)), " } ?? "")\(quote(theirs))"
        return try primaryKeys(sql, primaryKey)
    }

    private func primaryKeys(_ sql: String, _ key: Int64) throws -> [Int64] {
        let statement = try connection.cachedStatement(sql)
        try statement.bind([.integer(key)])
        var keys: [Int64] = []
        while try statement.step() { keys.append(statement.int64(at: 0)) }
        return keys
    }

    /// Whether the store keeps this relationship's pairs on this side: to-one
    /// relationships (their column), to-many relationships without an inverse, and
    /// the side of a many-to-many relationship whose join table is named after it.
    /// A dump writes each pair once, on this side, so that dumps load back.
    public func isStoredSide(_ relationship: CompiledRelationship) -> Bool {
        let r = relationship.declaration
        if r.inverse == nil { return true }
        if !r.isToMany {
            // One-to-one: both rows hold a column; a dump writes the pair on the side
            // whose entity (then relationship) name sorts first, and load sets both.
            guard let owner = relationship.inverseEntity, let inverse = r.inverse,
                  let other = version.entity(named: owner)?.relationship(named: inverse), !other.declaration.isToMany else { return true }
            return (relationship.declaredIn, r.name) <= (owner, inverse)
        }
        if !relationship.isManyToMany { return false }
        return layout.tables.contains { $0.joinRelationship == "\(relationship.declaredIn).\(r.name)" }
    }

    /// The join table storing a to-many relationship, with the column holding this
    /// side's keys and the column holding the destination's keys.
    func joinTable(for relationship: CompiledRelationship) -> (table: StorageLayout.Table, mine: String, theirs: String)? {
        layout.joinTable(for: relationship)
    }

    // MARK: Inserting

    /// Inserts an object, checking it against the model: value types and ranges,
    /// required attributes (defaults fill missing ones), relationship targets and
    /// cardinality. Returns the new primary key (allocated through `Z_PRIMARYKEY`
    /// unless given).
    @discardableResult
    public func insert(_ entityName: String, values: [String: AttributeValue?] = [:], relationships: [String: [Int64]] = [:],
                       primaryKey requested: Int64? = nil) throws(StoreError) -> Int64 {
        let entity = try entity(entityName)
        let subject = "\(entityName)"
        if entity.isAbstract {
            throw StoreError(.invalidObject, "\(subject): the entity is abstract and cannot have objects of its own", path: store.path)
        }
        for name in values.keys where entity.attribute(named: name) == nil {
            throw StoreError(.invalidObject, "\(subject).\(name): no such attribute", path: store.path)
        }
        for name in relationships.keys where entity.relationship(named: name) == nil {
            throw StoreError(.invalidObject, "\(subject).\(name): no such relationship", path: store.path)
        }
        let table = table(of: entity)
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        // Z_PK is bound once the object has passed every check, so that a refused
        // object uses up no key (Z_PRIMARYKEY is written only for real inserts).
        var bindings: [DatabaseValue] = [.null, .integer(Int64(layout.entityNumbers[entity.name]!)), .integer(1)]
        for attribute in entity.attributes where !attribute.declaration.isTransient {
            let a = attribute.declaration
            var value: AttributeValue? = values[a.name] ?? nil
            if values[a.name] == nil { value = a.defaultValue }
            if let v = value, let problem = ValueCoding.check(v, fits: a.type) ?? ValueCoding.checkLimits(v, of: a) {
                throw StoreError(.invalidObject, "\(subject).\(a.name): \(problem)", path: store.path)
            }
            if value == nil, !a.isOptional {
                throw StoreError(.invalidObject, "\(subject).\(a.name): a value is required", path: store.path)
            }
            guard let column = table.column(for: .attribute(entity: attribute.declaredIn, property: a.name)) else { continue }
            columns.append(column.name)
            bindings.append(ValueCoding.databaseValue(value, as: a))
        }
        var later: [(CompiledRelationship, [Int64])] = []
        for relationship in entity.relationships where !relationship.declaration.isTransient {
            let r = relationship.declaration
            let targets = relationships[r.name] ?? []
            if !r.isToMany, targets.count > 1 {
                throw StoreError(.invalidObject, "\(subject).\(r.name): a to-one relationship takes one key, found \(targets.count)", path: store.path)
            }
            if targets.isEmpty, !r.isOptional {
                throw StoreError(.invalidObject, "\(subject).\(r.name): the relationship is required", path: store.path)
            }
            if let min = r.minCount, targets.count < min, !(targets.isEmpty && r.isOptional) {
                throw StoreError(.invalidObject, "\(subject).\(r.name): needs at least \(min) objects, found \(targets.count)", path: store.path)
            }
            if r.isToMany, let max = r.maxCount, max > 0, targets.count > max {
                throw StoreError(.invalidObject, "\(subject).\(r.name): allows at most \(max) objects, found \(targets.count)", path: store.path)
            }
            if Set(targets).count != targets.count {
                throw StoreError(.invalidObject, "\(subject).\(r.name): the same object is listed twice", path: store.path)
            }
            for target in targets where try !exists(r.destination, primaryKey: target) {
                throw StoreError(.invalidObject, "\(subject).\(r.name): no \(r.destination) with primary key \(target)", path: store.path)
            }
            if r.isToMany, r.inverse == nil, let destination = version.entity(named: r.destination),
               let (ownerTable, column, _) = layout.reverseColumn(for: relationship, destinationRoot: destination.root) {
                for target in targets {
                    let owner = try wrap { () throws(SQLiteError) -> Int64? in
                        let statement = try connection.cachedStatement("SELECT \(quote(column)) FROM \(quote(ownerTable.name)) WHERE Z_PK = ?")
                        try statement.bind([.integer(target)])
                        defer { statement.reset() }
                        guard try statement.step(), !statement.isNull(at: 0) else { return nil }
                        return statement.int64(at: 0)
                    }
                    if let owner {
                        throw StoreError(.invalidObject, "\(subject).\(r.name): \(r.destination) \(target) already belongs to the \(r.name) of object \(owner); a to-many relationship without an inverse keeps one owner per object (Core Data stores the owner's key on the \(r.destination) row)", path: store.path)
                    }
                }
            }
            if !r.isToMany, let column = table.column(for: .toOne(entity: relationship.declaredIn, relationship: r.name)) {
                columns.append(column.name)
                bindings.append(targets.first.map { .integer($0) } ?? .null)
                if let typeColumn = table.column(for: .toOneEntity(entity: relationship.declaredIn, relationship: r.name)) {
                    columns.append(typeColumn.name)
                    if let target = targets.first {
                        bindings.append(.integer(try entityNumber(of: r.destination, primaryKey: target)))
                    } else {
                        bindings.append(.null)
                    }
                }
            } else if !targets.isEmpty {
                later.append((relationship, targets))
            }
        }
        let key = try allocateKey(for: entity, requested: requested)
        bindings[0] = .integer(key)
        let sql = "INSERT INTO \(quote(table.name)) (\(columns.map(quote).joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
        do {
            let statement = try connection.cachedStatement(sql)
            try statement.bind(bindings)
            try statement.execute()
        } catch {
            if error.kind == .constraint {
                throw StoreError(.invalidObject, "\(subject): \(error.message)", path: store.path, underlying: error)
            }
            throw StoreError.from(error, path: store.path)
        }
        for (relationship, targets) in later {
            try connectToMany(relationship, from: key, of: entity, to: targets)
        }
        // One-to-one: both sides hold a column; keep the other side pointing back.
        for relationship in entity.relationships where !relationship.declaration.isToMany {
            guard let target = relationships[relationship.name]?.first, let inverse = relationship.declaration.inverse,
                  let owner = relationship.inverseEntity, let ownerEntity = version.entity(named: owner),
                  let inverseRelationship = ownerEntity.relationship(named: inverse), !inverseRelationship.declaration.isToMany,
                  let column = self.table(of: ownerEntity).column(for: .toOne(entity: owner, relationship: inverse)) else { continue }
            try run("UPDATE \(quote(self.table(of: ownerEntity).name)) SET \(quote(column.name)) = ?\(entityTypeAssignment(self.table(of: ownerEntity), owner, inverse, entity)), Z_OPT = Z_OPT + 1 WHERE Z_PK = ?",
                    [.integer(key), .integer(target)])
        }
        // A to-one whose inverse is ordered: append at the end of the destination's list.
        for relationship in entity.relationships where !relationship.declaration.isToMany {
            guard let target = relationships[relationship.name]?.first, let inverse = relationship.declaration.inverse,
                  let owner = relationship.inverseEntity, let inverseRelationship = version.entity(named: owner)?.relationship(named: inverse),
                  inverseRelationship.declaration.isOrdered,
                  let order = table.column(for: .order(entity: owner, relationship: inverse)),
                  let fk = table.column(for: .toOne(entity: relationship.declaredIn, relationship: relationship.name)) else { continue }
            try run("UPDATE \(quote(table.name)) SET \(quote(order.name)) = (SELECT coalesce(max(\(quote(order.name))), 0) + 1 FROM \(quote(table.name)) WHERE \(quote(fk.name)) = ? AND Z_PK <> ?) WHERE Z_PK = ?",
                    [.integer(target), .integer(key), .integer(key)])
        }
        return key
    }

    private func allocateKey(for entity: CompiledEntity, requested: Int64?) throws(StoreError) -> Int64 {
        let table = table(of: entity)
        let rootNumber = Int64(layout.entityNumbers[entity.root]!)
        return try wrap { () throws(SQLiteError) -> Int64 in
            let current = try connection.scalarInt64("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", .integer(rootNumber)) ?? 0
            if let requested {
                guard requested > 0 else {
                    throw SQLiteError(resultCode: 19, message: "primary keys start at 1, found \(requested)", sql: nil, path: nil)
                }
                if try connection.scalarInt64("SELECT 1 FROM \(quote(table.name)) WHERE Z_PK = ?", .integer(requested)) != nil {
                    throw SQLiteError(resultCode: 1555, message: "\(entity.name): primary key \(requested) is already used in \(table.name)", sql: nil, path: nil)
                }
                if requested > current {
                    let update = try connection.cachedStatement("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?")
                    try update.bind([.integer(requested), .integer(rootNumber)])
                    try update.execute()
                }
                return requested
            }
            let update = try connection.cachedStatement("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?")
            try update.bind([.integer(current + 1), .integer(rootNumber)])
            try update.execute()
            return current + 1
        }
    }

    /// The entity number of the row with this key in an entity's table.
    private func entityNumber(of entityName: String, primaryKey: Int64) throws(StoreError) -> Int64 {
        let entity = try entity(entityName)
        let sql = "SELECT Z_ENT FROM \(quote(table(of: entity).name)) WHERE Z_PK = ?"
        return try wrap { () throws(SQLiteError) -> Int64 in
            let statement = try connection.cachedStatement(sql)
            try statement.bind([.integer(primaryKey)])
            defer { statement.reset() }
            _ = try statement.step()
            return statement.int64(at: 0)
        }
    }

    /// `, Z<n>_<NAME> = <number>` when `owner.relationship` keeps its destination's
    /// entity number beside the key, for a destination row of `entity`.
    private func entityTypeAssignment(_ table: StorageLayout.Table, _ owner: String, _ relationship: String, _ entity: CompiledEntity) -> String {
        guard let column = table.column(for: .toOneEntity(entity: owner, relationship: relationship)),
              let number = layout.entityNumbers[entity.name] else { return "" }
        return ", \(quote(column.name)) = \(number)"
    }

    private func connectToMany(_ relationship: CompiledRelationship, from key: Int64, of entity: CompiledEntity, to targets: [Int64]) throws(StoreError) {
        let r = relationship.declaration
        guard let destination = version.entity(named: r.destination) else { return }
        let destinationTable = table(of: destination)
        if !relationship.isManyToMany, let (_, column, order) = layout.reverseColumn(for: relationship, destinationRoot: destination.root) {
            let type = r.inverse.flatMap { inverse in relationship.inverseEntity.map { entityTypeAssignment(destinationTable, $0, inverse, entity) } } ?? ""
            for (position, target) in targets.enumerated() {
                if let order {
                    try run("UPDATE \(quote(destinationTable.name)) SET \(quote(column)) = ?\(type), \(quote(order)) = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?",
                            [.integer(key), .integer(Int64(position + 1)), .integer(target)])
                } else {
                    try run("UPDATE \(quote(destinationTable.name)) SET \(quote(column)) = ?\(type), Z_OPT = Z_OPT + 1 WHERE Z_PK = ?", [.integer(key), .integer(target)])
                }
            }
            return
        }
        guard let (join, mine, theirs) = joinTable(for: relationship) else { return }
        let order = join.column(for: .order(entity: relationship.declaredIn, relationship: r.name))
        // An ordered inverse: the new object goes at the end of each destination's list.
        let inverseOrder = r.inverse.flatMap { inverse in relationship.inverseEntity.flatMap { join.column(for: .order(entity: $0, relationship: inverse)) } }
        for (position, target) in targets.enumerated() {
            var columns = [mine, theirs]
            var values = ["?", "?"]
            var bindings: [DatabaseValue] = [.integer(key), .integer(target)]
            if let order {
                columns.append(order.name)
                values.append("?")
                bindings.append(.integer(Int64(position + 1)))
            }
            if let inverseOrder {
                columns.append(inverseOrder.name)
                values.append("(SELECT coalesce(max(\(quote(inverseOrder.name))), 0) + 1 FROM \(quote(join.name)) WHERE \(quote(theirs)) = ?)")
                bindings.append(.integer(target))
            }
            try run("INSERT OR IGNORE INTO \(quote(join.name)) (\(columns.map(quote).joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))", bindings)
        }
    }
}
