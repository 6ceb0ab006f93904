import DataModel

// References `load` meets before their objects (a later line, the object itself):
// they wait for the end of the batch, then are set and checked as on insert. See
// ObjectAccess+Inserting.swift for the rules one object is checked for.
extension ObjectAccess {
    /// The number of keys a relationship is given: one for a to-one, at most its
    /// maximum, none twice. (Read from the rule: a copy of the relationship's
    /// description per object was a third of the time spent checking a to-one.)
    func checkCount(_ targets: [Int64], of rule: TargetRule) throws {
        let field = rule.field
        if !rule.isToMany, targets.count > 1 {
            throw RowRefusal(field, "a to-one relationship takes one key, found \(targets.count)")
        }
        if rule.isToMany, let max = rule.maxCount, max > 0, targets.count > max {
            throw RowRefusal(field, "allows at most \(max) objects, found \(targets.count)")
        }
        if targets.count > 1, Set(targets).count != targets.count {
            throw RowRefusal(field, "the same object is listed twice")
        }
    }

    /// Checks the targets that rows were written naming before they were
    /// (``ProvisionalTargets``), each once, as on insert, with every row of the batch
    /// counted on the inverse side against its `maxCount`; then sets the entity number
    /// beside the key of the rows written ahead (a destination with subentities). A
    /// refusal is filed under the first line that named the target and every line of
    /// the batch whose row still names it.
    func checkProvisionalTargets(_ batch: ObjectBatch) throws {
        let provisional = batch.provisionalTargets
        batch.provisionalTargets = ProvisionalTargets(memoryLimit: provisionalTargetsInMemory)
        guard !provisional.isEmpty else { return }
        try provisional.forEachTarget(connection) { rule, target, source in
            do {
                try checkTarget(target, rule: rule, field: rule.field, batch: batch, countsInverse: false)
                try checkInverseCount(of: target, rule: rule, batch: batch)
                if let column = rule.toOneEntityColumn, let toOne = rule.toOneColumn {
                    let number = try entityNumber(of: rule.destination, primaryKey: target)
                    let (table, entityColumn) = (SQLText.q(rule.sourceTable.name), SQLText.q(column))
                    try run(
                        """
                        UPDATE \(table) SET \(entityColumn) = ? WHERE \(SQLText.q(toOne)) = ? AND \(entityColumn) IS \
                        NULL
                        """,
                        [.integer(number), .integer(target)])
                }
            } catch let refusal as RowRefusal {
                // The target's own line was refused, and says why: the lines naming it
                // are not at fault ("no Team with primary key 1" buried the reason).
                if batch.isRefusedObject(root: rule.destinationTable.entity, key: target),
                    try entityOfRow(sql: rule.destinationEntitySQL, key: target) == nil
                {
                    return
                }
                var sources: Set<Int> = [source]
                if let column = rule.toOneColumn {
                    let sql = "SELECT Z_PK FROM \(SQLText.q(rule.sourceTable.name)) WHERE \(SQLText.q(column)) = ?"
                    let keys = try wrap { () throws(SQLiteError) -> [Int64] in
                        let statement = try connection.prepare(sql)
                        try statement.bind([.integer(target)])
                        var keys: [Int64] = []
                        while try statement.step() { keys.append(statement.int64(at: 0)) }
                        return keys
                    }
                    for key in keys {
                        if let found = batch.source(root: rule.sourceTable.entity, key: key) { sources.insert(found) }
                    }
                }
                for source in sources.sorted() {
                    batch.refuse(source: source, field: refusal.field, message: refusal.message)
                }
            }
        }
    }

    /// Sets the references that waited for the end of the batch, each checked as on
    /// insert (targets exist and are of the destination entity, one owner, room on the
    /// inverse side); a refusal is filed under the object's source.
    func resolveDeferredReferences(_ batch: ObjectBatch) throws {
        var waiting = batch.deferredReferences
        batch.deferredReferences = DeferredReferences()
        try waiting.drain(connection) { item in
            let shape = try insertShape(item.entityName)
            do {
                try connect(
                    shape, key: item.key, relationships: item.relationships, positions: item.positions, batch: batch)
                if shape.notesLinks { batch.noteLinks(shape.entity, item.relationships, source: item.source) }
            } catch let refusal as RowRefusal {
                batch.refuse(source: item.source, field: refusal.field, message: refusal.message)
                // The batch writes nothing now; the row goes, so that the checks of the
                // batch's end do not report its unset relationship a second time.
                try run("DELETE FROM \(SQLText.q(shape.table.name)) WHERE Z_PK = ?", [.integer(item.key)])
                batch.rowDeleted(table: slot(shape.table.name), key: item.key)
                batch.noteRefusedObject(root: shape.rootName, key: item.key)
            }
        }
    }

    /// Sets relationships of a row already written: to-one columns by one `UPDATE`,
    /// to-many ones as on insert, then the inverse sides.
    func connect(
        _ shape: InsertShape, key: Int64, relationships: [String: [Int64]], positions: [String: Int64],
        batch: ObjectBatch
    ) throws {
        // The row joins its targets' inverse sides by an UPDATE: their counts are read again.
        batch.forgetInverseCounts()
        defer { batch.forgetInverseCounts() }
        // The lists the row is in now (an owner's line may have listed it) lose it or move it.
        if batch.writtenRowsMayHaveOwners {
            for (list, owner) in try currentOwners(shape, key: key, relationships: relationships) {
                batch.forgetListEnd(list, owner: owner)
            }
        }
        var assignments: [String] = []
        var bindings: [DatabaseValue] = []
        for (((relationship, field), rule), toOne) in zip(
            zip(shape.relationships, shape.targets), shape.toOneAssignments)
        {
            let r = relationship.declaration
            guard let targets = relationships[r.name] else { continue }
            if let rule {
                for target in targets { try checkTarget(target, rule: rule, field: field, batch: batch, from: key) }
                if toOne != nil, let target = targets.first {
                    try checkUnclaimed(key, rule: rule, for: target, batch: batch)
                }
            }
            if let toOne {
                guard let target = targets.first else { continue }
                assignments.append(toOne.key)
                bindings.append(.integer(target))
                if let entityAssignment = toOne.entityNumber {
                    assignments.append(entityAssignment)
                    bindings.append(.integer(try entityNumber(of: r.destination, primaryKey: target)))
                }
            } else {
                try connectToMany(
                    relationship, from: key, of: shape.entity, to: targets, batch: batch, reserved: positions)
            }
        }
        // Its places in the lists its to-ones put it in, set by the same UPDATE.
        let places = try writtenMemberPlaces(
            shape, key: key, relationships: relationships, positions: positions, batch: batch)
        for (membership, place) in places {
            assignments.append(membership.placeAssignment)
            bindings.append(.integer(place.place))
        }
        if !assignments.isEmpty {
            try run(
                """
                UPDATE \(shape.quotedTable) SET \(assignments.joined(separator: ", ")), \
                Z_OPT = \(SchemaSQL.incremented("Z_OPT")) WHERE Z_PK = ?
                """,
                bindings + [.integer(key)])
        }
        for (_, place) in places {
            batch.noteListEnd(place.list, owner: place.owner, at: place.place, appended: place.appended)
        }
        if shape.hasOneToOneInverses { try updateOneToOneInverses(of: key, in: shape, relationships: relationships) }
    }

    /// A to-one that waited may have been set meanwhile from its inverse side (an owner's
    /// list given whole, the other side of a one-to-one, each checked against the row as
    /// it was then): the two lines contradict each other unless they name the same
    /// object, whichever line the batch met first.
    private func checkUnclaimed(_ key: Int64, rule: TargetRule, for target: Int64, batch: ObjectBatch) throws {
        guard let column = rule.toOneColumn, let inverse = rule.inverse else { return }
        let table = rule.sourceTable
        guard
            let current = try keyOfRow(
                sql: "SELECT \(SQLText.q(column)) FROM \(SQLText.q(table.name)) WHERE Z_PK = ?", key), current != target
        else { return }
        let entity = try entityOfRow(in: table, key: key) ?? rule.declaredIn
        let owner = try entityOfRow(sql: rule.destinationEntitySQL, key: current) ?? rule.destination
        let claim =
            inverse.declaration.isToMany
            ? "is already among the \(inverse.name) of" : "is already the \(inverse.name) of"
        let named = try entityOfRow(sql: rule.destinationEntitySQL, key: target) ?? rule.destination
        throw RowRefusal(
            rule.field,
            """
            \(batch.describe(entity, key)) \(claim) \(batch.describe(owner, current)), which another line gave it; \
            this line names \(batch.describe(named, target))
            """)
    }

    /// A target's objects on the inverse side, every row of the batch written: within
    /// the inverse's `maxCount`.
    private func checkInverseCount(of target: Int64, rule: TargetRule, batch: ObjectBatch) throws {
        guard let (max, countSQL) = rule.inverseLimit, let inverse = rule.inverse else { return }
        let count = try wrap { () throws(SQLiteError) -> Int64 in
            let statement = try connection.cachedStatement(countSQL)
            try statement.bind([.integer(target)])
            defer { statement.reset() }
            return try statement.step() ? statement.int64(at: 0) : 0
        }
        guard count > Int64(clamping: max) else { return }
        let entity = try entityOfRow(sql: rule.destinationEntitySQL, key: target) ?? rule.destination
        throw RowRefusal(
            rule.field,
            """
            \(batch.describe(entity, target)) would have \(count) \(inverse.name), more than \
            \(inverse.declaredIn).\(inverse.name) allows (\(max))
            """
        )
    }
}
