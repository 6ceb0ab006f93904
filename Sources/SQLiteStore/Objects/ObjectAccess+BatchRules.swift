package import DataModel

// What other objects of a batch can still change (a required relationship set
// from its inverse side), checked once every object is written: see
// ObjectAccess+Inserting.swift.
extension ObjectAccess {
    // MARK: Rules for the whole batch

    /// Required relationships and minimum counts of every object the batch wrote,
    /// once every object is written: another object of the batch may have set them
    /// from the inverse side. Then the minimum counts of stored objects the batch
    /// linked to (a `Part` naming item 1 gives `Item 1` one part where `parts` needs
    /// none or at least 2), as Core Data's save validates every changed object.
    /// Set-based, a few hundred objects a statement.
    func checkBatch(_ batch: ObjectBatch) throws {
        // No required to-one and no minimum count: nothing to count (and a million
        // keys not listed).
        let checked = version.entities.filter { entity in
            !entity.isAbstract
                && entity.relationships.contains { !$0.declaration.isTransient && Self.hasCountRule($0.declaration) }
        }
        if !checked.isEmpty {
            for (root, keys) in batch.writtenKeys() {
                for entity in checked.filter({ $0.root == root }).sorted(by: { $0.name < $1.name }) {
                    for relationship in entity.relationships where !relationship.declaration.isTransient {
                        try checkCount(relationship, of: entity, keys: keys, subentities: false, batch: batch) {
                            key, problem in
                            batch.source(root: root, key: key).map {
                                (source: $0, field: "\(entity.name).\(relationship.name)", message: problem)
                            }
                        }
                    }
                }
            }
        }
        for (entityName, byRelationship) in batch.linked.sorted(by: { $0.key < $1.key }) {
            guard let entity = version.entity(named: entityName) else { continue }
            for (name, sources) in byRelationship.sorted(by: { $0.key < $1.key }) {
                guard let relationship = entity.relationship(named: name) else { continue }
                // The batch's own: above.
                let keys = sources.keys.sorted().filter { batch.source(root: entity.root, key: $0) == nil }
                try checkCount(relationship, of: entity, keys: keys, subentities: true, batch: batch) { key, problem in
                    sources[key].map {
                        (
                            source: $0, field: "\(entityName).\(name)",
                            message: "\(batch.describe(entityName, key)) \(problem)"
                        )
                    }
                }
            }
        }
    }

    /// Whether saving an object can break `r` by its count: a required to-one, or a
    /// to-many with a minimum count. A required to-many without one may be empty, as
    /// in Core Data: its value is a set, never nil, and only `minCount` bounds the
    /// set's size (`NSRelationshipDescription`: "the counts are only enforced if the
    /// relationship value in the containing object is not nil"; Docs/Objects.md,
    /// "Required to-many relationships").
    package static func hasCountRule(_ r: RelationshipDescription) -> Bool {
        r.isToMany ? (r.minCount ?? 0) > 0 : !r.isOptional
    }

    /// Refuses, through `refusal`, each of `keys` (rows of `entity`, and of its
    /// subentities when `subentities`) whose count of `relationship` breaks its
    /// required flag (to-one) or minimum count (to-many).
    private func checkCount(
        _ relationship: CompiledRelationship, of entity: CompiledEntity, keys: [Int64], subentities: Bool,
        batch: ObjectBatch,
        refusal: (Int64, String) -> (source: Int, field: String, message: String)?
    ) throws {
        let r = relationship.declaration
        let table = table(of: entity)
        guard Self.hasCountRule(r), let count = countExpression(relationship, of: table) else { return }
        let numbers = entityNumbers(entity, includeSubentities: subentities).map(String.init).joined(separator: ",")
        let chunk = 200
        let sql = """
            SELECT t.Z_PK, \(count) FROM \(SQLText.q(table.name)) AS t \
            WHERE t.Z_PK IN (\(Array(repeating: "?", count: chunk).joined(separator: ","))) AND t.Z_ENT IN (\(numbers))
            """
        var start = 0
        while start < keys.count {
            let part = keys[start..<min(start + chunk, keys.count)]
            start += chunk
            var found: [Int64: Int64] = [:]
            try wrap { () throws(SQLiteError) in
                let statement = try connection.cachedStatement(sql)
                try statement.bind(part.map { .integer($0) } + Array(repeating: .null, count: chunk - part.count))
                defer { statement.reset() }
                while try statement.step() { found[statement.int64(at: 0)] = statement.int64(at: 1) }
            }
            // A key with no row was removed after its refusal (a reference that never
            // resolved): it was reported then.
            for key in part {
                guard let n = found[key] else { continue }
                let problem: String?
                if n == 0, !r.isOptional, !r.isToMany {
                    problem = "the relationship is required"
                } else if let min = r.minCount, n < Int64(clamping: min), !(n == 0 && r.isOptional) {
                    problem = "needs at least \(min) objects, found \(n)"
                } else {
                    problem = nil
                }
                if let problem, let found = refusal(key, problem) {
                    batch.refuse(source: found.source, field: found.field, message: found.message)
                }
            }
        }
    }

    /// An SQL expression for the number of destinations of `relationship` of the row
    /// `t` of `table`.
    private func countExpression(_ relationship: CompiledRelationship, of table: StorageLayout.Table) -> String? {
        let r = relationship.declaration
        if !r.isToMany {
            return table.column(for: .toOne(entity: relationship.declaredIn, relationship: r.name)).map {
                "(t.\(SQLText.q($0.name)) IS NOT NULL)"
            }
        }
        guard let destination = version.entity(named: r.destination) else { return nil }
        if !relationship.isManyToMany,
            let (destinationTable, column, _) = layout.reverseColumn(
                for: relationship, destinationRoot: destination.root)
        {
            return
                "(SELECT count(*) FROM \(SQLText.q(destinationTable.name)) AS d WHERE d.\(SQLText.q(column)) = t.Z_PK)"
        }
        guard let (join, mine, _) = joinTable(for: relationship) else { return nil }
        return "(SELECT count(*) FROM \(SQLText.q(join.name)) AS j WHERE j.\(SQLText.q(mine)) = t.Z_PK)"
    }
}
