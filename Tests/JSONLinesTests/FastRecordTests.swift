import DataModel
import Foundation
import JSONLines
import ModelMigration
import TestSupport
import Testing

/// Every attribute type, a transient attribute, a subentity, an ordered one-to-many
/// (with `_position`) and a many-to-many.
private let shelfModel = """
    entities:
      Shelf:
        attributes:
          name: string?
        relationships:
          items: { destination: Item, toMany: true, ordered: true, inverse: shelf }
          tags: { destination: Tag, toMany: true, inverse: shelves }
      Item:
        attributes:
          i16: integer16?
          i32: integer32?
          i64: integer64?
          amount: decimal?
          ratio: double?
          weight: float?
          text: string?
          flag: boolean?
          stamp: date?
          payload: binary?
          token: uuid?
          link: uri?
          note: { type: string, transient: true, optional: true }
        relationships:
          shelf: { destination: Shelf, inverse: items, optional: true }
      Book:
        parent: Item
        attributes:
          pages: integer32?
      Tag:
        attributes:
          name: string?
        relationships:
          shelves: { destination: Shelf, toMany: true, inverse: tags }
    """

/// The fast reader (`FastLineReader`, `load`'s path for every line) held to the general
/// reader (`JSONValue` + the object rules) on random lines: random key orders,
/// whitespace, escapes, Unicode, numbers at the edges of every type, nulls, `_pk`,
/// `_entity` and `_position` or not, broken lines. For every line both accept, they
/// read the same entity and values (strings compared byte for byte, doubles bit for
/// bit); and the fast reader declines exactly the lines the general reader refuses.
@Suite struct FastRecordTests {
    @Test(arguments: [1, 2, 3, 4]) func theFastReaderReadsEveryLineAsTheGeneralReaderDoes(seed: UInt64) throws {
        let version = try TestModels.compile("Shelves", shelfModel)
        var random = SplitMix64(seed: seed)
        let item = try #require(version.entity(named: "Item"))
        var accepted = 0
        var declined = 0
        // Lines of Item (and Book), and a whole store's lines (each names its entity). One
        // reader for each reads every line, as `load` reads a file.
        let bases: [CompiledEntity?] = [item, nil]
        var readers = bases.map { FastLineReader(version: version, entity: $0) }
        for trial in 0..<3000 {
            let line = RandomLine.make(&random, version: version)
            for (which, base) in bases.enumerated() {
                let bytes = Array(line.utf8)
                let (fastName, fastRecord) = bytes.withUnsafeBufferPointer { buffer in
                    (readers[which].read(buffer), readers[which].record)
                }
                let general = bytes.withUnsafeBufferPointer {
                    ObjectJSONLines.generalRecord($0, entity: base, version: version)
                }
                let context = "seed \(seed) trial \(trial) base \(base?.name ?? "nil"): \(line)"
                #expect(fastName == general?.entity, "\(context)")
                if fastName != nil, let general {
                    #expect(Exact(fastRecord) == Exact(general.record), "\(context)")
                    accepted += 1
                } else {
                    declined += 1
                }
            }
        }
        // Both kinds of line are common enough for the comparison to mean something.
        #expect(accepted > 1500 && declined > 1500, "accepted \(accepted), declined \(declined)")
    }

    /// The same line read again after lines of other entities and shapes reads the same.
    @Test func aReaderCarriesNothingFromOneLineToTheNext() throws {
        let version = try TestModels.compile("Shelves", shelfModel)
        var fast = FastLineReader(version: version, entity: nil)
        let lines = [
            #"{"_entity":"Book","pages":3,"shelf":1,"_position":{"shelf":2},"text":"a\u00e9"}"#,
            #"{ "_entity" : "Shelf" , "tags" : [ 1 , 2 ] , "name" : null }"#,
            #"{"_entity":"Item","_pk":9,"i16":-32768}"#,
        ]
        var first: [Exact] = []
        for _ in 0..<2 {
            var round: [Exact] = []
            for line in lines {
                let bytes = Array(line.utf8)
                let name = bytes.withUnsafeBufferPointer { fast.read($0) }
                let general = try #require(
                    bytes.withUnsafeBufferPointer { ObjectJSONLines.generalRecord($0, entity: nil, version: version) })
                #expect(name == general.entity)
                #expect(Exact(fast.record) == Exact(general.record))
                round.append(Exact(fast.record))
            }
            if first.isEmpty { first = round } else { #expect(round == first) }
        }
        #expect(first[0].values.contains(#"string [97, 195, 169]"#))
        #expect(first[1].relationships == ["tags": [1, 2]])
        #expect(first[2].primaryKey == 9)
    }
}

/// A record with strings as bytes and doubles as bits: `String ==` equates canonically
/// equivalent texts, which a store keeps apart.
private struct Exact: Equatable {
    var values: [String]
    var relationships: [String: [Int64]]
    var positions: [String: Int64]
    var primaryKey: Int64?

    init(_ record: FastRecordReader.Record) {
        values = record.values.map { value in
            switch value {
            case .none: "absent"
            case .some(.none): "null"
            case .some(.some(let v)): Self.exact(v)
            }
        }
        relationships = record.relationships
        positions = record.positions
        primaryKey = record.primaryKey
    }

    static func exact(_ value: AttributeValue) -> String {
        switch value {
        case .string(let s): "string \(Array(s.utf8))"
        case .decimal(let s): "decimal \(Array(s.utf8))"
        case .uri(let s): "uri \(Array(s.utf8))"
        case .uuid(let s): "uuid \(Array(s.utf8))"
        case .double(let d): "double \(d.bitPattern)"
        case .date(let d): "date \(d.bitPattern)"
        case .integer(let i): "integer \(i)"
        case .boolean(let b): "boolean \(b)"
        case .binary(let b): "binary \(b)"
        }
    }
}

/// A seeded generator (SplitMix64), so that a failing trial can be replayed.
private struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random JSON Lines records for the shelf model, valid and not.
private enum RandomLine {
    static let numbers = [
        "0", "-0", "1", "-1", "7", "32767", "32768", "-32768", "-32769", "2147483647", "2147483648", "-2147483648",
        "-2147483649",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "99999999999999999999",
        "1.5", "-0.0", "0.1", "1e3", "1E-3", "2.5e+2", "1e309", "-1e309", "5e-324", "3.4028234663852886e+38", "3.5e38",
        "1.7976931348623157e308", "123456789012345678901234567890", "0.000001", "9007199254740993",
    ]
    static let badNumbers = ["01", "-", "1.", ".5", "+1", "1e", "0x10", "1.e3", "--1", "NaN", "Infinity"]
    static let strings = [
        "", "Ann", "Zoë", "東京", "👩‍👩‍👧‍👦", "e\u{301}", "tab\there",
        """
        quote\"and\\slash/
        """, "line\nbreak", "\u{7F}", "\u{0}",
        "2026-01-01T00:00:00Z", "2026-04-05T06:07:08.123456+02:00", "2026-13-01", "2026-01-31", "12.50", "-0.10",
        "1e-5", "abc",
        "0F8FAD5B-D9CB-469F-A165-70867728950E", "0f8fad5b-d9cb-469f-a165-70867728950", "AP8Q", "YnBsaXN0MDA=",
        "not base64!",
        "https://example.com/a?b=c", "mailto:ann@example.com", "no scheme", "inf", "-inf", "true", "null", "Item",
        "Book",
        "Shelf", "Tag", "Nothing", "_pk",
    ]
    static let itemKeys = [
        "i16", "i32", "i64", "amount", "ratio", "weight", "text", "flag", "stamp", "payload", "token", "link", "note",
        "shelf",
        "pages", "_pk", "_entity", "_position", "nothing", "items",
    ]
    static let entities = ["Item", "Book", "Shelf", "Tag", "Nothing", "item"]

    /// Each entity's fields (Book has Item's and `pages`).
    static let fields = [
        "Item": [
            "_pk", "i16", "i32", "i64", "amount", "ratio", "weight", "text", "flag", "stamp", "payload", "token",
            "link", "shelf",
        ],
        "Book": [
            "_pk", "i16", "i32", "i64", "amount", "ratio", "weight", "text", "flag", "stamp", "payload", "token",
            "link", "shelf", "pages",
        ],
        "Shelf": ["_pk", "name", "items", "tags"],
        "Tag": ["_pk", "name", "shelves"],
    ]

    static func make(_ random: inout SplitMix64, version: CompiledVersion) -> String {
        let pairs = Int.random(in: 0..<10, using: &random) < 7 ? plausible(&random) : wild(&random)
        var line = space(&random) + "{"
        for (i, (key, value)) in pairs.enumerated() {
            if i > 0 { line += space(&random) + "," }
            line += space(&random) + string(key, &random) + space(&random) + ":" + space(&random) + value
        }
        line += space(&random) + "}" + space(&random)
        return damage(line, &random)
    }

    /// A line most of whose fields are valid for its entity, in any order.
    static func plausible(_ random: inout SplitMix64) -> [(String, String)] {
        let entity = ["Item", "Item", "Book", "Shelf", "Tag"].randomElement(using: &random)!
        var pairs: [(String, String)] = []
        if Int.random(in: 0..<3, using: &random) > 0 { pairs.append(("_entity", string(entity, &random))) }
        for key in fields[entity, default: []] where Int.random(in: 0..<3, using: &random) > 0 {
            pairs.append((key, Int.random(in: 0..<40, using: &random) == 0 ? anything(&random) : valid(key, &random)))
        }
        if let shelf = pairs.first(where: { $0.0 == "shelf" }), shelf.1 != "null", Bool.random(using: &random) {
            pairs.append(
                (
                    "_position",
                    "{" + space(&random) + string("shelf", &random) + ":" + space(&random)
                        + String(Int.random(in: 1...9, using: &random)) + "}"
                ))
        }
        if Int.random(in: 0..<30, using: &random) == 0 {
            pairs.append((["note", "nothing", "items"].randomElement(using: &random)!, "1"))
        }
        return pairs.shuffled(using: &random)
    }

    /// A value its field's type takes.
    static func valid(_ key: String, _ random: inout SplitMix64) -> String {
        if Int.random(in: 0..<8, using: &random) == 0, key != "_pk" { return "null" }
        let pool: [String]
        switch key {
        case "_pk": return String(Int.random(in: 1...1000, using: &random))
        case "i16": pool = ["0", "-0", "1", "-32768", "32767", "-7", "123"]
        case "i32", "pages": pool = ["0", "2147483647", "-2147483648", "65536", "-1"]
        case "i64": pool = ["0", "9223372036854775807", "-9223372036854775808", "9007199254740993", "42"]
        case "amount":
            pool =
                ["1.5", "0.1", "-0.0", "1e3", "123456789012345678901234567890"]
                + ["12.50", "-0.10", "1e-5", "0"].map { "\"\($0)\"" }
        case "ratio":
            pool = [
                "1.5", "-0.0", "1e3", "1E-3", "5e-324", "1.7976931348623157e308", "0.1", "7", "\"inf\"", "\"-inf\"",
            ]
        case "weight": pool = ["0.1", "3.4028234663852886e+38", "-2.5", "1e-45", "16777217", "\"-inf\""]
        case "flag": pool = ["true", "false", "0", "1"]
        case "stamp":
            pool =
                ["0.000001", "-978307199.5", "797062028.123456"]
                + ["2026-01-01T00:00:00Z", "2026-04-05T06:07:08.123456+02:00", "2026-01-31"].map { "\"\($0)\"" }
        case "payload": return string(["AP8Q", "YnBsaXN0MDA=", ""].randomElement(using: &random)!, &random)
        case "token":
            return string(
                ["0F8FAD5B-D9CB-469F-A165-70867728950E", "0f8fad5b-d9cb-469f-a165-70867728950e"].randomElement(
                    using: &random)!, &random)
        case "link":
            return string(
                ["https://example.com/a?b=c", "mailto:ann@example.com", "urn:isbn:0451450523"].randomElement(
                    using: &random)!, &random)
        case "shelf": return String(Int.random(in: 1...40, using: &random))
        case "items", "tags", "shelves":
            let keys = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                space(&random) + String(Int.random(in: 1...40, using: &random)) + space(&random)
            }
            return "[" + keys.joined(separator: ",") + "]"
        default: return string(strings.randomElement(using: &random)!, &random)
        }
        return pool.randomElement(using: &random)!
    }

    /// A line of random fields with random values.
    static func wild(_ random: inout SplitMix64) -> [(String, String)] {
        var pairs: [(String, String)] = []
        let entity = Int.random(in: 0..<10, using: &random)
        if entity < 6 { pairs.append(("_entity", string(entities[entity], &random))) }
        // A key set near dump's (every field once), or a few fields in any order.
        let keys: [String]
        if entity == 2 || entity == 3 {
            keys = ["name", "items", "tags", "shelves", "_pk", "text"].filter { _ in Bool.random(using: &random) }
        } else if Int.random(in: 0..<3, using: &random) == 0 {
            keys = itemKeys.shuffled(using: &random).filter {
                $0 != "_entity" && Int.random(in: 0..<4, using: &random) > 0
            }
        } else {
            keys = (0..<Int.random(in: 0...6, using: &random)).map { _ in itemKeys.randomElement(using: &random)! }
        }
        for key in keys where key != "_entity" {
            pairs.append((key, value(for: key, &random)))
        }
        pairs.shuffle(using: &random)
        // Mostly each key once (a repeated key is refused, which says little).
        if Int.random(in: 0..<5, using: &random) > 0 {
            var seen: Set<String> = []
            pairs = pairs.filter { seen.insert($0.0).inserted }
        }
        return pairs
    }

    /// The value of a field: mostly one of its type, sometimes anything.
    static func value(for key: String, _ random: inout SplitMix64) -> String {
        if Int.random(in: 0..<6, using: &random) == 0 { return anything(&random) }
        switch key {
        case "i16", "i32", "i64", "_pk", "pages":
            return Int.random(in: 0..<8, using: &random) == 0 ? "null" : integer(&random)
        case "ratio", "weight", "amount", "stamp":
            return Bool.random(using: &random)
                ? numbers.randomElement(using: &random)! : string(strings.randomElement(using: &random)!, &random)
        case "flag":
            return ["true", "false", "null", "0", "1", "2"].randomElement(using: &random)!
        case "shelf":
            return Bool.random(using: &random) ? integer(&random) : "null"
        case "items", "tags", "shelves":
            return "["
                + (0..<Int.random(in: 0...3, using: &random)).map { _ in
                    space(&random) + integer(&random) + space(&random)
                }.joined(separator: ",")
                + "]"
        case "_position":
            let names = ["shelf", "shelf", "text", "items"]
            let inside = (0..<Int.random(in: 0...2, using: &random)).map { _ in
                string(names.randomElement(using: &random)!, &random) + ":" + space(&random) + integer(&random)
            }
            return "{" + space(&random) + inside.joined(separator: "," + space(&random)) + "}"
        default:
            return Int.random(in: 0..<8, using: &random) == 0
                ? "null" : string(strings.randomElement(using: &random)!, &random)
        }
    }

    static func integer(_ random: inout SplitMix64) -> String {
        Bool.random(using: &random)
            ? String(Int.random(in: 1...40, using: &random)) : numbers.randomElement(using: &random)!
    }

    static func anything(_ random: inout SplitMix64) -> String {
        switch Int.random(in: 0..<7, using: &random) {
        case 0: return numbers.randomElement(using: &random)!
        case 1: return badNumbers.randomElement(using: &random)!
        case 2: return string(strings.randomElement(using: &random)!, &random)
        case 3:
            return ["true", "false", "null", "nul", "tru", "[]", "{}", "[1,\"a\"]", "[[1]]", "{\"a\":1}"].randomElement(
                using: &random)!
        case 4: return #""\u+041""#
        case 5:
            return [#""\ud800""#, #""\udc00x""#, #""\ud83c\udf89""#, #""\ud83c\u0041""#, #""\x""#, "\"a\u{1}b\""]
                .randomElement(using: &random)!
        default: return "[" + integer(&random) + "," + space(&random) + numbers.randomElement(using: &random)! + "]"
        }
    }

    /// A JSON string for `text`, each character written as itself or escaped (as
    /// `json.dumps` escapes: `\uXXXX`, surrogate pairs beyond the BMP).
    static func string(_ text: String, _ random: inout SplitMix64) -> String {
        let mode = Int.random(in: 0..<4, using: &random)
        var out = "\""
        for scalar in text.unicodeScalars {
            let escape = mode == 3 || (mode == 2 && Bool.random(using: &random))
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += Bool.random(using: &random) ? "\\t" : "\\u0009"
            case "/" where escape: out += "\\/"
            case _ where scalar.value < 0x20 || escape || (mode == 1 && scalar.value > 0x7E):
                if scalar.value > 0xFFFF {
                    let v = scalar.value - 0x10000
                    out += hex(0xD800 + (v >> 10), &random) + hex(0xDC00 + (v & 0x3FF), &random)
                } else {
                    out += hex(scalar.value, &random)
                }
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static func hex(_ value: UInt32, _ random: inout SplitMix64) -> String {
        let digits = String(value, radix: 16, uppercase: Bool.random(using: &random))
        return "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// Whitespace between tokens: none (dump), one space (`json.dumps`), or more.
    static func space(_ random: inout SplitMix64) -> String {
        ["", "", "", " ", " ", "  ", "\t", " \r "].randomElement(using: &random)!
    }

    /// Now and then a broken line: cut short, a byte changed, a comma too many.
    static func damage(_ line: String, _ random: inout SplitMix64) -> String {
        var scalars = Array(line.unicodeScalars)
        switch Int.random(in: 0..<20, using: &random) {
        case 0 where scalars.count > 2: scalars.removeLast(Int.random(in: 1..<scalars.count, using: &random))
        case 1 where !scalars.isEmpty:
            scalars[Int.random(in: 0..<scalars.count, using: &random)] = [",", "}", "\"", ":", "x", "0"].randomElement(
                using: &random)!
        case 2: scalars.append(contentsOf: "x".unicodeScalars)
        case 3: return line.replacingOccurrences(of: "}", with: ",}")
        default: break
        }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars)
        return String(out)
    }
}
