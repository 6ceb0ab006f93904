import DataModel
import Foundation
import JSONLines
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

private let model = """
    entities:
      Folder:
        attributes:
          title: string
        relationships:
          books: { destination: Book, toMany: true, ordered: true, inverse: folder }
      SpecialFolder:
        parent: Folder
      Book:
        attributes:
          title: string
        relationships:
          folder: { destination: Folder, inverse: books, optional: true }
      Node:
        attributes:
          name: string
        relationships:
          parent: { destination: Node, inverse: children, optional: true }
          children: { destination: Node, toMany: true, ordered: true, inverse: parent }
    """

/// A to-one naming an object of a later line is written with its row, and the row
/// takes its place in the owner's ordered list at its line, as if the owner's line had
/// come first (`ProvisionalTargets`); the target is checked when the file has been
/// read. Held to a reference computed from the lines alone, over random files whose
/// owners' lines come anywhere: each list's end is the highest place given so far; a
/// line without `_position` takes the next. A memory limit of 2 sends most targets
/// through SQLite's temporary table.
@Suite struct WriteAheadLoadTests {
    /// The member rows of a load, `[key, owner, place, Z_OPT]`, or its refusal.
    enum Loaded: Equatable {
        case rows([[Int64]])
        case refused(String)
    }

    /// A random file: folders and books, nodes naming nodes (themselves too), each
    /// line anywhere; now and then a key no line has.
    static func lines(_ random: inout SplitMix64) -> [String] {
        func some(_ chance: Int) -> Bool { Int.random(in: 0..<chance, using: &random) == 0 }
        let folders = Int.random(in: 1...5, using: &random), books = Int.random(in: 1...30, using: &random)
        let nodes = Int.random(in: 1...12, using: &random)
        // A folder with subentities: the entity number beside a book's folder key is set
        // when the file ends for a book written ahead.
        var lines = (1...folders).map {
            #"{"_entity":"\#(some(2) ? "SpecialFolder" : "Folder")","_pk":\#($0),"title":"f"}"#
        }
        for key in 1...books {
            var line = #"{"_entity":"Book","_pk":\#(key),"title":"b""#
            if !some(5) {
                line += #","folder":\#(some(60) ? folders + 1 : Int.random(in: 1...folders, using: &random))"#
            }
            if line.contains("folder"), some(6) {
                line += #","_position":{"folder":\#(Int.random(in: 1...8, using: &random))}"#
            }
            lines.append(line + "}")
        }
        for key in 1...nodes {
            let parent =
                some(5) ? "" : #","parent":\#(some(80) ? nodes + 1 : Int.random(in: 1...nodes, using: &random))"#
            lines.append(#"{"_entity":"Node","_pk":\#(key),"name":"n"\#(parent)}"#)
        }
        return lines.shuffled(using: &random)
    }

    /// What the reference expects: every member row `[key, owner, place, Z_OPT]` of
    /// `ZBOOK` then `ZNODE`, or the refusal of the first line naming a missing key.
    static func reference(_ lines: [String]) throws -> Loaded {
        struct Line: Decodable {
            var _entity: String
            var _pk: Int64
            var folder: Int64?
            var parent: Int64?
            var _position: [String: Int64]?
        }
        let parsed = try lines.map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
        // A special folder is a folder.
        let keys = Dictionary(grouping: parsed, by: { $0._entity == "SpecialFolder" ? "Folder" : $0._entity }).mapValues
        { Set($0.map(\._pk)) }
        for (number, line) in parsed.enumerated() {
            if let folder = line.folder, keys["Folder"]?.contains(folder) != true {
                return .refused("f:\(number + 1): Book.folder: no Folder with primary key \(folder)")
            }
            if let parent = line.parent, keys["Node"]?.contains(parent) != true {
                return .refused("f:\(number + 1): Node.parent: no Node with primary key \(parent)")
            }
        }
        var ends: [String: Int64] = [:]
        var rows: [String: [[Int64]]] = [:]
        for line in parsed {
            guard let owner = line.folder ?? line.parent else { continue }
            let list = "\(line._entity) \(owner)"
            let place = line._position?["folder"] ?? ((ends[list] ?? 0) + 1)
            ends[list] = max(ends[list] ?? 0, place)
            rows[line._entity, default: []].append([line._pk, owner, place, 1])
        }
        return .rows(["Book", "Node"].flatMap { (rows[$0] ?? []).sorted { $0[0] < $1[0] } })
    }

    static func load(_ lines: [String], inMemory: Int) throws -> Loaded {
        let directory = try TemporaryDirectory(prefix: "WriteAheadLoadTests")
        defer { directory.remove() }
        let (store, version) = try directory.createStore(model: "Ahead", yaml: model)
        defer { try? store.close() }
        let access = try ObjectAccess(store: store, version: version)
        access.provisionalTargetsInMemory = inMemory
        do {
            try ObjectJSONLines.load(
                access, entity: nil, reader: JSONLinesReader(bytes: Array(lines.joined(separator: "\n").utf8)),
                file: "f")
        } catch {
            return .refused(String(describing: error))
        }
        // Each book's entity number of its folder is its folder's.
        let columns = try store.connection.prepare("SELECT name FROM pragma_table_info('ZBOOK')").rows().map { row in
            if case .text(let name) = row[0] { name } else { "" }
        }
        let numberColumn = try #require(
            columns.first { $0.hasPrefix("Z") && $0.hasSuffix("_FOLDER") && $0 != "Z_FOK_FOLDER" })
        let wrongNumbers = try store.connection.prepare(
            "SELECT count(*) FROM ZBOOK b JOIN ZFOLDER f ON f.Z_PK = b.ZFOLDER WHERE b.\(numberColumn) IS NOT f.Z_ENT"
        ).rows()
        #expect("\(wrongNumbers)" == "[[0]]", "\(wrongNumbers)")
        var rows: [[Int64]] = []
        for (table, owner, place) in [("ZBOOK", "ZFOLDER", "Z_FOK_FOLDER"), ("ZNODE", "ZPARENT", "Z_FOK_PARENT")] {
            let sql = "SELECT Z_PK, \(owner), \(place), Z_OPT FROM \(table) WHERE \(owner) IS NOT NULL ORDER BY Z_PK"
            rows += try store.connection.prepare(sql).rows().map { row in
                row.map { value in
                    if case .integer(let number) = value { number } else { -1 }
                }
            }
        }
        return .rows(rows)
    }

    @Test(arguments: 1...150)
    func membersTakeTheirPlaceAtTheirLine(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let lines = Self.lines(&random)
        let expected = try Self.reference(lines)
        for inMemory in [1 << 16, 2] {
            let loaded = try Self.load(lines, inMemory: inMemory)
            switch (expected, loaded) {
            case (.rows(let rows), .rows(let got)):
                #expect(got == rows, "\(lines)")
            case (.refused(let first), .refused(let message)):
                #expect(message.hasPrefix(first), "\(lines)")
            default:
                Issue.record("expected \(expected), got \(loaded): \(lines)")
            }
        }
    }

    /// Past the memory limit, targets written ahead wait in a temporary table read a page
    /// at a time by its key: no page sorts the whole table again (a load of 400 k objects
    /// naming 400 k later targets took minutes, an outside trial's find).
    @Test func targetsPastTheMemoryLimitAreReadByTheirKey() throws {
        let directory = try TemporaryDirectory(prefix: "WriteAheadLoadTests")
        defer { directory.remove() }
        let (store, version) = try directory.createStore(model: "Ahead", yaml: model)
        defer { try? store.close() }
        let access = try ObjectAccess(store: store, version: version)
        access.provisionalTargetsInMemory = 0
        let lines =
            (1...5).map { #"{"_entity":"Book","_pk":\#($0),"folder":\#($0),"title":"b"}"# }
            + (1...5).map { #"{"_entity":"Folder","_pk":\#($0),"title":"f"}"# }
        try ObjectJSONLines.load(
            access, entity: nil, reader: JSONLinesReader(bytes: Array(lines.joined(separator: "\n").utf8)), file: "f")
        let pages = store.connection.cachedStatementTexts.filter {
            $0.hasPrefix("SELECT") && $0.contains("mm_provisional_targets")
        }
        #expect(pages.count == 1)
        for sql in pages {
            let plan = try store.connection.prepare("EXPLAIN QUERY PLAN " + sql).rows().map { "\($0)" }.joined(
                separator: "\n")
            #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
        }
    }

    /// Every line naming a missing target is reported, kept in memory or not.
    @Test func everyLineNamingAMissingTargetIsRefused() throws {
        let lines = [
            #"{"_entity":"Book","_pk":1,"folder":7,"title":"b"}"#,
            #"{"_entity":"Book","_pk":2,"folder":1,"title":"b"}"#,
            #"{"_entity":"Book","_pk":3,"folder":7,"title":"b"}"#,
            #"{"_entity":"Folder","_pk":1,"title":"f"}"#,
        ]
        for inMemory in [1 << 16, 0] {
            let loaded = try Self.load(lines, inMemory: inMemory)
            #expect(
                loaded
                    == .refused(
                        """
                        f:1: Book.folder: no Folder with primary key 7
                        f:3: Book.folder: no Folder with primary key 7
                        """))
        }
    }

    /// A member written ahead names its owner's key; the owner's line then lists it
    /// whole: the same object, not a second owner (an outside trial's find).
    @Test func anOwnerListingAMemberThatNamedItFirst() throws {
        let lines = [
            #"{"_pk":5,"_entity":"Book","folder":1,"title":"b"}"#,
            #"{"_pk":1,"_entity":"Folder","books":[5],"title":"f"}"#,
        ]
        #expect(try Self.load(lines, inMemory: 1 << 16) == .rows([[5, 1, 1, 2]]))
        // Without `_pk` on the owner's line: the key it is given is the one named.
        let keyless = [
            #"{"_pk":5,"_entity":"Book","folder":1,"title":"b"}"#, #"{"_entity":"Folder","books":[5],"title":"f"}"#,
        ]
        #expect(try Self.load(keyless, inMemory: 1 << 16) == .rows([[5, 1, 1, 2]]))
    }

    /// A list given whole goes after the owner's members it does not name, so no two
    /// members share a place (an outside trial's find: both at 1), and before the members
    /// of later lines, also when its own members come later (it takes its places at its
    /// line); for a list long enough to be set in one statement too.
    @Test(arguments: [1, 20])
    func aListGivenWholeGoesAfterTheOwnersOtherMembers(length: Int) throws {
        let listed = (6..<(6 + length)).map { #"{"_pk":\#($0),"_entity":"Book","title":"b"}"# }
        let list =
            #"""
            {"_pk":1,"_entity":"Folder","title":"f",\#
            "books":[\#((6..<(6 + length)).map(String.init).joined(separator: ","))]}
            """#
        let member = #"{"_pk":5,"_entity":"Book","folder":1,"title":"b"}"#
        let memberFirst = [[5, 1, 1, 1]] + (6..<(6 + length)).enumerated().map { [Int64($1), 1, Int64($0 + 2), 2] }
        #expect(try Self.load([member] + listed + [list], inMemory: 1 << 16) == .rows(memberFirst))
        let listFirst =
            [[5, 1, Int64(length + 1), 1]] + (6..<(6 + length)).enumerated().map { [Int64($1), 1, Int64($0 + 1), 2] }
        #expect(try Self.load([list, member] + listed, inMemory: 1 << 16) == .rows(listFirst))
    }
}

/// The statements that check and set a long list given whole, and the targets written
/// ahead, keep the keys the outer loop: SQLite's plan finds each member by its key, never
/// by walking the owner column's index (every row without an owner, per list: a load of
/// 100 lists into a million free rows ran for an hour before the terms were kept off the
/// index). Read from the plans SQLite gives for the statements a load prepared.
@Suite struct ListWholePlanTests {
    @Test func eachMemberIsFoundByItsKey() throws {
        let directory = try TemporaryDirectory(prefix: "ListWholePlanTests")
        defer { directory.remove() }
        let (store, version) = try directory.createStore(model: "Plan", yaml: model)
        defer { try? store.close() }
        let access = try ObjectAccess(store: store, version: version)
        let books = (1...40).map { #"{"_pk":\#($0),"title":"b"}"# }.joined(separator: "\n")
        try ObjectJSONLines.load(access, entity: "Book", text: books, file: "books")
        let list = #"{"_pk":1,"title":"f","books":[\#((1...20).map(String.init).joined(separator: ","))]}"#
        try ObjectJSONLines.load(access, entity: "Folder", text: list, file: "folders")
        let setting = store.connection.cachedStatementTexts.filter {
            $0.contains("json_each") && $0.hasPrefix("UPDATE")
        }
        #expect(!setting.isEmpty)
        for sql in setting {
            let plan = try store.connection.prepare("EXPLAIN QUERY PLAN " + sql).rows().map { "\($0)" }.joined(
                separator: "\n")
            #expect(plan.contains("SCAN j"), "\(plan)")
            #expect(plan.contains("USING INTEGER PRIMARY KEY"), "\(plan)")
            #expect(!plan.contains("INDEX ZBOOK_ZFOLDER_INDEX"), "\(plan)")
        }
        #expect(try store.connection.prepare("SELECT count(*) FROM ZBOOK WHERE ZFOLDER = 1").rows() == [[.integer(20)]])
    }
}
