package import DataModel

/// One JSON Lines record of one entity read straight from its bytes, without a JSON
/// tree or a dictionary of fields, into what `load` inserts: every valid shape (any key
/// order, whitespace between tokens, escapes, nulls, `_pk` or not, `_entity`,
/// `_position`, relationships as keys, values of every attribute type).
///
/// It reads the syntax; the values are the general reader's own: an integer's digits,
/// a string's text and `true`/`false` are taken as they are, and every other value goes
/// through ``ObjectJSONLines/attributeValue(_:type:)`` on its exact text. Whatever the
/// general reader would refuse (a syntax error, a key twice, an unknown field, a value of
/// the wrong type) is declined, and the line goes to the general reader, which words the
/// refusal. `FastRecordTests` holds the two readers equal on random lines.
/// A class: the line reader hands one out per line, and a struct's copy retained each of
/// its arrays.
package final class FastRecordReader {
    /// What a line holds, as
    /// `ObjectBatch.insert(_:attributeValues:relationships:positions:primaryKey:source:)` takes it.
    package struct Record: Equatable {
        /// One per stored attribute, in the entity's order: `.none` when absent, `.some(nil)` for null.
        package var values: [AttributeValue??]
        /// Relationship name → the primary keys given.
        package var relationships: [String: [Int64]] = [:]
        /// `_position`: to-one relationship → the order value in its owner's list.
        package var positions: [String: Int64] = [:]
        package var primaryKey: Int64?
        /// The key index each field position of the last lines had: the lines of one
        /// file share their key order, so a line's keys are found with one comparison
        /// each, not a search through every key (an entity of 50 attributes spent half
        /// its load there). Not part of the record's value.
        var keyOrder: [Int] = []

        package init(count: Int) {
            values = Array(repeating: .none, count: count)
        }

        package static func == (a: Record, b: Record) -> Bool {
            a.values == b.values && a.relationships == b.relationships && a.positions == b.positions
                && a.primaryKey == b.primaryKey
        }
    }

    /// How a read ended.
    package enum Outcome: Equatable {
        /// `Record` holds the line.
        case read
        /// The line's `_entity` names another entity: read it with that entity's reader.
        case otherEntity(String)
        /// The general reader reads the line (and words its refusal, if it has one).
        case declined
    }

    private enum ValueKind {
        case integer(ClosedRange<Int64>)
        case string
        /// A double or float: a number is its `Double` (finite, and a float's within range).
        case real(isFloat: Bool)
        /// Any other type: read by the general reader's rules on the value's text.
        case other(AttributeType)
    }

    private enum Field {
        case primaryKey, entity, position
        case attribute(Int, ValueKind)
        case relationship(String, toMany: Bool)
        /// A transient attribute: never stored, so the line is refused.
        case refused
    }

    /// The entity this reader reads.
    package let entityName: String
    private let entityBytes: [UInt8]
    private let keys: [[UInt8]]
    private let fields: [Field]
    /// The to-one relationships `_position` may name (their inverse is an ordered to-many).
    private let orderedToOnes: [[UInt8]: String]
    /// How many stored attributes a record has.
    package let count: Int

    /// A reader for `entity`'s lines; its values are in the order of its stored
    /// (non-transient) attributes, as `InsertShape` binds them.
    package init(entity: CompiledEntity, version: CompiledVersion) {
        entityName = entity.name
        entityBytes = Array(entity.name.utf8)
        var keys: [[UInt8]] = [Array("_pk".utf8), Array("_entity".utf8), Array("_position".utf8)]
        var fields: [Field] = [.primaryKey, .entity, .position]
        var stored = 0
        for attribute in entity.attributes {
            keys.append(Array(attribute.name.utf8))
            guard !attribute.declaration.isTransient else {
                fields.append(.refused)
                continue
            }
            let type = attribute.declaration.type
            switch type {
            case .integer16, .integer32, .integer64:
                fields.append(.attribute(stored, type.integerRange.map { .integer($0) } ?? .other(type)))
            case .string: fields.append(.attribute(stored, .string))
            case .double, .float: fields.append(.attribute(stored, .real(isFloat: type == .float)))
            default: fields.append(.attribute(stored, .other(type)))
            }
            stored += 1
        }
        var ordered: [[UInt8]: String] = [:]
        for relationship in entity.relationships {
            keys.append(Array(relationship.name.utf8))
            fields.append(.relationship(relationship.name, toMany: relationship.declaration.isToMany))
            if !relationship.declaration.isToMany, let inverse = relationship.declaration.inverse,
                let owner = relationship.inverseEntity,
                version.entity(named: owner)?.relationship(named: inverse)?.declaration.keepsOrder == true
            {
                ordered[Array(relationship.name.utf8)] = relationship.name
            }
        }
        self.keys = keys
        self.fields = fields
        orderedToOnes = ordered
        count = stored
    }

    /// Reads `line` into `record`. `requiresEntity`: a line without `_entity` is declined
    /// (a whole store's lines name their entity).
    package func read(
        _ line: UnsafeBufferPointer<UInt8>, into record: inout Record, scratch: inout [UInt8],
        requiresEntity: Bool = false
    ) -> Outcome {
        if record.values.count == count {
            for i in record.values.indices { record.values[i] = .none }
        } else {
            record.values = Array(repeating: .none, count: count)
        }
        scratch.removeAll(keepingCapacity: true)
        if !record.relationships.isEmpty { record.relationships.removeAll(keepingCapacity: true) }
        if !record.positions.isEmpty { record.positions.removeAll(keepingCapacity: true) }
        record.primaryKey = nil
        var state = LineState()
        var position = 0
        var cursor = JSONCursor(line)
        cursor.skipWhitespace()
        guard cursor.take(UInt8(ascii: "{")) else { return .declined }
        cursor.skipWhitespace()
        if !cursor.take(UInt8(ascii: "}")) {
            while true {
                guard let key = cursor.string(&scratch), cursor.skipWhitespace(), cursor.take(UInt8(ascii: ":")) else {
                    return .declined
                }
                let field = self.field(key, cursor, scratch, order: &record.keyOrder, at: position)
                position += 1
                cursor.skipWhitespace()
                // A field this reader does not take is skipped: `_entity` may follow,
                // naming the entity whose reader takes the line.
                let start = cursor
                if field.map({ readField($0, &cursor, &record, &scratch, &state) }) != .read {
                    cursor = start
                    guard cursor.skipValue(depth: 0) else { return .declined }
                    state.declined = true
                }
                cursor.skipWhitespace()
                if cursor.take(UInt8(ascii: ",")) {
                    cursor.skipWhitespace()
                    continue
                }
                guard cursor.take(UInt8(ascii: "}")) else { return .declined }
                break
            }
        }
        cursor.skipWhitespace()
        guard cursor.atEnd else { return .declined }
        if let other = state.otherEntity { return .otherEntity(other) }
        guard !state.declined, state.sawEntity || !requiresEntity else { return .declined }
        // A position names a relationship the line sets.
        for name in record.positions.keys where record.relationships[name]?.isEmpty != false { return .declined }
        return .read
    }

    /// What one line has shown so far, beyond the record.
    private struct LineState {
        var sawEntity = false
        var sawPosition = false
        /// The entity `_entity` names, when it is not this reader's.
        var otherEntity: String?
        /// Whether a field was not taken (the general reader refuses the line, or another entity's reader takes it).
        var declined = false
    }

    /// The field named `key`, the `position`th of its line: the key that position had
    /// before is tried first (`order`, learned as lines are read).
    private func field(
        _ key: JSONCursor.StringToken, _ cursor: JSONCursor, _ scratch: [UInt8], order: inout [Int], at position: Int
    ) -> Field? {
        // The record may have been another entity's reader's (a whole store's lines):
        // a guess is an index into some reader's keys, checked as any.
        if position < order.count, case let guess = order[position], keys.indices.contains(guess),
            cursor.equals(key, keys[guess], scratch)
        {
            return fields[guess]
        }
        for (i, name) in keys.enumerated() where cursor.equals(key, name, scratch) {
            if position < order.count {
                order[position] = i
            } else if position == order.count, order.count < 2 * keys.count {
                order.append(i)
            }
            return fields[i]
        }
        return nil
    }

    /// Reads the value of one field; `.read` when the record took it.
    private func readField(
        _ field: Field, _ cursor: inout JSONCursor, _ record: inout Record, _ scratch: inout [UInt8],
        _ state: inout LineState
    ) -> Outcome {
        switch field {
        case .primaryKey:
            guard record.primaryKey == nil, let pk = cursor.integer(), pk > 0 else { return .declined }
            record.primaryKey = pk
        case .entity:
            guard !state.sawEntity, state.otherEntity == nil, let name = cursor.string(&scratch) else {
                return .declined
            }
            state.sawEntity = true
            if !cursor.equals(name, entityBytes, scratch) { state.otherEntity = cursor.text(name, scratch) }
        case .position:
            guard !state.sawPosition, readPositions(&cursor, &record, &scratch) else { return .declined }
            state.sawPosition = true
        case .attribute(let index, let kind):
            guard record.values[index] == nil, let value = attributeValue(kind, &cursor, &scratch) else {
                return .declined
            }
            record.values[index] = value
        case .relationship(let name, let toMany):
            guard record.relationships[name] == nil, let keys = relationshipKeys(toMany: toMany, &cursor) else {
                return .declined
            }
            record.relationships[name] = keys
        case .refused:
            return .declined
        }
        return .read
    }

    /// `{"playlist":3,…}`: each name a to-one whose inverse is ordered, once, with a positive integer.
    private func readPositions(_ cursor: inout JSONCursor, _ record: inout Record, _ scratch: inout [UInt8]) -> Bool {
        guard cursor.take(UInt8(ascii: "{")) else { return false }
        cursor.skipWhitespace()
        if cursor.take(UInt8(ascii: "}")) { return true }
        while true {
            guard let key = cursor.string(&scratch), cursor.skipWhitespace(), cursor.take(UInt8(ascii: ":")) else {
                return false
            }
            guard let name = orderedToOnes[cursor.bytes(key, scratch)], record.positions[name] == nil else {
                return false
            }
            cursor.skipWhitespace()
            guard let position = cursor.integer(), position > 0 else { return false }
            record.positions[name] = position
            cursor.skipWhitespace()
            if cursor.take(UInt8(ascii: ",")) {
                cursor.skipWhitespace()
                continue
            }
            return cursor.take(UInt8(ascii: "}"))
        }
    }

    /// A relationship's keys: null, a key, or (to-many) an array of keys.
    private func relationshipKeys(toMany: Bool, _ cursor: inout JSONCursor) -> [Int64]? {
        if cursor.takeWord(JSONCursor.null) { return [] }
        if let key = cursor.integer() { return [key] }
        guard toMany, cursor.take(UInt8(ascii: "[")) else { return nil }
        var keys: [Int64] = []
        cursor.skipWhitespace()
        if cursor.take(UInt8(ascii: "]")) { return keys }
        while true {
            guard let key = cursor.integer() else { return nil }
            keys.append(key)
            cursor.skipWhitespace()
            if cursor.take(UInt8(ascii: ",")) {
                cursor.skipWhitespace()
                continue
            }
            return cursor.take(UInt8(ascii: "]")) ? keys : nil
        }
    }

    /// The attribute value at the cursor (`.some(nil)` for null), the cursor moved past
    /// it; nil to leave the line to the general reader.
    private func attributeValue(_ kind: ValueKind, _ cursor: inout JSONCursor, _ scratch: inout [UInt8])
        -> AttributeValue??
    {
        if cursor.takeWord(JSONCursor.null) { return .some(nil) }
        let json: JSONValue
        switch cursor.peek {
        case UInt8(ascii: "\""):
            guard let token = cursor.string(&scratch) else { return nil }
            let text = cursor.text(token, scratch)
            if case .string = kind { return .string(text) }
            json = .string(text)
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            if cursor.takeWord(JSONCursor.yes) {
                json = .bool(true)
            } else if cursor.takeWord(JSONCursor.no) {
                json = .bool(false)
            } else {
                return nil
            }
        default:
            guard let (start, end, isInteger) = cursor.number() else { return nil }
            switch kind {
            case .integer(let range):
                guard isInteger, let value = cursor.integerValue(start, end), range.contains(value) else { return nil }
                return .integer(value)
            case .real(let isFloat):
                // DefaultValueParser's rule for a number's text (JSON's grammar is within its syntax).
                guard let value = Double(cursor.text(start, end)), value.isFinite, !isFloat || Float(value).isFinite
                else { return nil }
                return .double(value)
            default:
                json = .number(cursor.text(start, end))
            }
        }
        let type: AttributeType
        switch kind {
        case .integer, .string: return nil
        case .real(let isFloat): type = isFloat ? .float : .double
        case .other(let t): type = t
        }
        do {
            return .some(try ObjectJSONLines.attributeValue(json, type: type))
        } catch {
            return nil
        }
    }
}
