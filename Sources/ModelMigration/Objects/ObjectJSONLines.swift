import DataModel
import SQLiteStore

/// Why a JSON Lines record was refused: the line, the field and the reason.
public struct LoadError: Error, Sendable, CustomStringConvertible {
    /// The file name as given.
    public var file: String
    /// 1-based line number.
    public var line: Int
    /// The field (`Person.age`), when the problem is one field.
    public var field: String?
    /// What is wrong.
    public var message: String

    public var description: String {
        "\(file):\(line): \(field.map { "\($0): " } ?? "")\(message)"
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
/// `load` accepts either side.
public enum ObjectJSONLines {
    /// One object as a line (keys: `_pk`, `_entity`, then attributes and
    /// relationships in name order; nil values as null).
    public static func line(for object: StoredObject, entity: CompiledEntity,
                            includes: (CompiledRelationship) -> Bool = { _ in true }) -> String {
        var pairs: [(String, JSONValue)] = [("_pk", .number(String(object.primaryKey))), ("_entity", .string(object.entity))]
        var fields: [(String, JSONValue)] = []
        for attribute in entity.attributes where !attribute.declaration.isTransient {
            fields.append((attribute.name, object.values[attribute.name].map { json($0, type: attribute.declaration.type) } ?? .null))
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

    static func json(_ value: AttributeValue, type: AttributeType) -> JSONValue {
        switch value {
        case .integer(let v): return .number(String(v))
        case .double(let v) where type == .float && v.isFinite: return .number(Float(v).description)
        case .double(let v): return v.isFinite ? .number(v.description) : .string(v.description)
        case .boolean(let v): return .bool(v)
        case .decimal, .string, .date, .binary, .uuid, .uri: return .string(value.description)
        }
    }

    /// Writes every object of `entity` (with subentities) as lines, in primary-key order.
    public static func dump(_ access: ObjectAccess, entity: String, limit: Int? = nil, write: (String) -> Void) throws {
        try access.forEach(entity, includeSubentities: true, limit: limit) { object in
            guard let rowEntity = access.version.entity(named: object.entity) else { return }
            write(line(for: object, entity: rowEntity, includes: access.isStoredSide))
        }
    }

    /// Loads every line into the store in one transaction: all or nothing. Returns the
    /// number of objects inserted.
    @discardableResult
    public static func load(_ access: ObjectAccess, entity entityName: String, text: String, file: String) throws -> Int {
        guard let entity = access.version.entity(named: entityName) else {
            throw LoadError(file: file, line: 0, field: nil, message: "unknown entity '\(entityName)' (model \(access.version.model) version \(access.version.version) has \(access.version.entities.map(\.name).joined(separator: ", ")))")
        }
        let connection = access.store.connection
        var inserted = 0
        try connection.transaction(.immediate) {
            var lineNumber = 0
            for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
                lineNumber += 1
                let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
                if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
                let record: JSONValue
                do throws(JSONParseError) {
                    record = try JSONValue.parse(String(line))
                } catch {
                    throw LoadError(file: file, line: lineNumber, field: nil, message: "invalid JSON at byte \(error.offset): \(error.message)")
                }
                try insert(record, into: access, entity: entity, file: file, line: lineNumber)
                inserted += 1
            }
        }
        return inserted
    }

    private static func insert(_ record: JSONValue, into access: ObjectAccess, entity base: CompiledEntity, file: String, line: Int) throws {
        guard case .object(let pairs) = record else {
            throw LoadError(file: file, line: line, field: nil, message: "expected a JSON object, found \(record.kind)")
        }
        var entity = base
        var primaryKey: Int64?
        var seen: Set<String> = []
        for (key, value) in pairs {
            if !seen.insert(key).inserted {
                throw LoadError(file: file, line: line, field: "\(base.name).\(key)", message: "the field appears twice")
            }
            if key == "_entity" {
                guard case .string(let name) = value, let named = access.version.entity(named: name) else {
                    throw LoadError(file: file, line: line, field: "_entity", message: "expected the name of an entity, found \(value.text)")
                }
                guard isSame(named.name, orSubentityOf: base.name, in: access.version) else {
                    throw LoadError(file: file, line: line, field: "_entity", message: "'\(name)' is not \(base.name) or one of its subentities")
                }
                entity = named
            } else if key == "_pk" {
                guard case .number(let text) = value, let pk = Int64(text), pk > 0 else {
                    throw LoadError(file: file, line: line, field: "_pk", message: "expected a positive integer, found \(value.text)")
                }
                primaryKey = pk
            }
        }
        var values: [String: AttributeValue?] = [:]
        var relationships: [String: [Int64]] = [:]
        for (key, value) in pairs where key != "_entity" && key != "_pk" {
            let field = "\(entity.name).\(key)"
            if let attribute = entity.attribute(named: key) {
                if attribute.declaration.isTransient {
                    throw LoadError(file: file, line: line, field: field, message: "a transient attribute is not stored")
                }
                do {
                    values[key] = try attributeValue(value, type: attribute.declaration.type)
                } catch {
                    throw LoadError(file: file, line: line, field: field, message: error.message)
                }
            } else if let relationship = entity.relationship(named: key) {
                switch value {
                case .null: relationships[key] = []
                case .number(let text):
                    guard let pk = Int64(text) else { throw LoadError(file: file, line: line, field: field, message: "expected a primary key, found \(text)") }
                    relationships[key] = [pk]
                case .array(let items) where relationship.declaration.isToMany:
                    relationships[key] = try items.map { item in
                        guard case .number(let text) = item, let pk = Int64(text) else {
                            throw LoadError(file: file, line: line, field: field, message: "expected primary keys, found \(item.text)")
                        }
                        return pk
                    }
                default:
                    throw LoadError(file: file, line: line, field: field,
                                    message: relationship.declaration.isToMany ? "expected an array of primary keys, found \(value.kind)" : "expected a primary key or null, found \(value.kind)")
                }
            } else {
                let names = entity.attributes.map(\.name) + entity.relationships.map(\.name)
                throw LoadError(file: file, line: line, field: field, message: "no such attribute or relationship (\(entity.name) has \(names.joined(separator: ", ")))")
            }
        }
        do {
            try access.insert(entity.name, values: values, relationships: relationships, primaryKey: primaryKey)
        } catch {
            // "Entity.field: reason" from the store: split it into field and reason.
            let message = error.message
            if let colon = message.range(of: ": "), message[..<colon.lowerBound].contains(".") {
                throw LoadError(file: file, line: line, field: String(message[..<colon.lowerBound]), message: String(message[colon.upperBound...]))
            }
            throw LoadError(file: file, line: line, field: nil, message: message)
        }
    }

    private static func isSame(_ name: String, orSubentityOf base: String, in version: CompiledVersion) -> Bool {
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
            guard type == .boolean else { throw ValueParseFailure(message: "expected \(ValueCoding.valueNoun(type)), found a boolean") }
            return .boolean(b)
        case .number(let text):
            switch type {
            case .date:
                guard let seconds = Double(text) else { throw ValueParseFailure(message: "'\(text)' is not a number") }
                return .date(seconds)
            case .boolean:
                if text == "0" { return .boolean(false) }
                if text == "1" { return .boolean(true) }
                throw ValueParseFailure(message: "expected true or false, found \(text)")
            case .integer16, .integer32, .integer64, .decimal, .double, .float:
                return try DefaultValueParser.parse(text, as: type).get()
            default:
                throw ValueParseFailure(message: "expected \(ValueCoding.valueNoun(type)) as a string, found a number")
            }
        case .string(let text):
            switch type {
            case .string: return .string(text)
            case .transformable: return try DefaultValueParser.parse(text, as: .binary).get()
            case .integer16, .integer32, .integer64, .double, .float, .boolean:
                throw ValueParseFailure(message: "expected \(ValueCoding.valueNoun(type)), found the string \"\(text)\"")
            default: return try DefaultValueParser.parse(text, as: type).get()
            }
        case .array, .object:
            throw ValueParseFailure(message: "expected \(ValueCoding.valueNoun(type)), found \(value.kind)")
        }
    }
}
