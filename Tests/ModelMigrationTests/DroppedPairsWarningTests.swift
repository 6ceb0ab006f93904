import DataModel
import ModelMigration
import TestSupport
import Testing

/// Destructive warnings for relationships count pairs, once, and only pairs that are
/// really lost: a relationship and its inverse hold one set of pairs.
@Suite struct DroppedPairsWarningTests {
    /// Book.playlist is dropped, but Folder (made from Playlist) carries its pairs
    /// through `items: $source.books`: nothing is lost (issue 35, BookPlayer).
    @Test func pairsCarriedThroughTheInverseAreNotLost() throws {
        let s = try MigrationScenario(
            "B",
            versions: [
                """
                entities:
                  Book: {attributes: {title: string}, relationships: {playlist: {destination: Playlist, inverse: \
                books}}}
                  Playlist: {attributes: {name: string}, relationships: {books: {destination: Book, toMany: true, \
                inverse: playlist}}}
                """,
                """
                entities:
                  Book: {attributes: {title: string}, relationships: {folder: {destination: Folder, inverse: items}}}
                  Folder: {attributes: {name: string}, relationships: {items: {destination: Book, toMany: true, \
                inverse: folder}}}
                """,
            ])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("Playlist", values: ["name": .string("p")])
            try o.insert("Book", values: ["title": .string("a")], relationships: ["playlist": [1]])
            try o.insert("Book", values: ["title": .string("b")], relationships: ["playlist": [1]])
        }
        try s.writeMapping(
            "1-to-2.yaml", "entities:\n  Folder:\n    source: Playlist\n    properties:\n      items: $source.books\n")
        let plan = try s.migrate()
        #expect(plan.warnings.filter(\.isDestructive).map(\.message) == [])
        #expect(
            try s.rows("SELECT Z_PK, ZFOLDER FROM ZBOOK ORDER BY Z_PK").map { $0.map(\.int64) } == [[1, 1], [2, 1]])
    }

    /// Both sides of a one-to-one removed: one warning, with the pairs counted once.
    @Test func aOneToOneRemovedIsCountedOnce() throws {
        let s = try MigrationScenario(
            "O",
            versions: [
                """
                entities:
                  A: {attributes: {n: string}, relationships: {b: {destination: B, inverse: a}}}
                  B: {attributes: {n: string}, relationships: {a: {destination: A, inverse: b}}}
                """,
                "entities: {A: {attributes: {n: string}}, B: {attributes: {n: string}}}",
            ])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("B", values: ["n": .string("b1")])
            try o.insert("B", values: ["n": .string("b2")])
            try o.insert("A", values: ["n": .string("a1")], relationships: ["b": [1]])
            try o.insert("A", values: ["n": .string("a2")], relationships: ["b": [2]])
        }
        let plan = try s.plan()
        #expect(
            plan.warnings.filter(\.isDestructive).map(\.message) == ["A.b is dropped: 2 non-nil values will be lost"])
    }

    /// A to-many without an inverse keeps its pairs on its destination's rows: when
    /// it is removed and that table is rebuilt, the pairs are counted as lost.
    @Test func aToManyWithoutAnInverseRemovedIsCounted() throws {
        let g = "G: {attributes: {g: string?}, relationships: {oo: {destination: E, inverse: o}}}"
        let s = try MigrationScenario(
            "W",
            versions: [
                """
                entities: {E: {attributes: {x: string?}, relationships: {o: {destination: G, inverse: oo}, ni: \
                {destination: G, toMany: true}}}, \(g)}
                """,
                "entities: {E: {attributes: {x: string?}, relationships: {o: {destination: G, inverse: oo}}}, \(g)}",
            ])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("G", values: ["g": .string("a")])
            try o.insert("G", values: ["g": .string("b")])
            try o.insert("E", values: ["x": .string("e")], relationships: ["ni": [1, 2]])
        }
        let plan = try s.plan()
        #expect(
            plan.warnings.filter(\.isDestructive).map(\.message) == ["E.ni is dropped: 2 non-nil values will be lost"])
    }

    /// `filter: FALSEPREDICATE` on an entity that goes on: its objects are counted
    /// once, by the filter's warning, not again as a removed entity.
    @Test func objectsAFilterLeavesOutAreCountedOnce() throws {
        let version = "entities: {E: {attributes: {n: integer16?}}, F: {parent: E}}"
        let s = try MigrationScenario("R", versions: [version, version])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("E", values: ["n": .integer(1)])
            try o.insert("F", values: ["n": .integer(2)])
            try o.insert("F", values: ["n": .integer(3)])
        }
        try s.writeMapping("1-to-2.yaml", "entities:\n  F:\n    filter: FALSEPREDICATE\n")
        let plan = try s.plan()
        #expect(
            plan.warnings.filter(\.isDestructive).map(\.message) == [
                """
                F: 2 F objects the filter `FALSEPREDICATE` leaves out are not migrated (deleted, and references to \
                them removed)
                """
            ])
    }

    /// A removed parent whose table is rebuilt into two (E stays under the new G, F
    /// leaves for a table of its own): its rows are lost once, so one warning
    /// (fuzzer seed 1902 trial 227 printed it once per rebuilt table).
    @Test func aRemovedEntityOfATableRebuiltTwiceIsWarnedOnce() throws {
        let s = try MigrationScenario(
            "R",
            versions: [
                "entities: {C: {attributes: {key: string}}, E: {parent: C}, F: {parent: C}}",
                "entities: {G: {attributes: {key: string}}, E: {parent: G}, F: {attributes: {key: string}}}",
            ])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("C", values: ["key": .string("c1")])
            try o.insert("C", values: ["key": .string("c2")])
            try o.insert("E", values: ["key": .string("e1")])
            try o.insert("F", values: ["key": .string("f1")])
        }
        let plan = try s.plan()
        #expect(plan.warnings.filter(\.isDestructive).map(\.message) == ["entity C is removed: its 2 rows are deleted"])
        try Migrator().apply(plan)
        #expect(try s.fetch("E").map { $0.values["key"] } == [.string("e1")])
        #expect(try s.fetch("F").map { $0.values["key"] } == [.string("f1")])
    }
}
