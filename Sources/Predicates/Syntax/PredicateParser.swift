/// A recursive-descent parser for Core Data's predicate format strings and
/// `NSExpression` format strings (Apple's "Predicate Format String Syntax"), the
/// subset that maps to SQL. Keywords are case-insensitive; `#name` escapes one.
///
/// ```
/// predicate   := or
/// or          := and (("OR" | "||") and)*
/// and         := not (("AND" | "&&") not)*
/// not         := ("NOT" | "!") not | "(" predicate ")" | "TRUEPREDICATE" | "FALSEPREDICATE" | comparison
/// comparison  := ["ANY" | "SOME" | "ALL" | "NONE"] expression operator ["[" ("c" | "d" | "cd") "]"] expression
/// operator    := "==" | "=" | "!=" | "<>" | "<" | "<=" | "=<" | ">" | ">=" | "=>" | "BETWEEN" | "IN"
///              | "BEGINSWITH" | "ENDSWITH" | "CONTAINS" | "LIKE" | "MATCHES"
/// expression  := term (("+" | "-") term)*
/// term        := unary (("*" | "/") unary)*
/// unary       := "-" unary | primary
/// primary     := number | string | "YES" | "NO" | "TRUE" | "FALSE" | "nil" | "NULL"
///              | "{" [expression ("," expression)*] "}" | "(" expression ")"
///              | "CAST" "(" expression "," string ")" | name ":" (name ":")* "(" arguments ")" | name "(" ")"
///              | "TERNARY" "(" predicate "," expression "," expression ")"
///              | "FUNCTION" "(" expression "," string ("," expression)* ")" | keypath
///              followed by any number of "[" ("FIRST" | "LAST" | "SIZE" | expression) "]"
/// keypath     := (name | "$" name) ("." (name | "@" name))*
/// ```
public struct PredicateParser {
    private let source: String
    private var tokens: [Token]
    private var index = 0
    private var depth = 0
    private var values = 0

    /// Hostile input may nest without end; the parser refuses beyond this depth
    /// instead of exhausting the stack.
    static let maximumDepth = 100

    /// How deep the SQL of a predicate may nest, in the units of ``nesting(of:)-swift.type.method``
    /// (about one entry of SQLite's parser stack each). SQLite's parser refuses SQL
    /// that needs more than 100 entries ("parser stack overflow", `YYSTACKDEPTH` in
    /// SQLite 3.40): about 92 nested parentheses, but only about 30 nested function
    /// calls and 10 nested subqueries; a statement adds up to about 20 around a predicate.
    public static let maximumNesting = 75

    /// At most this many values (literals, list items, `now()`) in one text: each is a
    /// bound parameter, some twice, and SQLite binds at most 32,766 per statement.
    public static let maximumValues = 10_000

    private static let reserved: Set<String> = [
        "AND", "OR", "NOT", "BETWEEN", "IN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "ANY", "SOME",
        "ALL", "NONE", "NIL", "NULL", "TRUEPREDICATE", "FALSEPREDICATE", "YES", "NO", "TRUE", "FALSE", "CAST",
        "SUBQUERY", "FUNCTION", "SELF", "TERNARY",
    ]

    private init(_ source: String) throws(PredicateError) {
        self.source = source
        self.tokens = try Lexer.tokens(source)
        try countValues()
    }

    /// Refuses a text with more than ``maximumValues`` values, at the first one too many.
    private func countValues() throws(PredicateError) {
        var count = 0
        for token in tokens {
            switch token.kind {
            case .string, .integer, .double: count += 1
            case .identifier(_, false)
            where ["NIL", "NULL", "YES", "NO", "TRUE", "FALSE", "NOW"].contains(token.keyword ?? ""): count += 1
            default: continue
            }
            if count > Self.maximumValues {
                throw fail(
                    """
                    more than \(Self.maximumValues) values in one text (each is a bound SQL parameter); \
                    split the request, or select by a key the objects share
                    """, at: token)
            }
        }
    }

    // MARK: Nesting

    private func nestingError(at offset: Int) -> PredicateError {
        PredicateError(
            .syntax,
            """
            nested too deeply for SQLite's parser (NOT, comparisons, quantifiers, operators, functions and key-path \
            steps each nest the SQL; Docs/Predicates.md gives the limits); split the request
            """, at: offset, in: source)
    }

    private func checkNesting(_ syntax: PredicateSyntax, at offset: Int) throws(PredicateError) {
        if Self.nesting(of: syntax) > Self.maximumNesting { throw nestingError(at: offset) }
    }

    private func checked(_ syntax: ExpressionSyntax) throws(PredicateError) -> ExpressionSyntax {
        if Self.nesting(of: syntax) > Self.maximumNesting { throw nestingError(at: syntax.position) }
        return syntax
    }

    private func checkNesting(_ syntax: ExpressionSyntax, at offset: Int) throws(PredicateError) {
        if Self.nesting(of: syntax) > Self.maximumNesting { throw nestingError(at: offset) }
    }

    /// Parses a predicate (a `--where`, a mapping's `filter:`).
    public static func predicate(_ text: String) throws(PredicateError) -> PredicateSyntax {
        var parser = try PredicateParser(text)
        if parser.current.kind == .end { throw parser.fail("expected a predicate, found nothing", at: parser.current) }
        let result = try parser.parsePredicate()
        try parser.expectEnd()
        return result
    }

    /// Parses an expression (an `--set` value, a mapping's `value:`).
    public static func expression(_ text: String) throws(PredicateError) -> ExpressionSyntax {
        var parser = try PredicateParser(text)
        if parser.current.kind == .end {
            throw parser.fail("expected an expression, found nothing", at: parser.current)
        }
        let result = try parser.parseExpression()
        try parser.expectEnd()
        return result
    }

    // MARK: Tokens

    private var current: Token { tokens[index] }
    private func peek(_ offset: Int) -> Token { tokens[min(index + offset, tokens.count - 1)] }
    private mutating func advance() -> Token {
        let token = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return token
    }

    private func fail(_ detail: String, at token: Token) -> PredicateError {
        PredicateError(.syntax, detail, at: token.position, in: source)
    }

    private mutating func expect(_ symbol: String, _ context: String) throws(PredicateError) {
        guard current.isSymbol(symbol) else {
            throw fail("expected '\(symbol)' \(context), found \(current.shown)", at: current)
        }
        _ = advance()
    }

    private func expectEnd() throws(PredicateError) {
        guard current.kind == .end else {
            throw fail("expected the end of the text or an operator, found \(current.shown)", at: current)
        }
    }

    private mutating func nest() throws(PredicateError) {
        depth += 1
        if depth > Self.maximumDepth { throw fail("nested more than \(Self.maximumDepth) levels deep", at: current) }
    }

    // MARK: Predicates

    private mutating func parsePredicate() throws(PredicateError) -> PredicateSyntax {
        try nest()
        defer { depth -= 1 }
        var operands = [try parseAnd()], operators: [Int] = []
        while current.keyword == "OR" || current.isSymbol("||") {
            operators.append(advance().position)
            operands.append(try parseAnd())
        }
        return try balanced(operands, operators, PredicateSyntax.or)
    }

    private mutating func parseAnd() throws(PredicateError) -> PredicateSyntax {
        var operands = [try parseNot()], operators: [Int] = []
        while current.keyword == "AND" || current.isSymbol("&&") {
            operators.append(advance().position)
            operands.append(try parseNot())
        }
        return try balanced(operands, operators, PredicateSyntax.and)
    }

    /// `a OR b OR c …` as a balanced tree, not a left-deep one: AND and OR are
    /// associative, and a chain of thousands of terms (a generated `id == 1 OR id == 2 …`)
    /// then nests only log2(n) levels in the checker, the SQL generator and SQLite's
    /// parser. The operands keep their order, so SQL evaluates them left to right.
    private func balanced(
        _ operands: [PredicateSyntax], _ operators: [Int],
        _ make: (PredicateSyntax, PredicateSyntax, Int) -> PredicateSyntax
    ) throws(PredicateError) -> PredicateSyntax {
        func build(_ range: Range<Int>) -> PredicateSyntax {
            if range.count == 1 { return operands[range.lowerBound] }
            let middle = range.lowerBound + (range.count + 1) / 2
            return make(build(range.lowerBound..<middle), build(middle..<range.upperBound), operators[middle - 1])
        }
        let tree = build(0..<operands.count)
        if operands.count > 1 { try checkNesting(tree, at: operands[0].position) }
        return tree
    }

    private mutating func parseNot() throws(PredicateError) -> PredicateSyntax {
        try nest()
        defer { depth -= 1 }
        if current.keyword == "NOT" || current.isSymbol("!") {
            let at = advance().position
            let not = PredicateSyntax.not(try parseNot(), at: at)
            try checkNesting(not, at: at)
            return not
        }
        if current.keyword == "TRUEPREDICATE" || current.keyword == "FALSEPREDICATE" {
            let token = advance()
            return .constant(token.keyword == "TRUEPREDICATE", at: token.position)
        }
        if current.isSymbol("(") {
            // `(a > 1 OR b < 2)` or `(a + b) > 3`: try the predicate first, and fall
            // back to a comparison whose left side is parenthesised.
            let saved = index, savedDepth = depth
            _ = advance()
            if let inner = try? parsePredicate(), current.isSymbol(")") {
                _ = advance()
                if !Self.continuesExpression(current) { return inner }
            }
            index = saved
            depth = savedDepth
        }
        let comparison = PredicateSyntax.comparison(try parseComparison())
        try checkNesting(comparison, at: comparison.position)
        return comparison
    }

    /// Whether a token after `( … )` makes the parenthesised text an expression.
    private static func continuesExpression(_ token: Token) -> Bool {
        if case .symbol(let s) = token.kind {
            return ["+", "-", "*", "/", "==", "!=", "<", "<=", ">", ">=", "."].contains(s)
        }
        return operatorKeywords.contains(token.keyword ?? "")
    }

    private static let operatorKeywords: Set<String> = [
        "BETWEEN", "IN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES",
    ]

    private mutating func parseComparison() throws(PredicateError) -> Comparison {
        let start = current.position
        var quantifier: Comparison.Quantifier?
        switch current.keyword {
        case "ANY", "SOME": quantifier = .any
        case "ALL": quantifier = .all
        case "NONE": quantifier = Comparison.Quantifier.none
        default: break
        }
        if quantifier != nil { _ = advance() }
        let lhs = try parseExpression()
        let opToken = current
        let op: Comparison.Operator
        switch opToken.kind {
        case .symbol(let s) where ["==", "!=", "<", "<=", ">", ">="].contains(s):
            op = Comparison.Operator(rawValue: s)!
        case .identifier(let name, false) where Self.operatorKeywords.contains(name.uppercased()):
            op = Comparison.Operator(rawValue: name.uppercased())!
        default:
            throw fail(
                """
                expected a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, BEGINSWITH, ENDSWITH, CONTAINS, \
                LIKE, MATCHES), found \(opToken.shown)
                """, at: opToken)
        }
        _ = advance()
        var options: Comparison.Options = []
        if current.isSymbol("[") {
            let bracket = advance()
            guard case .identifier(let flags, _) = current.kind else {
                throw fail("expected c, d or cd inside [ ], found \(current.shown)", at: current)
            }
            for flag in flags.lowercased() {
                switch flag {
                case "c": options.insert(.caseInsensitive)
                case "d": options.insert(.diacriticInsensitive)
                case "n": options.insert(.normalized)
                case "l": options.insert(.localeSensitive)
                default: throw fail("unknown option '\(flag)' (expected c, d, n, l or cd)", at: current)
                }
            }
            _ = advance()
            try expect("]", "to close the options")
            if !op.isStringOperator && op != .equal && op != .notEqual && op != .in {
                throw fail("[\(flags)] applies to string comparisons, not \(op.rawValue)", at: bracket)
            }
        }
        guard current.kind != .end else {
            throw fail("expected an expression after \(opToken.shown), found the end of the text", at: current)
        }
        let rhs = try parseExpression()
        return Comparison(
            quantifier: quantifier, lhs: lhs, op: op, options: options, rhs: rhs,
            position: start, operatorPosition: opToken.position)
    }

    // MARK: Expressions

    private mutating func parseExpression() throws(PredicateError) -> ExpressionSyntax {
        try nest()
        defer { depth -= 1 }
        var lhs = try parseTerm()
        while current.isSymbol("+") || current.isSymbol("-") {
            let token = advance()
            lhs = .arithmetic(token.isSymbol("+") ? .add : .subtract, lhs, try parseTerm(), at: token.position)
            try checkNesting(lhs, at: token.position)
        }
        return lhs
    }

    private mutating func parseTerm() throws(PredicateError) -> ExpressionSyntax {
        var lhs = try parseUnary()
        while current.isSymbol("*") || current.isSymbol("/") {
            let token = advance()
            lhs = .arithmetic(token.isSymbol("*") ? .multiply : .divide, lhs, try parseUnary(), at: token.position)
            try checkNesting(lhs, at: token.position)
        }
        return lhs
    }

    private mutating func parseUnary() throws(PredicateError) -> ExpressionSyntax {
        if current.isSymbol("-") {
            try nest()
            defer { depth -= 1 }
            let token = advance()
            switch current.kind {
            case .integer(let v):
                _ = advance()
                return .integer(-v, at: token.position)
            case .double(let v):
                _ = advance()
                return .double(-v, at: token.position)
            case .integerMinMagnitude:
                _ = advance()
                return .integer(.min, at: token.position)
            default:
                let negate = ExpressionSyntax.negate(try parseUnary(), at: token.position)
                try checkNesting(negate, at: token.position)
                return negate
            }
        }
        return try parsePrimary()
    }

    /// A primary expression and the indexes written after it (`…[FIRST]`, `…[2]`).
    private mutating func parsePrimary() throws(PredicateError) -> ExpressionSyntax {
        var base = try parseAtom()
        while current.isSymbol("[") {
            let bracket = advance()
            let index: IndexSyntax
            switch current.keyword {
            case "FIRST":
                _ = advance()
                index = .first
            case "LAST":
                _ = advance()
                index = .last
            case "SIZE":
                _ = advance()
                index = .size
            default:
                guard current.kind != .end, !current.isSymbol("]") else {
                    throw fail(
                        "expected FIRST, LAST, SIZE or a position inside [ ], found \(current.shown)", at: current)
                }
                index = .position(try parseExpression())
            }
            try expect("]", "to close the index opened at column \(bracket.position + 1)")
            base = try checked(.index(base, index, at: bracket.position))
        }
        return base
    }

    private mutating func parseAtom() throws(PredicateError) -> ExpressionSyntax {
        let token = current
        switch token.kind {
        case .integer(let v):
            _ = advance()
            return .integer(v, at: token.position)
        case .double(let v):
            _ = advance()
            return .double(v, at: token.position)
        case .integerMinMagnitude:
            _ = advance()
            return .double(0x1p63, at: token.position)
        case .string(let s):
            _ = advance()
            return .string(s, at: token.position)
        case .variable(let name):
            _ = advance()
            return try checked(.keyPath(variable: name, components: try keyPathRest(), at: token.position))
        case .keyPathOperator(let name):
            throw fail("'@\(name)' must follow a to-many key path (as in posts.@\(name))", at: token)
        case .symbol("{"):
            _ = advance()
            var items: [ExpressionSyntax] = []
            if !current.isSymbol("}") {
                items.append(try parseExpression())
                while current.isSymbol(",") {
                    _ = advance()
                    items.append(try parseExpression())
                }
            }
            try expect("}", "to close the list opened at column \(token.position + 1)")
            return try checked(.list(items, at: token.position))
        case .symbol("("):
            _ = advance()
            let inner = try parseExpression()
            try expect(")", "to close the parenthesis opened at column \(token.position + 1)")
            return inner
        case .identifier(let name, let escaped):
            if !escaped { if let literal = try keywordLiteral(token) { return literal } }
            _ = advance()
            if !escaped, current.isSymbol(":") || current.isSymbol("(") {
                return try function(name, at: token)
            }
            return try checked(.keyPath(variable: nil, components: [name] + (try keyPathRest()), at: token.position))
        case .end:
            throw fail("expected an expression, found the end of the text", at: token)
        default:
            throw fail("expected an expression, found \(token.shown)", at: token)
        }
    }

    /// `nil`, `YES`, `CAST(…)`, or a keyword where an expression should be.
    private mutating func keywordLiteral(_ token: Token) throws(PredicateError) -> ExpressionSyntax? {
        guard let keyword = token.keyword, Self.reserved.contains(keyword) else { return nil }
        switch keyword {
        case "NIL", "NULL":
            _ = advance()
            return .null(at: token.position)
        case "YES", "TRUE":
            _ = advance()
            return .boolean(true, at: token.position)
        case "NO", "FALSE":
            _ = advance()
            return .boolean(false, at: token.position)
        case "CAST":
            _ = advance()
            try expect("(", "after CAST")
            let value = try parseExpression()
            try expect(",", "between CAST's value and its type")
            guard case .string(let type) = current.kind else {
                throw fail(
                    "expected a type name in quotes ('NSDate', 'NSNumber' or 'NSString'), found \(current.shown)",
                    at: current)
            }
            _ = advance()
            try expect(")", "to close CAST")
            return try checked(.cast(value, type, at: token.position))
        case "TERNARY":
            _ = advance()
            try expect("(", "after TERNARY")
            let condition = try parsePredicate()
            try expect(",", "after TERNARY's predicate")
            let whenTrue = try parseExpression()
            try expect(",", "between TERNARY's two values")
            let whenFalse = try parseExpression()
            try expect(")", "to close TERNARY")
            return try checked(.ternary(condition, whenTrue, whenFalse, at: token.position))
        case "FUNCTION":
            return try invoke(at: token)
        case "SUBQUERY", "SELF":
            throw fail("\(keyword) is not supported (it has no SQL form here)", at: token)
        default:
            throw fail(
                """
                expected an expression, found the keyword \(keyword) (write #\(name(of: token)) for a key of that name)
                """,
                at: token)
        }
    }

    private func name(of token: Token) -> String {
        if case .identifier(let name, _) = token.kind { return name }
        return ""
    }

    /// `.name`, `.@count`… after the first component of a key path.
    private mutating func keyPathRest() throws(PredicateError) -> [String] {
        var components: [String] = []
        while current.isSymbol(".") {
            _ = advance()
            switch current.kind {
            case .identifier(let name, let escaped):
                if !escaped, Self.reserved.contains(name.uppercased()) {
                    throw fail(
                        """
                        expected a key after '.', found the keyword \(name.uppercased()) (write #\(name) for a key of \
                        that name)
                        """,
                        at: current)
                }
                components.append(name)
            case .keyPathOperator(let name): components.append("@" + name)
            default: throw fail("expected a key after '.', found \(current.shown)", at: current)
            }
            _ = advance()
        }
        return components
    }

    /// `lowercase:(x)`, `add:to:(a, b)`, `now()`.
    private mutating func function(_ first: String, at start: Token) throws(PredicateError) -> ExpressionSyntax {
        var name = first
        while current.isSymbol(":") {
            _ = advance()
            name += ":"
            if case .identifier(let part, false) = current.kind, peek(1).isSymbol(":") {
                _ = advance()
                name += part
            }
        }
        try expect("(", "after the function name \(name)")
        var arguments: [ExpressionSyntax] = []
        if !current.isSymbol(")") {
            arguments.append(try parseExpression())
            while current.isSymbol(",") {
                _ = advance()
                arguments.append(try parseExpression())
            }
        }
        try expect(")", "to close the arguments of \(name)")
        return try checked(.function(name, arguments, at: start.position))
    }

    /// `FUNCTION(receiver, 'selector:', argument, …)`, Apple's `NSExpression` format for
    /// a method call: the selector is a string literal in single or double quotes.
    private mutating func invoke(at start: Token) throws(PredicateError) -> ExpressionSyntax {
        _ = advance()
        try expect("(", "after FUNCTION")
        guard current.kind != .end, !current.isSymbol(")") else {
            throw fail(
                """
                expected FUNCTION's receiver (as in FUNCTION($entityPolicy, 'selector:', $source.name)), found \
                \(current.shown)
                """,
                at: current)
        }
        let receiver = try parseExpression()
        try expect(",", "between FUNCTION's receiver and its selector")
        guard case .string(let selector) = current.kind else {
            throw fail(
                "expected FUNCTION's selector in quotes (as in 'firstNameFrom:'), found \(current.shown)", at: current)
        }
        let selectorToken = advance()
        guard Self.isSelector(selector) else {
            throw fail(
                """
                '\(selector)' is not an Objective-C selector (names ending in ':' for each argument, as in 'name:with:')
                """,
                at: selectorToken)
        }
        var arguments: [ExpressionSyntax] = []
        while current.isSymbol(",") {
            _ = advance()
            arguments.append(try parseExpression())
        }
        try expect(")", "to close FUNCTION")
        return try checked(.invoke(receiver: receiver, selector: selector, arguments: arguments, at: start.position))
    }

    /// `name`, `name:` or `name:with:`: identifier characters and colons, starting with a name.
    static func isSelector(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else { return false }
        return text.unicodeScalars.allSatisfy {
            $0 == ":" || $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0)
        }
    }
}
