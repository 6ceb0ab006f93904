import Foundation
import Mapping
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// A new parent added above an entity, with the entity's relationship moved up to
/// it, so that the inverse's destination widens from the entity to its new parent
/// (Apple's "create a new parent entity and move properties up"): every old target
/// is one of the new destination's objects, so Core Data's inferred mapping keeps
/// every pair; inference used to refuse it as "an unrelated entity".
@Suite struct NewParentWideningTests {
    static let v2 = """
        entities:
          Owner:
            attributes:
              name: string
            relationships:
              pets: { destination: Animal, toMany: true, inverse: owner }
          Animal:
            abstract: true
            attributes:
              name: string
            relationships:
              owner: { destination: Owner, inverse: pets, optional: true }
          Pet:
            parent: Animal
            attributes:
              color: string?

        """

    static func seeded(_ versions: [String]) throws -> MigrationScenario {
        let s = try MigrationScenario("Owners", versions: versions)
        try s.withObjects { o in
            try o.insert("Owner", values: ["name": .string("Ann")])
            try o.insert("Owner", values: ["name": .string("Bob")])
            try o.insert(
                "Pet", values: ["name": .string("Rex"), "color": .string("red")], relationships: ["owner": [2]])
            try o.insert("Pet", values: ["name": .string("Tom")], relationships: ["owner": [2]])
            try o.insert("Pet", values: ["name": .string("Kit")])
        }
        return s
    }

    /// In one hop, and fused from two (the parent first, the move second).
    @Test(arguments: [false, true])
    func theWidenedRelationshipKeepsEveryPair(inTwoVersions: Bool) throws {
        let parentFirst = try edit(
            MigratorRuleTests.owners, "  Pet:\n",
            "  Animal:\n    abstract: true\n    attributes:\n      legs: integer16?\n  Pet:\n    parent: Animal\n")
        let s = try Self.seeded([MigratorRuleTests.owners] + (inTwoVersions ? [parentFirst] : []) + [Self.v2])
        defer { s.remove() }
        let plan = try s.plan()
        try Migrator().apply(plan)
        #expect(try s.fetch("Owner").map { $0.relationships["pets"] } == [[], [1, 2]])
        #expect(try s.fetch("Pet").map { $0.relationships["owner"] } == [[2], [2], []])
        #expect(try s.fetch("Pet").map { $0.values["name"] } == [.string("Rex"), .string("Tom"), .string("Kit")])
        #expect(try s.fetch("Animal") == s.fetch("Pet"))
    }

    /// Inference maps the widened relationship as a copy; a destination that is not
    /// an ancestor of the old one's entity is still refused.
    @Test func onlyAWideningToAnAncestorIsInferred() throws {
        let s = try MigrationScenario("Owners", versions: [MigratorRuleTests.owners, Self.v2])
        defer { s.remove() }
        let mapping = try MappingInference.infer(try s.model(), from: 1, to: 2)
        let owner = try #require(mapping.mapping(forDestination: "Owner"))
        #expect(owner.properties.first { $0.name == "pets" }?.source == .copy(from: "pets"))
        // A new entity that is not above Pet: Pet's objects are not its objects.
        let unrelated = """
            entities:
              Owner:
                attributes:
                  name: string
                relationships:
                  pets: { destination: Toy, toMany: true, inverse: owner }
              Toy:
                relationships:
                  owner: { destination: Owner, inverse: pets, optional: true }
              Pet:
                attributes:
                  name: string
                  color: string?

            """
        let t = try MigrationScenario("Owners", versions: [MigratorRuleTests.owners, unrelated])
        defer { t.remove() }
        let refused = try t.model()
        #expect(throws: InferenceFailure.self) { try MappingInference.infer(refused, from: 1, to: 2) }
    }

    /// The old destination itself gone (an abstract parent dropped without a rename)
    /// while its subentity, renamed, sits under the new destination: the targets are
    /// still the new destination's objects (fuzzer seed 1101 trial 67, direct path:
    /// refused as "an unrelated entity").
    @Test func aDroppedAbstractDestinationCountsByItsSubentities() throws {
        let v1 = """
            entities:
              A:
                abstract: true
                attributes: { key: string? }
                relationships:
                  m1: { destination: C, toMany: true, inverse: o1 }
              C:
                parent: A
                relationships:
                  o1: { destination: A, optional: true, inverse: m1 }

            """
        let v2 = """
            entities:
              E:
                abstract: true
                attributes: { key: string? }
                relationships:
                  m1: { destination: F, toMany: true, inverse: o1 }
              F:
                parent: E
                renamedFrom: C
                relationships:
                  o1: { destination: E, optional: true, inverse: m1 }

            """
        let s = try MigrationScenario("Drop", versions: [v1, v2])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("C", values: ["key": .string("c1")])
            try o.insert("C", values: ["key": .string("c2")], relationships: ["o1": [1]])
        }
        try s.migrate(verify: true)
        #expect(try s.fetch("F").map { $0.relationships["o1"] ?? [] } == [[], [1]])
    }

    /// Only some of the old destination's objects under the new one (B moved under a
    /// new E, A and C left where they were): the pairs whose target the mapping makes
    /// into E's hierarchy are kept, the others are removed with a destructive warning,
    /// as a narrowing drops the targets outside the narrower entity. The reference
    /// migration manager does the same (fuzzer seed 1902 trial 227, where the
    /// toolkit refused a C renamed to G whose subentity F left the hierarchy).
    @Test func aDestinationOnlyPartlyUnderTheNewOneKeepsThePairsItHolds() throws {
        let v1 = """
            entities:
              X:
                attributes: { key: string? }
                relationships:
                  r: { destination: A, optional: true }
              A:
                attributes: { key: string? }
              B:
                parent: A
              C:
                parent: A

            """
        let v2 = """
            entities:
              X:
                attributes: { key: string? }
                relationships:
                  r: { destination: E, optional: true }
              E:
                attributes: { note: string? }
              A:
                attributes: { key: string? }
              B:
                parent: E
                attributes: { key: string? }
              C:
                parent: A

            """
        let s = try MigrationScenario("Part", versions: [v1, v2])
        defer { s.remove() }
        try s.withObjects { o in
            try o.insert("B", values: ["key": .string("b1")])
            try o.insert("C", values: ["key": .string("c1")])
            try o.insert("A", values: ["key": .string("a1")])
            try o.insert("X", values: ["key": .string("x1")], relationships: ["r": [1]])
            try o.insert("X", values: ["key": .string("x2")], relationships: ["r": [2]])
            try o.insert("X", values: ["key": .string("x3")], relationships: ["r": [3]])
        }
        let plan = try s.plan()
        #expect(
            plan.warnings.filter(\.isDestructive).map(\.message)
                == ["X.r: 2 references to A, C objects, which are not migrated as E objects, will be removed"])
        try Migrator().apply(plan)
        #expect(try s.fetch("X").map { $0.relationships["r"] ?? [] } == [[1], [], []])
        #expect(try s.fetch("B").map { $0.values["key"] } == [.string("b1")])
    }
}
