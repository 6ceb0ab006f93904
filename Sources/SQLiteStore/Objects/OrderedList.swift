/// The lists of one ordered to-many relationship as the store keeps them: the table of
/// its members' rows (or its join table), the column holding each member's owner and
/// the column holding its place (Core Data's `Z_FOK_` column, or a join table's order
/// column). A batch appending members keeps each list's end (``ObjectBatch/listEnds``).
/// A class: passed per object, a struct of four strings cost four retains and releases.
final class OrderedList {
    /// Names the list among the batch's list ends.
    let name: String
    /// The list's number among the batch's list ends (``ObjectAccess/slot(_:)``).
    let slot: Int
    /// The highest place among an owner's members (0 when it has none).
    let endSQL: String
    /// The same, leaving out one member (a row already written that joins the list).
    let endExcludingSQL: String
    /// The highest owner key any member names (0 when none does).
    let highestOwnerSQL: String
    /// The highest place among an owner's members, leaving out the members a JSON
    /// array of keys names (a list given whole).
    let endExcludingListSQL: String

    /// `memberColumn`: the column naming each member (its row's `Z_PK`, or a join
    /// table's column of the other side).
    init(table: String, ownerColumn: String, orderColumn: String, memberColumn: String = "Z_PK", slot: Int) {
        name = Self.name(table: table, orderColumn: orderColumn)
        self.slot = slot
        let (t, owner, order) = (SQLText.q(table), SQLText.q(ownerColumn), SQLText.q(orderColumn))
        let member = SQLText.q(memberColumn)
        endSQL = "SELECT coalesce(max(\(order)), 0) FROM \(t) WHERE \(owner) = ?"
        endExcludingSQL = endSQL + " AND \(member) <> ?"
        highestOwnerSQL = "SELECT coalesce(max(\(owner)), 0) FROM \(t)"
        endExcludingListSQL = endSQL + " AND \(member) NOT IN (SELECT value FROM json_each(?))"
    }

    /// The name of the list whose places are in `orderColumn` of `table`.
    static func name(table: String, orderColumn: String) -> String {
        table + "\u{0}" + orderColumn
    }
}

/// A row's place in one ordered list, noted in the batch once the row is written.
struct ListPlace {
    /// The list's slot (``OrderedList/slot``).
    var list: Int
    var owner: Int64
    var place: Int64
    var appended: Bool
}
