package import DataModel
import Foundation
package import SQLiteStore

/// Why `load` loaded nothing: every refused line, each with its field and reason.
package struct LoadError: Error, Sendable, CustomStringConvertible {
    /// One refused line.
    package struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// The file name as given.
        package var file: String
        /// 1-based line number.
        package var line: Int
        /// The field (`Person.age`), when the problem is one field.
        package var field: String?
        /// What is wrong.
        package var message: String

        /// Creates a problem.
        package init(file: String, line: Int, field: String?, message: String) {
            self.file = file
            self.line = line
            self.field = field
            self.message = message
        }

        /// `file:line: field: message`, the line's text in them made visible
        /// (`MessageText.visible`: no control character reaches the terminal).
        package var description: String {
            "\(file):\(line): \(field.map { "\(MessageText.visible($0)): " } ?? "")\(MessageText.visible(message))"
        }
    }

    /// How many problems are reported; the others are counted.
    package static let reportedLimit = 20

    /// The first problems by line (at most ``reportedLimit``).
    package var problems: [Problem]
    /// How many problems there were in all.
    package var count: Int

    /// Creates the error.
    package init(problems: [Problem], count: Int) {
        self.problems = problems
        self.count = count
    }

    /// One problem a line, then `… and N more` when some were left out.
    package var description: String {
        (problems.map(\.description) + (count > problems.count ? ["… and \(count - problems.count) more"] : []))
            .joined(separator: "\n")
    }
}

/// The JSON Lines format of `migrate load` and `migrate dump`: one object per line,
///
///     {"_entity":"Person","_pk":1,"age":42,"createdAt":"2026-01-01T00:00:00Z","fullName":"Ann Lee","posts":[1,2]}
///
/// `_pk` is the primary key (optional when loading: allocated when absent),
/// `_entity` the object's entity (optional when loading; a subentity of the named
/// entity is allowed). Attributes by name: integers as numbers, doubles and floats
/// as numbers, decimals as strings (exact), dates as ISO 8601 strings (numbers are
/// read as seconds since 2001-01-01), UUIDs and URIs as strings, binary and
/// transformable data as base64 strings, booleans as true/false, nil as null.
/// Relationships by name as primary keys: to-one a number or null, to-many an
/// array (in order for ordered relationships). A dump writes each relationship
/// pair once, on the side the store keeps it (to-one sides; for many-to-many, the
/// side its join table is named after), so that dumps load back entity by entity;
/// `dump --all` adds a many-to-many's other side when it is ordered, so that both
/// orders come back; `load` accepts either side, or both. Members of an ordered one-to-many are written in
/// their list's order, and `load`, appending each to its owner's list, keeps it.
package enum ObjectJSONLines {
    /// One object as a line (keys: `_pk`, `_entity`, then attributes and
    /// relationships in name order; nil values as null).
    package static func line(
        for object: StoredObject, entity: CompiledEntity,
        includes: (CompiledRelationship) -> Bool = { _ in true }
    ) -> String {
        var pairs: [(String, JSONValue)] = [
            ("_pk", .number(String(object.primaryKey))), ("_entity", .string(object.entity)),
        ]
        if !object.positions.isEmpty {
            pairs.append(
                (
                    "_position",
                    .object(object.positions.sorted { $0.key < $1.key }.map { ($0.key, .number(String($0.value))) })
                ))
        }
        var fields: [(String, JSONValue)] = []
        for attribute in entity.attributes where !attribute.declaration.isTransient {
            fields.append(
                (
                    attribute.name,
                    object.values[attribute.name].map { json($0, type: attribute.declaration.type) } ?? .null
                ))
        }
        for relationship in entity.relationships where !relationship.declaration.isTransient && includes(relationship) {
            let keys = object.relationships[relationship.name] ?? []
            if relationship.declaration.isToMany {
                fields.append((relationship.name, .array(keys.map { .number(String($0)) })))
            } else {
                fields.append((relationship.name, keys.first.map { .number(String($0)) } ?? .null))
            }
        }
        pairs += fields.sorted { $0.0.utf16.lexicographicallyPrecedes($1.0.utf16) }
        return JSONValue.object(pairs).text
    }

    /// A value as JSON, as `dump` writes it (`type` nil for a computed value).
    package static func jsonValue(_ value: AttributeValue, type: AttributeType?) -> JSONValue {
        json(value, type: type ?? .double)
    }

    static func json(_ value: AttributeValue, type: AttributeType) -> JSONValue {
        switch value {
        case .integer(let v): return .number(String(v))
        // JSON has no infinity: the strings "inf" and "-inf", which load reads back
        // for doubles and floats (NaN is never stored: SQLite keeps it as NULL).
        case .double(let v) where !v.isFinite: return .string(v.description)
        // A float as its shortest float text ("0.1"), when the stored double is one.
        case .double(let v) where type == .float && Double(Float(v)) == v: return .number(Float(v).description)
        case .double(let v): return .number(v.description)
        case .date(let v) where v.isFinite:
            // ISO 8601 (to the microsecond) when that text reads back as the same
            // seconds; otherwise the seconds since 2001-01-01, which load reads as such.
            let text = value.description
            return ISO8601.parse(text) == v ? .string(text) : .number(v.description)
        case .boolean(let v): return .bool(v)
        case .decimal, .string, .date, .binary, .uuid, .uri: return .string(value.description)
        }
    }

    /// Why `value`, read from an attribute of `type`, cannot be written as JSON that
    /// `load` reads back as the same value, or nil when it can. A value of another
    /// kind than its attribute's (a BLOB in a string column, say, as another tool may
    /// store) is written when `load` reads it back unchanged or refuses it (1e+19 for
    /// an integer64 reads back as a refusal, never as another number); a value that
    /// would load as something else (a BLOB's base64 text as a string) is refused.
    package static func problem(writing value: AttributeValue, type: AttributeType) -> String? {
        switch (type, value) {
        case (.integer16, .integer), (.integer32, .integer), (.integer64, .integer), (.double, .double),
            (.float, .double),
            (.decimal, .decimal), (.string, .string), (.boolean, .boolean), (.date, .date), (.binary, .binary),
            (.transformable, .binary), (.uuid, .uuid), (.uri, .uri):
            return nil
        default:
            guard let back = try? attributeValue(json(value, type: type), type: type), back != value else { return nil }
            func shown(_ value: AttributeValue) -> String {
                switch value {
                case .binary(let bytes): "a BLOB of \(bytes.count) byte\(bytes.count == 1 ? "" : "s")"
                case .string(let text), .decimal(let text), .uri(let text): "the text \(JSONValue.string(text).text)"
                default: value.displayText
                }
            }
            return
                """
                the store holds \(shown(value)), which JSON Lines cannot carry for \(ValueCoding.valueNoun(type)) \
                (load would read it as \(shown(back)))
                """
        }
    }

    /// Loads every line into the store in one transaction: all or nothing. Every
    /// object is checked against the model by ``ObjectAccess`` (the rules live there)
    /// and every refused line is reported (``LoadError``). Returns the number of
    /// objects inserted.
    @discardableResult
    package static func load(_ access: ObjectAccess, entity entityName: String, text: String, file: String) throws
        -> Int
    {
        try load(access, entity: entityName, bytes: Array(text.utf8), file: file)
    }

    /// Loads JSON Lines from the file's bytes, as ``load(_:entity:text:file:)``. Lines
    /// end at LF, a CR before it is dropped (CRLF files), a UTF-8 byte order mark may
    /// start the file, blank lines are skipped (but counted), and the last line needs
    /// no newline. A line that is not UTF-8 is refused with the offset of its first
    /// bad byte, never read with U+FFFD in its place.
    @discardableResult
    package static func load(_ access: ObjectAccess, entity entityName: String, bytes: [UInt8], file: String) throws
        -> Int
    {
        try load(access, entity: entityName, reader: JSONLinesReader(bytes: bytes), file: file)
    }

    /// A load into an entity the version does not have: the error names the first line
    /// that holds a record, since the entity applies to every record. Throws what reading
    /// the file throws.
    private static func unknownEntity(
        _ entityName: String, in version: CompiledVersion, reader: JSONLinesReader, file: String
    ) throws -> LoadError {
        // The entity applies to every record; the first one is where it fails.
        var line = 0
        do {
            try reader.forEachLine { number, bytes in
                if line == 0 { line = number }
                if !isBlank(bytes) {
                    line = number
                    throw LineRefusal(nil, "")
                }
            }
        } catch is LineRefusal {}
        return LoadError(
            problems: [
                LoadError.Problem(
                    file: file, line: max(line, 1), field: nil,
                    message: """
                        unknown entity '\(entityName)' (model \(version.model) version \(version.version) has \
                        \(version.entities.map(\.name).joined(separator: ", ")))
                        """)
            ], count: 1)
    }

    /// Loads JSON Lines as they are read, a chunk at a time (memory does not grow
    /// with the file), as ``load(_:entity:bytes:file:)``. `progress` is called after each
    /// line with the lines and bytes read so far (keep it cheap), and once more after the
    /// last line (`finished`: the checks and the commit follow). A file that cannot
    /// be read midway throws ``JSONLinesReader/ReadError``, and nothing is loaded.
    ///
    /// `entity` nil loads a whole store's lines (`dump --all`): each line names its
    /// entity with `_entity`, any entity of the version.
    @discardableResult
    package static func load(
        _ access: ObjectAccess, entity entityName: String?, reader: JSONLinesReader, file: String,
        progress: ((_ lines: Int, _ bytes: Int64, _ finished: Bool) -> Void)? = nil
    ) throws -> Int {
        let entity = entityName.flatMap { access.version.entity(named: $0) }
        if let entityName, entity == nil {
            throw try unknownEntity(entityName, in: access.version, reader: reader, file: file)
        }
        do {
            // One exclusive transaction, proven unchanged after any failure.
            return try StoreFingerprint.guardedTransaction(access.store) {
                (
                    try access.insertAll(describingSources: { "line \($0)" }, keeping: LoadError.reportedLimit) {
                        batch in
                        // Lines in any order: a reference to an object of a later line (or
                        // to the object itself) is set when the file has been read.
                        batch.resolvesReferencesAtEnd = true
                        var lines = 0
                        // Valid lines of every shape are read without a JSON tree; the
                        // general reader reads the others, and words their refusals.
                        var fast = FastLineReader(version: access.version, entity: entity)
                        try reader.forEachLine { number, line in
                            lines = number
                            progress?(number, reader.bytesRead, false)
                            let invalid = firstInvalidUTF8(line)
                            if invalid == nil, let name = fast.read(line) {
                                let record = fast.record
                                try batch.insert(
                                    name, attributeValues: record.values, relationships: record.relationships,
                                    positions: record.positions,
                                    primaryKey: record.primaryKey, source: number)
                                return
                            }
                            if isBlank(line) { return }
                            let object: ParsedObject
                            var record: JSONValue?
                            do throws(LineRefusal) {
                                if let bad = invalid {
                                    throw LineRefusal(
                                        nil,
                                        """
                                        not UTF-8 text: byte \(bad + 1) (0x\(hex(line[bad]))) cannot start or continue \
                                        a UTF-8 character
                                        """
                                    )
                                }
                                do throws(JSONParseError) {
                                    record = try JSONValue.parse(buffer: line)
                                } catch {
                                    throw LineRefusal(nil, "invalid JSON at byte \(error.offset): \(error.message)")
                                }
                                object = try self.object(record ?? .null, entity: entity, version: access.version)
                            } catch {
                                return refuse(
                                    error, line: number, record: record, entity: entity, version: access.version,
                                    batch: batch)
                            }
                            try batch.insert(
                                object.entity, values: object.values, relationships: object.relationships,
                                positions: object.positions, primaryKey: object.primaryKey, source: number)
                        }
                        progress?(lines, reader.bytesRead, true)
                    }, .commit
                )
            }
        } catch let refused as ObjectRefusals {
            throw LoadError(
                problems: refused.refusals.map {
                    LoadError.Problem(file: file, line: $0.source, field: $0.field, message: $0.message)
                },
                count: refused.count)
        }
    }

    /// Files a line's refusal, and notes the object it names as refused (the lines
    /// naming it are then not reported for naming an object that does not exist).
    private static func refuse(
        _ refusal: LineRefusal, line: Int, record: JSONValue?, entity: CompiledEntity?, version: CompiledVersion,
        batch: ObjectBatch
    ) {
        batch.refuse(source: line, field: refusal.field, message: refusal.message)
        if let (root, key) = identity(of: record, entity: entity, version: version) {
            batch.noteRefusedObject(root: root, key: key)
        }
    }

    /// The object a refused line names, when it names one: its root entity and its
    /// `_pk` (the loaded entity when the line has no valid `_entity`).
    static func identity(of record: JSONValue?, entity: CompiledEntity?, version: CompiledVersion) -> (
        root: String, key: Int64
    )? {
        guard case .object(let fields)? = record, let pk = fields.first(where: { $0.0 == "_pk" })?.1,
            case .number(let text) = pk,
            let key = Int64(text)
        else { return nil }
        var named = entity
        if let value = fields.first(where: { $0.0 == "_entity" })?.1, case .string(let name) = value,
            let found = version.entity(named: name)
        {
            named = found
        }
        return named.map { ($0.root, key) }
    }

    /// The general reader's reading of one valid UTF-8 line: its entity and what `load`
    /// inserts for it, or nil when it refuses the line. ``FastLineReader`` is held to it
    /// (`FastRecordTests`).
    package static func generalRecord(
        _ line: UnsafeBufferPointer<UInt8>, entity: CompiledEntity?, version: CompiledVersion
    ) -> (entity: String, record: FastRecordReader.Record)? {
        guard let json = try? JSONValue.parse(buffer: line),
            let object = try? self.object(json, entity: entity, version: version),
            let objectEntity = version.entity(named: object.entity)
        else { return nil }
        let stored = objectEntity.attributes.filter { !$0.declaration.isTransient }
        var record = FastRecordReader.Record(count: stored.count)
        record.values = stored.map { object.values[$0.name] }
        record.relationships = object.relationships
        record.positions = object.positions
        record.primaryKey = object.primaryKey
        return (object.entity, record)
    }

    private static func isBlank(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        line.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
    }

    /// The offset of the first byte that is not UTF-8; ASCII lines (most) are
    /// checked a word at a time.
    private static func firstInvalidUTF8(_ line: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 0
        let count = line.count
        if let base = line.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 8 <= count, raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i += 8
            }
        }
        while i < count, line[i] < 0x80 { i += 1 }
        if i == count { return nil }
        return UTF8Validation.firstInvalidByte(in: UnsafeBufferPointer(rebasing: line[i...])).map { $0 + i }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }

    private typealias ParsedObject = (
        entity: String, primaryKey: Int64?, values: [String: AttributeValue?], relationships: [String: [Int64]],
        positions: [String: Int64]
    )

    /// A line refused for its JSON, before the store sees it.
    private struct LineRefusal: Error {
        var field: String?
        var message: String
        init(_ field: String?, _ message: String) {
            self.field = field
            self.message = message
        }
    }

    /// The object a record describes, read as the model's types; what the model
    /// allows is the store's to check.
    private static func object(_ record: JSONValue, entity given: CompiledEntity?, version: CompiledVersion)
        throws(LineRefusal)
        -> ParsedObject
    {
        guard case .object(let pairs) = record else {
            throw LineRefusal(nil, "expected a JSON object, found \(record.kind)")
        }
        // A whole store's lines (no entity given) name theirs.
        guard let base = given ?? entityNamed(in: pairs, version: version) else {
            throw LineRefusal(
                "_entity",
                """
                a line of a whole store names its entity (\"_entity\": one of \
                \(version.entities.map(\.name).joined(separator: ", ")))
                """
            )
        }
        var entity = base
        var primaryKey: Int64?
        // A few fields (most records) are compared with each other; many go through a set.
        var seen: Set<String> = []
        for (position, (key, value)) in pairs.enumerated() {
            let repeated = pairs.count <= 16 ? pairs[..<position].contains { $0.0 == key } : !seen.insert(key).inserted
            if repeated {
                throw LineRefusal("\(base.name).\(key)", "the field appears twice")
            }
            if key == "_entity" {
                guard case .string(let name) = value, let named = version.entity(named: name) else {
                    throw LineRefusal("_entity", "expected the name of an entity, found \(value.text)")
                }
                guard isSame(named.name, orSubentityOf: base.name, in: version) else {
                    throw LineRefusal("_entity", "'\(name)' is not \(base.name) or one of its subentities")
                }
                entity = named
            } else if key == "_pk" {
                guard case .number(let text) = value, let pk = Int64(text), pk > 0 else {
                    throw LineRefusal("_pk", "expected a positive integer, found \(value.text)")
                }
                primaryKey = pk
            }
        }
        var values: [String: AttributeValue?] = [:]
        values.reserveCapacity(pairs.count)
        var relationships: [String: [Int64]] = [:]
        var positions: [String: Int64] = [:]
        for (key, value) in pairs where key == "_position" {
            positions = try self.positions(value, entity: entity, version: version)
        }
        for (key, value) in pairs where key != "_entity" && key != "_pk" && key != "_position" {
            var field: String { "\(entity.name).\(key)" }
            if let attribute = entity.attribute(named: key) {
                if attribute.declaration.isTransient {
                    throw LineRefusal(field, "a transient attribute is not stored")
                }
                do {
                    values[key] = try attributeValue(value, type: attribute.declaration.type)
                } catch {
                    throw LineRefusal(field, error.message)
                }
            } else if let relationship = entity.relationship(named: key) {
                relationships[key] = try keys(value, of: relationship, field: field)
            } else {
                let names = entity.attributes.map(\.name) + entity.relationships.map(\.name)
                throw LineRefusal(
                    field, "no such attribute or relationship (\(entity.name) has \(names.joined(separator: ", ")))")
            }
        }
        for name in positions.keys where relationships[name]?.isEmpty != false {
            throw LineRefusal("_position", "'\(name)' has a position but no \(name) is given on the line")
        }
        return (entity.name, primaryKey, values, relationships, positions)
    }

    /// The primary keys a relationship's JSON value names: `null`, a key, or (to-many)
    /// an array of keys.
    private static func keys(_ value: JSONValue, of relationship: CompiledRelationship, field: String)
        throws(LineRefusal) -> [Int64]
    {
        switch value {
        case .null: return []
        case .number(let text):
            guard let pk = Int64(text) else { throw LineRefusal(field, "expected a primary key, found \(text)") }
            return [pk]
        case .array(let items) where relationship.declaration.isToMany:
            var keys: [Int64] = []
            for item in items {
                guard case .number(let text) = item, let pk = Int64(text) else {
                    throw LineRefusal(field, "expected primary keys, found \(item.text)")
                }
                keys.append(pk)
            }
            return keys
        default:
            throw LineRefusal(
                field,
                relationship.declaration.isToMany
                    ? "expected an array of primary keys, found \(value.kind)"
                    : "expected a primary key or null, found \(value.kind)")
        }
    }

    /// `_position`: to-one relationship → the order value that places the object in
    /// its owner's ordered list (what `dump` writes for members of ordered lists).
    private static func positions(_ value: JSONValue, entity: CompiledEntity, version: CompiledVersion)
        throws(LineRefusal)
        -> [String: Int64]
    {
        guard case .object(let pairs) = value else {
            throw LineRefusal(
                "_position", "expected an object of to-one relationships and positions, found \(value.kind)")
        }
        var positions: [String: Int64] = [:]
        for (name, position) in pairs {
            guard let relationship = entity.relationship(named: name), !relationship.declaration.isToMany,
                let inverse = relationship.declaration.inverse, let owner = relationship.inverseEntity,
                version.entity(named: owner)?.relationship(named: inverse)?.declaration.keepsOrder == true
            else {
                throw LineRefusal(
                    "_position", "'\(name)' is not a to-one of \(entity.name) whose inverse is an ordered to-many")
            }
            guard case .number(let text) = position, let number = Int64(text), number > 0 else {
                throw LineRefusal("_position.\(name)", "expected a positive integer, found \(position.text)")
            }
            positions[name] = number
        }
        return positions
    }

    /// The entity a record's `_entity` names, when it names one.
    private static func entityNamed(in pairs: [(String, JSONValue)], version: CompiledVersion) -> CompiledEntity? {
        guard let value = pairs.first(where: { $0.0 == "_entity" })?.1, case .string(let name) = value else {
            return nil
        }
        return version.entity(named: name)
    }

    static func isSame(_ name: String, orSubentityOf base: String, in version: CompiledVersion) -> Bool {
        var current: String? = name
        while let n = current {
            if n == base { return true }
            current = version.entity(named: n)?.parent
        }
        return false
    }

    /// Reads a JSON value as an attribute value of `type`.
    static func attributeValue(_ value: JSONValue, type: AttributeType) throws(ValueParseFailure) -> AttributeValue? {
        switch value {
        case .null: return nil
        case .bool(let b):
            guard type == .boolean else {
                throw ValueParseFailure(message: "expected \(ValueCoding.valueNoun(type)), found a boolean")
            }
            return .boolean(b)
        case .number(let text):
            switch type {
            case .date:
                guard let seconds = Double(text) else { throw ValueParseFailure(message: "'\(text)' is not a number") }
                guard seconds.isFinite else {
                    throw ValueParseFailure(
                        message: "\(text) is beyond any date (seconds since 2001-01-01 must be a finite double)")
                }
                return .date(seconds)
            case .boolean:
                if text == "0" { return .boolean(false) }
                if text == "1" { return .boolean(true) }
                throw ValueParseFailure(message: "expected true or false, found \(text)")
            case .integer16, .integer32, .integer64:
                // A fraction or exponent is refused, never truncated or rounded; the
                // reason says which (JSON numbers are exact text here).
                if text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), let number = Double(text),
                    let range = type.integerRange
                {
                    throw ValueParseFailure(
                        message: number.rounded() != number
                            ? "\(text) is not a whole number, which \(type.rawValue) holds"
                            : number < Double(range.lowerBound) || number >= -Double(range.lowerBound)
                                ? """
                                \(text) is out of range for \(type.rawValue) (\(range.lowerBound)...\(range.upperBound))
                                """
                                : """
                                \(text) is not written as an integer (\(type.rawValue) takes digits only, like \
                                \(String(format: "%.0f", number)))
                                """
                    )
                }
                return try DefaultValueParser.parse(text, as: type).get()
            case .decimal, .double, .float:
                return try DefaultValueParser.parse(text, as: type).get()
            default:
                throw ValueParseFailure(message: "expected \(ValueCoding.valueNoun(type)) as a string, found a number")
            }
        case .string(let text):
            switch type {
            case .string: return .string(text)
            case .transformable: return try DefaultValueParser.parse(text, as: .binary).get()
            // Infinity as dump writes it: JSON has no number for it.
            case .double where text == "inf" || text == "-inf", .float where text == "inf" || text == "-inf":
                return .double(text == "inf" ? .infinity : -.infinity)
            case .integer16, .integer32, .integer64, .double, .float, .boolean:
                throw ValueParseFailure(
                    message: "expected \(ValueCoding.valueNoun(type)), found the string \"\(text)\"")
            default: return try DefaultValueParser.parse(text, as: type).get()
            }
        case .array, .object:
            throw ValueParseFailure(message: "expected \(ValueCoding.valueNoun(type)), found \(value.kind)")
        }
    }
}
