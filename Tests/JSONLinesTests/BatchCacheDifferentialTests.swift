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
      Book:
        attributes:
          title: string
        relationships:
          folder: { destination: Folder, inverse: books, optional: true }
          shelf: { destination: Shelf, inverse: books, optional: true }
      Shelf:
        attributes:
          name: string
        relationships:
          books: { destination: Book, toMany: true, inverse: shelf, maxCount: 3 }
      Node:
        attributes:
          name: string
        relationships:
          parent: { destination: Node, inverse: children, optional: true }
          children: { destination: Node, toMany: true, ordered: true, inverse: parent }
    """

/// What a load's batch keeps of what it read (list ends, new owners' empty lists, row
/// entities, inverse counts) against the plain semantics, every answer from a query
/// (``ObjectAccess/batchKeepsWhatItReads`` off): the same random files, two loads each
/// into a fresh store, the same rows or the same refusal.
@Suite struct BatchCacheDifferentialTests {
    /// Random files of lines: each entity's keys split between the files, each file's
    /// lines shuffled; references to keys of this file (earlier or later lines) or of
    /// an earlier file, and now and then to a key of no row yet (a refusal).
    static func files(_ random: inout SplitMix64) -> [String] {
        let counts = ["Folder": 6, "Book": 14, "Shelf": 3, "Node": 12]
        // Entity → key → the file it is in.
        var fileOf: [String: [Int: Int]] = [:]
        for (entity, count) in counts {
            for key in 1...count { fileOf[entity, default: [:]][key] = Int.random(in: 0..<2, using: &random) }
        }
        func some(_ chance: Int) -> Bool { Int.random(in: 0..<chance, using: &random) == 0 }
        func ref(_ entity: String, from file: Int) -> Int {
            let count = counts[entity] ?? 1
            let usable = (1...count).filter { (fileOf[entity]?[$0] ?? 0) <= file }
            return some(30) || usable.isEmpty
                ? Int.random(in: 1...count, using: &random) : usable.randomElement(using: &random) ?? 1
        }
        return (0..<2).map { file in
            var lines: [String] = []
            for entity in counts.keys.sorted() {
                for key in 1...(counts[entity] ?? 0) where fileOf[entity]?[key] == file {
                    var line = #"{"_entity":"\#(entity)","_pk":\#(key),"#
                    switch entity {
                    case "Folder":
                        line += #""title":"f""#
                        if some(4) {
                            let books = Set(
                                (0..<Int.random(in: 0...3, using: &random)).map { _ in ref("Book", from: file) })
                            line += #","books":[\#(books.sorted().map(String.init).joined(separator: ","))]"#
                        }
                    case "Book":
                        line += #""title":"b""#
                        if !some(4) {
                            line += #","folder":\#(ref("Folder", from: file))"#
                            if some(5) { line += #","_position":{"folder":\#(Int.random(in: 1...6, using: &random))}"# }
                        }
                        if some(3) { line += #","shelf":\#(ref("Shelf", from: file))"# }
                    case "Shelf":
                        line += #""name":"s""#
                    default:
                        line += #""name":"n""#
                        if !some(4) { line += #","parent":\#(ref("Node", from: file))"# }
                    }
                    lines.append(line + "}")
                }
            }
            return lines.shuffled(using: &random).joined(separator: "\n")
        }
    }

    /// Loads `files` one after another into a fresh store; returns every row of every
    /// table and each load's outcome.
    static func load(_ files: [String], keeping: Bool, setBasedFrom minimum: Int = 16, cacheLimit: Int = 1 << 16) throws
        -> [String]
    {
        let directory = try TemporaryDirectory(prefix: "BatchCacheDifferentialTests")
        defer { directory.remove() }
        let (store, version) = try directory.createStore(model: "Cache", yaml: model)
        defer { try? store.close() }
        let access = try ObjectAccess(store: store, version: version)
        access.batchKeepsWhatItReads = keeping
        access.setBasedListMinimum = minimum
        access.batchCacheLimit = cacheLimit
        // A store written elsewhere: a book in the list of a folder with no row yet (the
        // highest folder key a file may load), at place 4.
        try store.connection.execute(
            """
            INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZFOLDER, Z_FOK_FOLDER) \
            SELECT 99, Z_ENT, 1, 'x', 6, 4 FROM Z_PRIMARYKEY WHERE Z_NAME = 'Book';
            UPDATE Z_PRIMARYKEY SET Z_MAX = 99 WHERE Z_NAME = 'Book'
            """)
        var out: [String] = []
        for (i, file) in files.enumerated() {
            do {
                let count = try ObjectJSONLines.load(
                    access, entity: nil, reader: JSONLinesReader(bytes: Array(file.utf8)), file: "f\(i)")
                out.append("loaded \(count)")
            } catch {
                out.append("\(error)")
            }
        }
        for table in ["ZFOLDER", "ZBOOK", "ZSHELF", "ZNODE", "Z_PRIMARYKEY"] {
            let order = table == "Z_PRIMARYKEY" ? "Z_ENT" : "Z_PK"
            for row in try store.connection.prepare("SELECT * FROM \(table) ORDER BY \(order)").rows() {
                out.append("\(table) \(row)")
            }
        }
        return out
    }

    @Test(arguments: 1...80)
    func keptAnswersAreTheStoresAnswers(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let files = Self.files(&random)
        let kept = try Self.load(files, keeping: true)
        let plain = try Self.load(files, keeping: false)
        #expect(kept == plain, "\(files)")
        // Caches that start again empty every few entries (a million objects' worth of turnover).
        let small = try Self.load(files, keeping: true, cacheLimit: Int(seed % 4) + 1)
        #expect(small == plain, "\(files)")
    }

    /// Lists given whole by their owner's line, checked and set by one statement
    /// (`json_each`) against member by member: the same rows, the same refusals.
    @Test(arguments: 1...80)
    func setBasedListsAreMemberByMember(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let files = Self.files(&random)
        let setBased = try Self.load(files, keeping: true, setBasedFrom: 1)
        let byMember = try Self.load(files, keeping: true, setBasedFrom: Int.max)
        #expect(setBased == byMember, "\(files)")
    }
}
