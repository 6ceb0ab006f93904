import DataModel

extension ObjectAccess {
    // MARK: Rules for one object

    /// A relationship target exists, is of the destination entity, has no other
    /// owner where the store keeps one, and has room on the inverse side.
    /// `written` is the object's own key when it is already written (a deferred reference):
    /// a target it already owns (the other side of a one-to-one set it) is no conflict.
    /// `known`: the target's entity number, when the caller looked it up.
    func checkTarget(
        _ target: Int64, rule: TargetRule, field: String, batch: ObjectBatch, from written: Int64? = nil,
        known: Int64? = nil,
        countsInverse: Bool = true
    ) throws {
        let destination = rule.destination
        // The owner, when read with the entity number (nil: not read).
        var readOwner: Int64??
        let number: Int64?
        if let known {
            number = known
        } else if let known = batch.rowEntity(table: rule.destinationSlot, key: target) {
            number = known == ObjectBatch.noRow ? nil : known
        } else if let sql = rule.entityAndOwnerSQL {
            let row = try entityAndOwner(sql: sql, target)
            batch.noteRowEntity(row?.entity ?? ObjectBatch.noRow, table: rule.destinationSlot, key: target)
            number = row?.entity
            readOwner = .some(row?.owner)
        } else {
            number = try rowEntity(target, rule: rule, batch: batch)
        }
        // (Not `number.map(rule.destinationNumbers.contains)`: a closure allocated per check.)
        let isDestination: Bool
        if let number { isDestination = rule.destinationNumbers.contains(number) } else { isDestination = false }
        if !isDestination {
            if let other = try entityOfRow(sql: rule.destinationEntitySQL, key: target) {
                throw RowRefusal(
                    field, "\(batch.describe(other, target)) is not \(Self.article(destination)) \(destination)")
            }
            throw RowRefusal(field, "no \(destination) with primary key \(target)")
        }
        if let ownerSQL = rule.ownerSQL {
            var owner = try readOwner ?? keyOfRow(sql: ownerSQL, target)
            if owner == nil, !rule.isToMany, let firstOwnerSQL = rule.firstOwnerSQL {
                // A store whose two one-to-one columns disagree: this side's rows count too.
                owner = try keyOfRow(sql: firstOwnerSQL, target)
            }
            if let owner, owner != written {
                let ownerEntity = try entityOfRow(in: rule.sourceTable, key: owner) ?? rule.declaredIn
                let targetEntity = try entityOfRow(sql: rule.destinationEntitySQL, key: target) ?? destination
                let claim = rule.isToMany ? "is already among the \(rule.name) of" : "is already the \(rule.name) of"
                let explanation =
                    rule.inverse.map {
                        """
                        \(Self.article(destination)) \(destination) has one \($0.name) (\($0.declaredIn).\($0.name) is \
                        to-one)
                        """
                    }
                        ?? """
                        a to-many relationship without an inverse keeps one owner per object (Core Data stores the \
                        owner's key on the \(destination) row)
                        """
                throw RowRefusal(
                    field,
                    """
                    \(batch.describe(targetEntity, target)) \(claim) \(batch.describe(ownerEntity, owner)); \
                    \(explanation)
                    """
                )
            }
        }
        // The inverse side's maximum: a to-many inverse gains this object.
        if countsInverse, let (max, countSQL) = rule.inverseLimit, let inverse = rule.inverse,
            try inverseCount(countSQL, rule: rule, target: target, batch: batch) >= Int64(clamping: max)
        {
            let targetEntity = try entityOfRow(sql: rule.destinationEntitySQL, key: target) ?? destination
            throw RowRefusal(
                field,
                """
                \(batch.describe(targetEntity, target)) already has the most \(inverse.name) \
                \(inverse.declaredIn).\(inverse.name) allows (\(max))
                """)
        }
    }

    /// `target`'s objects on the inverse side of `rule`: the batch's count, else the store's.
    private func inverseCount(_ countSQL: String, rule: TargetRule, target: Int64, batch: ObjectBatch)
        throws(StoreError) -> Int64
    {
        guard let slot = rule.inverseCountSlot else { return try scalar(countSQL, target) }
        if let known = batch.inverseCount(slot, target: target) { return known }
        let count = try scalar(countSQL, target)
        batch.noteInverseCount(slot, target: target, count: count)
        return count
    }

    /// No stored object (nor one inserted before) holds the same values under a
    /// uniqueness constraint of the entity or an ancestor. As SQLite's unique indexes,
    /// a nil value never conflicts.
    func checkUniqueness(
        _ shape: InsertShape, values: [AttributeValue?], relationships: [String: [Int64]],
        batch: ObjectBatch
    ) throws {
        for (position, unique) in shape.uniqueness.enumerated() {
            var bindings: [DatabaseValue] = []
            bindings.reserveCapacity(unique.properties.count)
            for property in unique.properties {
                switch property {
                case .attribute(let position, let declaration):
                    guard let value = values[position] else { break }
                    bindings.append(ValueCoding.databaseValue(value, as: declaration))
                case .relationship(let name, _):
                    guard let target = relationships[name]?.first else { break }
                    bindings.append(.integer(target))
                }
            }
            guard bindings.count == unique.properties.count else { continue }
            let holder = try wrap { () throws(SQLiteError) -> (Int64, Int)? in
                let statement: Statement
                if let held = shape.uniquenessStatements[position] {
                    statement = held
                } else {
                    statement = try connection.cachedStatement(unique.sql)
                    shape.uniquenessStatements[position] = statement
                }
                try statement.bind(bindings)
                defer { statement.reset() }
                guard try statement.step() else { return nil }
                return (statement.int64(at: 0), Int(statement.int64(at: 1)))
            }
            guard let (key, number) = holder else { continue }
            // The values as messages show them, only for the message.
            let shown = unique.properties.map { property in
                switch property {
                case .attribute(let position, _): values[position]?.displayText ?? ""
                case .relationship(let name, let destination): "\(destination) \(relationships[name]?.first ?? 0)"
                }
            }
            let constraint = unique.constraint
            let other = batch.describe(nameOfEntity(number: number) ?? unique.owner, key)
            let names = constraint.joined(separator: ", ")
            throw RowRefusal(
                "\(shape.entity.name).\(names)",
                constraint.count == 1
                    ? "\(shown[0]) is already used by \(other); the model makes \(names) unique"
                    : """
                    \(shown.joined(separator: ", ")) are already used by \(other); the model makes \(names) unique \
                    together
                    """
            )
        }
    }
}
