import DataModel
import Mapping
import Predicates
import SQLiteStore

extension SegmentPlanner {
    // MARK: References into filtered tables

    /// A mapping file's filter left source objects out of `table`: every reference
    /// to them is removed, as Core Data's migration leaves a relationship to an
    /// object it did not migrate empty (to-one keys set to nil with their entity
    /// column, join rows deleted, keys of to-many relationships without an inverse
    /// set to nil). Required to-one relationships left nil then fail the hop's
    /// checks, naming the rows.
    mutating func removeReferences(into table: String) {
        let remaining = "(SELECT Z_PK FROM \(SQLText.q(table)))"
        func points(into entity: String) -> Bool {
            destination.entity(named: entity).flatMap { destinationLayout.table(forEntity: $0.root)?.name } == table
        }
        for other in destinationLayout.tables {
            if other.joinRelationship != nil {
                if let step = deletePairs(in: other, remaining: remaining, pointsInto: points) { steps.append(step) }
                continue
            }
            var conditions: [String] = []
            for column in other.columns {
                let c = SQLText.q(column.name)
                switch column.role {
                case .toOne(let owner, let name):
                    guard let r = destination.entity(named: owner)?.relationship(named: name),
                        points(into: r.declaration.destination)
                    else { continue }
                    conditions.append("(\(c) IS NOT NULL AND \(c) NOT IN \(remaining))")
                case .toManyKey(let owner, _):
                    guard points(into: owner) else { continue }
                    conditions.append("(\(c) IS NOT NULL AND \(c) NOT IN \(remaining))")
                default:
                    continue
                }
            }
            guard !conditions.isEmpty else { continue }
            // A row whose one key dangles loses only that key: each SET clears a
            // column only where it dangles. A required to-one cleared so fails its check.
            func clear(_ name: String, unless key: String) -> String {
                "\(SQLText.q(name)) = CASE WHEN \(key) IN \(remaining) THEN \(SQLText.q(name)) END"
            }
            var required: [MigrationCheck] = []
            let exact = other.columns.compactMap { column -> String? in
                let c = SQLText.q(column.name)
                switch column.role {
                case .toOne(let owner, let name):
                    guard let r = destination.entity(named: owner)?.relationship(named: name),
                        points(into: r.declaration.destination)
                    else { return nil }
                    if !r.declaration.isOptional {
                        required.append(
                            checkBuilder.required("\(owner).\(name) is set", owner: owner, table: other, column: column)
                        )
                    }
                    // With the key go its companions, as batch delete's nullify clears
                    // them: the entity column, and the position in an ordered inverse.
                    var companions = [other.column(for: .toOneEntity(entity: owner, relationship: name))]
                    if let inverseOwner = r.inverseEntity, let inverse = r.declaration.inverse {
                        companions.append(other.column(for: .order(entity: inverseOwner, relationship: inverse)))
                    }
                    return ([column] + companions.compactMap { $0 }).map { clear($0.name, unless: c) }.joined(
                        separator: ", ")
                case .toManyKey(let owner, let name):
                    guard points(into: owner) else { return nil }
                    return ([column] + [other.column(for: .order(entity: owner, relationship: name))].compactMap { $0 })
                        .map { clear($0.name, unless: c) }.joined(separator: ", ")
                default:
                    return nil
                }
            }
            steps.append(
                .updateRows(
                    .init(
                        summary: "clear \(other.name)'s references to objects the filter left out",
                        sql: [
                            """
                            UPDATE \(SQLText.q(other.name)) SET \(exact.joined(separator: ", ")) \
                            WHERE \(conditions.joined(separator: " OR "))
                            """
                        ],
                        cost: .update(rows: (try? count(other.name, nil)) ?? 0), table: other.name)))
            for check in required where !checks.contains(check) { checks.append(check) }
        }
        checks += checkBuilder.referenceChecks(into: table)
        checks += checkBuilder.memberCountChecks(into: table)
    }

    /// The step that deletes the pairs of join table `other` whose objects the filter
    /// left out of the table whose keys `remaining` selects; nil when none can be.
    func deletePairs(
        in other: StorageLayout.Table, remaining: String, pointsInto points: (String) -> Bool
    ) -> MigrationStep? {
        let conditions = other.columns.compactMap { column -> String? in
            guard case .joinKey(let entity, _) = column.role, points(entity) else { return nil }
            return "\(SQLText.q(column.name)) NOT IN \(remaining)"
        }
        guard !conditions.isEmpty else { return nil }
        return .deleteRows(
            .init(
                summary: "delete \(other.name) pairs whose objects the filter left out",
                sql: ["DELETE FROM \(SQLText.q(other.name)) WHERE \(conditions.joined(separator: " OR "))"],
                cost: .update(rows: (try? count(other.name, nil)) ?? 0), table: other.name))
    }
}
