import DataModel

/// What checking and binding one relationship's targets needs, found once per entity
/// and batch (``InsertShape/targets``): the tables, columns and queries of
/// ``ObjectAccess/checkTarget(_:rule:field:batch:from:known:)``. Found per object, the model
/// lookups behind them (entities by name, columns by role, SQL text) cost a load of
/// objects with relationships a third of its time.
final class TargetRule {
    let relationship: CompiledRelationship
    /// `Person.posts`, for messages.
    let field: String
    let name: String
    let declaredIn: String
    let destination: String
    let isToMany: Bool
    /// The relationship's `maxCount`.
    let maxCount: UInt64?
    let destinationTable: StorageLayout.Table
    /// The destination table's ``ObjectAccess/slot(_:)``, for the batch's books.
    let destinationSlot: Int
    /// The entity numbers of the destination and its subentities.
    let destinationNumbers: Set<Int64>
    /// The table of the entity declaring the relationship.
    let sourceTable: StorageLayout.Table
    /// The entity number of a destination table's row: `SELECT Z_ENT … WHERE Z_PK = ?`.
    let destinationEntitySQL: String
    let inverse: CompiledRelationship?
    /// Where the store keeps a destination's one owner (a one-to-one's other side, a
    /// one-to-many's to-one side, a to-many without an inverse's key column), and the
    /// query reading it.
    let ownerSQL: String?
    /// Both at once, the destination's entity number and its owner, one query where a
    /// member's check made two (a list given whole by its owner: a query per member).
    let entityAndOwnerSQL: String?
    /// This side's to-one column in the source table, and the query finding the first
    /// row holding a key in it (a store whose two one-to-one columns disagree).
    let toOneColumn: String?
    let firstOwnerSQL: String?
    /// Whether the inserted row's own table has the to-one column (bound in its
    /// `INSERT`), and the column of the destination's entity number beside it.
    let bindsToOne: Bool
    let bindsEntityNumber: Bool
    /// The column of the destination's entity number beside this side's to-one column
    /// (a destination with subentities): set when the batch ends for a row written ahead.
    let toOneEntityColumn: String?
    /// The inverse side's maximum and the query counting a target's objects on it.
    let inverseLimit: (maximum: UInt64, countSQL: String)?
    /// The count query's ``ObjectAccess/slot(_:)``: the batch keeps each target's count.
    let inverseCountSlot: Int?
    /// Whether a target that is not written yet is written into the row's `INSERT`
    /// anyway, and checked when the batch ends (``ProvisionalTargets``): a to-one whose
    /// check needs nothing but the target's row and its count on the inverse side (no
    /// owner to compare: not a one-to-one). The entity number beside the key, when the
    /// destination has subentities, is set when the batch ends.
    let writesAhead: Bool
    /// For a to-many kept in its members' rows (not a many-to-many, no count on the
    /// inverse side): the condition (on the members' table) of a member that
    /// passes every check of ``ObjectAccess/checkTarget(_:rule:field:batch:from:known:)``
    /// for a new owner, of the destination and with no owner yet. A long list given
    /// whole is checked and set by one `UPDATE` under it (``ObjectAccess/setBasedListMinimum``).
    let freeMemberCondition: String?
    init?(_ relationship: CompiledRelationship, field: String, rowTable: StorageLayout.Table, access: ObjectAccess) {
        let r = relationship.declaration
        let version = access.version
        guard let destination = version.entity(named: r.destination) else { return nil }
        let quote = SQLText.q
        self.relationship = relationship
        self.field = field
        destinationNumbers = Set(access.entityNumbers(destination, includeSubentities: true).map(Int64.init))
        name = r.name
        declaredIn = relationship.declaredIn
        self.destination = r.destination
        isToMany = r.isToMany
        maxCount = r.maxCount
        let destinationTable = access.table(of: destination)
        self.destinationTable = destinationTable
        destinationSlot = access.slot(destinationTable.name)
        let sourceTable = access.table(of: version.entity(named: relationship.declaredIn) ?? destination)
        self.sourceTable = sourceTable
        destinationEntitySQL = "SELECT Z_ENT FROM \(quote(destinationTable.name)) WHERE Z_PK = ?"
        let inverse = r.inverse.flatMap { name in
            relationship.inverseEntity.flatMap { version.entity(named: $0)?.relationship(named: name) }
        }
        self.inverse = inverse
        let ownerColumn: String?
        if !r.isToMany, let inverse, !inverse.declaration.isToMany {
            ownerColumn =
                destinationTable.column(for: .toOne(entity: inverse.declaredIn, relationship: inverse.name))?.name
        } else {
            ownerColumn = access.layout.reverseColumn(for: relationship, destinationRoot: destination.root)?.column
        }
        ownerSQL = ownerColumn.map { "SELECT \(quote($0)) FROM \(quote(destinationTable.name)) WHERE Z_PK = ?" }
        entityAndOwnerSQL = ownerColumn.map {
            "SELECT Z_ENT, \(quote($0)) FROM \(quote(destinationTable.name)) WHERE Z_PK = ?"
        }
        let mine = sourceTable.column(for: .toOne(entity: relationship.declaredIn, relationship: r.name))?.name
        toOneColumn = mine
        firstOwnerSQL = mine.map {
            "SELECT Z_PK FROM \(quote(sourceTable.name)) WHERE \(quote($0)) = ? ORDER BY Z_PK LIMIT 1"
        }
        bindsToOne =
            !r.isToMany && rowTable.column(for: .toOne(entity: relationship.declaredIn, relationship: r.name)) != nil
        toOneEntityColumn =
            bindsToOne
            ? rowTable.column(for: .toOneEntity(entity: relationship.declaredIn, relationship: r.name))?.name : nil
        bindsEntityNumber = toOneEntityColumn != nil
        var limit: (UInt64, String)?
        if let inverse, inverse.declaration.isToMany, let max = inverse.declaration.maxCount, max > 0 {
            if r.isToMany {
                if let (join, _, theirs) = access.joinTable(for: relationship) {
                    limit = (max, "SELECT count(*) FROM \(quote(join.name)) WHERE \(quote(theirs)) = ?")
                }
            } else if let mine {
                limit = (max, "SELECT count(*) FROM \(quote(sourceTable.name)) WHERE \(quote(mine)) = ?")
            }
        }
        inverseLimit = limit
        inverseCountSlot = limit.map { access.slot($0.1) }
        writesAhead = bindsToOne && ownerSQL == nil
        if r.isToMany, !relationship.isManyToMany, limit == nil, let ownerColumn {
            let numbers = destinationNumbers.sorted().map(String.init).joined(separator: ", ")
            let table = quote(destinationTable.name)
            // Unary `+`: no index for these terms, so that the keys stay the outer loop (with
            // the owner column's index, SQLite walked every row without an owner per list).
            freeMemberCondition = "+\(table).Z_ENT IN (\(numbers)) AND +\(table).\(quote(ownerColumn)) IS NULL"
        } else {
            freeMemberCondition = nil
        }
    }
}
