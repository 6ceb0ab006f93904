import DataModel

/// The common JSON Lines record read straight from its bytes, without a JSON tree
/// or a dictionary: an object whose keys are `_pk`, `_entity` naming the loaded
/// entity itself, and stored attributes of it, each once, with values that are
/// null, integers within their type, strings without escapes, booleans, or numbers
/// for doubles and floats; keys without escapes; no space between tokens (as `dump`
/// writes). Any other line (a relationship, an escape, a date, a mistake) is left to
/// the general reader, which reads it the same way and words every refusal: a
/// line read here is one the general reader would read into the same values.
struct FastRecordReader {
    private enum Kind {
        case integer(ClosedRange<Int64>)
        case string
        case boolean
        case number(AttributeType)
    }

    private let keys: [[UInt8]]
    private let kinds: [Kind?]
    private let entityName: [UInt8]
    private let pkKey = Array("_pk".utf8), entityKey = Array("_entity".utf8)
    private let null = Array("null".utf8), yes = Array("true".utf8), no = Array("false".utf8)
    /// How many values a record has (the entity's stored attributes).
    let count: Int

    init(attributes: [CompiledAttribute], entity: String) {
        keys = attributes.map { Array($0.name.utf8) }
        kinds = attributes.map { attribute in
            switch attribute.declaration.type {
            case .integer16, .integer32, .integer64: attribute.declaration.type.integerRange.map { .integer($0) }
            case .string: .string
            case .boolean: .boolean
            case .double, .float: .number(attribute.declaration.type)
            default: nil
            }
        }
        entityName = Array(entity.utf8)
        count = attributes.count
    }

    /// Reads `line` into `values` (one per attribute: `.none` when absent) and the
    /// primary key; false when the line is not one this reader takes.
    func read(_ line: UnsafeBufferPointer<UInt8>, into values: inout [AttributeValue??], primaryKey: inout Int64?) -> Bool {
        for i in values.indices { values[i] = .none }
        primaryKey = nil
        var seenEntity = false
        var cursor = Cursor(line: line)
        guard cursor.byte(cursor.i) == UInt8(ascii: "{") else { return false }
        cursor.i += 1
        if cursor.byte(cursor.i) == UInt8(ascii: "}") {
            cursor.i += 1
        } else {
            while true {
                let i = cursor.i
                guard cursor.byte(i) == UInt8(ascii: "\""), let keyEnd = cursor.stringEnd(i), cursor.byte(keyEnd + 1) == UInt8(ascii: ":") else { return false }
                let keyStart = i + 1
                cursor.i = keyEnd + 2
                if cursor.matches(keyStart, keyEnd, pkKey) {
                    guard primaryKey == nil, let (pk, end) = cursor.integer(cursor.i), pk > 0 else { return false }
                    primaryKey = pk
                    cursor.i = end
                } else if cursor.matches(keyStart, keyEnd, entityKey) {
                    guard !seenEntity, cursor.byte(cursor.i) == UInt8(ascii: "\""), let end = cursor.stringEnd(cursor.i),
                        cursor.matches(cursor.i + 1, end, entityName)
                    else { return false }
                    seenEntity = true
                    cursor.i = end + 1
                } else {
                    guard let field = keys.firstIndex(where: { cursor.matches(keyStart, keyEnd, $0) }), values[field] == nil,
                        let kind = kinds[field], let value = readValue(kind, at: &cursor)
                    else { return false }
                    values[field] = value
                }
                if cursor.byte(cursor.i) == UInt8(ascii: ",") { cursor.i += 1; continue }
                guard cursor.byte(cursor.i) == UInt8(ascii: "}") else { return false }
                cursor.i += 1
                break
            }
        }
        while cursor.i < cursor.n, line[cursor.i] == UInt8(ascii: " ") || line[cursor.i] == UInt8(ascii: "\t") { cursor.i += 1 }
        return cursor.i == cursor.n
    }

    /// The attribute value at the cursor (`.some(nil)` for null), the cursor moved
    /// past it; nil to leave the line to the general reader.
    private func readValue(_ kind: Kind, at cursor: inout Cursor) -> AttributeValue?? {
        let i = cursor.i, n = cursor.n, line = cursor.line
        if cursor.byte(i) == UInt8(ascii: "n") {
            guard cursor.matches(i, min(i + 4, n), null) else { return nil }
            cursor.i += 4
            return .some(nil)
        }
        switch kind {
        case .integer(let range):
            guard let (value, end) = cursor.integer(i), range.contains(value) else { return nil }
            cursor.i = end
            return .integer(value)
        case .string:
            guard cursor.byte(i) == UInt8(ascii: "\""), let end = cursor.stringEnd(i) else { return nil }
            cursor.i = end + 1
            return .string(String(decoding: UnsafeBufferPointer(rebasing: line[(i + 1)..<end]), as: UTF8.self))
        case .boolean:
            if cursor.matches(i, min(i + 4, n), yes) {
                cursor.i += 4
                return .boolean(true)
            } else if cursor.matches(i, min(i + 5, n), no) {
                cursor.i += 5
                return .boolean(false)
            }
            return nil
        case .number(let type):
            var j = i
            while j < n, line[j] != UInt8(ascii: ","), line[j] != UInt8(ascii: "}") { j += 1 }
            let text = String(decoding: UnsafeBufferPointer(rebasing: line[i..<j]), as: UTF8.self)
            // The general reader's own rules, on the number's exact text.
            guard (try? JSONValue.parse(text)) == .number(text),
                let value = try? ObjectJSONLines.attributeValue(.number(text), type: type)
            else { return nil }
            cursor.i = j
            return .some(value)
        }
    }
}

/// A position in one line's bytes, and the pieces of JSON the fast reader takes.
private struct Cursor {
    let line: UnsafeBufferPointer<UInt8>
    let n: Int
    var i = 0

    init(line: UnsafeBufferPointer<UInt8>) {
        self.line = line
        n = line.count
    }

    func byte(_ at: Int) -> UInt8 { at < n ? line[at] : 0 }

    /// Where the quoted text starting at `from` (at its quote) ends: the closing
    /// quote's index, or nil when it has an escape or a control character.
    func stringEnd(_ from: Int) -> Int? {
        var j = from + 1
        while j < n {
            let b = line[j]
            if b == UInt8(ascii: "\"") { return j }
            if b == UInt8(ascii: "\\") || b < 0x20 { return nil }
            j += 1
        }
        return nil
    }

    func matches(_ start: Int, _ end: Int, _ word: [UInt8]) -> Bool {
        guard end - start == word.count else { return false }
        for k in 0..<word.count where line[start + k] != word[k] { return false }
        return true
    }

    /// An integer's digits (JSON's grammar: no leading zero, no fraction or
    /// exponent after it) and where they end; nil to leave the line to the
    /// general reader.
    func integer(_ from: Int) -> (Int64, Int)? {
        var j = from
        let negative = byte(j) == UInt8(ascii: "-")
        if negative { j += 1 }
        let first = j
        var value: Int64 = 0
        while j < n, line[j] >= 48, line[j] <= 57 {
            let d = Int64(line[j] - 48)
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = negative ? m.subtractingReportingOverflow(d) : m.addingReportingOverflow(d)
            if o1 || o2 { return nil }
            value = a
            j += 1
        }
        guard j > first, j - first == 1 || line[first] != 48 else { return nil }
        let next = byte(j)
        guard next != UInt8(ascii: "."), next != UInt8(ascii: "e"), next != UInt8(ascii: "E") else { return nil }
        return (value, j)
    }
}
