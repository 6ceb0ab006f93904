/// One token of a predicate format string.
struct Token: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// A name: a key, a keyword or a function name (`#name` escapes a keyword).
        case identifier(String, escaped: Bool)
        /// `$name`.
        case variable(String)
        /// `@count`, `@sum`… .
        case keyPathOperator(String)
        case string(String)
        case integer(Int64)
        case double(Double)
        /// `9223372036854775808` (2^63): no Int64 holds it, but after a minus it is
        /// `Int64.min`, an integer; anywhere else it is a double.
        case integerMinMagnitude
        /// Punctuation and operators: `==`, `(`, `,`, `&&`…
        case symbol(String)
        case end
    }

    var kind: Kind
    /// 0-based offset in Unicode scalars.
    var position: Int

    /// How an error message names the token.
    var shown: String {
        switch kind {
        case .identifier(let name, _): "'\(name)'"
        case .variable(let name): "'$\(name)'"
        case .keyPathOperator(let name): "'@\(name)'"
        case .string: "a string"
        case .integer, .double, .integerMinMagnitude: "a number"
        case .symbol(let s): "'\(s)'"
        case .end: "the end of the text"
        }
    }

    /// The keyword this token spells, upper-cased, when it is an unescaped name.
    var keyword: String? {
        if case .identifier(let name, false) = kind { return name.uppercased() }
        return nil
    }

    func isSymbol(_ s: String) -> Bool { kind == .symbol(s) }
}

/// Splits a format string into tokens. Every token keeps its position, so that
/// errors point at a column.
struct Lexer {
    private let scalars: [Unicode.Scalar]
    private let source: String
    private var index = 0

    init(_ source: String) {
        self.source = source
        self.scalars = Array(source.unicodeScalars)
    }

    /// Every token, ending with `.end`.
    static func tokens(_ source: String) throws(PredicateError) -> [Token] {
        var lexer = Lexer(source)
        var tokens: [Token] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private func fail(_ detail: String, at offset: Int) -> PredicateError {
        PredicateError(.syntax, detail, at: offset, in: source)
    }

    private static func isNameStart(_ c: Unicode.Scalar) -> Bool {
        c == "_" || c.properties.isAlphabetic
    }

    private static func isNamePart(_ c: Unicode.Scalar) -> Bool {
        isNameStart(c) || ("0"..."9").contains(c)
    }

    private mutating func name() -> String {
        var text = String.UnicodeScalarView()
        while let c = peek(), Self.isNamePart(c) {
            text.append(c)
            index += 1
        }
        return String(text)
    }

    private static let symbols = [
        "==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||",
        "=", "<", ">", "!", "+", "-", "*", "/", "(", ")", "{", "}", "[", "]", ",", ".", ":",
    ]

    mutating func next() throws(PredicateError) -> Token {
        while let c = peek(), c.properties.isWhitespace { index += 1 }
        let start = index
        guard let c = peek() else { return Token(kind: .end, position: start) }
        if Self.isNameStart(c) {
            return Token(kind: .identifier(name(), escaped: false), position: start)
        }
        if c == "#" || c == "$" || c == "@" {
            index += 1
            guard let n = peek(), Self.isNameStart(n) else {
                throw fail("expected a name after '\(c)'", at: start)
            }
            let text = name()
            let kind: Token.Kind =
                c == "#" ? .identifier(text, escaped: true) : c == "$" ? .variable(text) : .keyPathOperator(text)
            return Token(kind: kind, position: start)
        }
        if c == "\"" || c == "'" { return try string(quote: c) }
        if ("0"..."9").contains(c) || (c == "." && peek(1).map { ("0"..."9").contains($0) } == true) {
            return try number()
        }
        for symbol in Self.symbols {
            let s = Array(symbol.unicodeScalars)
            if (0..<s.count).allSatisfy({ peek($0) == s[$0] }) {
                index += s.count
                // `=<` and `=>` are Apple's spellings of `<=` and `>=`; `<>` of `!=`; `=` of `==`.
                let canonical = ["=<": "<=", "=>": ">=", "<>": "!=", "=": "=="][symbol] ?? symbol
                return Token(kind: .symbol(canonical), position: start)
            }
        }
        throw fail("unexpected character '\(c.escaped(asASCII: false))'", at: start)
    }

    private mutating func string(quote: Unicode.Scalar) throws(PredicateError) -> Token {
        let start = index
        index += 1
        var text = String.UnicodeScalarView()
        while true {
            guard let c = peek() else { throw fail("unterminated string (no closing \(quote))", at: start) }
            index += 1
            if c == quote { break }
            if c == "\\" {
                guard let e = peek() else { throw fail("unterminated string (no closing \(quote))", at: start) }
                index += 1
                switch e {
                case "n": text.append("\n")
                case "t": text.append("\t")
                case "r": text.append("\r")
                case "0": text.append("\0")
                case "u":
                    var hex = ""
                    while hex.count < 4, let h = peek(), h.properties.isASCIIHexDigit {
                        hex.unicodeScalars.append(h)
                        index += 1
                    }
                    guard hex.count == 4, let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) else {
                        throw fail("expected four hex digits after \\u", at: index)
                    }
                    text.append(scalar)
                default: text.append(e)
                }
                continue
            }
            text.append(c)
        }
        return Token(kind: .string(String(text)), position: start)
    }

    private mutating func number() throws(PredicateError) -> Token {
        let start = index
        if peek() == "0", let x = peek(1), x == "x" || x == "X" {
            index += 2
            var hex = ""
            while let h = peek(), h.properties.isASCIIHexDigit {
                hex.unicodeScalars.append(h)
                index += 1
            }
            guard let value = Int64(hex, radix: 16) else {
                throw fail("not a hexadecimal number that fits 64 bits", at: start)
            }
            return Token(kind: .integer(value), position: start)
        }
        var text = ""
        var isInteger = true
        while let c = peek(), ("0"..."9").contains(c) {
            text.unicodeScalars.append(c)
            index += 1
        }
        if peek() == ".", let d = peek(1), ("0"..."9").contains(d) {
            isInteger = false
            text += "."
            index += 1
            while let c = peek(), ("0"..."9").contains(c) {
                text.unicodeScalars.append(c)
                index += 1
            }
        }
        if let e = peek(), e == "e" || e == "E" {
            let sign = peek(1) == "-" || peek(1) == "+"
            if let d = peek(sign ? 2 : 1), ("0"..."9").contains(d) {
                isInteger = false
                text += "e"
                index += 1
                if sign {
                    text.unicodeScalars.append(peek()!)
                    index += 1
                }
                while let c = peek(), ("0"..."9").contains(c) {
                    text.unicodeScalars.append(c)
                    index += 1
                }
            }
        }
        if let c = peek(), Self.isNameStart(c) {
            throw fail("a number runs into a name ('\(text)\(c)'); put a space between them", at: start)
        }
        if isInteger, let value = Int64(text) { return Token(kind: .integer(value), position: start) }
        if isInteger, UInt64(text) == 1 << 63 { return Token(kind: .integerMinMagnitude, position: start) }
        guard let value = Double(text), value.isFinite else { throw fail("not a number: \(text)", at: start) }
        return Token(kind: .double(value), position: start)
    }
}
