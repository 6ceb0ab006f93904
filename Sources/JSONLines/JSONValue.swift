/// A JSON value that keeps numbers as their exact text, so that 64-bit integers and
/// decimals survive loading (Foundation's parser turns them into doubles).
package enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number exactly as written.
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Keys in document order.
    case object([(String, JSONValue)])

    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
        default: false
        }
    }

    package func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b): hasher.combine(b)
        case .number(let n): hasher.combine(n)
        case .string(let s): hasher.combine(s)
        case .array(let a): hasher.combine(a)
        case .object(let o):
            for (k, v) in o {
                hasher.combine(k)
                hasher.combine(v)
            }
        }
    }

    /// A short description of the kind, for messages.
    package var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Compact JSON text (keys in the stored order).
    package var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .object(let pairs):
            out += "{"
            for (i, (key, value)) in pairs.enumerated() {
                if i > 0 { out += "," }
                JSONValue.writeString(key, to: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }

    /// Writes the value as ``write(to:)-(String)`` does, as UTF-8 bytes.
    func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.utf8)
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array, .object:
            var text = ""
            write(to: &text)
            out.append(contentsOf: text.utf8)
        }
    }

    /// A JSON string as UTF-8 bytes, escaped as ``writeString(_:to:)-(String)`` escapes
    /// it: quotes, backslashes and control characters; every other byte as it is.
    static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            var from = 0
            for (i, b) in bytes.enumerated() where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[from..<i]))
                from = i + 1
                switch b {
                case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
                case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
                case UInt8(ascii: "\n"): out.append(contentsOf: #"\n"#.utf8)
                case UInt8(ascii: "\r"): out.append(contentsOf: #"\r"#.utf8)
                case UInt8(ascii: "\t"): out.append(contentsOf: #"\t"#.utf8)
                default:
                    let hex = String(b, radix: 16)
                    out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[from...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// Parses one JSON text (RFC 8259); the error says what was expected and where.
    package static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(bytes: Array(text.utf8))
    }

    /// Parses one JSON text from bytes that are valid UTF-8 (check first with
    /// `UTF8Validation`: strings decode what they hold as is).
    static func parse(bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParseError) in try parse(buffer: buffer) }
        }
        return try result.get()
    }

    /// Parses one JSON text from bytes that are valid UTF-8, as ``parse(bytes:)``.
    static func parse(buffer: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONValue {
        var parser = Parser(bytes: buffer)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.error("unexpected text after the value") }
        return value
    }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        func error(_ message: String) -> JSONParseError { JSONParseError(message: message, offset: index + 1) }

        mutating func skipWhitespace() {
            while index < bytes.count {
                let b = bytes[index]
                guard b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D else { return }
                index += 1
            }
        }

        mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
            guard depth < 200 else { throw error("nested more than 200 levels") }
            guard index < bytes.count else { throw error("expected a value, found the end of the line") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var pairs: [(String, JSONValue)] = []
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(pairs)
                }
                while true {
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                        throw error("expected a quoted key")
                    }
                    let key = try string()
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                        throw error("expected ':' after a key")
                    }
                    index += 1
                    skipWhitespace()
                    pairs.append((key, try value(depth: depth + 1)))
                    skipWhitespace()
                    guard index < bytes.count else { throw error("expected ',' or '}'") }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        continue
                    }
                    if bytes[index] == UInt8(ascii: "}") {
                        index += 1
                        return .object(pairs)
                    }
                    throw error("expected ',' or '}'")
                }
            case UInt8(ascii: "["):
                index += 1
                var items: [JSONValue] = []
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(items)
                }
                while true {
                    skipWhitespace()
                    items.append(try value(depth: depth + 1))
                    skipWhitespace()
                    guard index < bytes.count else { throw error("expected ',' or ']'") }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        continue
                    }
                    if bytes[index] == UInt8(ascii: "]") {
                        index += 1
                        return .array(items)
                    }
                    throw error("expected ',' or ']'")
                }
            case UInt8(ascii: "\""):
                return .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                return .null
            default:
                return .number(try number())
            }
        }

        mutating func literal(_ word: String) throws(JSONParseError) {
            let w = word.utf8
            guard index + w.count <= bytes.count, bytes[index..<index + w.count].elementsEqual(w) else {
                throw error("expected a value")
            }
            index += w.count
        }

        mutating func number() throws(JSONParseError) -> String {
            let start = index
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            func digits() -> Int {
                let s = index
                while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 { index += 1 }
                return index - s
            }
            let first = index
            guard digits() > 0 else { throw error("expected a value") }
            if index - first > 1, bytes[first] == UInt8(ascii: "0") {
                index = first + 1
                throw error("a number cannot start with 0")
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { throw error("expected digits after '.'") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard digits() > 0 else { throw error("expected digits in the exponent") }
            }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        }

        mutating func string() throws(JSONParseError) -> String {
            index += 1
            // The common case: no escape before the closing quote, so the bytes are
            // the string (they are valid UTF-8: the caller checked).
            var end = index
            while end < bytes.count {
                let b = bytes[end]
                if b == UInt8(ascii: "\"") {
                    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)
                    index = end + 1
                    return text
                }
                if b == UInt8(ascii: "\\") || b < 0x20 { break }
                end += 1
            }
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() {
                if !raw.isEmpty {
                    scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                    raw.removeAll()
                }
            }
            while index < bytes.count {
                let b = bytes[index]
                if b == UInt8(ascii: "\"") {
                    index += 1
                    flush()
                    return String(scalars)
                }
                if b < 0x20 { throw error("control character in a string") }
                if b == UInt8(ascii: "\\") {
                    flush()
                    index += 1
                    guard index < bytes.count else { break }
                    let e = bytes[index]
                    index += 1
                    switch e {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "b"): scalars.append("\u{08}")
                    case UInt8(ascii: "f"): scalars.append("\u{0C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        var code = try hex4()
                        if (0xD800..<0xDC00).contains(code), index + 1 < bytes.count,
                            bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                        {
                            index += 2
                            let low = try hex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw error("invalid surrogate pair") }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                        scalars.append(scalar)
                    default: throw error("invalid escape")
                    }
                    continue
                }
                raw.append(b)
                index += 1
            }
            throw error("unclosed string")
        }

        mutating func hex4() throws(JSONParseError) -> UInt32 {
            guard let value = JSONCursor.hex4(bytes, at: index) else { throw error("expected 4 hex digits") }
            index += 4
            return value
        }
    }
}

/// A JSON syntax error: what was expected and at which byte (1-based) of the line.
package struct JSONParseError: Error, Sendable, Hashable {
    /// What was expected.
    package var message: String
    /// 1-based byte offset.
    package var offset: Int
}
