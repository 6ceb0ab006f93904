import DataModel
import Foundation
import Testing

@testable import Mapping

/// `MappingModel`: deterministic values and JSON, and the wording `migrate diff` shows.
@Suite struct MappingModelTests {
    static let v1 = """
        entities:
          Person:
            attributes:
              fullName: string
              email: { type: string, indexed: true }
              age: { type: integer16, default: 0 }
              city: string?
            relationships:
              posts: { destination: Post, toMany: true, inverse: author, deleteRule: cascade }
          Post:
            attributes: { title: string, body: string?, rating: float? }
            relationships:
              author: { destination: Person, inverse: posts }
          Legacy:
            attributes: { code: string }
        """
    static let v2 = """
        entities:
          Person:
            attributes:
              name: { type: string, renamedFrom: fullName }
              email: { type: string, indexed: false }
              age: { type: integer64, default: 0 }
              city: { type: string, default: Paris }
              nickname: string?
            relationships:
              posts: { destination: Post, toMany: true, ordered: true, inverse: author, deleteRule: cascade }
          Post:
            attributes: { title: string, text: { type: string, optional: true, renamedFrom: body }, rating: double? }
            relationships:
              author: { destination: Person, inverse: posts }
              tags: { destination: Tag, toMany: true, inverse: posts }
          Tag:
            attributes: { name: string }
            relationships:
              posts: { destination: Post, toMany: true, inverse: tags }
        """
    /// `v2` with entities and properties written in another order.
    static let v2Reordered = """
        entities:
          Tag:
            relationships:
              posts: { destination: Post, toMany: true, inverse: tags }
            attributes: { name: string }
          Post:
            relationships:
              tags: { destination: Tag, toMany: true, inverse: posts }
              author: { destination: Person, inverse: posts }
            attributes: { rating: double?, text: { type: string, optional: true, renamedFrom: body }, title: string }
          Person:
            relationships:
              posts: { destination: Post, toMany: true, ordered: true, inverse: author, deleteRule: cascade }
            attributes:
              nickname: string?
              city: { type: string, default: Paris }
              age: { type: integer64, default: 0 }
              email: { type: string, indexed: false }
              name: { type: string, renamedFrom: fullName }
        """
    /// `v1` reordered likewise.
    static let v1Reordered = """
        entities:
          Legacy:
            attributes: { code: string }
          Post:
            relationships:
              author: { destination: Person, inverse: posts }
            attributes: { rating: float?, body: string?, title: string }
          Person:
            relationships:
              posts: { destination: Post, toMany: true, inverse: author, deleteRule: cascade }
            attributes:
              city: string?
              age: { type: integer16, default: 0 }
              email: { type: string, indexed: true }
              fullName: string
        """

    static func json(_ mapping: MappingModel) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(mapping), as: UTF8.self)
    }

    @Test func theMappingOfThisPair() throws {
        let mapping = try Models.infer([Self.v1, Self.v2])
        #expect(
            mapping
                == MappingModel(
                    model: "Shop", sourceVersion: 1, destinationVersion: 2,
                    entityMappings: [
                        EntityMapping(
                            name: "PersonToPerson", kind: .transform, source: "Person", destination: "Person",
                            properties: [
                                convert("age", .widen), convert("city", .fillDefault), copy("email"),
                                copy("name", from: "fullName"),
                                added("nickname"), convert("posts", .reorder, relationship: true),
                            ],
                            layoutChanges: ["city: default none → \"Paris\"", "email: index removed"]),
                        EntityMapping(
                            name: "PostToPost", kind: .transform, source: "Post", destination: "Post",
                            properties: [
                                copy("author", relationship: true), convert("rating", .widen),
                                added("tags", relationship: true),
                                copy("text", from: "body"), copy("title"),
                            ]),
                        EntityMapping(
                            name: "NothingToTag", kind: .add, source: nil, destination: "Tag",
                            properties: [added("name"), added("posts", relationship: true)]),
                        EntityMapping(
                            name: "LegacyToNothing", kind: .remove, source: "Legacy", destination: nil,
                            droppedProperties: ["code"]),
                    ]))
    }

    @Test func repeatedRunsGiveTheSameValueAndJSON() throws {
        let model = try Models.compile([Self.v1, Self.v2])
        let first = try MappingInference.infer(model, from: 1, to: 2)
        let firstJSON = try Self.json(first)
        for _ in 0..<5 {
            let again = try MappingInference.infer(model, from: 1, to: 2)
            #expect(again == first)
            #expect(try Self.json(again) == firstJSON)
        }
        // A fresh compile of the same text gives the same mapping too.
        let recompiled = try Models.infer([Self.v1, Self.v2])
        #expect(recompiled == first)
        #expect(try Self.json(recompiled) == firstJSON)
    }

    @Test func reorderingEntitiesAndPropertiesChangesNothing() throws {
        let reference = try Models.infer([Self.v1, Self.v2])
        for versions in [
            [Self.v1Reordered, Self.v2], [Self.v1, Self.v2Reordered], [Self.v1Reordered, Self.v2Reordered],
        ] {
            let mapping = try Models.infer(versions)
            #expect(mapping == reference)
            #expect(try Self.json(mapping) == (try Self.json(reference)))
        }
    }

    @Test func refusalsAreDeterministicAndOrderIndependent() throws {
        let broken = Self.v2.replacingOccurrences(of: "nickname: string?", with: "nickname: string")
            .replacingOccurrences(of: "rating: double?", with: "rating: integer16?")
        let brokenReordered = Self.v2Reordered.replacingOccurrences(of: "nickname: string?", with: "nickname: string")
            .replacingOccurrences(of: "rating: double?", with: "rating: integer16?")
        let reference = try Models.failure([Self.v1, broken])
        #expect(reference.refusals.map { "\($0.entity).\($0.property ?? "")" } == ["Person.nickname", "Post.rating"])
        for versions in [[Self.v1, broken], [Self.v1Reordered, brokenReordered]] {
            let failure = try Models.failure(versions)
            #expect(failure.refusals == reference.refusals)
            #expect(failure.description == reference.description)
        }
    }

    @Test func jsonRoundTrips() throws {
        let mapping = try Models.infer([Self.v1, Self.v2])
        let data = Data(try Self.json(mapping).utf8)
        #expect(try JSONDecoder().decode(MappingModel.self, from: data) == mapping)
    }

    @Test func jsonShapeOfAPropertySource() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let property = PropertyMapping(
            name: "age", source: .convert(from: "age", conversion: .widen), isRelationship: false)
        #expect(
            String(decoding: try encoder.encode(property), as: UTF8.self)
                == #"{"isRelationship":false,"name":"age","source":{"convert":{"conversion":"widen","from":"age"}}}"#)
    }

    @Test func lookupsAndPolicyUse() throws {
        var mapping = try Models.infer([Self.v1, Self.v2])
        #expect(mapping.mapping(forDestination: "Post")?.name == "PostToPost")
        #expect(mapping.mapping(forDestination: "Legacy") == nil)
        #expect(mapping.entityMappings[0].property("nickname") == added("nickname"))
        #expect(mapping.entityMappings[0].property("fullName") == nil)
        #expect(!mapping.usesPolicies)
        mapping.entityMappings[0].kind = .custom
        #expect(mapping.usesPolicies)
    }

    @Test(arguments: [
        (PropertySource.copy(from: "name"), "name", "$source.name", "kept"),
        (.copy(from: "fullName"), "name", "$source.fullName", "renamed from fullName"),
        (.convert(from: "age", conversion: .widen), "age", "widen($source.age)", "converted (widen)"),
        (
            .convert(from: "body", conversion: .fillDefault), "text", "fillDefault($source.body)",
            "renamed from body, converted (fillDefault)"
        ),
        (.defaultValue(.string("")), "label", "default \"\"", "added (default \"\")"),
        (.defaultValue(.integer(3)), "count", "default 3", "added (default 3)"),
        (.defaultValue(nil), "note", "nil", "added"),
        (.policy, "firstName", "policy", "by policy"),
    ])
    func wording(source: PropertySource, name: String, description: String, change: String) {
        #expect(source.description == description)
        #expect(PropertyMapping(name: name, source: source, isRelationship: false).change == change)
    }
}

/// `Refusal` and `InferenceFailure`: the text people read.
@Suite struct RefusalTests {
    @Test func refusalWithAndWithoutProperty() {
        #expect(
            Refusal(kind: .typeChange, entity: "Item", property: "count", change: "type change", remedy: "do this")
                .description
                == "Item.count: type change\n    remedy: do this")
        #expect(
            Refusal(kind: .mergedHierarchies, entity: "Item", property: nil, change: "merges", remedy: "don't")
                .description
                == "Item: merges\n    remedy: don't")
    }

    @Test func failureCountsItsRefusals() {
        let one = Refusal(kind: .typeChange, entity: "A", property: "x", change: "c1", remedy: "r1")
        let two = Refusal(kind: .missingPolicy, entity: "B", property: nil, change: "c2", remedy: "r2")
        #expect(
            InferenceFailure(model: "M", sourceVersion: 1, destinationVersion: 2, refusals: [one]).description
                == """
                no lightweight mapping from M version 1 to 2 (1 change inference cannot cover):\n  A.x: c1\n    \
                remedy: r1
                """
        )
        // What this migrate lacks of the policies is not a change inference cannot cover: a section of its own.
        #expect(
            InferenceFailure(model: "M", sourceVersion: 2, destinationVersion: 3, refusals: [one, two]).description
                == """
                no lightweight mapping from M version 2 to 3 (1 change inference cannot cover):\n  A.x: c1\n    \
                remedy: r1\n
                """
                + "M version 2 to 3 needs policy code this migrate does not have (1 problem):\n  B: c2\n    remedy: r2")
        #expect(
            InferenceFailure(model: "M", sourceVersion: 2, destinationVersion: 3, refusals: [two]).description
                == "M version 2 to 3 needs policy code this migrate does not have (1 problem):\n  B: c2\n    remedy: r2"
        )
    }
}
