import Foundation
import TestSupport
import Testing

/// `migrate plan|apply --path chain|direct`, and the path every plan shows: its
/// pieces with why, the paths not taken, and where chain and direct differ.
@Suite struct PathCommandTests {
    /// Books: fileURL removed in 2 and added back in 3; score integer16 → integer32 →
    /// integer16 (hop 2 → 3 narrows: refused).
    static let versions = [
        "entities:\n  Book:\n    attributes:\n      title: string\n      fileURL: string?\n      score: integer16?\n",
        "entities:\n  Book:\n    attributes:\n      title: string\n      score: integer32?\n",
        "entities:\n  Book:\n    attributes:\n      title: string\n      fileURL: string?\n      score: integer16?\n",
    ]

    static func scenario() throws -> MigrationScenario {
        let s = try MigrationScenario("Books", versions: versions)
        try s.withObjects {
            try $0.insert(
                "Book", values: ["title": .string("Emma"), "fileURL": .string("file:///emma"), "score": .integer(9)])
        }
        return s
    }

    func arguments(_ s: MigrationScenario, _ command: String, _ extra: [String] = []) -> [String] {
        [command, "--models", s.modelsFolder, "--migrations", s.migrationsFolder] + extra + [s.storePath]
    }

    @Test func planShowsThePathWhyAndTheDifferences() throws {
        let s = try Self.scenario()
        defer { s.remove() }
        let result = try InProcess.migrate(arguments(s, "plan"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.hasPrefix(
                """
                \(s.storePath): Books version 1 → 3, 1 hop
                path: direct inferred 1 → 3
                  1 → 3: direct inferred: hop 2 → 3 is refused; inference accepts the direct mapping
                  not taken: the chain: hop 2 → 3 is refused by inference (Book.score: type change integer32 → \
                integer16 is narrowing, not a widening) and no mapping file covers it

                hop 1 → 3: direct inferred
                """), "\(result.stdout)")
        #expect(
            result.stdout.contains(
                """
                warning: path: Book.fileURL: the chain of hops loses Book.fileURL's values: removed in version 2, \
                added back later (nil); the direct mapping keeps them (paired with Book.fileURL by name) (this plan: \
                direct inferred 1 → 3)
                warning: path: Book.score: the chain of hops converts its values integer16 → integer32 in version 2 \
                and back; the direct mapping copies them as they are (integer16 at both ends) (this plan: direct \
                inferred 1 → 3)
                """), "\(result.stdout)")

        let json = try JSONSerialization.jsonObject(
            with: Data(try InProcess.migrate(arguments(s, "plan", ["--json"])).stdout.utf8))
        let plan = try #require(json as? [String: Any])
        let path = try #require(plan["path"] as? [String: Any])
        #expect(path["preference"] as? String == "automatic")
        let pieces = try #require(path["pieces"] as? [[String: Any]])
        #expect(pieces.map { $0["kind"] as? String } == ["directInferred"])
        #expect(pieces.map { [$0["from"] as? Int, $0["to"] as? Int] } == [[1, 3]])
        let differences = try #require(path["differences"] as? [[String: Any]])
        #expect(differences.map { $0["kind"] as? String } == ["removedAndReadded", "typeChangedAndBack"])
        #expect(differences.map { $0["property"] as? String } == ["fileURL", "score"])
        #expect((plan["hops"] as? [[String: Any]])?.map { $0["kind"] as? String } == ["directInferred"])
    }

    @Test func aPathThatCannotBeFollowedExitsFourAndChangesNothing() throws {
        let s = try Self.scenario()
        defer { s.remove() }
        let before = FileSnapshot(s.storePath).fingerprint
        for command in ["plan", "apply"] {
            let result = try InProcess.migrate(arguments(s, command, ["--path", "chain"]))
            #expect(result.status == 4, "\(result.stdout)\(result.stderr)")
            #expect(
                result.stderr.hasPrefix(
                    """
                    error: --path chain: hop 2 → 3 cannot be migrated on its own:
                    no lightweight mapping from Books version 2 to 3 (1 change inference cannot cover):
                      Book.score: type change integer32 → integer16 is narrowing, not a widening
                    """), "\(result.stderr)")
        }
        #expect(FileSnapshot(s.storePath).fingerprint == before)
        let bad = try InProcess.migrate(arguments(s, "plan", ["--path", "sideways"]))
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("The value 'sideways' is invalid for '--path <chain|direct>'"), "\(bad.stderr)")
    }

    @Test func applyTakesTheDirectPathAndKeepsWhatItPairs() throws {
        let s = try Self.scenario()
        defer { s.remove() }
        let result = try InProcess.migrate(arguments(s, "apply", ["--path", "direct"]))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try s.fetch("Book").map { [$0.values["title"], $0.values["fileURL"], $0.values["score"]] } == [
                [.string("Emma"), .string("file:///emma"), .integer(9)]
            ])
        #expect(try s.storeVersion() == 3)
    }

    @Test func diffShowsASpansFileAndFleetTakesThePathOption() throws {
        let s = try Self.scenario()
        defer { s.remove() }
        try s.writeMapping("1-to-3.yaml", "entities:\n  Book:\n    properties:\n      fileURL: { default: null }\n")
        let diff = try InProcess.migrate([
            "diff", "--models", s.modelsFolder, "--migrations", s.migrationsFolder, "1", "3",
        ])
        #expect(diff.status == 0, "\(diff.stderr)")
        #expect(
            diff.stdout == """
                Books 1 → 3: mapping file \(s.migrationsFolder)/Books/1-to-3.yaml merged over inference

                Book (changed)
                  fileURL   added
                  score     kept
                  title     kept
                  fileURL   removed

                """)
        // The span is taken from version 1; --path chain refuses the store, counted as no path.
        let fleet = try InProcess.migrate([
            "fleet", "plan", "--models", s.modelsFolder, "--migrations", s.migrationsFolder, s.storePath,
        ])
        #expect(fleet.status == 0, "\(fleet.stdout)\(fleet.stderr)")
        let chain = try InProcess.migrate([
            "fleet", "plan", "--models", s.modelsFolder, "--migrations", s.migrationsFolder,
            "--path", "chain", s.storePath,
        ])
        #expect(chain.status == 4, "\(chain.stdout)\(chain.stderr)")
        #expect(
            chain.stdout.contains(
                """
                no migration path (1):
                  \(s.storePath): --path chain: hop 2 → 3 cannot be migrated on its own:
                """), "\(chain.stdout)")
    }
}
