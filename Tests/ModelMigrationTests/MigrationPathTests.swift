import DataModel
import Foundation
import Mapping
import ModelMigration
import TestSupport
import Testing

/// The path a plan takes (issue 27, item 4): spanning mapping files, the chain of
/// hops, the direct inferred mapping, `--path` overrides and refusals, and the
/// data each path gives where they differ.
@Suite struct MigrationPathTests {
    // MARK: Chain vs direct

    /// fileURL removed in 2 and added back in 3; isbn renamed twice (isbn → number →
    /// code), which the direct mapping 1 → 3 cannot pair.
    static let books = [
        "entities:\n  Book:\n    attributes:\n      title: string\n      fileURL: string?\n      isbn: string?\n",
        """
        entities:\n  Book:\n    attributes:\n      title: string\n      number: { type: string, optional: true, \
        renamedFrom: isbn }\n
        """,
        "entities:\n  Book:\n    attributes:\n      title: string\n      fileURL: string?\n"
            + "      code: { type: string, optional: true, renamedFrom: number }\n",
    ]

    static func seedBooks(_ s: MigrationScenario) throws {
        try s.withObjects { o in
            try o.insert(
                "Book",
                values: ["title": .string("Emma"), "fileURL": .string("file:///emma"), "isbn": .string("978-1")])
            try o.insert("Book", values: ["title": .string("Ulysses"), "fileURL": .string("file:///ulysses")])
        }
    }

    @Test func everyHopInfersSoTheChainIsTakenAndTheDifferencesAreWarned() throws {
        let s = try MigrationScenario("Books", versions: Self.books)
        defer { s.remove() }
        try Self.seedBooks(s)
        let plan = try s.plan()
        #expect(
            plan.path.pieces == [
                .init(kind: .inferredChain, from: 1, to: 3, mappingFile: nil, reason: "inference accepts every hop")
            ])
        #expect(plan.path.notTaken == ["direct inferred 1 → 3: the chain comes first when every hop maps"])
        // Fusion is unchanged: one segment, one rename, one drop.
        #expect(plan.hops.map { [$0.from, $0.to] } == [[1, 3]])
        #expect(plan.hops.map(\.kind) == [.inferredChain])
        #expect(
            plan.warnings.map(\.description) == [
                """
                path: Book.code: the chain of hops keeps Book.isbn's values (renamed across versions); the direct \
                mapping cannot pair code with Book.isbn: its values are dropped (nil) (this plan: inferred chain 1 → 3)
                """,
                """
                path: Book.fileURL: the chain of hops loses Book.fileURL's values: removed in version 2, added back \
                later (nil); the direct mapping keeps them (paired with Book.fileURL by name) (this plan: inferred \
                chain 1 → 3)
                """,
                "destructive: Book.fileURL is dropped: 2 non-nil values will be lost",
            ])
        try Migrator().apply(plan)
        #expect(
            try s.fetch("Book").map { [$0.values["title"], $0.values["fileURL"], $0.values["code"]] } == [
                [.string("Emma"), nil, .string("978-1")], [.string("Ulysses"), nil, nil],
            ])
    }

    @Test func pathDirectKeepsWhatTheDirectMappingPairsAndDropsWhatItCannot() throws {
        let s = try MigrationScenario("Books", versions: Self.books)
        defer { s.remove() }
        try Self.seedBooks(s)
        let plan = try s.plan(path: .direct)
        #expect(
            plan.path.pieces == [
                .init(
                    kind: .directInferred, from: 1, to: 3, mappingFile: nil,
                    reason: "--path direct: inference accepts the direct mapping")
            ])
        #expect(plan.path.notTaken == ["the chain of hops 1 → 3: --path direct"])
        #expect(plan.hops.map(\.kind) == [.directInferred])
        #expect(
            plan.warnings.filter(\.isDestructive).map(\.description) == [
                "destructive: Book.isbn is dropped: 1 non-nil value will be lost"
            ])
        try Migrator().apply(plan)
        #expect(
            try s.fetch("Book").map { [$0.values["title"], $0.values["fileURL"], $0.values["code"]] } == [
                [.string("Emma"), .string("file:///emma"), nil], [.string("Ulysses"), .string("file:///ulysses"), nil],
            ])
    }

    /// score: integer16 → integer32 → integer16: hop 2 → 3 narrows (refused), the
    /// direct mapping copies the values as they are.
    @Test func aRefusedHopFallsBackToTheDirectMappingWhenItInfers() throws {
        let versions = ["integer16", "integer32", "integer16"].map {
            "entities:\n  Game:\n    attributes:\n      score: \($0)?\n"
        }
        let s = try MigrationScenario("Games", versions: versions)
        defer { s.remove() }
        try s.withObjects { try $0.insert("Game", values: ["score": .integer(300)]) }
        let plan = try s.plan()
        #expect(
            plan.path.pieces == [
                .init(
                    kind: .directInferred, from: 1, to: 3, mappingFile: nil,
                    reason: "hop 2 → 3 is refused; inference accepts the direct mapping")
            ])
        #expect(
            plan.path.notTaken == [
                "the chain: hop 2 → 3 is refused by inference (Game.score: type change integer32 → integer16 is "
                    + "narrowing, not a widening) "
                    + "and no mapping file covers it"
            ])
        #expect(
            plan.path.differences.map(\.description) == [
                "Game.score: the chain of hops converts its values integer16 → integer32 in version 2 and back; "
                    + "the direct mapping copies them as they are (integer16 at both ends)"
            ])
        #expect(plan.path.differences.map(\.kind) == [.typeChangedAndBack])

        // --path chain refuses, exit 4, naming the hop.
        #expect {
            try s.plan(path: .chain)
        } throws: { error in
            let planning = PlanningError(classifying: error)
            return planning.kind == .noPath
                && planning.message.hasPrefix(
                    """
                    --path chain: hop 2 → 3 cannot be migrated on its own:
                    no lightweight mapping from Games version 2 to 3 (1 change inference cannot cover):
                      Game.score: type change integer32 → integer16 is narrowing, not a widening
                    """)
        }
        try Migrator().apply(plan)
        #expect(try s.fetch("Game").map { $0.values["score"] } == [.integer(300)])
    }

    /// The direct mapping goes to the target: a mapping file starting inside it is not used, and the plan says so.
    @Test func aDirectMappingNamesTheFilesItPassesOver() throws {
        let versions = ["integer16", "integer32", "integer16", "integer16"].map {
            "entities:\n  Game:\n    attributes:\n      score: \($0)?\n"
        }
        let s = try MigrationScenario("Games", versions: versions)
        defer { s.remove() }
        try s.writeMapping("3-to-4.yaml", "entities:\n  Game:\n    properties:\n      score: { default: 1 }\n")
        let plan = try s.plan()
        #expect(plan.path.summary == "direct inferred 1 → 4")
        #expect(plan.path.notTaken.last == "mapping file 3-to-4.yaml: inside the direct mapping 1 → 4")
        // A store at version 3 takes the file.
        let later = try MigrationScenario("Games", versions: versions, storeVersion: 3)
        defer { later.remove() }
        try later.writeMapping("3-to-4.yaml", "entities:\n  Game:\n    properties:\n      score: { default: 1 }\n")
        #expect(try later.plan().path.summary == "mapping file 3-to-4.yaml 3 → 4")
    }

    // MARK: Spanning mapping files

    /// rank is new and required without a default in 2 (hop 1 → 2 refused); 3
    /// gives it a default of 0.
    static let notes = [
        "entities:\n  Note:\n    attributes:\n      body: string\n",
        "entities:\n  Note:\n    attributes:\n      body: string\n      rank: integer32\n",
        """
        entities:\n  Note:\n    attributes:\n      body: string\n      rank: { type: integer32, default: 0 }\n      \
        pinned: boolean?\n
        """,
    ]
    static let span = "entities:\n  Note:\n    properties:\n      rank: { default: 7 }\n"

    @Test func aSpanFromTheStoresVersionIsTakenEvenWhenAHopInsideIsRefused() throws {
        let s = try MigrationScenario("Notes", versions: Self.notes)
        defer { s.remove() }
        try s.writeMapping("1-to-3.yaml", Self.span)
        try s.withObjects { try $0.insert("Note", values: ["body": .string("hello")]) }
        let plan = try s.plan()
        #expect(
            plan.path.pieces == [
                .init(
                    kind: .mappingFile, from: 1, to: 3, mappingFile: s.migrationsFolder + "/Notes/1-to-3.yaml",
                    reason: "a mapping file from version 1")
            ])
        #expect(
            plan.path.notTaken == [
                """
                the hops 1 → 3: a mapping file from the store's version comes first (Core Data uses a mapping model \
                from the store's model)
                """
            ])
        #expect(plan.hops.map { [$0.from, $0.to] } == [[1, 3]])
        #expect(plan.hops[0].mapping.mappingFile == s.migrationsFolder + "/Notes/1-to-3.yaml")
        #expect(
            plan.allSteps.filter { $0.kind != .entityNumbers }.flatMap(\.sql) == [
                #"ALTER TABLE "ZNOTE" ADD COLUMN "ZPINNED" INTEGER"#,
                #"ALTER TABLE "ZNOTE" ADD COLUMN "ZRANK" INTEGER DEFAULT 7"#,
            ])
        try Migrator().apply(plan)
        #expect(try s.storeVersion() == 3)
        #expect(
            try s.fetch("Note").map { [$0.values["body"], $0.values["rank"], $0.values["pinned"]] } == [
                [.string("hello"), .integer(7), nil]
            ])

        // --path chain does not use the span, and hop 1 → 2 is refused: exit 4 (the
        // store holds a Note, which would have no rank).
        let again = try MigrationScenario("Notes", versions: Self.notes)
        defer { again.remove() }
        try again.writeMapping("1-to-3.yaml", Self.span)
        try again.withObjects { try $0.insert("Note", values: ["body": .string("hello")]) }
        #expect {
            try again.plan(path: .chain)
        } throws: { error in
            let planning = PlanningError(classifying: error)
            return planning.kind == .noPath
                && planning.message.hasSuffix(
                    """
                    not taken: --path chain: no mapping file 1-to-2.yaml covers the hop, and inference refuses it
                    not taken: mapping file 1-to-3.yaml: a span, not used with --path chain
                    """)
        }
        // --path direct takes the file from the store's version to the target.
        #expect(try again.plan(path: .direct).path.pieces.map(\.kind) == [.mappingFile])
    }

    @Test func aStoreInsideASpanTakesItsOwnHops() throws {
        let s = try MigrationScenario("Notes", versions: Self.notes, storeVersion: 2)
        defer { s.remove() }
        try s.writeMapping("1-to-3.yaml", Self.span)
        try s.withObjects { try $0.insert("Note", values: ["body": .string("hi"), "rank": .integer(4)]) }
        let plan = try s.plan()
        #expect(
            plan.path.pieces == [
                .init(kind: .inferredChain, from: 2, to: 3, mappingFile: nil, reason: "inference accepts the hop")
            ])
        try Migrator().apply(plan)
        #expect(try s.fetch("Note").map { $0.values["rank"] } == [.integer(4)])
    }

    @Test func withoutTheSpanTheDirectMappingIsInferredOrEverythingIsRefused() throws {
        let s = try MigrationScenario("Notes", versions: Self.notes)
        defer { s.remove() }
        try s.withObjects { try $0.insert("Note", values: ["body": .string("hello")]) }
        #expect(try s.plan().path.pieces.map(\.description) == ["direct inferred 1 → 3"])
        try Migrator().apply(try s.plan())
        #expect(try s.fetch("Note").map { $0.values["rank"] } == [.integer(0)])

        // rank without a default in 3 too: the hop and the direct mapping are refused.
        let refused = try MigrationScenario(
            "Notes", versions: [Self.notes[0], Self.notes[1], Self.notes[1] + "      pinned: boolean?\n"])
        defer { refused.remove() }
        try refused.withObjects { try $0.insert("Note", values: ["body": .string("hello")]) }
        #expect {
            try refused.plan()
        } throws: { error in
            "\(error)" == """
                no lightweight mapping from Notes version 1 to 2 (1 change inference cannot cover):
                  Note.rank: new required attribute without a default or source
                    remedy: add a default (`rank: { type: integer32, default: … }`), make it optional, \
                or write \(refused.migrationsFolder)/Notes/1-to-2.yaml with a policy for Note
                not taken: direct inferred 1 → 3: refused too (Note.rank: new required attribute without a default or \
                source)
                """
        }
    }

    @Test func theFileReachingFurthestWithoutPassingTheTargetIsTaken() throws {
        let versions =
            Self.notes + [
                Self.notes[2] + "      color: string?\n",
                Self.notes[2] + "      color: string?\n      size: integer16?\n",
            ]
        let s = try MigrationScenario("Notes", versions: versions)
        defer { s.remove() }
        try s.writeMapping("1-to-2.yaml", "entities:\n  Note:\n    properties:\n      rank: { default: 1 }\n")
        try s.writeMapping("1-to-3.yaml", Self.span)
        try s.writeMapping("1-to-5.yaml", Self.span)
        let plan = try s.plan(to: 4)
        #expect(plan.path.summary == "mapping file 1-to-3.yaml 1 → 3, then inferred chain 3 → 4")
        #expect(
            plan.path.pieces.first?.reason
                == "a mapping file from version 1, the one reaching furthest (not 1-to-2.yaml)")
        #expect(plan.path.notTaken.first == "mapping file 1-to-5.yaml: maps 1 → 5, past the target 4")
        #expect(plan.hops.map { [$0.from, $0.to] } == [[1, 3], [3, 4]])
        #expect(try s.plan().path.summary == "mapping file 1-to-5.yaml 1 → 5")
    }

    @Test func aSpanningFileIsCheckedAgainstItsTwoVersions() throws {
        let folder = try TemporaryDirectory(prefix: "span-files")
        defer { folder.remove() }
        try folder.write(
            "Notes/1-to-3.yaml",
            "entities:\n  Note:\n    properties:\n      pinned: { default: maybe }\n      stars: { default: 1 }\n")
        try folder.write("Notes/3-to-1.yaml", "entities: {}\n")
        let files = MappingFiles.load(folder: folder.path, model: "Notes")
        #expect(
            files.diagnostics == [
                Diagnostic(
                    .error,
                    """
                    \(folder.file("Notes/3-to-1.yaml")): a mapping file maps a version to a later one, <A>-to-<B>.yaml \
                    with B > A (a hop, e.g. 1-to-2.yaml, or a span, e.g. 1-to-5.yaml)
                    """, at: nil)
            ])
        #expect(files.spans.map { [$0.sourceVersion, $0.destinationVersion] } == [[1, 3]])
        let model = try TestModels.compile("Notes", versions: Self.notes)
        #expect {
            try MappingResolver.resolve(model, from: 1, to: 3, file: files.file(from: 1, to: 3))
        } throws: { error in
            (error as? DiagnosticsError)?.diagnostics.map {
                "\($0.location.map { "\($0.line):\($0.column)" } ?? "") \($0.message)"
            } == [
                "4:7 property 'Note.pinned': 'maybe' is not a boolean (true or false)",
                "5:7 property 'Note.stars': not a property of Note in version 3",
            ]
        }
    }
}
