import Foundation
import TestSupport
import Testing

/// `migrate diff` and `migrate plan` on a mapping file where one source entity feeds
/// two destination entities: the second is new objects (not a rename), nothing the
/// kept entity still holds is reported removed, and the plan shows its own step.
@Suite struct SplitCommandTests {
    static func project() throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory(prefix: "split-command")
        try folder.write(
            "Models/Music/1.yaml",
            """
            model: Music
            version: 1
            entities:
              Record:
                attributes: { artist: string, notes: string? }
            """)
        try folder.write(
            "Models/Music/2.yaml",
            """
            model: Music
            version: 2
            entities:
              Record:
                attributes: { artist: string, notes: string? }
              Listening:
                attributes: { note: string? }
            """)
        try folder.write(
            "Migrations/Music/1-to-2.yaml",
            """
            entities:
              Listening:
                source: Record
                properties:
                  note: $source.notes
            """)
        return folder
    }

    static func run(_ arguments: [String], in folder: TemporaryDirectory) throws -> CommandResult {
        try InProcess.migrate(
            arguments + ["--models", folder.file("Models"), "--migrations", folder.file("Migrations")])
    }

    @Test func diffNamesTheNewObjectsAndRemovesNothingTheKeptEntityHolds() throws {
        let folder = try Self.project()
        defer { folder.remove() }
        let result = try Self.run(["diff", "1", "2"], in: folder)
        #expect(result.status == 0)
        #expect(
            result.stdout.hasSuffix(
                """
                Listening (new objects, one for each Record (entity mapping RecordToListening))
                  note      renamed from notes

                Record (unchanged)

                """), "\(result.stdout)")
    }

    @Test func planShowsTheNewEntitysOwnStepWithItsRows() throws {
        let folder = try Self.project()
        defer { folder.remove() }
        #expect(
            try Self.run(["create", folder.file("a.sqlite"), "--model", "Music", "--version", "1"], in: folder).status
                == 0)
        try folder.write("r.jsonl", "{\"artist\":\"A\",\"notes\":\"n\"}\n{\"artist\":\"B\"}\n")
        #expect(
            try Self.run(["load", folder.file("a.sqlite"), "Record", folder.file("r.jsonl")], in: folder).status == 0)
        let plan = try Self.run(["plan", folder.file("a.sqlite")], in: folder)
        #expect(plan.status == 0)
        #expect(
            plan.stdout.contains(
                """
                    1. create ZLISTENING from ZRECORD: a Listening for each Record (entity mapping RecordToListening)  \
                [rewrite of 2 rows]\n
                """
            ),
            "\(plan.stdout)")
        #expect(!plan.stdout.contains("warning"))
        let apply = try Self.run(["apply", folder.file("a.sqlite"), "--verify"], in: folder)
        #expect(apply.status == 0, "\(apply.stderr)")
        let fetched = try Self.run(["fetch", folder.file("a.sqlite"), "Record", "--count"], in: folder)
        #expect(fetched.stdout == "2\n")
    }
}
