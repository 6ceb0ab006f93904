/// A position in one line's bytes and the JSON tokens ``FastRecordReader`` reads there,
/// by the grammar of RFC 8259 as ``JSONValue/parse(buffer:)`` reads it. Every method
/// that does not find its token returns nil or false; the caller then leaves the line
/// to the general reader.
struct JSONCursor {
    /// A string's bytes: in the line (no escape), or decoded into the caller's scratch.
    struct StringToken {
        var start: Int
        var end: Int
        var inScratch: Bool
    }

    static let null = Array("null".utf8), yes = Array("true".utf8), no = Array("false".utf8)

    private let line: UnsafeBufferPointer<UInt8>
    private let n: Int
    private var i = 0

    init(_ line: UnsafeBufferPointer<UInt8>) {
        self.line = line
        n = line.count
    }

    var atEnd: Bool { i == n }

    /// The byte at the cursor, 0 at the end.
    var peek: UInt8 { i < n ? line[i] : 0 }

    /// Skips JSON whitespace (space, tab, CR, LF); true, to chain in a condition.
    @discardableResult
    mutating func skipWhitespace() -> Bool {
        while i < n {
            let b = line[i]
            guard b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A else { break }
            i += 1
        }
        return true
    }

    mutating func take(_ byte: UInt8) -> Bool {
        guard i < n, line[i] == byte else { return false }
        i += 1
        return true
    }

    mutating func takeWord(_ word: [UInt8]) -> Bool {
        guard n - i >= word.count else { return false }
        for k in 0..<word.count where line[i + k] != word[k] { return false }
        i += word.count
        return true
    }

    // MARK: Strings

    /// The string at the cursor (at its quote), the cursor moved past it. Its escapes
    /// are decoded into `scratch` (appended, so that earlier tokens stay valid); nil for
    /// a control character, an invalid escape or surrogate, or no closing quote.
    mutating func string(_ scratch: inout [UInt8]) -> StringToken? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = i
        while i < n {
            let b = line[i]
            if b == UInt8(ascii: "\"") {
                i += 1
                return StringToken(start: start, end: i - 1, inScratch: false)
            }
            if b == UInt8(ascii: "\\") { break }
            if b < 0x20 { return nil }
            i += 1
        }
        guard i < n else { return nil }
        let scratchStart = scratch.count
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: line[start..<i]))
        while i < n {
            let b = line[i]
            if b == UInt8(ascii: "\"") {
                i += 1
                return StringToken(start: scratchStart, end: scratch.count, inScratch: true)
            }
            if b < 0x20 { return nil }
            if b == UInt8(ascii: "\\") {
                guard escape(&scratch) else { return nil }
            } else {
                scratch.append(b)
                i += 1
            }
        }
        return nil
    }

    /// Decodes the escape at the cursor (at its backslash) into `scratch`.
    private mutating func escape(_ scratch: inout [UInt8]) -> Bool {
        guard i + 1 < n else { return false }
        let e = line[i + 1]
        i += 2
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(e)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            guard var code = hex4() else { return false }
            // A high surrogate takes the low one of its pair; any other surrogate is no scalar.
            if (0xD800..<0xDC00).contains(code) {
                guard i + 1 < n, line[i] == UInt8(ascii: "\\"), line[i + 1] == UInt8(ascii: "u") else { return false }
                i += 2
                guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return false }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(code) else { return false }
            scratch.append(contentsOf: scalar.utf8)
        default: return false
        }
        return true
    }

    private mutating func hex4() -> UInt32? {
        guard let value = Self.hex4(line, at: i) else { return nil }
        i += 4
        return value
    }

    /// The four hex digits (either case) at `index` as a number, or nil: no sign, as
    /// `UInt32(_:radix:)` would take ("\u+041"). Both readers read `\u` escapes with it.
    static func hex4(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt32? {
        guard bytes.count - index >= 4 else { return nil }
        var value: UInt32 = 0
        for k in 0..<4 {
            let b = bytes[index + k]
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Whether a string's bytes are `word`.
    func equals(_ token: StringToken, _ word: [UInt8], _ scratch: [UInt8]) -> Bool {
        guard token.end - token.start == word.count else { return false }
        if token.inScratch {
            for k in 0..<word.count where scratch[token.start + k] != word[k] { return false }
        } else {
            for k in 0..<word.count where line[token.start + k] != word[k] { return false }
        }
        return true
    }

    func bytes(_ token: StringToken, _ scratch: [UInt8]) -> [UInt8] {
        token.inScratch ? Array(scratch[token.start..<token.end]) : Array(line[token.start..<token.end])
    }

    /// A string's text (its bytes are UTF-8: the line was checked, and escapes decode to scalars).
    func text(_ token: StringToken, _ scratch: [UInt8]) -> String {
        if token.inScratch {
            return scratch.withUnsafeBufferPointer {
                String(decoding: UnsafeBufferPointer(rebasing: $0[token.start..<token.end]), as: UTF8.self)
            }
        }
        return text(token.start, token.end)
    }

    /// The text of the line's bytes `start..<end`.
    func text(_ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: line[start..<end]), as: UTF8.self)
    }

    /// Moves past any JSON value (nested at most 200 levels, as the general reader reads);
    /// false when there is none.
    mutating func skipValue(depth: Int) -> Bool {
        guard depth < 200 else { return false }
        var scratch: [UInt8] = []
        switch peek {
        case UInt8(ascii: "\""): return string(&scratch) != nil
        case UInt8(ascii: "t"): return takeWord(Self.yes)
        case UInt8(ascii: "f"): return takeWord(Self.no)
        case UInt8(ascii: "n"): return takeWord(Self.null)
        case UInt8(ascii: "["), UInt8(ascii: "{"):
            let object = take(UInt8(ascii: "{"))
            if !object { i += 1 }
            let close = object ? UInt8(ascii: "}") : UInt8(ascii: "]")
            skipWhitespace()
            if take(close) { return true }
            while true {
                if object {
                    guard string(&scratch) != nil, skipWhitespace(), take(UInt8(ascii: ":")) else { return false }
                    skipWhitespace()
                }
                guard skipValue(depth: depth + 1) else { return false }
                skipWhitespace()
                if take(UInt8(ascii: ",")) {
                    skipWhitespace()
                    continue
                }
                return take(close)
            }
        default: return number() != nil
        }
    }

    // MARK: Numbers

    /// The number at the cursor by JSON's grammar (`-`, no leading zero, a fraction
    /// and an exponent with digits), the cursor moved past it: where its text starts
    /// and ends, and whether it is an integer (no fraction, no exponent).
    mutating func number() -> (start: Int, end: Int, isInteger: Bool)? {
        let start = i
        if peek == UInt8(ascii: "-") { i += 1 }
        let first = i
        guard digits() > 0 else { return nil }
        if i - first > 1, line[first] == UInt8(ascii: "0") { return nil }
        var isInteger = true
        if peek == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { return nil }
            isInteger = false
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            i += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { return nil }
            isInteger = false
        }
        return (start, i, isInteger)
    }

    private mutating func digits() -> Int {
        let s = i
        while i < n, line[i] >= UInt8(ascii: "0"), line[i] <= UInt8(ascii: "9") { i += 1 }
        return i - s
    }

    /// An integer at the cursor that fits an `Int64` (no fraction or exponent).
    mutating func integer() -> Int64? {
        let saved = i
        guard let (start, end, isInteger) = number(), isInteger, let value = integerValue(start, end) else {
            i = saved
            return nil
        }
        return value
    }

    /// The value of an integer's text (digits after an optional `-`), nil when it overflows.
    func integerValue(_ start: Int, _ end: Int) -> Int64? {
        var j = start
        let negative = line[j] == UInt8(ascii: "-")
        if negative { j += 1 }
        var value: Int64 = 0
        while j < end {
            let d = Int64(line[j] &- UInt8(ascii: "0"))
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = negative ? m.subtractingReportingOverflow(d) : m.addingReportingOverflow(d)
            if o1 || o2 { return nil }
            value = a
            j += 1
        }
        return value
    }
}
