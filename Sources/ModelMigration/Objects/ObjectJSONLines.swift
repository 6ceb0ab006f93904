import DataModel
import SQLiteStore

/// Why `load` loaded nothing: every refused line, each with its field and reason.
public struct LoadError: Error, Sendable, CustomStringConvertible {
    /// One refused line.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// The file name as given.
        public var file: String
        /// 1-based line number.
        public var line: Int
        /// The field (`Person.age`), when the problem is one field.
        public var field: String?
        /// What is wrong.
        public var message: String

        /// Creates a problem.
        public init(file: String, line: Int, field: String?, message: String) {
            self.file = file
            self.line = line
            self.field = field
            self.message = message
        }

        /// `file:line: field: message`.
        public var description: String {
            "\(file):\(line): \(field.map { "\($0): " } ?? "")\(message)"
        }
    }

    /// How many problems are reported; the others are counted.
    public static let reportedLimit = 20

    /// The first problems by line (at most ``reportedLimit``).
    public var problems: [Problem]
    /// How many problems there were in all.
    public var count: Int

    /// Creates the error.
    public init(problems: [Problem], count: Int) {
        self.problems = problems
        self.count = count
    }

    /// One problem a line, then `… and N more` when some were left out.
    public var description: String {
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

    /// A value as JSON, as `dump` writes it (`type` nil for a computed value).
    public static func jsonValue(_ value: AttributeValue, type: AttributeType?) -> JSONValue {
        json(value, type: type ?? .double)
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

    /// Loads every line into the store in one transaction: all or nothing. Every
    /// object is checked against the model by ``ObjectAccess`` (the rules live there)
    /// and every refused line is reported (``LoadError``). Returns the number of
    /// objects inserted.
    @discardableResult
    public static func load(_ access: ObjectAccess, entity entityName: String, text: String, file: String) throws -> Int {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? $0.dropLast() : $0 }
        func isBlank(_ line: Substring) -> Bool { line.allSatisfy { $0 == " " || $0 == "\t" } }
        guard let entity = access.version.entity(named: entityName) else {
            // The entity applies to every record; the first one is where it fails.
            let line = (lines.firstIndex { !isBlank($0) } ?? 0) + 1
            throw LoadError(problems: [LoadError.Problem(file: file, line: line, field: nil, message: """
                unknown entity '\(entityName)' (model \(access.version.model) version \(access.version.version) \
                has \(access.version.entities.map(\.name).joined(separator: ", ")))
                """)], count: 1)
        }
        do {
            return try access.insertAll(describingSources: { "line \($0)" }, keeping: LoadError.reportedLimit) { batch in
                for (index, line) in lines.enumerated() where !isBlank(line) {
                    let number = index + 1
                    let object: ParsedObject
                    do throws(LineRefusal) {
                        let record: JSONValue
                        do throws(JSONParseError) {
                            record = try JSONValue.parse(String(line))
                        } catch {
                            throw LineRefusal(nil, "invalid JSON at byte \(error.offset): \(error.message)")
                        }
                        object = try self.object(record, entity: entity, version: access.version)
                    } catch {
                        batch.refuse(source: number, field: error.field, message: error.message)
                        continue
                    }
                    try batch.insert(object.entity, values: object.values, relationships: object.relationships,
                                     primaryKey: object.primaryKey, source: number)
                }
            }
        } catch let refused as ObjectRefusals {
            throw LoadError(problems: refused.refusals.map { LoadError.Problem(file: file, line: $0.source, field: $0.field, message: $0.message) },
                            count: refused.count)
        }
    }

    private typealias ParsedObject = (entity: String, primaryKey: Int64?, values: [String: AttributeValue?], relationships: [String: [Int64]])

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
    private static func object(_ record: JSONValue, entity base: CompiledEntity, version: CompiledVersion) throws(LineRefusal)
        -> ParsedObject {
        guard case .object(let pairs) = record else {
            throw LineRefusal(nil, "expected a JSON object, found \(record.kind)")
        }
        var entity = base
        var primaryKey: Int64?
        var seen: Set<String> = []
        for (key, value) in pairs {
            if !seen.insert(key).inserted {
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
        var relationships: [String: [Int64]] = [:]
        for (key, value) in pairs where key != "_entity" && key != "_pk" {
            let field = "\(entity.name).\(key)"
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
                switch value {
                case .null: relationships[key] = []
                case .number(let text):
                    guard let pk = Int64(text) else { throw LineRefusal(field, "expected a primary key, found \(text)") }
                    relationships[key] = [pk]
                case .array(let items) where relationship.declaration.isToMany:
                    var keys: [Int64] = []
                    for item in items {
                        guard case .number(let text) = item, let pk = Int64(text) else {
                            throw LineRefusal(field, "expected primary keys, found \(item.text)")
                        }
                        keys.append(pk)
                    }
                    relationships[key] = keys
                default:
                    throw LineRefusal(field, relationship.declaration.isToMany
                                        ? "expected an array of primary keys, found \(value.kind)"
                                        : "expected a primary key or null, found \(value.kind)")
                }
            } else {
                let names = entity.attributes.map(\.name) + entity.relationships.map(\.name)
                throw LineRefusal(field, "no such attribute or relationship (\(entity.name) has \(names.joined(separator: ", ")))")
            }
        }
        return (entity.name, primaryKey, values, relationships)
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
