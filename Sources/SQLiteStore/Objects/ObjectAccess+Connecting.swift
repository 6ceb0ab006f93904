import DataModel

// Relationships set beside a row's own columns: the inverse column of a one-to-one,
// to-many destinations (their rows, or join rows), and places in ordered lists. A
// member appended to an ordered list takes one past the list's highest place, which
// the batch keeps per list and owner (ObjectBatch.listEnds): appending costs no
// query, where a `max()` over the list per member made a load quadratic in the length
// of its lists (a million books in a few folders: minutes).
extension ObjectAccess {
    /// The order value that puts a member at the end of `owner`'s list: one past the
    /// list's highest place (the batch's record of it, else the store's), leaving out
    /// `member` when its row is already written. Refused (the member's `field`) when the
    /// highest place is the largest integer (a `_position` given so): none is after it.
    func endOfList(_ list: OrderedList, owner: Int64, excluding member: Int64? = nil, field: String, batch: ObjectBatch)
        throws -> Int64
    {
        func after(_ end: Int64) throws -> Int64 {
            guard end < Int64.max else {
                throw RowRefusal(
                    field,
                    "no place is left in the list of object \(owner): a member is at \(end), the last place there is")
            }
            return end + 1
        }
        if let end = try batch.listEnd(list, owner: owner) { return try after(end) }
        let stored = try wrap { () throws(SQLiteError) -> Int64 in
            let statement = try connection.cachedStatement(member == nil ? list.endSQL : list.endExcludingSQL)
            try statement.bind(member.map { [.integer(owner), .integer($0)] } ?? [.integer(owner)])
            defer { statement.reset() }
            return try statement.step() ? statement.int64(at: 0) : 0
        }
        let end = max(stored, try reservedEnd(list, owner: owner, batch: batch))
        // Kept even when the member is then refused and never written: a thousand
        // refused members of one long list read its end once, not a thousand times.
        if member == nil { batch.noteListEnd(list.slot, owner: owner, at: end, appended: true) }
        return try after(end)
    }

    /// The places of a new row in the ordered lists its to-ones put it in, bound into
    /// its `INSERT` (`positions`: the order value a dump wrote, else the list's end).
    /// Sets `places` (a buffer the caller keeps) to them, for
    /// ``ObjectBatch/noteListEnd(_:owner:at:appended:)`` once the row is written.
    func placeNewMember(
        _ shape: InsertShape, relationships: [String: [Int64]], positions: [String: Int64],
        into bindings: inout [DatabaseValue],
        places: inout [ListPlace], batch: ObjectBatch
    ) throws {
        places.removeAll(keepingCapacity: true)
        for membership in shape.memberships {
            guard let owner = Self.given(relationships, membership.relationship)?.first else { continue }
            let given = positions.isEmpty ? nil : positions[membership.relationship]
            let place: Int64
            if let given {
                place = given
            } else {
                place = try endOfList(
                    membership.list, owner: owner, field: shape.entityName + "." + membership.relationship, batch: batch
                )
            }
            bindings[membership.binding] = .integer(place)
            places.append(ListPlace(list: membership.list.slot, owner: owner, place: place, appended: given == nil))
        }
    }

    /// The places of a row already written whose to-ones are set after it (a deferred
    /// reference), as ``placeNewMember(_:relationships:positions:into:places:batch:)`` gives a
    /// new row, for the caller's `UPDATE` (which then notes them; it forgets the ends of
    /// the lists the row was in before: ``currentOwners(_:key:relationships:)``).
    func writtenMemberPlaces(
        _ shape: InsertShape, key: Int64, relationships: [String: [Int64]], positions: [String: Int64],
        batch: ObjectBatch
    ) throws -> [(InsertShape.OrderedMembership, ListPlace)] {
        var places: [(InsertShape.OrderedMembership, ListPlace)] = []
        for membership in shape.memberships {
            guard let owner = relationships[membership.relationship]?.first else { continue }
            let given = positions[membership.relationship]
            let place: Int64
            if let given {
                place = given
            } else {
                place = try endOfList(
                    membership.list, owner: owner, excluding: key,
                    field: shape.entityName + "." + membership.relationship, batch: batch)
            }
            places.append(
                (membership, ListPlace(list: membership.list.slot, owner: owner, place: place, appended: given == nil)))
        }
        return places
    }

    /// The owners a written row has in the ordered lists of its to-ones (before a
    /// deferred reference changes them).
    func currentOwners(_ shape: InsertShape, key: Int64, relationships: [String: [Int64]]) throws(StoreError) -> [(
        Int, Int64
    )] {
        var owners: [(Int, Int64)] = []
        for membership in shape.memberships where relationships[membership.relationship]?.isEmpty == false {
            let owner = try wrap { () throws(SQLiteError) -> Int64? in
                let statement = try connection.cachedStatement(membership.ownerSQL)
                try statement.bind([.integer(key)])
                defer { statement.reset() }
                return try statement.step() && !statement.isNull(at: 0) ? statement.int64(at: 0) : nil
            }
            if let owner { owners.append((membership.list.slot, owner)) }
        }
        return owners
    }

    /// The other side of a new row's one-to-ones: the inverse column points back.
    func updateOneToOneInverses(of key: Int64, in shape: InsertShape, relationships: [String: [Int64]]) throws {
        let entity = shape.entity
        for relationship in entity.relationships where !relationship.declaration.isToMany {
            guard let target = relationships[relationship.name]?.first, let inverse = relationship.declaration.inverse,
                let owner = relationship.inverseEntity, let ownerEntity = version.entity(named: owner),
                let inverseRelationship = ownerEntity.relationship(named: inverse),
                !inverseRelationship.declaration.isToMany,
                let column = self.table(of: ownerEntity).column(for: .toOne(entity: owner, relationship: inverse))
            else { continue }
            try run(
                """
                UPDATE \(SQLText.q(self.table(of: ownerEntity).name)) SET \(SQLText.q(column.name)) = \
                ?\(entityTypeAssignment(self.table(of: ownerEntity), owner, inverse, entity)), Z_OPT = \
                \(SchemaSQL.incremented("Z_OPT")) WHERE Z_PK = ?
                """,
                [.integer(key), .integer(target)])
        }
    }

    /// `, Z<n>_<NAME> = <number>` when `owner.relationship` keeps its destination's
    /// entity number beside the key, for a destination row of `entity`.
    private func entityTypeAssignment(
        _ table: StorageLayout.Table, _ owner: String, _ relationship: String, _ entity: CompiledEntity
    ) -> String {
        guard let column = table.column(for: .toOneEntity(entity: owner, relationship: relationship)),
            let number = layout.entityNumbers[entity.name]
        else { return "" }
        return ", \(SQLText.q(column.name)) = \(number)"
    }

    /// Connects a row to the destinations of one of its to-many relationships: their
    /// rows take its key (and their place, for an ordered list), or join rows are
    /// inserted, at the end of each destination's list when the inverse is ordered.
    func connectToMany(
        _ relationship: CompiledRelationship, from key: Int64, of entity: CompiledEntity, to targets: [Int64],
        batch: ObjectBatch,
        reserved: [String: Int64] = [:]
    ) throws {
        let r = relationship.declaration
        guard let destination = version.entity(named: r.destination) else { return }
        // Members move between lists here: the counts of inverse sides are read again.
        batch.forgetInverseCounts()
        if !relationship.isManyToMany, layout.reverseColumn(for: relationship, destinationRoot: destination.root) != nil
        {
            _ = try setListWhole(
                relationship, from: key, of: entity, to: targets, batch: batch, onlyIf: nil,
                reservedBase: reserved[relationship.name])
            return
        }
        try insertJoinRows(relationship, from: key, to: targets, batch: batch, reserved: reserved)
    }

    /// The name under which a waiting many-to-many keeps the place it reserved for its
    /// object in `target`'s ordered list (the inverse side's).
    static func reservedPlaceName(_ relationship: String, target: Int64) -> String {
        relationship + "\u{0}" + String(target)
    }

    /// The lists an ordered to-many given whole sets (its members' rows, or its join
    /// table), when this side is ordered.
    func listGivenWhole(_ relationship: CompiledRelationship) -> OrderedList? {
        if relationship.isManyToMany { return joinInsertPlan(for: relationship)?.orderList }
        guard let destination = version.entity(named: relationship.declaration.destination),
            let (_, column, order) = layout.reverseColumn(for: relationship, destinationRoot: destination.root),
            let order
        else { return nil }
        return orderedList(table: table(of: destination).name, ownerColumn: column, orderColumn: order)
    }

    /// The places a to-many that waits for its members (a later line) takes at its own
    /// line: a list given whole, after the owner's members it does not name, and for a
    /// many-to-many whose other side is ordered, this object's place at the end of each
    /// member's list. The lists' ends are moved past them, so that members appended by
    /// later lines come after, as they would had the members come first. Returns
    /// `positions` with each list's base (the place before its first member) under the
    /// relationship's name, and each place in a member's list under
    /// ``reservedPlaceName(_:target:)``, for the reference that sets them when the batch ends.
    func reservePlaces(
        _ shape: InsertShape, key: Int64, waiting: [String: [Int64]], positions: [String: Int64], batch: ObjectBatch
    ) throws -> [String: Int64] {
        var reserved = positions
        for (name, targets) in waiting {
            guard let relationship = shape.entity.relationship(named: name), relationship.declaration.isToMany,
                !targets.isEmpty
            else { continue }
            if relationship.isManyToMany, let inverseList = joinInsertPlan(for: relationship)?.inverseList {
                for target in targets {
                    let place = try endOfList(
                        inverseList, owner: target, field: relationship.declaredIn + "." + name, batch: batch)
                    try reserve(inverseList, owner: target, end: place, batch: batch)
                    reserved[Self.reservedPlaceName(name, target: target)] = place
                }
            }
            guard let list = listGivenWhole(relationship) else { continue }
            let base = try placesBefore(targets, in: list, owner: key, batch: batch)
            guard base <= Int64.max - Int64(targets.count) else { continue }
            try reserve(list, owner: key, end: base + Int64(targets.count), batch: batch)
            reserved[name] = base
        }
        return reserved
    }

    /// Notes that `owner`'s list ends at `end` or later, in the batch and, for when the
    /// batch forgets it, in the connection's temporary database.
    private func reserve(_ list: OrderedList, owner: Int64, end: Int64, batch: ObjectBatch) throws {
        try wrap { () throws(SQLiteError) in
            if !batch.reservesPlaces {
                try connection.execute(
                    """
                    CREATE TEMP TABLE IF NOT EXISTS mm_reserved_places (list INTEGER NOT NULL, owner INTEGER NOT NULL, \
                    "end" INTEGER NOT NULL, PRIMARY KEY (list, owner));
                    DELETE FROM temp.mm_reserved_places;
                    """)
                batch.reservesPlaces = true
            }
            let statement = try connection.cachedStatement(
                """
                INSERT INTO temp.mm_reserved_places (list, owner, "end") VALUES (?, ?, ?) \
                ON CONFLICT (list, owner) DO UPDATE SET "end" = max("end", excluded."end")
                """)
            try statement.bind([.integer(Int64(list.slot)), .integer(owner), .integer(end)])
            try statement.execute()
        }
        batch.noteListEnd(list.slot, owner: owner, at: end, appended: true)
    }

    /// The end a waiting list given whole reserved in `owner`'s list (0 when none did):
    /// kept in the connection's temporary database, so that an end the batch forgets
    /// (its caches are bounded) is never read back short of it.
    private func reservedEnd(_ list: OrderedList, owner: Int64, batch: ObjectBatch) throws(StoreError) -> Int64 {
        guard batch.reservesPlaces else { return 0 }
        return try wrap { () throws(SQLiteError) -> Int64 in
            let statement = try connection.cachedStatement(
                "SELECT \"end\" FROM temp.mm_reserved_places WHERE list = ? AND owner = ?")
            try statement.bind([.integer(Int64(list.slot)), .integer(owner)])
            defer { statement.reset() }
            return try statement.step() ? statement.int64(at: 0) : 0
        }
    }

    /// Sets a to-many kept in its members' rows to `targets`, in their order, after the
    /// owner's members they leave out. A long list (``setBasedListMinimum``) is one
    /// `UPDATE … FROM json_each` over its keys, only of the members meeting `condition`
    /// when there is one: returns whether every member did (the caller takes the
    /// writes back when not). Otherwise one `UPDATE` per member (`condition` nil).
    func setListWhole(
        _ relationship: CompiledRelationship, from key: Int64, of entity: CompiledEntity, to targets: [Int64],
        batch: ObjectBatch,
        onlyIf condition: String?, reservedBase: Int64? = nil
    ) throws -> Bool {
        let r = relationship.declaration
        guard let destination = version.entity(named: r.destination),
            let (_, column, order) = layout.reverseColumn(for: relationship, destinationRoot: destination.root)
        else { return condition == nil }
        // Members move between lists here: the counts of inverse sides are read again.
        batch.forgetInverseCounts()
        let destinationTable = table(of: destination)
        let type =
            r.inverse.flatMap { inverse in
                relationship.inverseEntity.map { entityTypeAssignment(destinationTable, $0, inverse, entity) }
            } ?? ""
        // The list is given whole, in its order, after the owner's other members (a
        // member whose own line named the owner first): its end is read again when needed.
        var base: Int64 = 0
        if let order {
            let list = orderedList(table: destinationTable.name, ownerColumn: column, orderColumn: order)
            base = try reservedBase ?? placesBefore(targets, in: list, owner: key, batch: batch)
            batch.forgetListEnd(list.slot, owner: key)
            guard base <= Int64.max - Int64(targets.count) else {
                throw RowRefusal(
                    relationship.declaredIn + "." + r.name,
                    "no place is left after the members the list does not name (the last at \(base))")
            }
        }
        let table = SQLText.q(destinationTable.name)
        try checkRoom(
            for: targets, relationship, owner: key,
            in: "SELECT count(*) FROM \(table) WHERE \(SQLText.q(column)) = ? AND Z_PK")
        if !targets.isEmpty { batch.movedWrittenMembers = true }
        if targets.count >= setBasedListMinimum {
            let place = order.map { ", \(SQLText.q($0)) = j.key + \(base + 1)" } ?? ""
            let listSQL = """
                UPDATE \(table) SET \(SQLText.q(column)) = ?\(type)\(place), Z_OPT = \(SchemaSQL.incremented("Z_OPT")) \
                FROM json_each(?) AS j WHERE \(table).Z_PK = j.value\(condition.map { " AND " + $0 } ?? "")
                """
            if let statement = try? connection.cachedStatement(listSQL) {
                return try wrap { () throws(SQLiteError) -> Bool in
                    try statement.bind([.integer(key), .text(Self.jsonArray(targets))])
                    try statement.execute()
                    return connection.changes == targets.count
                }
            }
            // An SQLite without JSON functions: member by member, checked first.
            if condition != nil { return false }
        }
        // Built and prepared once per list, not per member.
        let place = order.map { ", \(SQLText.q($0)) = ?" } ?? ""
        let sql =
            """
            UPDATE \(table) SET \(SQLText.q(column)) = ?\(type)\(place), Z_OPT = \(SchemaSQL.incremented("Z_OPT")) \
            WHERE Z_PK = ?
            """
        try wrap { () throws(SQLiteError) in
            let statement = try connection.cachedStatement(sql)
            for (position, target) in targets.enumerated() {
                try statement.bind(
                    order == nil
                        ? [.integer(key), .integer(target)]
                        : [.integer(key), .integer(base + Int64(position + 1)), .integer(target)])
                try statement.execute()
            }
        }
        return true
    }

    /// A list given whole keeps the owner's members it does not name (their own lines
    /// named the owner): with them it must stay within the relationship's `maxCount`.
    /// `countSQL` counts the owner's members, up to the column naming a member (the
    /// keys the list names are left out after it).
    private func checkRoom(
        for targets: [Int64], _ relationship: CompiledRelationship, owner: Int64, in countSQL: String
    ) throws {
        guard let max = relationship.declaration.maxCount, max > 0 else { return }
        let others = try wrap { () throws(SQLiteError) -> Int64 in
            let statement = try connection.prepare(countSQL + " NOT IN (SELECT value FROM json_each(?))")
            try statement.bind([.integer(owner), .text(Self.jsonArray(targets))])
            return try statement.step() ? statement.int64(at: 0) : 0
        }
        guard others + Int64(targets.count) > Int64(clamping: max) else { return }
        throw RowRefusal(
            relationship.declaredIn + "." + relationship.name,
            """
            allows at most \(max) objects: the list names \(targets.count), and \(others) \
            other\(others == 1 ? "" : "s") already name\(others == 1 ? "s" : "") this object
            """)
    }

    /// The highest place among `owner`'s members in `list` that `targets` leaves out:
    /// a list given whole goes after them (none, for a new owner: no query).
    private func placesBefore(_ targets: [Int64], in list: OrderedList, owner: Int64, batch: ObjectBatch)
        throws(StoreError) -> Int64
    {
        if try batch.listEnd(list, owner: owner) == 0 { return 0 }
        // Without SQLite's JSON functions: after every member (places stay distinct).
        let excluding = try? connection.cachedStatement(list.endExcludingListSQL)
        let stored = try wrap { () throws(SQLiteError) -> Int64 in
            let statement: Statement
            if let excluding { statement = excluding } else { statement = try connection.cachedStatement(list.endSQL) }
            try statement.bind(
                excluding == nil ? [.integer(owner)] : [.integer(owner), .text(Self.jsonArray(targets))])
            defer { statement.reset() }
            return try statement.step() ? statement.int64(at: 0) : 0
        }
        // After places that waiting lines reserved (a many-to-many member's, whose join
        // row is not written yet), whichever members they are for: at worst a gap.
        return max(stored, try reservedEnd(list, owner: owner, batch: batch))
    }

    /// A many-to-many's join rows from `key` to each target: when this side is ordered,
    /// the list given whole, in its order, after `key`'s members it does not name (a pair
    /// already there takes its place in the list, as a one-to-many's member does); at
    /// the end of each target's list when the inverse side is ordered (a pair already
    /// there keeps its place there).
    private func insertJoinRows(
        _ relationship: CompiledRelationship, from key: Int64, to targets: [Int64], batch: ObjectBatch,
        reserved: [String: Int64] = [:]
    ) throws {
        guard let plan = joinInsertPlan(for: relationship) else { return }
        if relationship.declaration.maxCount ?? 0 > 0, let (join, mine, theirs) = joinTable(for: relationship) {
            try checkRoom(
                for: targets, relationship, owner: key,
                in: "SELECT count(*) FROM \(SQLText.q(join.name)) WHERE \(SQLText.q(mine)) = ? AND \(SQLText.q(theirs))"
            )
        }
        var base: Int64 = 0
        if let list = plan.orderList {
            base = try reserved[relationship.name] ?? placesBefore(targets, in: list, owner: key, batch: batch)
            batch.forgetListEnd(list.slot, owner: key)
            guard base <= Int64.max - Int64(targets.count) else {
                throw RowRefusal(
                    relationship.declaredIn + "." + relationship.name,
                    "no place is left after the members the list does not name (the last at \(base))")
            }
        }
        for (position, target) in targets.enumerated() {
            var bindings: [DatabaseValue] = [.integer(key), .integer(target)]
            if plan.orderList != nil { bindings.append(.integer(base + Int64(position + 1))) }
            var place: Int64?
            if let inverseList = plan.inverseList {
                place =
                    try reserved[Self.reservedPlaceName(relationship.name, target: target)]
                    ?? endOfList(
                        inverseList, owner: target, field: relationship.declaredIn + "." + relationship.name,
                        batch: batch)
                bindings.append(.integer(place ?? 0))
            }
            try wrap { () throws(SQLiteError) in
                let statement = try plan.statement(connection)
                try statement.bind(bindings)
                try statement.execute()
            }
            if let inverseList = plan.inverseList, let place, connection.changes == 1 {
                batch.noteListEnd(inverseList.slot, owner: target, at: place, appended: true)
            }
        }
    }

    /// The `INSERT` of a many-to-many's join rows and the lists it keeps, built once per
    /// relationship: built per object, its SQL text and quoting were a fifth of a load
    /// of books with ordered tags.
    private func joinInsertPlan(for relationship: CompiledRelationship) -> JoinInsertPlan? {
        let name = relationship.declaredIn + "." + relationship.name
        if let plan = joinInsertPlans[name] { return plan }
        let r = relationship.declaration
        guard let (join, mine, theirs) = joinTable(for: relationship) else { return nil }
        let order = join.column(for: .order(entity: relationship.declaredIn, relationship: r.name))
        let inverseOrder = r.inverse.flatMap { inverse in
            relationship.inverseEntity.flatMap { join.column(for: .order(entity: $0, relationship: inverse)) }
        }
        var columns = [mine, theirs]
        if let order { columns.append(order.name) }
        if let inverseOrder { columns.append(inverseOrder.name) }
        // A pair already there: this side's place is the list's (it is given whole),
        // the other side's stays.
        let conflict =
            order.map { " ON CONFLICT DO UPDATE SET \(SQLText.q($0.name)) = excluded.\(SQLText.q($0.name))" }
            ?? " ON CONFLICT DO NOTHING"
        let plan = JoinInsertPlan(
            sql: """
                INSERT INTO \(SQLText.q(join.name)) (\(columns.map(SQLText.q).joined(separator: ", "))) \
                VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))\(conflict)
                """,
            orderList: order.map {
                orderedList(table: join.name, ownerColumn: mine, orderColumn: $0.name, memberColumn: theirs)
            },
            inverseList: inverseOrder.map { orderedList(table: join.name, ownerColumn: theirs, orderColumn: $0.name) })
        joinInsertPlans[name] = plan
        return plan
    }
}

/// How one many-to-many's join rows are inserted (``ObjectAccess/joinInsertPlans``).
/// A class: it holds its prepared statement while a batch runs.
final class JoinInsertPlan {
    let sql: String
    /// This side's lists, when they are ordered.
    let orderList: OrderedList?
    /// The inverse side's lists, when they are ordered.
    let inverseList: OrderedList?
    /// The prepared `INSERT`, held while a batch runs (looked up by its text per join
    /// row, it cost a hash of that text each time); released when the batch ends.
    private var prepared: Statement?

    init(sql: String, orderList: OrderedList?, inverseList: OrderedList?) {
        self.sql = sql
        self.orderList = orderList
        self.inverseList = inverseList
    }

    func statement(_ connection: Connection) throws(SQLiteError) -> Statement {
        if let prepared {
            prepared.reset()
            return prepared
        }
        let statement = try connection.cachedStatement(sql)
        prepared = statement
        return statement
    }

    func releaseStatement() { prepared = nil }
}
