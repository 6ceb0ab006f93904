import DataModel

/// What inserting an object of one entity needs that does not change from object
/// to object: the table, the columns of its `INSERT` (every stored attribute and
/// to-one key, in the entity's order), the field names of messages and the SQL of
/// its uniqueness checks. Built once per entity and batch of inserts, so that a load
/// of a million objects builds no SQL and looks up no column per object.
final class InsertShape {
    /// A stored attribute and its column, if the table has one.
    struct Attribute {
        var attribute: CompiledAttribute
        var column: String?
        /// Whether the attribute has a `min` or `max` to check.
        var hasLimits: Bool
    }

    /// What checking and binding an attribute's value needs per object, in a struct
    /// with no references: reading an ``Attribute`` copies its description, a retain
    /// and a release of each of its strings, per attribute and object (a sixth of a
    /// million-object load's time went there).
    struct AttributePlan {
        var type: AttributeType
        var isOptional: Bool
        var hasDefault: Bool
        var hasLimits: Bool
        var hasColumn: Bool
        /// A binary attribute that allows external storage: its bytes are stored
        /// behind Core Data's marker byte.
        var isExternalBinary: Bool
    }

    /// A to-one whose inverse is an ordered to-many: the row's place in its owner's
    /// list, a column of the `INSERT`. A class: read per object, a struct of six
    /// strings costs six retains and releases.
    final class OrderedMembership {
        let relationship: String
        let ownerColumn: String
        let orderColumn: String
        let list: OrderedList
        /// The place's position among the `INSERT`'s bindings.
        let binding: Int
        /// A written row's owner in the list (`SELECT owner … WHERE Z_PK = ?`), and the
        /// assignment of its place in an `UPDATE` (`"Z_FOK_…" = ?`).
        let ownerSQL: String
        let placeAssignment: String

        init(
            relationship: String, ownerColumn: String, orderColumn: String, list: OrderedList, binding: Int,
            table: String
        ) {
            self.relationship = relationship
            self.ownerColumn = ownerColumn
            self.orderColumn = orderColumn
            self.list = list
            self.binding = binding
            ownerSQL = "SELECT \(SQLText.q(ownerColumn)) FROM \(SQLText.q(table)) WHERE Z_PK = ?"
            placeAssignment = "\(SQLText.q(orderColumn)) = ?"
        }
    }

    /// A to-one's assignments in an `UPDATE` of a written row (a deferred reference):
    /// its key column, and the column of its destination's entity number when there is
    /// one. Quoted once per shape, not per row.
    struct ToOneAssignment {
        var key: String
        var entityNumber: String?
    }

    /// A property of a uniqueness constraint and its column.
    enum UniqueProperty {
        /// The attribute's position in ``attributes``.
        case attribute(position: Int, declaration: AttributeDescription)
        case relationship(name: String, destination: String)
    }

    /// A uniqueness constraint whose every property has a column: the query finding
    /// a row that holds the same values.
    struct Uniqueness {
        var owner: String
        var constraint: [String]
        var properties: [UniqueProperty]
        var sql: String
        /// Whether the store has the unique index the layout gives this constraint,
        /// exactly as the layout writes it: then the `INSERT` itself finds a row with
        /// the same values, and `sql` runs only to name it.
        var isEnforcedByIndex: Bool
    }

    let entity: CompiledEntity
    let table: StorageLayout.Table
    let entityNumber: Int64
    let rootNumber: Int64
    let attributes: [Attribute]
    /// ``attributes`` as the per-object checks read them.
    let plans: [AttributePlan]
    /// The entity's name and its root's, for the batch's books.
    let entityName: String
    let rootName: String
    /// The `NULL`s an object with no relationships binds for the to-one columns.
    let nullToOneBindings: Int
    /// Per stored relationship (in ``relationships``' order), what checking and binding
    /// its targets needs (nil when its destination is not in the model).
    let targets: [TargetRule?]
    /// Per stored relationship, how many columns of the `INSERT` it binds (its key and
    /// its destination's entity number).
    let toOneColumnCounts: [Int]
    /// Whether a relationship's inverse is a to-many with a `minCount`, whose links the
    /// batch notes (`ObjectBatch.noteLinks`).
    let notesLinks: Bool
    /// Whether a to-one's inverse is a to-one (whose column an insert sets too).
    let hasOneToOneInverses: Bool
    /// The to-ones that place a row in an ordered list.
    let memberships: [OrderedMembership]
    /// Per stored relationship (in ``relationships``' order), its assignments when it is
    /// a to-one with a column in the row's table.
    let toOneAssignments: [ToOneAssignment?]
    /// The table's name, quoted.
    let quotedTable: String
    /// The table's ``ObjectAccess/slot(_:)``, and whether any relationship of the model
    /// names rows of this table (then the batch notes each new row's entity number,
    /// which a later line naming it would look up).
    let tableSlot: Int
    let isDestination: Bool
    /// Whether the table holds the rows of this entity alone (no other entity of its
    /// hierarchy has a number): a row the batch wrote to it is of this entity, which
    /// the batch then need not note per row (``ObjectBatch/rowEntity(table:key:)``).
    let aloneInTable: Bool
    /// The stored relationships, each with its field name (`Person.posts`).
    let relationships: [(relationship: CompiledRelationship, field: String)]
    let attributeNames: Set<String>
    let relationshipNames: Set<String>
    /// The same names in an array: a few are compared faster than one is hashed.
    let relationshipNameList: [String]

    /// Whether the entity has a relationship of this name.
    func hasRelationship(_ name: String) -> Bool {
        relationshipNameList.count <= 8 ? relationshipNameList.contains(name) : relationshipNames.contains(name)
    }
    /// The columns the `INSERT` binds, in order (Z_PK, Z_ENT, Z_OPT first).
    let columns: [String]
    let insertSQL: String
    let uniqueness: [Uniqueness]
    /// Whether the store's unique indexes enforce every uniqueness constraint, so that
    /// none needs a query before the `INSERT` (with some, all are queried, in order,
    /// so that the first constraint a row breaks is the one reported).
    let uniquenessIsEnforced: Bool
    /// The prepared `INSERT` and uniqueness queries while a batch runs (released when
    /// it ends, so that the store can close): looked up by SQL text per object, they
    /// cost a hash of that text each time.
    var insertStatement: Statement?
    /// The bindings of the last `INSERT`, kept for their storage
    /// (``ObjectAccess/insertRow(_:given:relationships:positions:primaryKey:batch:)``).
    var bindingsBuffer: [DatabaseValue] = []
    /// The places of the last new member, kept for their storage.
    var placesBuffer: [ListPlace] = []
    var uniquenessStatements: [Int: Statement] = [:]

    /// Lets go of the prepared statements (the connection's cache keeps them).
    func releaseStatements() {
        insertStatement = nil
        uniquenessStatements = [:]
    }

    /// The per-object plan of a stored attribute.
    static func plan(_ stored: Attribute) -> AttributePlan {
        let a = stored.attribute.declaration
        return AttributePlan(
            type: a.type, isOptional: a.isOptional, hasDefault: a.defaultValue != nil, hasLimits: stored.hasLimits,
            hasColumn: stored.column != nil, isExternalBinary: a.allowsExternalStorage && a.type == .binary)
    }

    init(_ entity: CompiledEntity, access: ObjectAccess) {
        self.entity = entity
        let table = access.table(of: entity)
        self.table = table
        entityNumber = Int64(access.layout.entityNumbers[entity.name]!)
        rootNumber = Int64(access.layout.entityNumbers[entity.root]!)
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        var attributes: [Attribute] = []
        for attribute in entity.attributes where !attribute.declaration.isTransient {
            let column = table.column(for: .attribute(entity: attribute.declaredIn, property: attribute.name))?.name
            if let column { columns.append(column) }
            attributes.append(
                Attribute(
                    attribute: attribute, column: column,
                    hasLimits: attribute.declaration.minimum != nil || attribute.declaration.maximum != nil))
        }
        let attributeColumns = columns.count
        var counts: [Int] = []
        let relationships = Self.storedRelationships(entity, table: table, columns: &columns, counts: &counts)
        toOneColumnCounts = counts
        memberships = Self.memberships(entity, table: table, access: access, columns: &columns)
        quotedTable = SQLText.q(table.name)
        toOneAssignments = relationships.map { relationship, _ in
            let r = relationship.declaration
            guard !r.isToMany,
                let column = table.column(for: .toOne(entity: relationship.declaredIn, relationship: r.name))
            else { return nil }
            let entityColumn = table.column(for: .toOneEntity(entity: relationship.declaredIn, relationship: r.name))
            return ToOneAssignment(
                key: "\(SQLText.q(column.name)) = ?", entityNumber: entityColumn.map { "\(SQLText.q($0.name)) = ?" })
        }
        tableSlot = access.slot(table.name)
        isDestination = access.version.entities.contains { other in
            other.relationships.contains { r in
                access.version.entity(named: r.declaration.destination).map { access.table(of: $0).name } == table.name
            }
        }
        aloneInTable = access.version.entities.allSatisfy { $0.root != entity.root || $0.name == entity.name }
        nullToOneBindings = columns.count - attributeColumns
        self.attributes = attributes
        plans = attributes.map(Self.plan)
        entityName = entity.name
        rootName = entity.root
        self.relationships = relationships
        targets = relationships.map { TargetRule($0.0, field: $0.1, rowTable: table, access: access) }
        let inverses = entity.relationships.map { r in
            r.declaration.inverse.flatMap { name in
                r.inverseEntity.flatMap { access.version.entity(named: $0)?.relationship(named: name) }
            }
        }
        notesLinks = inverses.contains { ($0?.declaration.isToMany ?? false) && ($0?.declaration.minCount ?? 0) > 0 }
        hasOneToOneInverses = zip(entity.relationships, inverses).contains {
            !$0.declaration.isToMany && $1.map { !$0.declaration.isToMany } == true
        }
        attributeNames = Set(entity.attributes.map(\.name))
        relationshipNames = Set(entity.relationships.map(\.name))
        relationshipNameList = entity.relationships.map(\.name)
        self.columns = columns
        insertSQL = """
            INSERT INTO \(SQLText.q(table.name)) (\(columns.map(SQLText.q).joined(separator: ", "))) \
            VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))
            """
        let uniqueness = Self.uniquenessChecks(entity, table: table, attributes: attributes, access: access)
        self.uniqueness = uniqueness
        uniquenessIsEnforced = uniqueness.allSatisfy(\.isEnforcedByIndex)
    }

    /// The stored relationships of `entity`, each with its name for messages; the
    /// columns of each to-one (its key, and its entity column when the destination has
    /// subentities) appended to `columns`, and how many each added to `counts`.
    private static func storedRelationships(
        _ entity: CompiledEntity, table: StorageLayout.Table, columns: inout [String], counts: inout [Int]
    ) -> [(CompiledRelationship, String)] {
        var relationships: [(CompiledRelationship, String)] = []
        for relationship in entity.relationships where !relationship.declaration.isTransient {
            relationships.append((relationship, "\(entity.name).\(relationship.name)"))
            let r = relationship.declaration
            let before = columns.count
            if !r.isToMany,
                let column = table.column(for: .toOne(entity: relationship.declaredIn, relationship: r.name))
            {
                columns.append(column.name)
                if let typeColumn = table.column(
                    for: .toOneEntity(entity: relationship.declaredIn, relationship: r.name))
                {
                    columns.append(typeColumn.name)
                }
            }
            counts.append(columns.count - before)
        }
        return relationships
    }

    /// The to-ones of `entity` whose inverse is an ordered to-many, their order columns
    /// appended to `columns`.
    private static func memberships(
        _ entity: CompiledEntity, table: StorageLayout.Table, access: ObjectAccess, columns: inout [String]
    ) -> [OrderedMembership] {
        let version = access.version
        var memberships: [OrderedMembership] = []
        for relationship in entity.relationships
        where !relationship.declaration.isToMany && !relationship.declaration.isTransient {
            guard let inverse = relationship.declaration.inverse, let owner = relationship.inverseEntity,
                version.entity(named: owner)?.relationship(named: inverse)?.declaration.keepsOrder == true,
                let order = table.column(for: .order(entity: owner, relationship: inverse)),
                let key = table.column(for: .toOne(entity: relationship.declaredIn, relationship: relationship.name))
            else { continue }
            memberships.append(
                OrderedMembership(
                    relationship: relationship.name, ownerColumn: key.name, orderColumn: order.name,
                    list: access.orderedList(table: table.name, ownerColumn: key.name, orderColumn: order.name),
                    binding: columns.count,
                    table: table.name))
            columns.append(order.name)
        }
        return memberships
    }

    /// The uniqueness constraints of `entity` and its ancestors, each as the query
    /// finding a stored object with the same values (and whether a unique index
    /// already enforces it).
    private static func uniquenessChecks(
        _ entity: CompiledEntity, table: StorageLayout.Table, attributes: [Attribute], access: ObjectAccess
    ) -> [Uniqueness] {
        var uniqueness: [Uniqueness] = []
        for name in access.version.lineage(of: entity.name) {
            guard let owner = access.version.entity(named: name) else { continue }
            for constraint in owner.uniqueness {
                var conditions: [String] = []
                var properties: [UniqueProperty] = []
                for property in constraint {
                    if let attribute = entity.attribute(named: property),
                        let column = table.column(for: .attribute(entity: attribute.declaredIn, property: property)),
                        let position = attributes.firstIndex(where: { $0.attribute.name == property })
                    {
                        conditions.append("\(SQLText.q(column.name)) = ?")
                        properties.append(.attribute(position: position, declaration: attribute.declaration))
                    } else if let relationship = entity.relationship(named: property),
                        let column = table.column(for: .toOne(entity: relationship.declaredIn, relationship: property))
                    {
                        conditions.append("\(SQLText.q(column.name)) = ?")
                        properties.append(
                            .relationship(name: property, destination: relationship.declaration.destination))
                    } else {
                        break
                    }
                }
                // A property without a column never matches: the constraint is not checked.
                guard conditions.count == constraint.count, !conditions.isEmpty else { continue }
                let numbers = access.entityNumbers(owner, includeSubentities: true).map(String.init).joined(
                    separator: ",")
                let sql = """
                    SELECT Z_PK, Z_ENT FROM \(SQLText.q(table.name)) \
                    WHERE \(conditions.joined(separator: " AND ")) AND Z_ENT IN (\(numbers)) ORDER BY Z_PK LIMIT 1
                    """
                let indexName = "Z_\(owner.name)_UNIQUE_\(constraint.joined(separator: "_"))"
                let enforced =
                    access.layout.indexes.first { $0.name == indexName && $0.table == table.name && $0.isUnique }.map {
                        index in
                        let stored = try? access.connection.scalarString(
                            "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?",
                            .text(index.name))
                        return stored == SchemaSQL.createIndex(index)
                    } ?? false
                uniqueness.append(
                    Uniqueness(
                        owner: owner.name, constraint: constraint, properties: properties, sql: sql,
                        isEnforcedByIndex: enforced))
            }
        }
        return uniqueness
    }
}
