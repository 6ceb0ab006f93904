import DataModel
import Mapping
import SQLiteStore

// The keys a rebuilt row takes for its to-ones, from wherever the source kept the
// pairs (SegmentPlanner+Rebuild.swift builds the copies that read them).
extension SegmentPlanner {
    /// The destination key of the row `s` for a to-one relationship, from where the pairs
    /// were: of several (a to-many made to-one), the lowest key among those `keeping`
    /// keeps (the destinations the hop migrates: `d` rows of `table` where `condition`).
    func destinationOfRow(_ source: PairSource, reversed: Bool, keeping: (table: String, condition: String)? = nil)
        -> String
    {
        func kept(_ key: String) -> String {
            keeping.map { " AND \(key) IN (SELECT d.Z_PK FROM \(SQLText.q($0.table)) AS d WHERE \($0.condition))" }
                ?? ""
        }
        switch (source, reversed) {
        case (.column(_, let column, _), false):
            return "s.\(SQLText.q(column))"
        case (.column(let table, let column, let numbers), true):
            return """
                (SELECT t.Z_PK FROM \(SQLText.q(table)) AS t WHERE t.\(SQLText.q(column)) = s.Z_PK AND t.Z_ENT IN \
                (\(SQLText.list(numbers)))\(kept("t.Z_PK")) ORDER BY t.Z_PK LIMIT 1)
                """
        case (.reverseColumn(let table, let column, _), false):
            return
                """
                (SELECT t.Z_PK FROM \(SQLText.q(table)) AS t WHERE t.\(SQLText.q(column)) = s.Z_PK\(kept("t.Z_PK")) \
                ORDER BY t.Z_PK LIMIT 1)
                """
        case (.reverseColumn(let table, let column, _), true):
            return "(SELECT t.\(SQLText.q(column)) FROM \(SQLText.q(table)) AS t WHERE t.Z_PK = s.Z_PK)"
        case (.join(let table, let mine, let theirs, _), false):
            let (j, m, t) = (SQLText.q(table), SQLText.q(mine), SQLText.q(theirs))
            return "(SELECT j.\(t) FROM \(j) AS j WHERE j.\(m) = s.Z_PK\(kept("j.\(t)")) ORDER BY j.\(t) LIMIT 1)"
        case (.join(let table, let mine, let theirs, _), true):
            let (j, m, t) = (SQLText.q(table), SQLText.q(mine), SQLText.q(theirs))
            return "(SELECT j.\(m) FROM \(j) AS j WHERE j.\(t) = s.Z_PK\(kept("j.\(m)")) ORDER BY j.\(m) LIMIT 1)"
        case (.path(let select, _), false):
            return "(SELECT p.k2 FROM (\(select)) AS p WHERE p.k1 = s.Z_PK\(kept("p.k2")) ORDER BY p.k2 LIMIT 1)"
        case (.path(let select, _), true):
            return "(SELECT p.k1 FROM (\(select)) AS p WHERE p.k2 = s.Z_PK\(kept("p.k1")) ORDER BY p.k1 LIMIT 1)"
        }
    }

    /// Whether a member row of `entity` takes its owner in `list` (through the list's
    /// inverse to-one) from `column`, the column its own source pairs are in: then
    /// every member of the list is one of its own.
    func ownerComesFrom(_ column: String, entity: CompiledEntity, list: CompiledRelationship) -> Bool {
        guard let inverseName = list.declaration.inverse, let inverse = entity.relationship(named: inverseName),
            let found = pairs(for: entity, inverse), !found.reversed, case .column(_, let ownerColumn, _) = found.source
        else { return false }
        return ownerColumn == column
    }
}
