package import DataModel
package import SQLiteStore

/// Reads source objects of a hop from the store's old tables, with prepared
/// statements reused for every row.
package final class SourceReader {
    package let connection: Connection
    package let version: CompiledVersion
    package let layout: StorageLayout

    /// Per entity: where its values are in a `SELECT *` row of its table (all rows of
    /// one table have the same columns), worked out once instead of per row. A class:
    /// every row uses it, and copying its arrays per row was a share of a policy's time.
    final class RowShape {
        var attributes: [(name: String, attribute: AttributeDescription, index: Int32)] = []
        var toOne: [(name: String, index: Int32)] = []
        var shape = ObjectShape(names: [])

        /// Per attribute, what reading a value needs (copying the descriptions for
        /// every value of every row was a large share of a policy's time).
        var columns: [Int32] = []
        var types: [AttributeType] = []
        var external: [Bool] = []
        var toOneColumns: [Int32] = []
    }
    private var shapes: [String: RowShape] = [:]
    private var numbers: [Int: String] = [:]

    package init(connection: Connection, version: CompiledVersion, layout: StorageLayout) {
        self.connection = connection
        self.version = version
        self.layout = layout
    }

    /// Properties a policy read that their source entity does not have
    /// ("Entity.property"), since the manager last looked.
    private(set) var unknownReads: [String] = []

    /// Records a read of a name that is not a stored attribute of the object's
    /// entity; transient attributes and relationships are known names.
    func noteRead(of name: String, in entity: String) {
        guard let compiled = version.entity(named: entity), compiled.attribute(named: name) == nil,
            compiled.relationship(named: name) == nil
        else { return }
        let read = "\(entity).\(name)"
        if !unknownReads.contains(read) { unknownReads.append(read) }
    }

    /// True when a policy read an unknown name since the manager last looked.
    package var hasUnknownReads: Bool { !unknownReads.isEmpty }

    /// The unknown reads so far, forgetting them.
    package func takeUnknownReads() -> [String] {
        defer { unknownReads = [] }
        return unknownReads
    }

    func entityName(number: Int) -> String? {
        if numbers.isEmpty {
            numbers = Dictionary(layout.entityNumbers.map { ($0.value, $0.key) }, uniquingKeysWith: { a, _ in a })
        }
        return numbers[number]
    }

    private func shape(of entity: CompiledEntity, columns: [String: Int32]) -> RowShape {
        if let known = shapes[entity.name] { return known }
        let table = layout.table(forEntity: entity.root)
        let shape = RowShape()
        for attribute in entity.attributes where !attribute.declaration.isTransient {
            if let column = table?.column(for: .attribute(entity: attribute.declaredIn, property: attribute.name)),
                let i = columns[column.name]
            {
                shape.attributes.append((attribute.name, attribute.declaration, i))
            }
        }
        for relationship in entity.relationships
        where !relationship.declaration.isToMany && !relationship.declaration.isTransient {
            if let column = table?.column(
                for: .toOne(entity: relationship.declaredIn, relationship: relationship.name)),
                let i = columns[column.name]
            {
                shape.toOne.append((relationship.name, i))
            }
        }
        shape.shape = ObjectShape(names: shape.attributes.map(\.name), toOneNames: shape.toOne.map(\.name))
        shape.columns = shape.attributes.map(\.index)
        shape.types = shape.attributes.map(\.attribute.type)
        shape.external = shape.attributes.map { $0.attribute.allowsExternalStorage && $0.attribute.type == .binary }
        shape.toOneColumns = shape.toOne.map(\.index)
        shapes[entity.name] = shape
        return shape
    }

    func subtreeNumbers(_ name: String) -> [Int] {
        version.subtree(of: name).compactMap { layout.entityNumbers[$0] }.sorted()
    }

    /// Builds a source object from the current row of a `SELECT *` statement.
    func object(from statement: Statement, columns: [String: Int32]) throws -> SourceObject? {
        // Positions of the bookkeeping columns and the row shape of each entity
        // number, worked out once per statement rather than per row.
        if positions?.statement !== statement {
            guard let z = columns["Z_ENT"], let pk = columns["Z_PK"] else { return nil }
            positions = Positions(statement: statement, z: z, pk: pk, opt: columns["Z_OPT"])
        }
        let positions = positions!
        let number = Int(statement.int64(at: positions.z))
        let name: String, shape: RowShape
        if let last = positions.last, last.number == number {
            (name, shape) = (last.name, last.shape)
        } else if let cached = positions.byNumber[number] {
            (name, shape) = cached
            positions.last = (number, name, shape)
        } else {
            guard let found = entityName(number: number), let entity = version.entity(named: found) else { return nil }
            (name, shape) = (found, self.shape(of: entity, columns: columns))
            positions.byNumber[number] = (name, shape)
            positions.last = (number, name, shape)
        }
        var values: [AttributeValue?] = []
        values.reserveCapacity(shape.columns.count)
        for i in shape.columns.indices {
            let value = statement.value(at: shape.columns[i])
            values.append(
                shape.external[i]
                    ? try ValueCoding.attributeValue(
                        value, as: shape.attributes[i].attribute, storePath: connection.path)
                    : ValueCoding.attributeValue(value, as: shape.types[i]))
        }
        let keys = shape.toOneColumns.map { statement.isNull(at: $0) ? nil : statement.int64(at: $0) }
        let counter = positions.opt.map { statement.int64(at: $0) } ?? 1
        return SourceObject(
            entity: name, primaryKey: statement.int64(at: positions.pk), storage: values, keys: keys,
            shape: shape.shape,
            changeCounter: counter, reader: self)
    }

    /// Where the bookkeeping columns are in one statement's rows, and the shape of
    /// each entity number met in them (the last one at hand: rows of one entity
    /// come in runs).
    private final class Positions {
        let statement: Statement
        let z: Int32, pk: Int32, opt: Int32?
        var byNumber: [Int: (String, RowShape)] = [:]
        var last: (number: Int, name: String, shape: RowShape)?

        init(statement: Statement, z: Int32, pk: Int32, opt: Int32?) {
            self.statement = statement
            self.z = z
            self.pk = pk
            self.opt = opt
        }
    }
    private var positions: Positions?

    static func columnIndex(_ statement: Statement) -> [String: Int32] {
        Dictionary(
            statement.columnNames.enumerated().map { ($0.element, Int32($0.offset)) }, uniquingKeysWith: { a, _ in a })
    }

    /// Streams the objects of exactly `entity` (not its subentities) in key order.
    package func forEach(_ entity: String, _ body: (SourceObject) throws -> Void) throws {
        guard let compiled = version.entity(named: entity), let table = layout.table(forEntity: compiled.root),
            let number = layout.entityNumbers[entity]
        else { return }
        let statement = try connection.prepare(
            "SELECT * FROM \(SQLText.q(table.name)) WHERE Z_ENT = \(number) ORDER BY Z_PK")
        let columns = Self.columnIndex(statement)
        while try statement.step() {
            if let object = try object(from: statement, columns: columns) { try body(object) }
        }
    }

    /// One object of `entity` (or a subentity) by key.
    func object(_ entity: String, key: Int64) throws -> SourceObject? {
        guard let compiled = version.entity(named: entity), let table = layout.table(forEntity: compiled.root) else {
            return nil
        }
        let statement = try connection.cachedStatement(
            """
            SELECT * FROM \(SQLText.q(table.name)) \
            WHERE Z_PK = ? AND Z_ENT IN (\(subtreeNumbers(entity).map(String.init).joined(separator: ",")))
            """)
        try statement.bind([.integer(key)])
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return try object(from: statement, columns: Self.columnIndex(statement))
    }

    func toOne(of source: SourceObject, _ name: String) throws -> SourceObject? {
        guard let relationship = version.entity(named: source.entity)?.relationship(named: name) else {
            throw PolicyError("\(source.entity) has no relationship '\(name)' in version \(version.version)")
        }
        guard !relationship.declaration.isToMany else {
            throw PolicyError("\(source.entity).\(name) is to-many; use objects(\"\(name)\")")
        }
        guard let key = source.toOneKey(name) else { return nil }
        return try object(relationship.declaration.destination, key: key)
    }

    func toMany(of source: SourceObject, _ name: String) throws -> [SourceObject] {
        guard let entity = version.entity(named: source.entity), let relationship = entity.relationship(named: name)
        else {
            throw PolicyError("\(source.entity) has no relationship '\(name)' in version \(version.version)")
        }
        let r = relationship.declaration
        guard r.isToMany else { return try toOne(of: source, name).map { [$0] } ?? [] }
        guard let destination = version.entity(named: r.destination),
            let destinationTable = layout.table(forEntity: destination.root)
        else { return [] }
        var keys: [Int64] = []
        if !relationship.isManyToMany,
            let (_, column, order) = layout.reverseColumn(for: relationship, destinationRoot: destination.root)
        {
            let statement = try connection.cachedStatement(
                """
                SELECT Z_PK FROM \(SQLText.q(destinationTable.name)) WHERE \(SQLText.q(column)) = ? \
                ORDER BY \(order.map { SQLText.q($0) + ", " } ?? "")Z_PK
                """)
            try statement.bind([.integer(source.primaryKey)])
            while try statement.step() { keys.append(statement.int64(at: 0)) }
            statement.reset()
        } else {
            guard let (join, mine, theirs) = layout.joinTable(for: relationship) else { return [] }
            let order = join.column(for: .order(entity: relationship.declaredIn, relationship: name))
            let statement = try connection.cachedStatement(
                """
                SELECT \(SQLText.q(theirs)) FROM \(SQLText.q(join.name)) WHERE \(SQLText.q(mine)) = ? \
                ORDER BY \(order.map { SQLText.q($0.name) + ", " } ?? "")\(SQLText.q(theirs))
                """)
            try statement.bind([.integer(source.primaryKey)])
            while try statement.step() { keys.append(statement.int64(at: 0)) }
            statement.reset()
        }
        return try keys.compactMap { try object(r.destination, key: $0) }
    }
}
