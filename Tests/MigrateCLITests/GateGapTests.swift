import Foundation
import TestSupport
import Testing

/// A folder with a model `G` of two versions, written by the test, and the built
/// `migrate` run in it.
struct GateFixture {
    let directory: TemporaryDirectory

    /// Version 1 and 2 of model `G`, each the `entities:` block given.
    init(_ version1: String, _ version2: String, mapping: String? = nil) throws {
        directory = try TemporaryDirectory(prefix: "GateGapTests")
        try directory.write("Models/G/1.yaml", "model: G\nversion: 1\nentities:\n" + version1)
        try directory.write("Models/G/2.yaml", "model: G\nversion: 2\nentities:\n" + version2)
        if let mapping { try directory.write("Migrations/G/1-to-2.yaml", mapping) }
    }

    func remove() { directory.remove() }

    func migrate(_ arguments: [String]) throws -> CommandResult {
        try InProcess.migrate(arguments, in: directory.path)
    }

    /// Creates `g.sqlite` at version 1 and loads `objects` (entity, JSON line) one by one.
    func store(_ objects: [(String, String)]) throws -> String {
        #expect(try migrate(["create", "g.sqlite", "--model", "G", "--version", "1"]).status == 0)
        for (entity, json) in objects {
            try directory.write("one.jsonl", json + "\n")
            let load = try migrate(["load", "g.sqlite", entity, "one.jsonl"])
            #expect(load.status == 0, "\(load.stderr)")
        }
        return "g.sqlite"
    }

    func snapshot() -> FileSnapshot { FileSnapshot(directory.file("g.sqlite")) }
}

/// Losses `--fail-on-destructive` used to let through, and inputs that used to
/// crash the process: each refused with its exact message, the store unchanged.
@Suite struct GateGapTests {
    static let manyToMany = """
          A:
            relationships:
              bs: { destination: B, toMany: true, ordered: true, inverse: as }
              cs: { destination: C, toMany: true, ordered: true, inverse: a }
          B:
            relationships:
              as: { destination: A, toMany: true, inverse: bs }
          C:
            relationships:
              a: { destination: A, inverse: cs }

        """
    static let bothLost = """
          A:
            relationships:
              cs: { destination: C, toMany: true, inverse: a }
          B:
            attributes: { n: string? }
          C:
            relationships:
              a: { destination: A, inverse: cs }

        """

    @Test func joinRowsAndOrderLostAreDestructiveAndGated() throws {
        let f = try GateFixture(Self.manyToMany, Self.bothLost)
        defer { f.remove() }
        let store = try f.store([
            ("B", #"{"_pk":1}"#), ("B", #"{"_pk":2}"#), ("C", #"{"_pk":1}"#), ("C", #"{"_pk":2}"#),
            ("A", #"{"_pk":1,"bs":[2,1],"cs":[2,1]}"#),
        ])
        let before = f.snapshot()
        let message = """
            error: g.sqlite: the plan from version 1 to 2 has 2 destructive steps (--fail-on-destructive); nothing was \
            changed:
              A.bs and its inverse B.as are removed: 2 pairs of the many-to-many (rows of Z_1BS) will be deleted \
            (accept with --accept A.bs)
              A.cs is no longer ordered: the positions of 2 objects in it will be dropped (accept with --accept A.cs)

            """
        for command in [["plan"], ["apply"], ["apply", "--verify", "--backup-dir", "backups"]] {
            let result = try f.migrate(command + [store, "--fail-on-destructive"])
            #expect(result.status == 6)
            #expect(result.stderr == message)
        }
        let fleet = try f.migrate(["fleet", "apply", store, "--fail-on-destructive"])
        #expect(fleet.status == 6)
        #expect(
            fleet.stderr == "error: 1 of 1 store has a destructive plan (--fail-on-destructive); no store was changed\n"
        )
        #expect(
            fleet.stdout.contains(
                """
                \n    A.bs and its inverse B.as are removed: 2 pairs of the many-to-many (rows of Z_1BS) will be \
                deleted (accept with --accept A.bs)\n
                """
            ))
        #expect(f.snapshot() == before)
        // Without the gate the plan warns and applies: the pairs and positions are gone.
        let apply = try f.migrate(["apply", store])
        #expect(apply.status == 0)
        #expect(
            apply.stderr.contains(
                "warning: destructive: A.cs is no longer ordered: the positions of 2 objects in it will be dropped"))
        #expect(try f.migrate(["dump", store, "A"]).stdout == #"{"_pk":1,"_entity":"A"}"# + "\n")
        #expect(
            try f.migrate(["dump", store, "C"]).stdout == #"{"_pk":1,"_entity":"C","a":1}"# + "\n"
                + #"{"_pk":2,"_entity":"C","a":1}"# + "\n")
    }

    @Test func anEntityMadeAbstractWithObjectsOfItsOwnIsRefused() throws {
        let concrete = "  A:\n    attributes: { t: string? }\n  C:\n    parent: A\n"
        let abstract = "  A:\n    abstract: true\n    attributes: { t: string? }\n  C:\n    parent: A\n"
        let f = try GateFixture(concrete, abstract)
        defer { f.remove() }
        let store = try f.store([("A", #"{"t":"plain A"}"#), ("A", #"{"t":"another"}"#)])
        let before = f.snapshot()
        let apply = try f.migrate(["apply", store, "--verify"])
        #expect(apply.status == 4)
        #expect(
            apply.stderr == """
                error: g.sqlite: hop 1 → 2 of G cannot migrate this store's data:
                  A becomes abstract (it can have no objects of its own), and the store holds A objects: 2 rows: Z_PK \
                1; Z_PK 2
                    remedy: keep A concrete, delete those objects first, or write Migrations/G/1-to-2.yaml moving them \
                to C: `A: { filter: "FALSEPREDICATE" }` (they leave A) and `C: { source: A }` (they become C objects; \
                C's own stored objects would then be dropped, which the plan warns of)

                """)
        #expect(f.snapshot() == before)
        // The remedy: the objects become C objects.
        try f.directory.write(
            "Migrations/G/1-to-2.yaml", "entities:\n  A:\n    filter: \"FALSEPREDICATE\"\n  C:\n    source: A\n")
        #expect(try f.migrate(["apply", store, "--verify"]).status == 0)
        #expect(
            try f.migrate(["dump", store, "A"]).stdout == """
                {"_pk":1,"_entity":"C","t":"plain A"}
                {"_pk":2,"_entity":"C","t":"another"}

                """)
    }

    @Test func anAbstractEntityWithoutObjectsOfItsOwnMigrates() throws {
        let f = try GateFixture(
            "  A:\n    attributes: { t: string? }\n  C:\n    parent: A\n",
            "  A:\n    abstract: true\n    attributes: { t: string? }\n  C:\n    parent: A\n")
        defer { f.remove() }
        let store = try f.store([("C", #"{"t":"a C"}"#)])
        let apply = try f.migrate(["apply", store, "--verify", "--fail-on-destructive"])
        #expect(apply.status == 0, "\(apply.stderr)")
        #expect(try f.migrate(["dump", store, "A"]).stdout == #"{"_pk":1,"_entity":"C","t":"a C"}"# + "\n")
    }

    @Test func primaryKeysNeverOverflow() throws {
        let f = try GateFixture(
            "  P:\n    attributes: { name: string?, note: string? }\n", "  P:\n    attributes: { name: string? }\n")
        defer { f.remove() }
        let store = try f.store([])
        try f.directory.write("big.jsonl", "{\"_pk\":9223372036854775806,\"name\":\"a\"}\n{\"name\":\"b\"}\n")
        let big = try f.migrate(["load", store, "P", "big.jsonl"])
        #expect(big.status == 1)
        #expect(
            big.stderr == """
                error: big.jsonl:1: P: primary key 9223372036854775806 is too large: at most 9007199254740992 (2^53, \
                the largest integer every JSON reader keeps exactly), which leaves room for the keys of later objects \
                (nothing was loaded)

                """)
        // A store whose key counter is exhausted (written elsewhere): a clear refusal, no trap.
        try SQLiteFile.execute(
            f.directory.file(store),
            """
            INSERT INTO ZP (Z_PK, Z_ENT, Z_OPT, ZNAME, ZNOTE) VALUES (9223372036854775807, 1, 1, 'max', 'n');
            UPDATE Z_PRIMARYKEY SET Z_MAX = 9223372036854775807
            """)
        let before = f.snapshot()
        try f.directory.write("next.jsonl", "{\"name\":\"next\"}\n")
        let next = try f.migrate(["load", store, "P", "next.jsonl"])
        #expect(next.status == 1)
        #expect(
            next.stderr == """
                error: next.jsonl:1: P: no primary key left: the highest key in use is 9223372036854775807, the \
                largest SQLite can store; give the object a free key with "_pk" (nothing was loaded)

                """)
        #expect(f.snapshot() == before)
        #expect(!FileManager.default.fileExists(atPath: f.directory.file(store + "-journal")))
        // Rows written are counted, not read off the highest key.
        try f.directory.write("two.jsonl", "{\"_pk\":5,\"name\":\"five\"}\n")
        #expect(try f.migrate(["load", store, "P", "two.jsonl"]).status == 0)
        let plan = try f.migrate(["plan", store])
        #expect(
            plan.stdout.contains("drop ZP.ZNOTE (SQLite rewrites the rows in place)  [rewrite of 2 rows]"),
            "\(plan.stdout)")
        let apply = try f.migrate(["apply", store])
        #expect(apply.stdout.hasPrefix("migrated g.sqlite from version 1 to 2: 2 rows written"), "\(apply.stdout)")
    }

    @Test func aFolderNamedLikeAStoreIsAFailedStoreOfTheFleet() throws {
        let f = try GateFixture(
            "  P:\n    attributes: { name: string? }\n", "  P:\n    attributes: { name: string?, more: string? }\n")
        defer { f.remove() }
        let store = try f.store([])
        try FileManager.default.createDirectory(
            atPath: f.directory.file("dir.sqlite"), withIntermediateDirectories: true)
        for command in ["plan", "apply"] {
            let result = try f.migrate(["fleet", command, store, "dir.sqlite"])
            #expect(result.status == 1)
            #expect(
                result.stdout.contains(
                    """
                    dir.sqlite: a folder, not a store file (named like a store, it is taken for one; to search inside \
                    it, rename it or pass another --pattern)
                    """), "\(result.stdout)")
        }
    }
}
