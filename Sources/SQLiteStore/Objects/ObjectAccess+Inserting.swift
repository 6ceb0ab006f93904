public import DataModel

// The rules an object must follow to be inserted live here, once: `insert` (one
// object) and `insertAll` (a batch, as `migrate load` uses) both go through
// `insertRow`, which checks what one object can be checked for as it is written,
// and `checkBatch`, which checks what other objects of the batch can still change
// (a required relationship set from its inverse side) once every object is written.
extension ObjectAccess {
    // MARK: Inserting

    /// Inserts an object, checking it against the model: value types and ranges (NaN
    /// is refused), required attributes (defaults fill missing ones), relationship
    /// targets (they exist and are of the destination entity), cardinality on both
    /// sides, one owner per destination where the store keeps one, and uniqueness
    /// constraints. Returns the new primary key (allocated through `Z_PRIMARYKEY`
    /// unless given). A refused object leaves the store as it was.
    @discardableResult
    public func insert(
        _ entityName: String, values: [String: AttributeValue?] = [:], relationships: [String: [Int64]] = [:],
        primaryKey requested: Int64? = nil
    ) throws(StoreError) -> Int64 {
        var key: Int64 = 0
        do {
            try insertAll { batch in
                key =
                    try batch.insert(
                        entityName, values: values, relationships: relationships, primaryKey: requested, source: 1) ?? 0
            }
        } catch let refused as ObjectRefusals {
            throw StoreError(
                .invalidObject, refused.refusals.first?.description ?? "\(entityName): refused", path: store.path)
        } catch {
            throw storeError(error)
        }
        return key
    }

    /// Inserts a batch of objects all or nothing, in one transaction (a savepoint
    /// inside a transaction already open): `body` inserts them through the batch,
    /// and every object is checked as ``insert(_:values:relationships:primaryKey:)``
    /// checks one, against the stored objects and those inserted before it. When any
    /// object is refused, the batch goes on to find every refusal, then writes
    /// nothing and throws ``ObjectRefusals``. Returns the number of objects inserted.
    /// - Parameters:
    ///   - describeSource: how messages name an object's source, `{ "line \($0)" }`.
    ///   - limit: how many refusals to report (the first by source); the others are counted.
    @discardableResult
    package func insertAll(
        describingSources describeSource: @escaping (Int) -> String = { "object \($0)" },
        keeping limit: Int = 20, _ body: (ObjectBatch) throws -> Void
    ) throws -> Int {
        let batch = ObjectBatch(access: self, describeSource: describeSource, limit: limit)
        defer {
            for shape in insertShapes.values { shape.releaseStatements() }
            for plan in joinInsertPlans.values { plan.releaseStatement() }
        }
        // A batch writes rows, join rows and index entries all over the file: with
        // SQLite's default page cache (2 MB) a load of books with ordered tags spent a
        // fifth of its time copying pages back from the kernel. 12 MB for the batch.
        let cacheSize = try wrap { () throws(SQLiteError) in try connection.scalarInt64("PRAGMA cache_size") }
        if let cacheSize, cacheSize > -Self.batchCacheKiB {
            try wrap { () throws(SQLiteError) in try connection.execute("PRAGMA cache_size = -\(Self.batchCacheKiB)") }
        }
        defer {
            if let cacheSize, cacheSize > -Self.batchCacheKiB {
                try? connection.execute("PRAGMA cache_size = \(cacheSize)")
            }
        }
        let work = { () throws -> Int in
            try body(batch)
            try self.resolveDeferredReferences(batch)
            if batch.reservesPlaces { try self.run("DELETE FROM temp.mm_reserved_places", []) }
            try self.checkProvisionalTargets(batch)
            try self.writeHighestKeys(batch.highestKeys)
            try self.checkBatch(batch)
            if let refused = batch.refusals { throw refused }
            return batch.insertedCount
        }
        // Exclusive, as apply and batch requests begin: in rollback-journal mode the
        // wait for readers is at BEGIN, bounded by the busy timeout, and not at COMMIT,
        // after all the work, where a reader would make it fail.
        return connection.isInTransaction
            ? try connection.savepoint("ObjectAccess.insertAll", work)
            : try connection.transaction(.exclusive, work)
    }

    /// The page cache of a batch, in KiB (`PRAGMA cache_size` takes it negated).
    static let batchCacheKiB = 12288

    private func storeError(_ error: any Error) -> StoreError {
        switch error {
        case let error as StoreError: error
        case let error as SQLiteError: StoreError.from(error, path: store.path)
        default: StoreError(.sqlite, String(describing: error), path: store.path)
        }
    }

    /// Checks one object and writes it; throws `RowRefusal` (nothing written) when the
    /// model refuses it.
    func insertRow(
        _ shape: InsertShape, values: [String: AttributeValue?], relationships: [String: [Int64]],
        positions: [String: Int64] = [:], primaryKey requested: Int64?, batch: ObjectBatch
    ) throws -> Int64 {
        let entity = shape.entity
        let subject = entity.name
        if entity.isAbstract {
            throw RowRefusal(subject, "the entity is abstract and cannot have objects of its own")
        }
        if values.keys.contains(where: { !shape.attributeNames.contains($0) }) {
            for name in values.keys.sorted() where entity.attribute(named: name) == nil {
                throw RowRefusal("\(subject).\(name)", "no such attribute")
            }
        }
        return try insertRow(
            shape, given: shape.attributes.map { values[$0.attribute.name] }, relationships: relationships,
            positions: positions, primaryKey: requested, batch: batch)
    }

    /// The entity can have objects and every relationship named is one of its own.
    private func checkKinds(_ shape: InsertShape, relationships: [String: [Int64]]) throws {
        if shape.entity.isAbstract {
            throw RowRefusal(shape.entityName, "the entity is abstract and cannot have objects of its own")
        }
        if relationships.keys.contains(where: { !shape.hasRelationship($0) }) {
            for name in relationships.keys.sorted() where shape.entity.relationship(named: name) == nil {
                throw RowRefusal("\(shape.entityName).\(name)", "no such relationship")
            }
        }
    }

    /// ``insertRow(_:values:relationships:primaryKey:batch:)`` with the values in the
    /// order of `shape.attributes`: `.none` for an attribute not given (its default
    /// applies), `.some(nil)` for one given as nil.
    func insertRow(
        _ shape: InsertShape, given values: [AttributeValue??], relationships: [String: [Int64]],
        positions: [String: Int64] = [:], primaryKey requested: Int64?, batch: ObjectBatch, optimistic: Bool = true
    ) throws -> Int64 {
        // `shape.entity` is read field by field: a copy of the whole description per
        // object costs a retain and a release of each of its strings and arrays.
        let subject = shape.entityName
        try checkKinds(shape, relationships: relationships)
        // Z_PK is bound once the object has passed every check, so that a refused
        // object uses up no key (Z_PRIMARYKEY is written only for real inserts).
        // The shape's buffer, taken and given back: no allocation per object.
        var bindings = shape.bindingsBuffer
        shape.bindingsBuffer = []
        defer { shape.bindingsBuffer = bindings }
        bindings.removeAll(keepingCapacity: true)
        bindings.reserveCapacity(shape.columns.count)
        bindings.append(.null)
        bindings.append(.integer(shape.entityNumber))
        bindings.append(.integer(1))
        let resolved = try bindAttributes(shape, given: values, into: &bindings)
        let allRelationships = relationships
        var relationships = relationships
        // The key the row will have: a member that already names it (written ahead of
        // this line) is this object's, not another owner's.
        let highest = try batch.highestKey(root: shape.rootNumber)
        let prospective = requested ?? (highest < Int64.max ? highest + 1 : nil)
        let bound = try bindToOnes(
            shape, relationships: relationships, batch: batch, prospective: prospective, optimistic: optimistic,
            into: &bindings)
        for name in bound.waiting.keys { relationships[name] = nil }
        if !shape.uniqueness.isEmpty, !shape.uniquenessIsEnforced {
            try checkUniqueness(shape, values: resolved, relationships: relationships, batch: batch)
        }
        let key = try newKey(requested: requested, highest: highest, subject: subject)
        bindings[0] = .integer(key)
        var places = shape.placesBuffer
        shape.placesBuffer = []
        defer { shape.placesBuffer = places }
        try placeNewMember(
            shape, relationships: relationships, positions: positions, into: &bindings, places: &places, batch: batch)
        if bound.unchecked.isEmpty {
            try executeInsert(
                shape, bindings, requested: requested, given: values, relationships: relationships, batch: batch)
        } else if try !insertWithListsWhole(
            shape, bindings, key: key, requested: requested, given: values, relationships: relationships, bound: bound,
            batch: batch)
        {
            // A member of a long list does not pass: the object again, member by member.
            return try insertRow(
                shape, given: values, relationships: allRelationships, positions: positions, primaryKey: requested,
                batch: batch,
                optimistic: false)
        }
        for place in places {
            batch.noteListEnd(place.list, owner: place.owner, at: place.place, appended: place.appended)
        }
        try noteWritten(shape, key: key, ahead: bound.ahead, batch: batch)
        for case let rule? in shape.targets where rule.bindsToOne {
            if let slot = rule.inverseCountSlot, let target = relationships[rule.name]?.first {
                batch.addInverseMember(slot, target: target)
            }
        }
        if key > highest { batch.advanceHighestKey(root: shape.rootNumber, to: key) }
        if !bound.waiting.isEmpty {
            let reserved = try reservePlaces(
                shape, key: key, waiting: bound.waiting, positions: positions, batch: batch)
            let reference = DeferredReference(
                entityName: shape.entityName, key: key, relationships: bound.waiting, positions: reserved,
                source: batch.currentSource)
            try wrap { () throws(SQLiteError) in try batch.deferredReferences.append(reference, connection: connection)
            }
        }
        for (relationship, targets) in bound.later {
            try connectToMany(relationship, from: key, of: shape.entity, to: targets, batch: batch)
        }
        guard !relationships.isEmpty, shape.hasOneToOneInverses else { return key }
        try updateOneToOneInverses(of: key, in: shape, relationships: relationships)
        return key
    }

    /// Writes the row and sets its long lists given whole, each by one `UPDATE` of only
    /// the members that pass the checks (``TargetRule/freeMemberCondition``), under a
    /// savepoint: false, with nothing written, when a member did not pass. The check
    /// and the setting were two statements that each found every member by its key.
    private func insertWithListsWhole(
        _ shape: InsertShape, _ bindings: [DatabaseValue], key: Int64, requested: Int64?,
        given values: [AttributeValue??],
        relationships: [String: [Int64]], bound: BoundTargets, batch: ObjectBatch
    ) throws -> Bool {
        try run("SAVEPOINT mm_list_whole", [])
        do {
            try executeInsert(
                shape, bindings, requested: requested, given: values, relationships: relationships, batch: batch)
            for (rule, targets) in bound.unchecked {
                guard
                    try setListWhole(
                        rule.relationship, from: key, of: shape.entity, to: targets, batch: batch,
                        onlyIf: rule.freeMemberCondition)
                else {
                    try run("ROLLBACK TO mm_list_whole", [])
                    try run("RELEASE mm_list_whole", [])
                    return false
                }
            }
            try run("RELEASE mm_list_whole", [])
            return true
        } catch {
            try? connection.execute("ROLLBACK TO mm_list_whole")
            try? connection.execute("RELEASE mm_list_whole")
            throw error
        }
    }

    /// The key of a new row: the one asked for (`_pk`), checked, else one past the
    /// highest in use.
    private func newKey(requested: Int64?, highest: Int64, subject: String) throws -> Int64 {
        if let requested, requested <= 0 {
            throw RowRefusal(subject, "primary keys start at 1, found \(requested)")
        }
        if let requested, requested > Self.highestRequestedKey {
            throw RowRefusal(
                subject,
                """
                primary key \(requested) is too large: at most \(Self.highestRequestedKey) (2^53, the largest integer \
                every JSON reader keeps exactly), which leaves room for the keys of later objects
                """)
        }
        let key: Int64
        if let requested {
            key = requested
        } else {
            // A store written elsewhere may hold any key: never trap on Z_MAX + 1.
            let (next, overflow) = highest.addingReportingOverflow(1)
            guard !overflow else {
                throw RowRefusal(
                    subject,
                    """
                    no primary key left: the highest key in use is \(highest), the largest SQLite can store; \
                    give the object a free key with "_pk"
                    """)
            }
            key = next
        }
        return key
    }

    /// What the batch notes of a row just written: the targets it named ahead of their
    /// rows (checked when the batch ends) and their lists' owners, and its entity.
    private func noteWritten(_ shape: InsertShape, key: Int64, ahead: [(TargetRule, Int64)], batch: ObjectBatch) throws
    {
        for (rule, target) in ahead {
            try wrap { () throws(SQLiteError) in
                try batch.provisionalTargets.note(
                    target, rule: rule, source: batch.currentSource, connection: connection)
            }
            for membership in shape.memberships where membership.relationship == rule.name {
                batch.noteNamedOwner(target, of: membership.list)
            }
        }
        guard shape.isDestination else { return }
        if shape.aloneInTable {
            // Known from the batch's keys (a "no row" noted before this line is wrong now).
            batch.forgetRowEntity(table: shape.tableSlot, key: key)
        } else {
            batch.noteRowEntity(shape.entityNumber, table: shape.tableSlot, key: key)
        }
    }

    /// Checks each attribute's value (its default when not given) and appends those
    /// with a column to `bindings`; returns every resolved value when uniqueness
    /// constraints need a query before the `INSERT` (none otherwise: a unique index
    /// that fires has them resolved again, by ``resolvedValues(_:given:)``).
    ///
    /// Per object and attribute it reads only the shape's reference-free plans; the
    /// attribute's description (its default, limits and name) only when they apply.
    private func bindAttributes(
        _ shape: InsertShape, given values: [AttributeValue??], into bindings: inout [DatabaseValue]
    ) throws -> [AttributeValue?] {
        let checksUniqueness = !shape.uniqueness.isEmpty && !shape.uniquenessIsEnforced
        var resolved: [AttributeValue?] = []
        if checksUniqueness { resolved.reserveCapacity(shape.plans.count) }
        for position in shape.plans.indices {
            let plan = shape.plans[position]
            let given = values[position]
            var value: AttributeValue? = given ?? nil
            if given == nil, plan.hasDefault { value = shape.attributes[position].attribute.declaration.defaultValue }
            if let v = value,
                let problem = ValueCoding.check(v, fits: plan.type)
                    ?? (plan.hasLimits
                        ? ValueCoding.checkLimits(v, of: shape.attributes[position].attribute.declaration) : nil)
            {
                throw RowRefusal("\(shape.entityName).\(shape.attributes[position].attribute.name)", problem)
            }
            if value == nil, !plan.isOptional {
                throw RowRefusal(
                    "\(shape.entityName).\(shape.attributes[position].attribute.name)", "a value is required")
            }
            if checksUniqueness { resolved.append(value) }
            guard plan.hasColumn else { continue }
            if plan.isExternalBinary, case .binary(let bytes)? = value {
                bindings.append(.blob([1] + bytes))
            } else {
                bindings.append(ValueCoding.databaseValue(value, as: plan.type))
            }
        }
        return resolved
    }

    /// The values an object's attributes take: those given, defaults for the others.
    private func resolvedValues(_ shape: InsertShape, given values: [AttributeValue??]) -> [AttributeValue?] {
        shape.attributes.indices.map { position in
            if let given = values[position] { return given }
            return shape.attributes[position].attribute.declaration.defaultValue
        }
    }

    /// Runs the shape's INSERT with `bindings`; a constraint that fires becomes the
    /// refusal naming what holds the key or the unique values.
    private func executeInsert(
        _ shape: InsertShape, _ bindings: [DatabaseValue], requested: Int64?, given: [AttributeValue??],
        relationships: [String: [Int64]], batch: ObjectBatch
    ) throws {
        do {
            let statement: Statement
            if let held = shape.insertStatement {
                statement = held
            } else {
                statement = try connection.cachedStatement(shape.insertSQL)
                shape.insertStatement = statement
            }
            try statement.bind(bindings)
            try statement.execute()
        } catch {
            // The key is taken (the primary key's constraint says so, with no query
            // per object before it), or a constraint of the store's own that the
            // model does not describe.
            if error.kind == .constraint {
                // A unique index fired: the same query as for the others names the holder.
                if !shape.uniqueness.isEmpty, shape.uniquenessIsEnforced {
                    try checkUniqueness(
                        shape, values: resolvedValues(shape, given: given), relationships: relationships, batch: batch)
                }
                if let requested, let holder = try entityOfRow(in: shape.table, key: requested) {
                    throw RowRefusal(
                        shape.entity.name,
                        "primary key \(requested) is already used by \(batch.describe(holder, requested))")
                }
                throw RowRefusal(shape.entity.name, error.message)
            }
            throw StoreError.from(error, path: store.path)
        }
    }

    // MARK: Helpers

    /// "a" or "an", for an entity name.
    static func article(_ name: String) -> String {
        "AEIOU".contains(name.first ?? "x") ? "an" : "a"
    }

    /// The entity of the row with this key in `table`, if there is one.
    func entityOfRow(in table: StorageLayout.Table, key: Int64) throws(StoreError) -> String? {
        let sql = "SELECT Z_ENT FROM \(SQLText.q(table.name)) WHERE Z_PK = ?"
        let number = try wrap { () throws(SQLiteError) -> Int64? in
            let statement = try connection.cachedStatement(sql)
            try statement.bind([.integer(key)])
            defer { statement.reset() }
            return try statement.step() ? statement.int64(at: 0) : nil
        }
        return number.map { nameOfEntity(number: Int($0)) ?? "object" }
    }

    /// The entity number (`Z_ENT`, 0 for NULL) of the destination row with this key, if
    /// there is one: the batch's record of it, else the store's.
    func rowEntity(_ key: Int64, rule: TargetRule, batch: ObjectBatch) throws(StoreError) -> Int64? {
        if let number = batch.rowEntity(table: rule.destinationSlot, key: key) {
            return number == ObjectBatch.noRow ? nil : number
        }
        let number = try wrap { () throws(SQLiteError) -> Int64? in
            let statement = try connection.cachedStatement(rule.destinationEntitySQL)
            try statement.bind([.integer(key)])
            defer { statement.reset() }
            return try statement.step() ? statement.int64(at: 0) : nil
        }
        batch.noteRowEntity(number ?? ObjectBatch.noRow, table: rule.destinationSlot, key: key)
        return number
    }

    /// The entity of the row a query (`SELECT Z_ENT … WHERE Z_PK = ?`) finds, if there is one.
    func entityOfRow(sql: String, key: Int64) throws(StoreError) -> String? {
        try keyOfRow(sql: sql, key).map { nameOfEntity(number: Int($0)) ?? "object" }
    }

    /// The entity number and owner (`SELECT Z_ENT, owner … WHERE Z_PK = ?`) of a row, if
    /// there is one.
    func entityAndOwner(sql: String, _ key: Int64) throws(StoreError) -> (entity: Int64, owner: Int64?)? {
        try wrap { () throws(SQLiteError) -> (entity: Int64, owner: Int64?)? in
            let statement = try connection.cachedStatement(sql)
            try statement.bind([.integer(key)])
            defer { statement.reset() }
            guard try statement.step() else { return nil }
            return (statement.int64(at: 0), statement.isNull(at: 1) ? nil : statement.int64(at: 1))
        }
    }

    /// The non-null integer a one-parameter query finds first, if any.
    func keyOfRow(sql: String, _ value: Int64) throws(StoreError) -> Int64? {
        try wrap { () throws(SQLiteError) -> Int64? in
            let statement = try connection.cachedStatement(sql)
            try statement.bind([.integer(value)])
            defer { statement.reset() }
            guard try statement.step(), !statement.isNull(at: 0) else { return nil }
            return statement.int64(at: 0)
        }
    }

    func scalar(_ sql: String, _ value: Int64) throws(StoreError) -> Int64 {
        try wrap { () throws(SQLiteError) -> Int64 in
            let statement = try connection.cachedStatement(sql)
            try statement.bind([.integer(value)])
            defer { statement.reset() }
            return try statement.step() ? statement.int64(at: 0) : 0
        }
    }

    // MARK: Writing

    /// The largest `_pk` an object may ask for: 2^53. Keys above it do not survive
    /// JSON readers that hold numbers as doubles (RFC 8259 §6), and a key near
    /// `Int64.max` would leave no key for the objects loaded after it.
    package static let highestRequestedKey: Int64 = 1 << 53

    /// `Z_PRIMARYKEY.Z_MAX` of a root entity, by its number.
    func highestKeyInUse(root number: Int64) throws(StoreError) -> Int64 {
        try wrap { () throws(SQLiteError) -> Int64 in
            try connection.scalarInt64("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", .integer(number)) ?? 0
        }
    }

    /// Writes the highest keys a batch used back to `Z_PRIMARYKEY`.
    func writeHighestKeys(_ keys: [Int64: Int64]) throws(StoreError) {
        for (number, key) in keys.sorted(by: { $0.key < $1.key }) {
            try run(
                "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ? AND (Z_MAX IS NULL OR Z_MAX < ?)",
                [.integer(key), .integer(number), .integer(key)])
        }
    }

    /// The entity number of the row with this key in an entity's table.
    func entityNumber(of entityName: String, primaryKey: Int64) throws(StoreError) -> Int64 {
        let entity = try entity(entityName)
        let sql = "SELECT Z_ENT FROM \(SQLText.q(table(of: entity).name)) WHERE Z_PK = ?"
        return try wrap { () throws(SQLiteError) -> Int64 in
            let statement = try connection.cachedStatement(sql)
            try statement.bind([.integer(primaryKey)])
            defer { statement.reset() }
            _ = try statement.step()
            return statement.int64(at: 0)
        }
    }
}
