import Foundation
import ModelMigration
import Predicates
import SQLiteStore
import TestSupport
import Testing

/// Predicates from a command line are untrusted: whatever the text, it either
/// gets a located error or becomes SQL made only of the layout's identifiers,
/// aliases, `?` and the generator's own keywords — never of the text itself.
@Suite struct PredicateFuzzTests {
    /// SplitMix64: the same cases on every run.
    typealias Random = SplitMix64

    static let hostile = [
        "'; DROP TABLE ZCUSTOMER; --", "\" OR 1=1 --", "ZCUSTOMER", "\"ZCUSTOMER\"", "Z_PK", "sqlite_master",
        "%", "_", "*", "?", "[", "]", "\\", "é", "😀", "\u{0}", "' OR ''='", "1); DELETE FROM ZORDER; (", "$source",
        "@count",
    ]
    static let keys = [
        "name", "email", "visits", "joinedAt", "vip", "note", "code", "city.name", "city", "orders.@count",
        "orders.@sum.total", "orders.@max.number", "wishlist.@count", "scratch", "nope", "city.customers", "orders",
    ]
    static let operators = [
        "==", "=", "!=", "<>", "<", "<=", ">", ">=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "IN",
        "BETWEEN",
    ]

    static func literal(_ random: inout Random) -> String {
        switch Int.random(in: 0..<9, using: &random) {
        case 0: return String(Int.random(in: -1000...1000, using: &random))
        case 1: return String(Double.random(in: -100...100, using: &random))
        case 2, 3:
            return "'"
                + hostile.randomElement(using: &random)!.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "'", with: "\\'") + "'"
        case 4: return ["YES", "NO", "nil", "NULL", "TRUE", "FALSE"].randomElement(using: &random)!
        case 5:
            return "{"
                + (0..<Int.random(in: 0...3, using: &random)).map { _ in String(Int.random(in: 0...50, using: &random))
                }.joined(separator: ", ") + "}"
        case 6: return "CAST('2026-01-01T00:00:00Z', 'NSDate')"
        case 7:
            return "\""
                + hostile.randomElement(using: &random)!.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "\"", with: "\\\"") + "\""
        default:
            return [
                "lowercase:(name)", "uppercase:(note)", "length:(email)", "abs:(visits)", "now()", "visits * 2",
                "CAST(note, 'NSNumber')",
            ]
            .randomElement(using: &random)!
        }
    }

    static func predicate(_ random: inout Random, depth: Int = 0) -> String {
        let choice = depth > 3 ? 0 : Int.random(in: 0..<7, using: &random)
        switch choice {
        case 0, 1, 2:
            let quantifier =
                Int.random(in: 0..<6, using: &random) == 0
                ? ["ANY orders.total ", "ALL orders.number ", "NONE wishlist.name "].randomElement(using: &random)!
                : keys.randomElement(using: &random)! + " "
            let options =
                Int.random(in: 0..<4, using: &random) == 0
                ? ["[c]", "[d]", "[cd]", "[x]"].randomElement(using: &random)! : ""
            return quantifier + operators.randomElement(using: &random)! + options + " " + literal(&random)
        case 3: return "(" + predicate(&random, depth: depth + 1) + ") AND " + predicate(&random, depth: depth + 1)
        case 4:
            return predicate(&random, depth: depth + 1) + [" OR ", " || ", " && "].randomElement(using: &random)!
                + predicate(&random, depth: depth + 1)
        case 5: return ["NOT ", "!"].randomElement(using: &random)! + "(" + predicate(&random, depth: depth + 1) + ")"
        default: return ["TRUEPREDICATE", "FALSEPREDICATE"].randomElement(using: &random)!
        }
    }

    /// Random edits: characters from the hostile strings inserted, removed, replaced.
    static func mutate(_ text: String, _ random: inout Random) -> String {
        var scalars = Array(text.unicodeScalars)
        let alphabet = Array((hostile.joined() + "()[]{}=<>!&|'\"$@#.,:; \t\n-+*/").unicodeScalars)
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let at = Int.random(in: 0...scalars.count, using: &random)
            switch Int.random(in: 0..<3, using: &random) {
            case 0: scalars.insert(alphabet.randomElement(using: &random)!, at: at)
            case 1: if at < scalars.count { scalars.remove(at: at) }
            default: if at < scalars.count { scalars[at] = alphabet.randomElement(using: &random)! }
            }
        }
        return String(String.UnicodeScalarView(scalars))
    }

    /// The SQL's words: only identifiers of the layout (quoted), aliases, numbers
    /// and the generator's keywords and functions; no string literal, no comment,
    /// no statement separator.
    static func foreignTokens(_ sql: String, identifiers: Set<String>) -> [String] {
        let keywords: Set<String> = [
            "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "IN", "IS", "NULL", "EXISTS", "JOIN", "ON", "BETWEEN",
            "GLOB", "CAST", "AS", "REAL", "TEXT", "Z_PK", "Z_ENT", "count", "sum", "avg", "min", "max", "coalesce",
            "instr", "substr", "length", "nullif", "abs", "mm_abs", "mm_fold", "mm_lower", "mm_upper", "mm_number",
            "mm_matches",
            "ORDER", "BY", "ASC", "DESC", "LIMIT", "OFFSET",
            // Expression functions (Docs/MappingFiles.md, "Expressions that run set-based").
            "CASE", "WHEN", "THEN", "ELSE", "END", "UNION", "ALL", "v", "replace", "mod", "sqrt", "ceil", "floor",
            "trunc", "log10", "ln", "exp", "pow", "mm_utf16_length", "mm_trim", "mm_capitalized", "mm_substring",
            "mm_component", "mm_component_count", "mm_replace_matches",
        ]
        var foreign: [String] = []
        let chars = Array(sql.unicodeScalars)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == "\"" {
                var j = i + 1
                while j < chars.count, chars[j] != "\"" { j += 1 }
                let name = String(String.UnicodeScalarView(chars[(i + 1)..<min(j, chars.count)]))
                if !identifiers.contains(name) { foreign.append("\"\(name)\"") }
                i = j + 1
            } else if c.properties.isAlphabetic || c == "_" {
                var j = i
                while j < chars.count,
                    chars[j].properties.isAlphabetic || chars[j] == "_" || ("0"..."9").contains(chars[j])
                { j += 1 }
                let word = String(String.UnicodeScalarView(chars[i..<j]))
                // An alias, t0, t1, …: matched by hand (a regular expression per word cost seconds).
                let isAlias =
                    word.count > 1 && word.first == "t" && word.dropFirst().allSatisfy { ("0"..."9").contains($0) }
                if !keywords.contains(word), !isAlias {
                    foreign.append(word)
                }
                i = j
            } else if ("0"..."9").contains(c) || " (),.=<>!*+-/|?&~%".unicodeScalars.contains(c) {
                i += 1
            } else {
                foreign.append(String(c))
                i += 1
            }
        }
        return foreign
    }

    static func compile(_ requests: StoreRequests, _ request: FetchRequest) -> Result<SQLFragment, RequestError> {
        do { return .success(try requests.compile(request).statement) } catch { return .failure(error) }
    }

    @Test func hostilePredicatesNeverReachSQLAsText() throws {
        let shop = try ShopModel.scenario()
        defer { shop.remove() }
        let before = try Data(contentsOf: URL(fileURLWithPath: shop.storePath))
        let store = try Store.open(path: shop.storePath, access: .readOnly)
        defer { try? store.close() }
        let access = try ObjectAccess(store: store, version: try store.currentVersion(among: [try shop.model()]))
        let requests = StoreRequests(access: access)
        let identifiers = Set(access.layout.tables.flatMap { [$0.name] + $0.columns.map(\.name) })
        var random = Random(seed: 15)
        var compiled = 0, refused = 0, executed = 0
        let started = Date()
        for round in 0..<4000 {
            var text = Self.predicate(&random)
            if round % 2 == 1 { text = Self.mutate(text, &random) }
            var request = FetchRequest(entity: "Customer")
            request.predicate = text
            request.properties = []
            let outcome = Self.compile(requests, request)
            guard case .success(let statement) = outcome else {
                refused += 1
                if case .failure(let error) = outcome {
                    let located =
                        error.kind == .invalidRequest && error.message.hasPrefix("--where: column ")
                        && error.message.contains("^")
                    #expect(located, "\(text): \(error)")
                }
                continue
            }
            compiled += 1
            let foreign = Self.foreignTokens(statement.sql, identifiers: identifiers)
            #expect(foreign.isEmpty, "\(text) → \(statement.sql): \(foreign)")
            #expect(
                statement.sql.split(separator: "?").count - 1 == statement.arguments.count
                    - (statement.sql.hasSuffix("?") ? 1 : 0), "\(text)")
            // Every compiled predicate runs (the rows it selects are the SQL's business).
            do {
                _ = try requests.fetchAll(request)
                executed += 1
            } catch {
                Issue.record("\(text) → \(statement.sql): \(error)")
            }
        }
        let elapsed = Date().timeIntervalSince(started)
        print(
            """
            predicate fuzz: \(compiled + refused) cases, \(compiled) compiled and run, \(refused) refused with a \
            located error, \(String(format: "%.2f", elapsed)) s
            """)
        #expect(compiled > 500)
        #expect(refused > 800)
        #expect(executed == compiled)
        #expect(try Data(contentsOf: URL(fileURLWithPath: shop.storePath)) == before)
    }

    /// `--set` values and mapping-file values are expressions: the same promise.
    @Test func hostileExpressionsNeverReachSQLAsText() throws {
        let version = try ShopModel.version()
        let generator = PredicateSQL(version: version, layout: version.layout)
        let checker = TypeChecker(version: version, entity: "Customer")
        let identifiers = Set(version.layout.tables.flatMap { [$0.name] + $0.columns.map(\.name) })
        var random = Random(seed: 51)
        var compiled = 0, refused = 0
        for round in 0..<3000 {
            var text = Self.literal(&random)
            for _ in 0..<Int.random(in: 0...2, using: &random) {
                let other =
                    Int.random(in: 0..<2, using: &random) == 0
                    ? Self.literal(&random) : Self.keys.randomElement(using: &random)!
                text = [
                    "\(text) + \(other)", "\(text) * \(other)", "uppercase:(\(text))", "CAST(\(text), 'NSNumber')",
                    "abs:(\(text))",
                    "TERNARY(\(text) == \(other), \(text), \(other))",
                    "FUNCTION(\(text), 'componentsSeparatedByString:', \(other))[LAST]",
                    "FUNCTION(\(text), 'substringFromIndex:', \(other))", "trim:(\(text))",
                    "modulus:by:(\(text), \(other))",
                    "bitwiseXor:with:(\(text), \(other))", "max:({\(text), \(other)})",
                ]
                .randomElement(using: &random)!
            }
            if round % 2 == 1 { text = Self.mutate(text, &random) }
            guard let checked = try? checker.expression(text) else {
                refused += 1
                continue
            }
            compiled += 1
            let fragment = try generator.value(checked, row: "t0")
            let foreign = Self.foreignTokens(fragment.sql, identifiers: identifiers)
            #expect(foreign.isEmpty, "\(text) → \(fragment.sql): \(foreign)")
            #expect(fragment.sql.filter { $0 == "?" }.count == fragment.arguments.count, "\(text) → \(fragment.sql)")
        }
        print("expression fuzz: \(compiled + refused) cases, \(compiled) compiled, \(refused) refused")
        #expect(compiled > 500)
    }
}
