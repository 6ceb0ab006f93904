import DataModel
import Foundation
import JSONLines
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

private let model = """
    entities:
      Album:
        relationships:
          songs: { destination: Song, toMany: true, ordered: true, inverse: albums }
      Song:
        relationships:
          albums: { destination: Album, toMany: true, ordered: true, inverse: songs }
    """

/// A many-to-many ordered on both sides keeps both orders through `dump --all` and
/// `load --all`: the dump writes the lists on both sides (an outside trial found the
/// side the store does not keep its pairs on come back in line order).
@Suite struct ManyToManyRoundTripTests {
    /// The store's lists, both sides: `Album 1: [songs]`, `Song 1: [albums]`.
    static func lists(_ store: Store) throws -> [String] {
        var lists: [String] = []
        for (owner, member, order, name) in [
            ("Z_1ALBUMS", "Z_2SONGS", "Z_FOK_2SONGS", "Album"), ("Z_2SONGS", "Z_1ALBUMS", "Z_FOK_1ALBUMS", "Song"),
        ] {
            let rows = try store.connection.prepare(
                "SELECT \(owner), \(member) FROM Z_1SONGS ORDER BY \(owner), \(order)"
            ).rows()
            var byOwner: [Int64: [Int64]] = [:]
            for row in rows {
                if case .integer(let o) = row[0], case .integer(let m) = row[1] { byOwner[o, default: []].append(m) }
            }
            lists += byOwner.keys.sorted().map { "\(name) \($0): \(byOwner[$0]!)" }
        }
        return lists
    }

    @Test func bothOrdersComeBack() throws {
        let directory = try TemporaryDirectory(prefix: "ManyToManyRoundTripTests")
        defer { directory.remove() }
        let (first, version) = try directory.createStore("first.sqlite", model: "Music", yaml: model)
        defer { try? first.close() }
        let lines = [
            #"{"_pk":1,"_entity":"Album","songs":[3,1,2]}"#, #"{"_pk":2,"_entity":"Album","songs":[1,3]}"#,
            #"{"_pk":1,"_entity":"Song","albums":[2,1]}"#, #"{"_pk":2,"_entity":"Song"}"#,
            #"{"_pk":3,"_entity":"Song","albums":[2,1]}"#,
        ]
        try ObjectJSONLines.load(
            try ObjectAccess(store: first, version: version), entity: nil,
            reader: JSONLinesReader(bytes: Array(lines.joined(separator: "\n").utf8)), file: "f")
        let expected = ["Album 1: [3, 1, 2]", "Album 2: [1, 3]", "Song 1: [2, 1]", "Song 2: [1]", "Song 3: [2, 1]"]
        #expect(try Self.lists(first).sorted() == expected)
        var dumped: [UInt8] = []
        try ObjectJSONLines.dumpAll(try ObjectAccess(store: first, version: version)) { dumped += $0 }
        let (second, _) = try directory.createStore("second.sqlite", model: "Music", yaml: model)
        defer { try? second.close() }
        try ObjectJSONLines.load(
            try ObjectAccess(store: second, version: version), entity: nil, reader: JSONLinesReader(bytes: dumped),
            file: "dump")
        #expect(try Self.lists(second).sorted() == expected, "\(String(decoding: dumped, as: UTF8.self))")
    }
}
