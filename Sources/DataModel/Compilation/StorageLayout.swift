/// The SQLite layout of a model version, following Core Data's conventions
/// (Docs/Stores.md): one table per root entity, `Z`-prefixed columns, join
/// tables for many-to-many relationships, `Z_FOK_` order columns.
package struct StorageLayout: Sendable, Hashable, Codable {
    /// What a column stores.
    package enum Role: Sendable, Hashable, Codable {
        /// `Z_PK`, the row's primary key.
        case primaryKey
        /// `Z_ENT`, the row's entity number.
        case entityNumber
        /// `Z_OPT`, Core Data's change counter.
        case changeCounter
        /// An attribute's value.
        case attribute(entity: String, property: String)
        /// A to-one relationship's destination primary key.
        case toOne(entity: String, relationship: String)
        /// The entity number of a to-one relationship's destination row, kept beside
        /// the key when the destination entity has subentities (`Z<n>_<NAME>`, as
        /// Core Data writes it: `ZOWNER` and `Z22_OWNER`).
        case toOneEntity(entity: String, relationship: String)
        /// The key of the source row of a to-many relationship without an inverse,
        /// kept on the destination row (`Z<n><NAME>`, as Core Data stores it:
        /// `ZPARAMETER.Z16PARAMETERS` for TokenMetaInformation.parameters).
        case toManyKey(entity: String, relationship: String)
        /// The position of a row in an ordered to-many relationship (`Z_FOK_…`).
        case order(entity: String, relationship: String)
        /// A join table column holding the primary keys of `entity`'s rows, which
        /// `relationship` (of the other end) points to.
        case joinKey(entity: String, relationship: String)
    }

    /// One column.
    package struct Column: Sendable, Hashable, Codable {
        /// The column name, e.g. `ZFIRSTNAME`.
        package var name: String
        /// The declared SQL type, e.g. `VARCHAR`.
        package var type: String
        /// What it stores.
        package var role: Role
    }

    /// One table.
    package struct Table: Sendable, Hashable, Codable {
        /// The table name, e.g. `ZPERSON` or `Z_2TAGS`.
        package var name: String
        /// The root entity whose hierarchy the table stores; for a join table, the
        /// entity declaring the relationship it stores.
        package var entity: String
        /// For a join table, the relationship it stores (as `Entity.relationship`).
        package var joinRelationship: String?
        /// Columns in declaration order.
        package var columns: [Column]
        /// Primary key columns (join tables: both key columns).
        package var primaryKey: [String]

        /// The column storing a role, if any.
        package func column(for role: Role) -> Column? { columns.first { $0.role == role } }
    }

    /// One index.
    package struct Index: Sendable, Hashable, Codable {
        /// The index name.
        package var name: String
        /// The indexed table.
        package var table: String
        /// Indexed columns with their order.
        package var columns: [IndexColumn]
        /// Unique index (uniqueness constraints).
        package var isUnique: Bool
        /// A partial index condition, for constraints of subentities (`Z_ENT IN (…)`).
        package var condition: String?

        /// Creates an index description.
        package init(name: String, table: String, columns: [IndexColumn], isUnique: Bool, condition: String?) {
            self.name = name
            self.table = table
            self.columns = columns
            self.isUnique = isUnique
            self.condition = condition
        }
    }

    /// One column of an index.
    package struct IndexColumn: Sendable, Hashable, Codable {
        /// The column name.
        package var name: String
        /// Descending order when true.
        package var isDescending: Bool

        /// Creates an index column.
        package init(name: String, isDescending: Bool) {
            self.name = name
            self.isDescending = isDescending
        }
    }

    /// Entity name → `Z_ENT` number.
    package var entityNumbers: [String: Int]
    /// Tables: entity tables in entity-number order, then join tables.
    package var tables: [Table]
    /// Indexes, in creation order.
    package var indexes: [Index]

    /// The table of a root entity or a join table, by table name.
    package func table(named name: String) -> Table? { tables.first { $0.name == name } }

    /// The join table storing a to-many relationship (or its many-to-many inverse),
    /// with the column holding this side's keys and the one holding the
    /// destination's keys. Join tables list the keys of the relationship they are
    /// named after first, then its destination's.
    package func joinTable(for relationship: CompiledRelationship) -> (table: Table, mine: String, theirs: String)? {
        let r = relationship.declaration
        let own = "\(relationship.declaredIn).\(r.name)"
        let inverse = relationship.inverseEntity.flatMap { owner in r.inverse.map { "\(owner).\($0)" } }
        for table in tables where table.joinRelationship == own || (inverse != nil && table.joinRelationship == inverse)
        {
            guard table.columns.count >= 2 else { continue }
            let first = table.columns[0].name, second = table.columns[1].name
            return table.joinRelationship == own ? (table, first, second) : (table, second, first)
        }
        return nil
    }

    /// The column of the destination's table pointing back to the source row of a
    /// to-many relationship stored that way: a one-to-many (the inverse's column)
    /// or a to-many without an inverse (`Z<n><NAME>`), with its order column.
    package func reverseColumn(for relationship: CompiledRelationship, destinationRoot: String)
        -> (table: Table, column: String, order: String?)?
    {
        let r = relationship.declaration
        guard r.isToMany, !relationship.isManyToMany, let table = table(forEntity: destinationRoot) else { return nil }
        let role: Role
        if let inverse = r.inverse, let owner = relationship.inverseEntity {
            role = .toOne(entity: owner, relationship: inverse)
        } else {
            role = .toManyKey(entity: relationship.declaredIn, relationship: r.name)
        }
        guard let column = table.column(for: role) else { return nil }
        return (
            table, column.name, table.column(for: .order(entity: relationship.declaredIn, relationship: r.name))?.name
        )
    }

    /// The table storing an entity's rows (its root's table).
    package func table(forEntity root: String) -> Table? {
        tables.first { $0.joinRelationship == nil && $0.entity == root }
    }
}
