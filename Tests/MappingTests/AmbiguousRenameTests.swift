import DataModel
import Testing

@testable import Mapping

/// Two destination entities or properties claiming one old element by renaming
/// identifier: refused as ambiguous unless a mapping file settles which one is new,
/// and never an ambiguity for an element that is unchanged.
@Suite struct AmbiguousRenameTests {
    /// v1 has `B`; v2 has `D` renamed from it and a new `B` beside it.
    static let entities = [
        "entities:\n  B:\n    attributes: { key: string, x: integer16? }\n",
        """
        entities:\n  D:\n    renamedFrom: B\n    attributes: { key: string, x: integer16? }\n  B:\n    attributes: { \
        key: string? }\n
        """,
    ]

    /// `C` renamed from `B` keeps its `renamedFrom` beside a new `B`: in the next
    /// version, which changes neither, each is itself (fuzzer seed 2303 trial 60, where
    /// `C` paired with the new `B` and the unchanged hop was refused).
    @Test func anUnchangedEntityIsItselfBesideANewOneOfItsOldName() throws {
        let mapping = try Models.infer([
            Self.entities[1],
            Self.entities[1] + "  E:\n    attributes: { key: string? }\n",
        ])
        #expect(
            mapping.entityMappings.map { "\($0.kind) \($0.source ?? "-") → \($0.destination ?? "-")" }
                == ["copy B → B", "copy D → D", "add - → E"])
        let properties = try Models.infer([
            "entities:\n  A:\n    attributes: { a: string?, b: { type: string, optional: true, renamedFrom: a } }\n",
            """
            entities:\n  A:\n    attributes: { a: string?, b: { type: string, optional: true, renamedFrom: a }, c: \
            string? }\n
            """,
        ])
        #expect(properties.entityMappings[0].property("a")?.source == .copy(from: "a"))
        #expect(properties.entityMappings[0].property("b")?.source == .copy(from: "b"))
    }

    @Test func twoClaimsOnOneEntityAreRefused() throws {
        let texts = try Models.refusalTexts(Self.entities)
        #expect(
            texts.contains { $0.hasPrefix("B: ambiguous rename: entities B and D both claim the old entity 'B'") },
            "\(texts)")
    }

    /// A file about a claimant that leaves the claim open is refused for the
    /// ambiguity (exit 4), not for what follows from it: `$source.x` on an entity
    /// without a source (seed 2302 trial 19 exited 1 on that).
    @Test func aFileThatLeavesTheClaimOpenIsRefusedForTheAmbiguity() throws {
        let (result, _) = try MappingResolverTests.resolve(
            "entities:\n  D:\n    properties:\n      x: $source.x\n", versions: Self.entities)
        let refusals = MappingResolverTests.refusals(result)
        #expect(refusals.map(\.kind) == [.ambiguousRename])
        #expect(refusals.first?.remedy.contains("a mapping file giving one of them `source: B` settles it") == true)
    }

    /// A policy answers what inference cannot map, not which entity continues the old
    /// one: on a claimant, the ambiguity stays, and is what is reported.
    @Test func aPolicyOnAClaimantDoesNotHideTheAmbiguity() throws {
        let (result, _) = try MappingResolverTests.resolve(
            "entities:\n  B:\n    policy: Anything\n", versions: Self.entities)
        #expect(MappingResolverTests.refusals(result).map(\.kind) == [.ambiguousRename])
    }

    /// A problem of an entity the claim does not involve is the file's own: reported
    /// with its line (exit 1), not hidden behind the ambiguity.
    @Test func aFileProblemElsewhereIsReportedAsSuch() throws {
        let (result, _) = try MappingResolverTests.resolve(
            "entities:\n  Bee:\n    properties:\n      x: $source.x\n", versions: Self.entities)
        #expect(
            MappingResolverTests.diagnostics(result).map(\.message) == ["entity 'Bee': not an entity of Shop version 2"]
        )
    }

    /// A path refused as ambiguous gives no data to differ from: no warning that "the
    /// direct mapping cannot pair D with B" when the direct mapping is refused.
    @Test func aPathRefusedAsAmbiguousHasNoDifferences() throws {
        let model = try Models.compile([
            Self.entities[0], "entities:\n  D:\n    renamedFrom: B\n    attributes: { key: string, x: integer16? }\n",
            Self.entities[1],
        ])
        #expect(MappingInference.pathDifferences(through: model.versions) == [])
    }

    /// `source: B` on one claimant settles it: that one continues the old `B`, its
    /// properties paired as inference pairs them (`y`, renamed from `x` and widened),
    /// and the other claimant is new (helper finding: `y` came out nil, paired by
    /// name only). Given to both, both are made from it (a split).
    @Test func aFileGivingOneClaimantItsSourceSettlesIt() throws {
        let versions = [
            Self.entities[0],
            """
            entities:\n  D:\n    renamedFrom: B\n    attributes: { key: string, y: { type: integer32, optional: true, \
            renamedFrom: x } }\n
            """
                + "  B:\n    attributes: { key: string? }\n",
        ]
        let (result, _) = try MappingResolverTests.resolve("entities:\n  D:\n    source: B\n", versions: versions)
        let mapping = try result.get()
        let d = try #require(mapping.entityMappings.first { $0.destination == "D" })
        #expect(d.source == "B")
        #expect(d.property("y")?.source == .convert(from: "x", conversion: .widen))
        #expect(d.droppedProperties == [])
        #expect(mapping.entityMappings.first { $0.destination == "B" }?.kind == .add)
        let (both, _) = try MappingResolverTests.resolve(
            "entities:\n  D:\n    source: B\n  B:\n    source: B\n", versions: versions)
        #expect(
            try both.get().entityMappings.filter { $0.source == "B" }.compactMap(\.destination).sorted() == ["B", "D"])
    }

    /// A shipped version keeps its `renamedFrom`, so a mapping file is the way out: it
    /// sets the new `a`, and `b` alone continues the old `a` (seed 2304 trial 170).
    @Test func aFileSettingOneClaimantSettlesIt() throws {
        let versions = [
            "entities:\n  A:\n    attributes: { key: string, a: integer16? }\n",
            """
            entities:\n  A:\n    attributes: { key: string, a: integer16?, b: { type: integer16, optional: true, \
            renamedFrom: a } }\n
            """,
        ]
        #expect(
            try Models.refusalTexts(versions).contains { $0.hasPrefix("A.a: ambiguous rename: properties a and b") })
        let (result, _) = try MappingResolverTests.resolve(
            "entities:\n  A:\n    properties:\n      a: { default: 1 }\n", versions: versions)
        let mapping = try result.get()
        #expect(mapping.entityMappings[0].property("b")?.source == .copy(from: "a"))
        #expect(mapping.entityMappings[0].property("a")?.source == .defaultValue(.integer(1)))
        #expect(mapping.entityMappings[0].droppedProperties == [])
    }
}
