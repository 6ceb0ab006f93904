import DataModel
import Mapping
import SQLiteStore

/// A to-many whose members come from several source relationships: its inverse
/// moved up from sibling subentities (`C.t` and `D.t` become `P.t`, and `T.cs`
/// and `T.ds` become one `T.cs`), each subentity's mapping carrying its own pairs.
/// Core Data's validation stage judges the merged set against the to-many's
/// `minCount` and `maxCount`; so does the plan, on the union of the parts.
extension SegmentPlanner {
    mutating func addMergedCounts(file: String) {
        for entity in destination.entities {
            for relationship in entity.relationships where relationship.declaredIn == entity.name {
                let r = relationship.declaration
                guard r.isToMany, (r.minCount ?? 0) > 0 || (r.maxCount ?? 0) > 0, let inverse = r.inverse,
                    let member = destination.entity(named: relationship.inverseEntity ?? ""),
                    let inverseRelationship = member.relationship(named: inverse),
                    let owner = sourceEntity(for: entity.name), let table = sourceLayout.table(forEntity: owner.root)
                else { continue }
                let parts = joinParts(for: member, inverseRelationship)
                guard parts.count > 1 else { continue }
                // k1 is the member's key, k2 the owner's: each owner's count of members.
                let union = parts.map(partSelect).joined(separator: " UNION ALL ")
                let counts = "SELECT u.k2 AS owner, count(*) AS n FROM (\(union)) AS u GROUP BY u.k2"
                let scope = migratedScope(entity.name, from: owner, in: table.name, prefix: "t.")
                let owners = "SELECT t.Z_PK FROM \(SQLText.q(table.name)) AS t WHERE \(scope)"
                var rules: [(select: String, what: String)] = []
                if let maximum = r.maxCount, maximum > 0 {
                    let over = "SELECT owner, n FROM (\(counts)) WHERE n > \(maximum) AND owner IN (\(owners))"
                    rules.append((over, "allows at most \(maximum) object\(maximum == 1 ? "" : "s")"))
                }
                if let minimum = r.minCount, minimum > 0 {
                    var select = "SELECT owner, n FROM (\(counts)) WHERE n < \(minimum) AND owner IN (\(owners))"
                    if !r.isOptional {
                        select +=
                            " UNION ALL SELECT t.Z_PK AS owner, 0 AS n FROM \(SQLText.q(table.name)) AS t WHERE "
                            + "\(scope) "
                            + "AND t.Z_PK NOT IN (SELECT u.k2 FROM (\(union)) AS u WHERE u.k2 IS NOT NULL)"
                    }
                    rules.append((select, "needs at least \(minimum) object\(minimum == 1 ? "" : "s")"))
                }
                for rule in rules {
                    requirements.append(
                        MigrationCheck(
                            summary: """
                                \(entity.name).\(r.name) \(rule.what), and the pairs it takes over from several \
                                source relationships break that
                                """,
                            sql: "SELECT count(*) FROM (\(rule.select))",
                            rowsSQL:
                                """
                                SELECT 'Z_PK ' || owner || ': ' || n || ' objects' FROM (\(rule.select)) ORDER BY \
                                owner LIMIT 5
                                """,
                            remedy: """
                                keep the old relationships apart in this version, correct those objects first, \
                                or write \(file) with a policy for \(entity.name)
                                """))
                }
            }
        }
    }
}
