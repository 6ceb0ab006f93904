import Foundation
import TestSupport
import Testing

/// `dump` then `load` into a fresh store then `dump` gives the same lines, whatever
/// the store holds: objects referring to later objects or to themselves, cycles
/// across entities (`--all`), ordered lists whose members are dumped per concrete
/// entity (`_position`). Scripts/roundtrip.py does the same on random stores.
@Suite struct RoundTripTests {
    static let model = """
        model: Cyc
        version: 1
        entities:
          A:
            attributes: { name: string }
            relationships:
              b: { destination: B, optional: true }
              me: { destination: A, optional: true }
          B:
            attributes: { name: string }
            relationships:
              a: { destination: A, optional: true }
              items: { destination: Item, toMany: true, ordered: true, inverse: owner }
              parent: { destination: B, optional: true, inverse: children }
              children: { destination: B, toMany: true, inverse: parent }
          Item:
            abstract: true
            attributes: { title: string }
            relationships:
              owner: { destination: B, optional: true, inverse: items }
          Book:
            parent: Item
            attributes: { pages: integer32? }
          Audio:
            parent: Item
            attributes: { seconds: double? }
        """

    /// A store whose every line refers forward (a child before its parent, an A whose
    /// `me` is itself, A and B pointing at each other) and an ordered list that mixes
    /// subentities out of key order.
    static func store(_ f: TemporaryDirectory) throws -> String {
        try f.write("Models/Cyc/1.yaml", model)
        let lines = [
            #"{"_entity":"A","_pk":1,"name":"a1","b":2,"me":1}"#,
            #"{"_entity":"B","_pk":1,"name":"child","parent":2,"a":1}"#,
            #"{"_entity":"B","_pk":2,"name":"root","a":1}"#,
            #"{"_entity":"Audio","_pk":3,"title":"first","owner":2}"#,
            #"{"_entity":"Book","_pk":1,"title":"second","owner":2}"#,
            #"{"_entity":"Audio","_pk":2,"title":"third","owner":2}"#,
        ]
        try f.write("in.jsonl", lines.joined(separator: "\n") + "\n")
        for arguments in [["create", "s.sqlite"], ["load", "s.sqlite", "--all", "in.jsonl"]] {
            let result = try InProcess.migrate(arguments + ["--models", "Models"], in: f.path)
            #expect(result.status == 0, "\(result)")
        }
        return "s.sqlite"
    }

    func migrate(_ arguments: [String], in f: TemporaryDirectory) throws -> CommandResult {
        try InProcess.migrate(arguments + ["--models", "Models"], in: f.path)
    }

    @Test func aWholeStoreWithForwardReferencesAndCyclesRoundTrips() throws {
        let f = try TemporaryDirectory(prefix: "roundtrip")
        defer { f.remove() }
        let store = try Self.store(f)
        let first = try migrate(["dump", store, "--all"], in: f)
        #expect(first.status == 0, "\(first)")
        #expect(
            first.stdout == """
                {"_pk":1,"_entity":"A","b":2,"me":1,"name":"a1"}
                {"_pk":1,"_entity":"B","a":1,"name":"child","parent":2}
                {"_pk":2,"_entity":"B","a":1,"name":"root","parent":null}
                {"_pk":3,"_entity":"Audio","_position":{"owner":1},"owner":2,"seconds":null,"title":"first"}
                {"_pk":1,"_entity":"Book","_position":{"owner":2},"owner":2,"pages":null,"title":"second"}
                {"_pk":2,"_entity":"Audio","_position":{"owner":3},"owner":2,"seconds":null,"title":"third"}

                """)
        try f.write("all.jsonl", first.stdout)
        // Loaded into a fresh store in reverse order: every reference waits for its line.
        try f.write("reversed.jsonl", first.stdout.split(separator: "\n").reversed().joined(separator: "\n") + "\n")
        for file in ["all.jsonl", "reversed.jsonl"] {
            let fresh = "fresh-\(file).sqlite"
            #expect(try migrate(["create", fresh], in: f).status == 0)
            let load = try migrate(["load", fresh, "--all", file], in: f)
            #expect(load.status == 0, "\(load)")
            #expect(load.stdout == "loaded 6 objects into \(fresh)\n")
            #expect(try migrate(["dump", fresh, "--all"], in: f).stdout == first.stdout, "\(file)")
            let verify = try migrate(["apply", fresh, "--verify"], in: f)
            #expect(verify.status == 0, "\(verify)")
        }
    }

    /// Members of one ordered list dumped per concrete entity and loaded file by file
    /// keep their order (`_position`); before, they came back in key order per file.
    @Test func anOrderedListAcrossSubentitiesSurvivesPerEntityFiles() throws {
        let f = try TemporaryDirectory(prefix: "roundtrip")
        defer { f.remove() }
        let store = try Self.store(f)
        let items = try migrate(["dump", store, "Item"], in: f).stdout
        for entity in ["Book", "Audio"] {
            try f.write("\(entity).jsonl", try migrate(["dump", store, entity], in: f).stdout)
        }
        try f.write("B.jsonl", #"{"_pk":2,"_entity":"B","name":"root"}"# + "\n")
        #expect(try migrate(["create", "fresh.sqlite"], in: f).status == 0)
        for (entity, file) in [("B", "B.jsonl"), ("Book", "Book.jsonl"), ("Audio", "Audio.jsonl")] {
            let load = try migrate(["load", "fresh.sqlite", entity, file], in: f)
            #expect(load.status == 0, "\(load)")
        }
        #expect(try migrate(["dump", "fresh.sqlite", "Item"], in: f).stdout == items)
        let titles = try migrate(["fetch", "fresh.sqlite", "B", "--properties", "name,items.@count", "--json"], in: f)
        #expect(titles.status == 0, "\(titles)")
    }

    /// A reference that never resolves is refused at its line, and nothing is loaded.
    @Test func aReferenceToNoObjectIsRefusedAtItsLine() throws {
        let f = try TemporaryDirectory(prefix: "roundtrip")
        defer { f.remove() }
        try f.write("Models/Cyc/1.yaml", Self.model)
        try f.write(
            "bad.jsonl",
            #"{"_entity":"B","_pk":1,"name":"x","parent":2}"# + "\n" + #"{"_entity":"A","_pk":1,"name":"y","me":9}"#
                + "\n")
        #expect(try migrate(["create", "s.sqlite"], in: f).status == 0)
        let before = try StoreDump.dump(f.file("s.sqlite"))
        let load = try migrate(["load", "s.sqlite", "--all", "bad.jsonl"], in: f)
        #expect(load.status == 1, "\(load)")
        #expect(
            load.stderr == """
                error: bad.jsonl:1: B.parent: no B with primary key 2
                error: bad.jsonl:2: A.me: no A with primary key 9 (nothing was loaded)

                """)
        #expect(try StoreDump.dump(f.file("s.sqlite")) == before)
        let noEntity = try InProcess.migrate(
            ["load", "s.sqlite", "--all", "-", "--models", "Models"], in: f.path,
            stdin: #"{"_pk":1,"name":"who"}"# + "\n")
        #expect(noEntity.status == 1)
        #expect(
            noEntity.stderr
                == "error: <stdin>:1: _entity: a line of a whole store names its entity (\"_entity\": one of A, Audio, "
                + "B, Book, Item) "
                + "(nothing was loaded)\n")
    }

    @Test func allTakesNoEntity() throws {
        let f = try TemporaryDirectory(prefix: "roundtrip")
        defer { f.remove() }
        try f.write("Models/Cyc/1.yaml", Self.model)
        #expect(try migrate(["dump", "s.sqlite", "A", "--all"], in: f).status == 64)
        #expect(try migrate(["dump", "s.sqlite"], in: f).status == 64)
        #expect(try migrate(["load", "s.sqlite", "A", "--all", "x.jsonl"], in: f).status == 64)
        #expect(try migrate(["load", "s.sqlite", "A"], in: f).status == 64)
    }
}
