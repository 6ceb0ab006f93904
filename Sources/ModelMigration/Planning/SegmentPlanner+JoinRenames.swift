import DataModel
import SQLiteStore

/// Join tables whose relationship is unchanged but whose table or column names
/// change between versions (the side of a self-referential pair flips, entity numbers
/// change, a suffix moves: Docs/StoreNaming.md) are renamed in place, in O(1) of the
/// row count, instead of being copied.
extension SegmentPlanner {
    /// A source join table taken over under new names.
    struct JoinRename {
        /// The source table.
        let old: Table
        /// The destination table it becomes.
        let new: Table
        /// Old column name → new column name, for the columns whose name changes.
        let columns: [(from: String, to: String)]
    }

    /// The in-place rename that turns the source join table holding a destination
    /// join table's pairs into it, or nil when the pairs need a copy: the table holds
    /// exactly the destination's columns by role (keys of the same entities for the
    /// same relationships, the same order columns), and neither name is wanted by
    /// another table of the hop.
    func joinRename(_ table: Table, found: FoundPairs?, claimed: Set<String>) -> JoinRename? {
        guard case .join(let name, _, _, _)? = found?.source, found?.reversed == false, !claimed.contains(name),
            let old = sourceLayout.table(named: name), old.joinRelationship != nil,
            old.columns.count == table.columns.count
        else { return nil }
        // The new name is free in the source, and the old one is taken by no other
        // destination table (it would be dropped or built under that name).
        if name != table.name {
            guard sourceLayout.table(named: table.name) == nil, destinationLayout.table(named: name) == nil else {
                return nil
            }
        }
        var renames: [(from: String, to: String)] = []
        for column in table.columns {
            let matches = old.columns.filter { $0.role == column.role }
            guard matches.count == 1 else { return nil }
            if matches[0].name != column.name { renames.append((matches[0].name, column.name)) }
        }
        guard name != table.name || !renames.isEmpty else { return nil }
        return JoinRename(old: old, new: table, columns: renames)
    }

    /// The steps of one join rename: the table, then its columns (through temporary
    /// names when the new names swap old ones). SQLite's `RENAME` keeps the table's
    /// rows and rewrites its indexes' definitions, so the index moves with the table
    /// under its old name, as in Core Data's own migrations (Docs/StoreNaming.md).
    mutating func renameJoin(_ rename: JoinRename) {
        let table = rename.new.name
        if rename.old.name != table {
            steps.append(
                .renameTable(
                    .init(
                        summary: "rename join table \(rename.old.name) to \(table)",
                        sql: ["ALTER TABLE \(SQLText.q(rename.old.name)) RENAME TO \(SQLText.q(table))"],
                        cost: .constant, table: table)))
        }
        let oldNames = Set(rename.old.columns.map(\.name))
        let swaps = rename.columns.contains { oldNames.contains($0.to) }
        var moves = rename.columns
        if swaps {
            moves =
                rename.columns.enumerated().map { ($0.element.from, "MM_RENAMING_\($0.offset)") }
                + rename.columns.enumerated().map { ("MM_RENAMING_\($0.offset)", $0.element.to) }
        }
        for (from, to) in moves {
            steps.append(
                .renameColumn(
                    .init(
                        summary: "rename column \(table).\(from) to \(to)",
                        sql: ["ALTER TABLE \(SQLText.q(table)) RENAME COLUMN \(SQLText.q(from)) TO \(SQLText.q(to))"],
                        cost: .constant, table: table)))
        }
        joinTablesRenamedFrom[table] = rename.old.name
        columnRenames[rename.old.name] = Dictionary(
            rename.columns.map { ($0.from, $0.to) }, uniquingKeysWith: { a, _ in a })
    }
}
