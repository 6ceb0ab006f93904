import DataModel
import Foundation
import JSONLines
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

private let libraryModel = """
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
    """

/// A member appended to an ordered list takes one past the list's highest place, which
/// the load keeps per list instead of asking the store per member (a `max()` per member
/// made loading quadratic in a list's length). The places are those the store's own
/// `max()` gives, whatever writes the list in between.
@Suite struct OrderedListLoadTests {
    @Test func appendedMembersTakeThePlacesTheStoreWouldGive() throws {
        let directory = try TemporaryDirectory(prefix: "OrderedListLoadTests")
        defer { directory.remove() }
        let (store, version) = try directory.createStore(model: "Library", yaml: libraryModel)
        defer { try? store.close() }
        let access = try ObjectAccess(store: store, version: version)
        let lines = [
            #"{"_entity":"Folder","_pk":1,"title":"a"}"#,
            #"{"_entity":"Book","_pk":1,"folder":1,"title":"b1"}"#,
            // A given place moves the list's end: the next member comes after it.
            #"{"_entity":"Book","_pk":2,"folder":1,"_position":{"folder":5},"title":"b2"}"#,
            #"{"_entity":"Book","_pk":3,"folder":1,"title":"b3"}"#,
            // Folder 2 comes later: book 4 takes its place at its line, as if folder 2 came first.
            #"{"_entity":"Book","_pk":4,"folder":2,"title":"b4"}"#,
            #"{"_entity":"Folder","_pk":2,"title":"b"}"#,
            #"{"_entity":"Book","_pk":5,"folder":2,"title":"b5"}"#,
            #"{"_entity":"Book","_pk":6,"title":"b6"}"#,
            // A list given whole, by its owner: the next member goes after it.
            #"{"_entity":"Folder","_pk":3,"title":"c","books":[6]}"#,
            #"{"_entity":"Book","_pk":7,"folder":3,"title":"b7"}"#,
            #"{"_entity":"Book","_pk":8,"folder":4,"title":"b8"}"#,
            #"{"_entity":"Folder","_pk":4,"title":"d","books":[9, 8]}"#,
            #"{"_entity":"Book","_pk":9,"title":"b9"}"#,
            #"{"_entity":"Book","_pk":10,"folder":4,"title":"b10"}"#,
        ]
        #expect(
            try ObjectJSONLines.load(
                access, entity: nil, reader: JSONLinesReader(bytes: Array(lines.joined(separator: "\n").utf8)),
                file: "l") == 14)
        // (Z_PK, folder, place, Z_OPT) as the store's max() per member gives them, each
        // member written at its line. The list given whole by folder 4 names book 9 of a
        // later line: it takes its places at its own line (9 at 1, 8 at 2, set when the
        // file has been read), so book 10, a later line, comes after it at 3.
        let rows = try store.connection.prepare("SELECT Z_PK, ZFOLDER, Z_FOK_FOLDER, Z_OPT FROM ZBOOK ORDER BY Z_PK")
            .rows()
        let expected: [[Int64]] = [
            [1, 1, 1, 1], [2, 1, 5, 1], [3, 1, 6, 1], [4, 2, 1, 1], [5, 2, 2, 1], [6, 3, 1, 2], [7, 3, 2, 1],
            [8, 4, 2, 2], [9, 4, 1, 2],
            [10, 4, 3, 1],
        ]
        #expect(rows == expected.map { $0.map { DatabaseValue.integer($0) } })
    }

    /// Many members of a few lists, appended line by line, then a second load appending
    /// to the same lists: each list numbered 1, 2, 3, … in line order.
    @Test func longListsAreNumberedInLineOrder() throws {
        let directory = try TemporaryDirectory(prefix: "OrderedListLoadTests")
        defer { directory.remove() }
        let (store, version) = try directory.createStore(model: "Library", yaml: libraryModel)
        defer { try? store.close() }
        let access = try ObjectAccess(store: store, version: version)
        let folders = (1...3).map { #"{"_pk":\#($0),"title":"f"}"# }.joined(separator: "\n")
        try ObjectJSONLines.load(access, entity: "Folder", text: folders, file: "folders")
        for batch in 0..<2 {
            let books = (1...3000).map { #"{"folder": \#($0 % 3 + 1), "title": "b"}"# }.joined(separator: "\n")
            #expect(try ObjectJSONLines.load(access, entity: "Book", text: books, file: "books\(batch)") == 3000)
        }
        let rows = try store.connection.prepare("SELECT ZFOLDER, Z_FOK_FOLDER FROM ZBOOK ORDER BY Z_PK").rows()
        var next: [Int64: Int64] = [:]
        var expected: [[DatabaseValue]] = []
        for line in 0..<6000 {
            let folder = Int64((line % 3000 + 1) % 3 + 1)
            next[folder, default: 0] += 1
            expected.append([.integer(folder), .integer(next[folder] ?? 0)])
        }
        #expect(rows == expected)
    }

    /// Books before the folders they name: each book is written at its line with its
    /// folder and its place, the folders are checked when the file has been read; a
    /// bad one among them is reported at its line, and nothing is written.
    @Test func forwardReferencesBeyondMemoryAreSetInLineOrder() throws {
        let directory = try TemporaryDirectory(prefix: "OrderedListLoadTests")
        defer { directory.remove() }
        let (store, version) = try directory.createStore(model: "Library", yaml: libraryModel)
        defer { try? store.close() }
        let access = try ObjectAccess(store: store, version: version)
        let count = 2 * 4096 + 500
        func lines(badAt bad: Int?) -> String {
            let books = (1...count).map { line in
                #"{"_entity":"Book","_pk":\#(line),"folder":\#(line == bad ? 99 : line % 3 + 1),"title":"b"}"#
            }
            let folders = (1...3).map { #"{"_entity":"Folder","_pk":\#($0),"title":"f"}"# }
            return (books + folders).joined(separator: "\n")
        }
        let refused = #expect(throws: LoadError.self) {
            try ObjectJSONLines.load(
                access, entity: nil, reader: JSONLinesReader(bytes: Array(lines(badAt: 6001).utf8)), file: "bad")
        }
        #expect(refused?.description == "bad:6001: Book.folder: no Folder with primary key 99")
        #expect(try access.count("Book") == 0)
        #expect(
            try ObjectJSONLines.load(
                access, entity: nil, reader: JSONLinesReader(bytes: Array(lines(badAt: nil).utf8)), file: "good")
                == count + 3)
        let rows = try store.connection.prepare("SELECT ZFOLDER, Z_FOK_FOLDER FROM ZBOOK ORDER BY Z_PK").rows()
        var next: [Int64: Int64] = [:]
        let expected = (1...count).map { line -> [DatabaseValue] in
            let folder = Int64(line % 3 + 1)
            next[folder, default: 0] += 1
            return [.integer(folder), .integer(next[folder] ?? 0)]
        }
        #expect(rows == expected)
    }

    /// Folders listing books of later lines, more than the load keeps in memory
    /// (``DeferredReferences``): the lists wait in a temporary table and are set in line
    /// order when the file has been read; a bad one is reported at its line.
    @Test func listsBeyondMemoryWaitInATemporaryTable() throws {
        let directory = try TemporaryDirectory(prefix: "OrderedListLoadTests")
        defer { directory.remove() }
        let (store, version) = try directory.createStore(model: "Library", yaml: libraryModel)
        defer { try? store.close() }
        let access = try ObjectAccess(store: store, version: version)
        let count = 4096 + 300
        func lines(badAt bad: Int?) -> String {
            let folders = (1...count).map { line in
                #"""
                {"_entity":"Folder","_pk":\#(line),"title":"f",\#
                "books":[\#(line == bad ? 2 * count + 1 : 2 * line),\#(2 * line - 1)]}
                """#
            }
            let books = (1...(2 * count)).map { #"{"_entity":"Book","_pk":\#($0),"title":"b"}"# }
            return (folders + books).joined(separator: "\n")
        }
        let refused = #expect(throws: LoadError.self) {
            try ObjectJSONLines.load(
                access, entity: nil, reader: JSONLinesReader(bytes: Array(lines(badAt: 4200).utf8)), file: "bad")
        }
        #expect(refused?.description == "bad:4200: Folder.books: no Book with primary key \(2 * count + 1)")
        #expect(try access.count("Folder") == 0)
        #expect(
            try ObjectJSONLines.load(
                access, entity: nil, reader: JSONLinesReader(bytes: Array(lines(badAt: nil).utf8)), file: "good") == 3
                * count)
        let rows = try store.connection.prepare("SELECT ZFOLDER, Z_FOK_FOLDER FROM ZBOOK ORDER BY Z_PK").rows()
        // Folder n lists book 2n, then book 2n − 1.
        let expected = (1...(2 * count)).map { (book: Int) -> [DatabaseValue] in
            let folder = Int64((book + 1) / 2)
            let place: Int64 = book % 2 == 0 ? 1 : 2
            return [.integer(folder), .integer(place)]
        }
        #expect(rows == expected)
    }
}
