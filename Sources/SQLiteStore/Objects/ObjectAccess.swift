public import DataModel

/// Reads and writes objects of one model version in a store, with the store's own
/// entity numbers. Prepared statements are cached, so loops insert and fetch
/// without building SQL per row.
public final class ObjectAccess {
    /// The store.
    public let store: Store
    /// The model version the store holds.
    public let version: CompiledVersion
    /// The store's layout of that version.
    package let layout: StorageLayout
    var connection: Connection { store.connection }
    /// Per entity, what inserting its objects needs (built at the first insert).
    var insertShapes: [String: InsertShape] = [:]
    /// Numbers for the tables, ordered lists and count queries a batch keeps books on
    /// (``slot(_:)``): its per-object lookups index arrays instead of hashing names.
    private var slots: [String: Int] = [:]
    /// Per many-to-many (`Entity.relationship`), how its join rows are inserted.
    var joinInsertPlans: [String: JoinInsertPlan] = [:]
    /// Whether a batch keeps what it learnt of the store (list ends, row entities,
    /// inverse counts, new owners' empty lists) instead of asking the store each time.
    /// Off, every answer comes from a query: the plain semantics that the caches'
    /// differential test holds them to.
    package var batchKeepsWhatItReads = true
    /// How many targets written ahead of their rows a batch keeps in memory
    /// (``ProvisionalTargets``); a test lowers it to reach the temporary table.
    package var provisionalTargetsInMemory = ProvisionalTargets.defaultMemoryLimit
    /// From how many members a list given whole by its owner's line is checked and set
    /// by one statement each (`json_each` over its keys), not one per member: a
    /// differential test sets it to 1 and to `Int.max` and compares.
    package var setBasedListMinimum = 16
    /// How many entries each of a batch's caches keeps before it starts again empty
    /// (``ObjectBatch/defaultCacheLimit``); a test lowers it to empty them often.
    package var batchCacheLimit = ObjectBatch.defaultCacheLimit
    /// The shape of the last insert: a load of one entity finds it with no lookup.
    private var lastShape: InsertShape?
    /// Per entity, the query `exists(_:primaryKey:)` runs.
    private var existsSQL: [String: String] = [:]
    /// Entity names by the store's entity numbers.
    private let entityNames: [Int: String]

    /// Binds a store to the version it holds.
    public init(store: Store, version: CompiledVersion) throws(StoreError) {
        self.store = store
        self.version = version
        let binding = try store.binding(for: version)
        if let mismatch = binding.mismatch(with: version) {
            throw StoreError(.layoutMismatch, mismatch, path: store.path)
        }
        layout = binding.layout
        entityNames = Dictionary(
            layout.entityNumbers.map { ($0.value, $0.key) }, uniquingKeysWith: { a, b in min(a, b) })
    }

    // MARK: Lookup

    func entity(_ name: String) throws(StoreError) -> CompiledEntity {
        guard let entity = version.entity(named: name) else {
            throw StoreError(
                .unknownEntity,
                """
                unknown entity '\(name)' (model \(version.model) version \(version.version) \
                has \(version.entities.map(\.name).joined(separator: ", ")))
                """, path: store.path)
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
        entityNames[number]
    }

    /// What inserting objects of an entity needs, built once.
    func insertShape(_ name: String) throws(StoreError) -> InsertShape {
        if let last = lastShape, last.entityName == name { return last }
        if let shape = insertShapes[name] {
            lastShape = shape
            return shape
        }
        let shape = InsertShape(try entity(name), access: self)
        insertShapes[name] = shape
        lastShape = shape
        return shape
    }

    /// A small number standing for a table's name, an ordered list's
    /// (``OrderedList/name``) or a count query's text, the same for the access's lifetime.
    func slot(_ name: String) -> Int {
        if let slot = slots[name] { return slot }
        let slot = slots.count
        slots[name] = slot
        return slot
    }

    /// The lists of an ordered to-many kept in `orderColumn` of `table`.
    func orderedList(table: String, ownerColumn: String, orderColumn: String, memberColumn: String = "Z_PK")
        -> OrderedList
    {
        OrderedList(
            table: table, ownerColumn: ownerColumn, orderColumn: orderColumn, memberColumn: memberColumn,
            slot: listSlot(table: table, orderColumn: orderColumn))
    }

    /// The slot of the list whose places are in `orderColumn` of `table`.
    func listSlot(table: String, orderColumn: String) -> Int {
        slot(OrderedList.name(table: table, orderColumn: orderColumn))
    }

    func run(_ sql: String, _ values: [DatabaseValue]) throws(StoreError) {
        do {
            let statement = try connection.cachedStatement(sql)
            try statement.bind(values)
            try statement.execute()
        } catch {
            throw StoreError.from(error, path: store.path)
        }
    }

    func wrap<T>(_ body: () throws(SQLiteError) -> T) throws(StoreError) -> T {
        do { return try body() } catch { throw StoreError.from(error, path: store.path) }
    }

    // MARK: Counting and fetching

    /// The number of objects of an entity (and its subentities, by default).
    public func count(_ entityName: String, includeSubentities: Bool = true) throws(StoreError) -> Int64 {
        let entity = try entity(entityName)
        let numbers = entityNumbers(entity, includeSubentities: includeSubentities)
        let table = table(of: entity)
        return try wrap { () throws(SQLiteError) -> Int64 in
            try connection.scalarInt64(
                """
                SELECT count(*) FROM \(SQLText.q(table.name)) WHERE Z_ENT IN \
                (\(numbers.map(String.init).joined(separator: ",")))
                """
            ) ?? 0
        }
    }

    /// The keys of up to `limit` rows of `entityName`'s table whose `Z_ENT` is no
    /// entity's number (or NULL): they belong to no entity, so no fetch or dump holds them.
    package func keysOfRowsOfNoEntity(table entityName: String, limit: Int) throws(StoreError) -> [Int64] {
        let table = table(of: try entity(entityName))
        let known = layout.entityNumbers.values.sorted().map(String.init).joined(separator: ", ")
        return try wrap { () throws(SQLiteError) -> [Int64] in
            try connection.prepare(
                """
                SELECT Z_PK FROM \(SQLText.q(table.name)) WHERE Z_ENT IS NULL OR Z_ENT NOT IN (\(known)) ORDER BY Z_PK \
                LIMIT \(max(0, limit))
                """
            ).rows().compactMap { $0.first?.int64 }
        }
    }

    /// Whether a row with this primary key exists among `entity` and its subentities.
    public func exists(_ entityName: String, primaryKey: Int64) throws(StoreError) -> Bool {
        let sql: String
        if let known = existsSQL[entityName] {
            sql = known
        } else {
            let entity = try entity(entityName)
            let numbers = entityNumbers(entity, includeSubentities: true)
            sql =
                """
                SELECT 1 FROM \(SQLText.q(table(of: entity).name)) WHERE Z_PK = ? AND Z_ENT IN \
                (\(numbers.map(String.init).joined(separator: ",")))
                """
            existsSQL[entityName] = sql
        }
        return try wrap { () throws(SQLiteError) -> Bool in
            let statement = try connection.cachedStatement(sql)
            try statement.bind([.integer(primaryKey)])
            defer { statement.reset() }
            return try statement.step()
        }
    }

    /// Calls `body` with each object of an entity in primary-key order, reading one
    /// row at a time (memory does not grow with the table).
    public func forEach(
        _ entityName: String, includeSubentities: Bool = true, limit: Int? = nil,
        includeRelationships: Bool = true, _ body: (StoredObject) throws -> Void
    ) throws {
        try forEach(
            entityName, includeSubentities: includeSubentities, limit: limit,
            relationships: { _ in includeRelationships }, body)
    }

    /// ``forEach(_:includeSubentities:limit:includeRelationships:_:)`` reading only the
    /// relationships `relationships` accepts (a dump reads the side the store keeps:
    /// the others cost a query per object).
    public func forEach(
        _ entityName: String, includeSubentities: Bool = true, limit: Int? = nil,
        relationships included: (CompiledRelationship) -> Bool, _ body: (StoredObject) throws -> Void
    ) throws {
        try forEach(
            entityName, includeSubentities: includeSubentities, limit: limit, inListOrder: false,
            relationships: included, body)
    }

    /// ``forEach(_:includeSubentities:limit:relationships:_:)``; with `inListOrder`,
    /// objects come in the order of their place in an ordered to-many that holds them
    /// (``listOrderColumn(of:)``), then by primary key.
    package func forEach(
        _ entityName: String, includeSubentities: Bool = true, limit: Int? = nil, inListOrder: Bool,
        relationships included: (CompiledRelationship) -> Bool, _ body: (StoredObject) throws -> Void
    ) throws {
        let entity = try entity(entityName)
        let table = table(of: entity)
        let numbers = entityNumbers(entity, includeSubentities: includeSubentities)
        let order = (inListOrder ? listOrderColumn(of: entity) : nil).map { "\(SQLText.q($0)), " } ?? ""
        var sql =
            """
            SELECT * FROM \(SQLText.q(table.name)) WHERE Z_ENT IN (\(numbers.map(String.init).joined(separator: ","))) \
            ORDER BY \(order)Z_PK
            """
        if let limit { sql += " LIMIT \(max(0, limit))" }
        let statement = try connection.prepare(sql)
        let names = statement.columnNames
        let index = Dictionary(
            names.enumerated().map { ($0.element, Int32($0.offset)) }, uniquingKeysWith: { a, _ in a })
        guard let pkIndex = index["Z_PK"], let entIndex = index["Z_ENT"] else { return }
        /// Per entity number: the entity and its stored attributes with their columns,
        /// looked up once rather than per row.
        var shapes:
            [Int: (
                entity: CompiledEntity, attributes: [(CompiledAttribute, Int32)], relationships: [CompiledRelationship],
                positions: [(String, Int32)]
            )?] =
                [:]
        while try statement.step() {
            let number = Int(statement.int64(at: entIndex))
            if shapes[number] == nil {
                shapes[number] = nameOfEntity(number: number).flatMap { version.entity(named: $0) }.map { rowEntity in
                    (
                        rowEntity,
                        rowEntity.attributes.compactMap { attribute -> (CompiledAttribute, Int32)? in
                            guard !attribute.declaration.isTransient,
                                let column = table.column(
                                    for: .attribute(entity: attribute.declaredIn, property: attribute.name)),
                                let i = index[column.name]
                            else { return nil }
                            return (attribute, i)
                        }, rowEntity.relationships.filter { !$0.declaration.isTransient && included($0) },
                        inListOrder ? positionColumns(of: rowEntity, in: table, index: index, included: included) : []
                    )
                }
            }
            guard let shape = shapes[number], let (rowEntity, attributes, relationships, positions) = shape else {
                continue
            }
            let name = rowEntity.name
            var object = StoredObject(entity: name, primaryKey: statement.int64(at: pkIndex))
            object.values.reserveCapacity(attributes.count)
            for (attribute, i) in attributes {
                if let bad = statement.invalidUTF8Offset(at: i) {
                    throw Self.invalidText(
                        entity: name, key: object.primaryKey, attribute: attribute.name, offset: bad, path: store.path)
                }
                if let value = try ValueCoding.attributeValue(
                    statement.value(at: i), as: attribute.declaration, storePath: store.path)
                {
                    object.values[attribute.name] = value
                }
            }
            for relationship in relationships {
                object.relationships[relationship.name] = try destinations(
                    of: relationship, from: object.primaryKey,
                    row: statement, index: index, table: table)
            }
            for (name, i) in positions where !statement.isNull(at: i) && object.relationships[name]?.isEmpty == false {
                object.positions[name] = statement.int64(at: i)
            }
            try body(object)
        }
    }

    /// The error for TEXT that is not UTF-8 in an attribute's column: reading it
    /// would put U+FFFD in place of its bad bytes, and writing that out (a dump, a
    /// fetch) would change the value without a word.
    package static func invalidText(entity: String, key: Int64, attribute: String, offset: Int, path: String)
        -> StoreError
    {
        StoreError(
            .invalidValue,
            """
            \(entity) \(key): \(attribute): the stored text is not UTF-8 (byte \(offset + 1) cannot start or continue \
            a UTF-8 character); it cannot be read without changing it
            """, path: path)
    }

    /// Every object of an entity, in primary-key order.
    public func fetch(_ entityName: String, includeSubentities: Bool = true, limit: Int? = nil) throws -> [StoredObject]
    {
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
        let statement = try connection.prepare(
            """
            SELECT Z_ENT FROM \(SQLText.q(table.name)) WHERE Z_PK = ? AND Z_ENT IN \
            (\(numbers.map(String.init).joined(separator: ",")))
            """
        )
        try statement.bind([.integer(primaryKey)])
        guard try statement.step(), let name = nameOfEntity(number: Int(statement.int64(at: 0))) else { return nil }
        try forEach(name, includeSubentities: false, limit: nil) { object in
            if object.primaryKey == primaryKey { found = object }
        }
        return found
    }

    private func destinations(
        of relationship: CompiledRelationship, from primaryKey: Int64, row: Statement,
        index: [String: Int32], table: StorageLayout.Table
    ) throws -> [Int64] {
        let r = relationship.declaration
        if !r.isToMany {
            guard let column = table.column(for: .toOne(entity: relationship.declaredIn, relationship: r.name)),
                let i = index[column.name], !row.isNull(at: i)
            else { return [] }
            return [row.int64(at: i)]
        }
        guard let destination = version.entity(named: r.destination) else { return [] }
        let destinationTable = self.table(of: destination)
        if !relationship.isManyToMany,
            let (_, column, order) = layout.reverseColumn(for: relationship, destinationRoot: destination.root)
        {
            let sql =
                """
                SELECT Z_PK FROM \(SQLText.q(destinationTable.name)) WHERE \(SQLText.q(column)) = ? ORDER BY \
                \(order.map { "\(SQLText.q($0)), " } ?? "")Z_PK
                """
            return try primaryKeys(sql, primaryKey)
        }
        guard let (join, mine, theirs) = joinTable(for: relationship) else { return [] }
        let order = join.column(for: .order(entity: relationship.declaredIn, relationship: r.name))
        let sql = """
            SELECT \(SQLText.q(theirs)) FROM \(SQLText.q(join.name)) WHERE \(SQLText.q(mine)) = ? \
            ORDER BY \(order.map { "\(SQLText.q($0.name)), " } ?? "")\(SQLText.q(theirs))
            """
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
    package func isStoredSide(_ relationship: CompiledRelationship) -> Bool {
        let r = relationship.declaration
        if r.inverse == nil { return true }
        if !r.isToMany {
            // One-to-one: both rows hold a column; a dump writes the pair on the side
            // whose entity (then relationship) name sorts first, and load sets both.
            guard let owner = relationship.inverseEntity, let inverse = r.inverse,
                let other = version.entity(named: owner)?.relationship(named: inverse), !other.declaration.isToMany
            else { return true }
            return (relationship.declaredIn, r.name) <= (owner, inverse)
        }
        if !relationship.isManyToMany { return false }
        return layout.tables.contains { $0.joinRelationship == "\(relationship.declaredIn).\(r.name)" }
    }

    /// The to-ones of `entity` (those `included`) whose inverse is an ordered to-many,
    /// each with the result column of its order column in the row (`positions`).
    private func positionColumns(
        of entity: CompiledEntity, in table: StorageLayout.Table, index: [String: Int32],
        included: (CompiledRelationship) -> Bool
    ) -> [(String, Int32)] {
        entity.relationships.compactMap { relationship -> (String, Int32)? in
            guard !relationship.declaration.isToMany, !relationship.declaration.isTransient, included(relationship),
                let inverse = relationship.declaration.inverse, let owner = relationship.inverseEntity,
                version.entity(named: owner)?.relationship(named: inverse)?.declaration.keepsOrder == true,
                let column = table.column(for: .order(entity: owner, relationship: inverse)), let i = index[column.name]
            else { return nil }
            return (relationship.name, i)
        }
    }

    /// The order column of the first to-one of `entity` (by name) whose inverse is an
    /// ordered to-many (`Song.playlist` of `Playlist.songs`): the column on this
    /// entity's rows that keeps each row's place in its owner's list. A dump writes
    /// rows in this order, so that `load`, which puts each new row at the end of its
    /// owner's list, rebuilds every list in its order. Nil when there is none.
    package func listOrderColumn(of entity: CompiledEntity) -> String? {
        let table = table(of: entity)
        for relationship in entity.relationships.sorted(by: { $0.name < $1.name })
        where !relationship.declaration.isToMany && !relationship.declaration.isTransient {
            guard let inverse = relationship.declaration.inverse, let owner = relationship.inverseEntity,
                version.entity(named: owner)?.relationship(named: inverse)?.declaration.keepsOrder == true,
                let column = table.column(for: .order(entity: owner, relationship: inverse))
            else { continue }
            return column.name
        }
        return nil
    }

    /// The join table storing a to-many relationship, with the column holding this
    /// side's keys and the column holding the destination's keys.
    func joinTable(for relationship: CompiledRelationship) -> (
        table: StorageLayout.Table, mine: String, theirs: String
    )? {
        layout.joinTable(for: relationship)
    }
}
