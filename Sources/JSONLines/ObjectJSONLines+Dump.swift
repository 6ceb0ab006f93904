import DataModel
package import SQLiteStore

// `dump`: objects as JSON Lines, an entity's or a whole store's (ObjectJSONLines.swift
// holds the format and `load`).
extension ObjectJSONLines {
    /// Writes every object of `entity` (with subentities) as lines, in primary-key
    /// order, or, when they belong to an ordered one-to-many, in each list's order
    /// (``ObjectAccess/listOrderColumn(of:)``), which `load` rebuilds. A value that JSON
    /// Lines cannot carry unchanged stops the dump with a `StoreError` naming the object
    /// and attribute (``problem(writing:type:)``).
    package static func dump(_ access: ObjectAccess, entity: String, limit: Int? = nil, write: (String) -> Void) throws
    {
        try access.forEach(
            entity, includeSubentities: true, limit: limit, inListOrder: true, relationships: { _ in true }
        ) { object in
            guard let rowEntity = access.version.entity(named: object.entity) else { return }
            for attribute in rowEntity.attributes where !attribute.declaration.isTransient {
                guard let value = object.values[attribute.name],
                    let problem = problem(writing: value, type: attribute.declaration.type)
                else { continue }
                throw StoreError(
                    .invalidValue, "\(object.entity) \(object.primaryKey): \(attribute.name): \(problem)",
                    path: access.store.path)
            }
            write(line(for: object, entity: rowEntity, includes: access.isStoredSide))
        }
    }

    /// Writes every object of `entity` as ``dump(_:entity:limit:write:)`` does, as
    /// UTF-8 bytes in chunks of whole lines (each ending in LF, about 64 KB a chunk):
    /// the lines are written straight into one buffer, with the field order of each
    /// entity worked out once, not per object.
    /// `wholeStore` (`dump --all`): a many-to-many ordered on the side the store does not
    /// keep its pairs on is written on that side too, so that `load --all` sets both
    /// orders (one side's order was lost on the way back); a dump of one entity writes
    /// each pair once, so that dumps load back entity by entity.
    package static func dump(
        _ access: ObjectAccess, entity: String, limit: Int? = nil, wholeStore: Bool = false,
        progress: ((Int) -> Void)? = nil,
        writeChunk: (UnsafeBufferPointer<UInt8>) -> Void
    ) throws {
        var layouts: [String: LineLayout] = [:]
        var out: [UInt8] = []
        out.reserveCapacity(1 << 17)
        var count = 0
        let includes: (CompiledRelationship) -> Bool = { relationship in
            access.isStoredSide(relationship)
                || (wholeStore && relationship.isManyToMany && relationship.declaration.keepsOrder)
        }
        try access.forEach(entity, includeSubentities: true, limit: limit, inListOrder: true, relationships: includes) {
            object in
            let layout: LineLayout
            if let known = layouts[object.entity] {
                layout = known
            } else {
                guard let rowEntity = access.version.entity(named: object.entity) else { return }
                layout = LineLayout(rowEntity, includes: includes)
                layouts[object.entity] = layout
            }
            for (name, type) in layout.attributes {
                guard let value = object.values[name], let problem = problem(writing: value, type: type) else {
                    continue
                }
                throw StoreError(
                    .invalidValue, "\(object.entity) \(object.primaryKey): \(name): \(problem)", path: access.store.path
                )
            }
            layout.write(object, into: &out)
            out.append(UInt8(ascii: "\n"))
            count += 1
            if out.count >= 1 << 16 {
                out.withUnsafeBufferPointer(writeChunk)
                out.removeAll(keepingCapacity: true)
                progress?(count)
            }
        }
        if !out.isEmpty { out.withUnsafeBufferPointer(writeChunk) }
        progress?(count)
    }

    /// The whole store as ``dump(_:entity:limit:progress:writeChunk:)`` writes one
    /// entity: every root entity with its subentities, in ``rootsInReferenceOrder(_:)``.
    /// `load --all` reads it back in one transaction, whatever references cross
    /// entities (cycles too): a reference to an object of a later line is set when the
    /// file has been read.
    package static func dumpAll(
        _ access: ObjectAccess, progress: ((Int) -> Void)? = nil, writeChunk: (UnsafeBufferPointer<UInt8>) -> Void
    ) throws {
        var before = 0
        for root in rootsInReferenceOrder(access) {
            var written = 0
            try dump(
                access, entity: root, wholeStore: true,
                progress: { count in
                    written = count
                    progress?(before + count)
                }, writeChunk: writeChunk)
            before += written
        }
    }

    /// The root entities in the order a dump writes them: an entity after the entities
    /// its lines name (a `Song` names its `Playlist`: playlists first), so that a load
    /// of the dump sets each reference as it reads the line, where a reference to a
    /// later line waits for the end of the file (and its memory grows with the file).
    /// Names break ties; in a cycle of entities that name each other, the first by name
    /// goes first.
    package static func rootsInReferenceOrder(_ access: ObjectAccess) -> [String] {
        let version = access.version
        var names: [String: Set<String>] = [:]
        for entity in version.entities {
            for relationship in entity.relationships
            where !relationship.declaration.isTransient && access.isStoredSide(relationship) {
                guard let destination = version.entity(named: relationship.declaration.destination),
                    destination.root != entity.root
                else { continue }
                names[entity.root, default: []].insert(destination.root)
            }
        }
        var waiting = version.entities.filter { $0.parent == nil }.map(\.name).sorted()
        var written: Set<String> = []
        var order: [String] = []
        // Whether `root` names, through entities not written yet, an entity naming it.
        func isInCycle(_ root: String) -> Bool {
            var seen: Set<String> = []
            var next = Array(names[root, default: []].subtracting(written))
            while let name = next.popLast() {
                if name == root { return true }
                if seen.insert(name).inserted { next += names[name, default: []].subtracting(written) }
            }
            return false
        }
        while !waiting.isEmpty {
            let next =
                waiting.firstIndex { names[$0, default: []].isSubset(of: written) } ?? waiting.firstIndex(
                    where: isInCycle) ?? 0
            let root = waiting.remove(at: next)
            order.append(root)
            written.insert(root)
        }
        return order
    }

    /// The fields of one entity's lines, in the order `line(for:entity:includes:)`
    /// writes them, each with its key already encoded.
    struct LineLayout {
        enum Field {
            case attribute(String, AttributeType)
            case relationship(String, toMany: Bool)
        }
        var fields: [(key: [UInt8], field: Field)]
        var attributes: [(String, AttributeType)]
        var entityName: [UInt8]

        init(_ entity: CompiledEntity, includes: (CompiledRelationship) -> Bool) {
            var named: [(String, Field)] = []
            for attribute in entity.attributes where !attribute.declaration.isTransient {
                named.append((attribute.name, .attribute(attribute.name, attribute.declaration.type)))
            }
            for relationship in entity.relationships
            where !relationship.declaration.isTransient && includes(relationship) {
                named.append(
                    (relationship.name, .relationship(relationship.name, toMany: relationship.declaration.isToMany)))
            }
            named.sort { $0.0.utf16.lexicographicallyPrecedes($1.0.utf16) }
            fields = named.map { name, field in
                var key: [UInt8] = [UInt8(ascii: ",")]
                JSONValue.writeString(name, to: &key)
                key.append(UInt8(ascii: ":"))
                return (key, field)
            }
            attributes = entity.attributes.filter { !$0.declaration.isTransient }.map { ($0.name, $0.declaration.type) }
            entityName = []
            JSONValue.writeString(entity.name, to: &entityName)
        }

        func write(_ object: StoredObject, into out: inout [UInt8]) {
            out.append(contentsOf: #"{"_pk":"#.utf8)
            out.append(contentsOf: String(object.primaryKey).utf8)
            out.append(contentsOf: #","_entity":"#.utf8)
            out.append(contentsOf: entityName)
            if !object.positions.isEmpty {
                out.append(contentsOf: #","_position":{"#.utf8)
                for (i, (name, value)) in object.positions.sorted(by: { $0.key < $1.key }).enumerated() {
                    if i > 0 { out.append(UInt8(ascii: ",")) }
                    JSONValue.writeString(name, to: &out)
                    out.append(UInt8(ascii: ":"))
                    out.append(contentsOf: String(value).utf8)
                }
                out.append(UInt8(ascii: "}"))
            }
            for (key, field) in fields {
                out.append(contentsOf: key)
                switch field {
                case .attribute(let name, let type):
                    if let value = object.values[name] {
                        ObjectJSONLines.write(value, type: type, into: &out)
                    } else {
                        out.append(contentsOf: "null".utf8)
                    }
                case .relationship(let name, let toMany):
                    let keys = object.relationships[name] ?? []
                    if toMany {
                        out.append(UInt8(ascii: "["))
                        for (i, key) in keys.enumerated() {
                            if i > 0 { out.append(UInt8(ascii: ",")) }
                            out.append(contentsOf: String(key).utf8)
                        }
                        out.append(UInt8(ascii: "]"))
                    } else if let key = keys.first {
                        out.append(contentsOf: String(key).utf8)
                    } else {
                        out.append(contentsOf: "null".utf8)
                    }
                }
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A value as ``json(_:type:)`` writes it, straight into bytes.
    static func write(_ value: AttributeValue, type: AttributeType, into out: inout [UInt8]) {
        switch value {
        case .integer(let v): out.append(contentsOf: String(v).utf8)
        case .string(let v): JSONValue.writeString(v, to: &out)
        case .boolean(let v): out.append(contentsOf: (v ? "true" : "false").utf8)
        case .double(let v) where v.isFinite && type != .float: out.append(contentsOf: v.description.utf8)
        default: json(value, type: type).write(to: &out)
        }
    }
}
