import Foundation
import TestSupport
import Testing

/// What `load`, `delete` and `apply --verify` make of required to-many
/// relationships, and `dump` → `load` of ordered ones, through `migrate`'s commands (in process).
@Suite struct ObjectRelationshipRulesTests {
    /// A library of games (shaped like a real emulator app's model, in our own
    /// words): `Game.cheats` is a required to-many without `minCount`, as Xcode
    /// writes a to-many whose Optional box is unticked; `Shelf.games` needs at least 2.
    static let library = """
        entities:
          Game:
            attributes: { name: string }
            relationships:
              cheats: { destination: Cheat, toMany: true, inverse: game, deleteRule: cascade, optional: false }
              shelf: { destination: Shelf, inverse: games }
          Cheat:
            attributes: { code: string }
            relationships:
              game: { destination: Game, inverse: cheats, optional: false }
          Shelf:
            attributes: { label: string }
            relationships:
              games: { destination: Game, toMany: true, inverse: shelf, optional: false, minCount: 2 }

        """

    func migrate(_ scenario: MigrationScenario, _ arguments: [String]) throws -> CommandResult {
        try InProcess.migrate(
            [arguments[0], scenario.storePath] + arguments.dropFirst() + ["--models", scenario.modelsFolder])
    }

    /// Core Data saves a game with no cheats (the set is empty, never nil, and only
    /// `minCount` bounds its size), so `load` keeps games without cheats, `delete`
    /// removes a game's last cheat, and `apply --verify` passes such a store; a
    /// `minCount` is still enforced, from both sides.
    @Test func aRequiredToManyWithoutMinCountMayBeEmpty() throws {
        let scenario = try MigrationScenario("Library", versions: [Self.library])
        defer { scenario.remove() }
        try scenario.directory.write(
            "games.jsonl", #"{"_pk":1,"name":"Zelda"}"# + "\n" + #"{"_pk":2,"name":"Metroid"}"# + "\n")
        try scenario.directory.write("cheats.jsonl", #"{"_pk":1,"code":"GOLD","game":1}"# + "\n")
        let games = try migrate(scenario, ["load", "Game", scenario.directory.file("games.jsonl")])
        #expect(games.status == 0, "\(games.stderr)")
        #expect(games.stdout == "loaded 2 Game objects into \(scenario.storePath)\n")
        #expect(try migrate(scenario, ["load", "Cheat", scenario.directory.file("cheats.jsonl")]).status == 0)
        let delete = try migrate(scenario, ["delete", "Cheat", "--where", "code == 'GOLD'"])
        #expect(delete.status == 0, "\(delete.stderr)")
        #expect(
            try scenario.rows("SELECT Z_PK, ZNAME FROM ZGAME ORDER BY Z_PK").map { $0.map { "\($0)" } } == [
                ["1", "'Zelda'"], ["2", "'Metroid'"],
            ])
        #expect(try scenario.rows("SELECT count(*) FROM ZCHEAT").map { $0.map { "\($0)" } } == [["0"]])
        let apply = try migrate(scenario, ["apply", "--verify"])
        #expect(apply.status == 0, "\(apply.stderr)")
        // minCount: a shelf of one game is refused on load, naming the line.
        try scenario.directory.write("shelves.jsonl", #"{"_pk":1,"label":"A","games":[1]}"# + "\n")
        let shelf = try migrate(scenario, ["load", "Shelf", scenario.directory.file("shelves.jsonl")])
        #expect(shelf.status == 1)
        #expect(
            shelf.stderr
                == """
                error: \(scenario.directory.file("shelves.jsonl")):1: Shelf.games: needs at least 2 objects, found 1 \
                (nothing was loaded)\n
                """
        )
        try scenario.directory.write("none.jsonl", #"{"_pk":1,"label":"A","games":[]}"# + "\n")
        let empty = try migrate(scenario, ["load", "Shelf", scenario.directory.file("none.jsonl")])
        #expect(
            empty.stderr
                == """
                error: \(scenario.directory.file("none.jsonl")):1: Shelf.games: needs at least 2 objects, found 0 \
                (nothing was loaded)\n
                """
        )
    }

    /// An ordered one-to-many keeps its order through `dump` and `load` into a new
    /// store: the dump writes the tracks in their playlists' order, and `load` puts
    /// each at the end of its playlist's list.
    @Test func dumpAndLoadKeepTheOrderOfAnOrderedToMany() throws {
        let model = """
            entities:
              Playlist:
                attributes: { name: string }
                relationships:
                  tracks: { destination: Track, toMany: true, ordered: true, inverse: playlist }
              Track:
                attributes: { title: string }
                relationships:
                  playlist: { destination: Playlist, inverse: tracks }

            """
        let scenario = try MigrationScenario("Music", versions: [model])
        defer { scenario.remove() }
        try scenario.withObjects { access in
            for (key, title) in [(1, "a"), (2, "b"), (3, "c"), (4, "d"), (5, "e")] {
                try access.insert("Track", values: ["title": .string(title)], primaryKey: Int64(key))
            }
            try access.insert(
                "Playlist", values: ["name": .string("Mix")], relationships: ["tracks": [4, 1, 5]], primaryKey: 1)
            try access.insert(
                "Playlist", values: ["name": .string("Calm")], relationships: ["tracks": [3, 2]], primaryKey: 2)
        }
        func lists() throws -> [String] {
            try scenario.fetch("Playlist").map { "\($0.primaryKey): \($0.relationships["tracks"] ?? [])" }
        }
        #expect(try lists() == ["1: [4, 1, 5]", "2: [3, 2]"])
        for entity in ["Playlist", "Track"] {
            let dump = try migrate(scenario, ["dump", entity])
            #expect(dump.status == 0, "\(dump.stderr)")
            try scenario.directory.write(entity + ".jsonl", dump.stdout)
        }
        #expect(
            try String(contentsOfFile: scenario.directory.file("Track.jsonl"), encoding: .utf8) == """
                {"_pk":3,"_entity":"Track","_position":{"playlist":1},"playlist":2,"title":"c"}
                {"_pk":4,"_entity":"Track","_position":{"playlist":1},"playlist":1,"title":"d"}
                {"_pk":1,"_entity":"Track","_position":{"playlist":2},"playlist":1,"title":"a"}
                {"_pk":2,"_entity":"Track","_position":{"playlist":2},"playlist":2,"title":"b"}
                {"_pk":5,"_entity":"Track","_position":{"playlist":3},"playlist":1,"title":"e"}

                """)
        // Into a new store, parents first.
        try FileManager.default.removeItem(atPath: scenario.storePath)
        let create = try InProcess.migrate(["create", scenario.storePath, "--models", scenario.modelsFolder])
        #expect(create.status == 0, "\(create.stderr)")
        for entity in ["Playlist", "Track"] {
            let load = try migrate(scenario, ["load", entity, scenario.directory.file(entity + ".jsonl")])
            #expect(load.status == 0, "\(load.stderr)")
        }
        #expect(try lists() == ["1: [4, 1, 5]", "2: [3, 2]"])
    }
}
