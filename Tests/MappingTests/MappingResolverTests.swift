import DataModel
import TestSupport
import Testing

@testable import Mapping

/// Swift Testing has a `SourceLocation` too.
private typealias SourceLocation = DataModel.SourceLocation

/// `MappingResolver`: a mapping file validated against both versions and merged over
/// inference.
@Suite struct MappingResolverTests {
    static let v1 = """
        entities:
          Person:
            attributes: { fullName: string, handle: string?, age: integer64, score: integer16? }
          Tag:
            attributes: { label: string }
        """
    static let v2 = """
        entities:
          Person:
            attributes: { firstName: string, nickname: string?, age: integer16, score: integer32? }
          Tag:
            attributes: { label: string, color: string? }
        """

    /// The Tag mapping inference alone gives; files that do not mention Tag keep it.
    static let inferredTag = EntityMapping(
        name: "TagToTag", kind: .transform, source: "Tag", destination: "Tag",
        properties: [added("color"), copy("label")])

    /// Resolves hop 1 → 2 of `versions` with `text` as `Migrations/Shop/1-to-2.yaml`.
    static func resolve(
        _ text: String, versions: [String] = [v1, v2],
        knownPolicies: Set<String>? = nil
    ) throws -> (result: Result<MappingModel, any Error>, path: String) {
        let model = try Models.compile(versions)
        let folder = try TemporaryDirectory(prefix: "mapping-resolver")
        defer { folder.remove() }
        let path = try folder.write("Migrations/Shop/1-to-2.yaml", text)
        let (file, diagnostics, _) = MappingFile.parse(path: path)
        #expect(diagnostics == [])
        let parsed = try #require(file)
        return (
            Result { try MappingResolver.resolve(model, from: 1, to: 2, file: parsed, knownPolicies: knownPolicies) },
            path
        )
    }

    static func refusals(
        _ result: Result<MappingModel, any Error>, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) -> [Refusal] {
        guard case .failure(let error as InferenceFailure) = result else {
            Issue.record("expected an InferenceFailure, got \(result)", sourceLocation: sourceLocation)
            return []
        }
        return error.refusals
    }

    static func diagnostics(
        _ result: Result<MappingModel, any Error>, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) -> [Diagnostic] {
        guard case .failure(let error as DiagnosticsError) = result else {
            Issue.record("expected a DiagnosticsError, got \(result)", sourceLocation: sourceLocation)
            return []
        }
        return error.diagnostics
    }

    // MARK: - Without a file

    @Test func withoutAFileItIsInference() throws {
        let model = try Models.compile([
            Self.v1,
            Self.v2.replacingOccurrences(of: "age: integer16", with: "age: integer64")
                .replacingOccurrences(
                    of: "firstName: string", with: "firstName: { type: string, renamedFrom: fullName }"),
        ])
        let resolved = try MappingResolver.resolve(model, from: 1, to: 2, file: nil)
        #expect(resolved == (try MappingInference.infer(model, from: 1, to: 2)))
        #expect(resolved.entityMappings.last == Self.inferredTag)
    }

    @Test func withoutAFileRefusalsAreThrown() throws {
        let model = try Models.compile([Self.v1, Self.v2])
        #expect(throws: InferenceFailure.self) { try MappingResolver.resolve(model, from: 1, to: 2, file: nil) }
        do {
            _ = try MappingResolver.resolve(model, from: 1, to: 2, file: nil)
        } catch let failure as InferenceFailure {
            #expect(failure.refusals.map { "\($0.entity).\($0.property ?? "")" } == ["Person.age", "Person.firstName"])
        }
    }

    // MARK: - Merged over inference

    @Test func propertyOverridesLiftTheirRefusalsAndTheRestStaysInferred() throws {
        let (result, path) = try Self.resolve(
            """
            entities:
              Person:
                properties:
                  firstName: $source.fullName
                  nickname: $source.handle
                  age: { default: 0 }
            """)
        let mapping = try result.get()
        #expect(
            mapping
                == MappingModel(
                    model: "Shop", sourceVersion: 1, destinationVersion: 2,
                    entityMappings: [
                        EntityMapping(
                            name: "PersonToPerson", kind: .transform, source: "Person", destination: "Person",
                            properties: [
                                added("age", default: .integer(0)), copy("firstName", from: "fullName"),
                                copy("nickname", from: "handle"), convert("score", .widen),
                            ],
                            droppedProperties: ["age"]),
                        Self.inferredTag,
                    ], mappingFile: path, fileOrder: ["Person"]))
    }

    @Test func aPropertyOverrideLiftsOnlyItsOwnRefusal() throws {
        let (result, _) = try Self.resolve(
            """
            entities:
              Person:
                properties:
                  age: { default: 0 }
            """)
        #expect(
            Self.refusals(result).map(\.description) == [
                "Person.firstName: new required attribute without a default or source\n"
                    + "    remedy: add a default (`firstName: { type: string, default: … }`), make it optional, or "
                    + "write \(fileHint12) with a policy for Person"
            ])
    }

    @Test func aPolicyLiftsTheEntitysRefusalsAndMakesItCustom() throws {
        let (result, path) = try Self.resolve(
            """
            entities:
              Person:
                policy: SplitFullName
                properties:
                  firstName: policy
            """, knownPolicies: ["SplitFullName"])
        let mapping = try result.get()
        #expect(mapping.usesPolicies)
        #expect(
            mapping
                == MappingModel(
                    model: "Shop", sourceVersion: 1, destinationVersion: 2,
                    entityMappings: [
                        EntityMapping(
                            name: "PersonToPerson", kind: .custom, source: "Person", destination: "Person",
                            policy: "SplitFullName",
                            properties: [
                                byPolicy("age"), byPolicy("firstName"), added("nickname"), convert("score", .widen),
                            ],
                            droppedProperties: ["fullName", "handle"]),
                        Self.inferredTag,
                    ], mappingFile: path, fileOrder: ["Person"]))
    }

    @Test func aPolicyOnAnUnchangedEntityMakesItCustom() throws {
        let (result, _) = try Self.resolve(
            "entities:\n  Tag:\n    policy: Recolor\n",
            versions: [Self.v1, Self.v1], knownPolicies: nil)
        let mapping = try result.get()
        #expect(
            mapping.mapping(forDestination: "Tag")
                == EntityMapping(
                    name: "TagToTag", kind: .custom, source: "Tag", destination: "Tag", policy: "Recolor",
                    properties: [copy("label")]))
        #expect(mapping.mapping(forDestination: "Person")?.kind == .copy)
    }

    @Test func unknownPolicyIsAMissingPolicyRefusal() throws {
        let (result, path) = try Self.resolve(
            "entities:\n  Person:\n    policy: SplitFullNam\n", knownPolicies: ["SplitFullName", "Other"])
        #expect(
            Self.refusals(result) == [
                Refusal(
                    kind: .missingPolicy, entity: "Person", property: nil,
                    change: "\(path) names policy 'SplitFullNam', which is not compiled into this migrate",
                    remedy: """
                        compiled-in policies: Other, SplitFullName; did you mean 'SplitFullName'?; a policy of your \
                        own needs a migrate built with it (Docs/Migrations.md: "Your own policies and your own migrate")
                        """)
            ])
    }

    @Test func anyPolicyIsMissingWhenNoneAreCompiledIn() throws {
        let (result, path) = try Self.resolve("entities:\n  Person:\n    policy: SplitFullName\n", knownPolicies: [])
        #expect(
            Self.refusals(result).map(\.description) == [
                "Person: \(path) names policy 'SplitFullName', which is not compiled into this migrate\n"
                    + "    remedy: add the policy to your deploy package's policy list; "
                        + """
                        a policy of your own needs a migrate built with it (Docs/Migrations.md: \"Your own policies \
                        and your own migrate\")
                        """
            ])
        // Without a list of known policies the name is not checked.
        #expect(try Self.resolve("entities:\n  Person:\n    policy: SplitFullName\n").result.get().usesPolicies)
    }

    @Test func sourceChoosesAnotherSourceEntity() throws {
        let (result, path) = try Self.resolve(
            "entities:\n  Person:\n    source: Human\n",
            versions: [
                """
                entities:
                  Person:
                    attributes: { name: string }
                  Human:
                    attributes: { name: string, age: integer16? }
                """,
                """
                entities:
                  Person:
                    attributes: { name: string, age: integer16? }
                """,
            ])
        #expect(
            try result.get()
                == MappingModel(
                    model: "Shop", sourceVersion: 1, destinationVersion: 2,
                    entityMappings: [
                        EntityMapping(
                            name: "HumanToPerson", kind: .transform, source: "Human", destination: "Person",
                            properties: [copy("age"), copy("name")]),
                        EntityMapping(
                            name: "PersonToNothing", kind: .remove, source: "Person", destination: nil,
                            droppedProperties: ["name"]),
                    ], mappingFile: path, fileOrder: ["Person"]))
    }

    @Test func sourceOfANewEntity() throws {
        let (result, _) = try Self.resolve(
            """
            entities:
              Customer:
                source: Person
                properties:
                  name: $source.fullName
            """, versions: [Self.v1, Self.v1 + "\n  Customer:\n    attributes: { name: string, age: integer64 }\n"])
        let mapping = try result.get()
        #expect(
            mapping.mapping(forDestination: "Customer")
                == EntityMapping(
                    name: "PersonToCustomer", kind: .transform, source: "Person", destination: "Customer",
                    properties: [copy("age"), copy("name", from: "fullName")], droppedProperties: ["handle", "score"]))
        // Person is still mapped from itself.
        #expect(mapping.mapping(forDestination: "Person")?.kind == .copy)
    }

    // MARK: - Validation against both versions

    @Test func everyProblemOfTheFileIsReported() throws {
        let (result, path) = try Self.resolve(
            """
            entities:
              Persn:
                policy: X
              Person:
                properties:
                  nickname: $source.handel
                  firstNam: policy
                  age: { default: abc }
              Tag:
                source: Tagg
            """)
        #expect(
            Self.diagnostics(result) == [
                Diagnostic(
                    .error, "entity 'Persn': not an entity of Shop version 2",
                    at: SourceLocation(file: path, line: 2, column: 3),
                    hint: "did you mean 'Person'?"),
                Diagnostic(
                    .error, "property 'Person.age': 'abc' is not an integer",
                    at: SourceLocation(file: path, line: 8, column: 7)),
                Diagnostic(
                    .error, "property 'Person.firstNam': not a property of Person in version 2",
                    at: SourceLocation(file: path, line: 7, column: 7),
                    hint: "did you mean 'firstName'?"),
                Diagnostic(
                    .error, "property 'Person.nickname': $source.handel is not a property of Person in version 1",
                    at: SourceLocation(file: path, line: 6, column: 7), hint: "did you mean 'handle'?"),
                Diagnostic(
                    .error, "entity 'Tag': source 'Tagg' is not an entity of version 1",
                    at: SourceLocation(file: path, line: 9, column: 3),
                    hint: "did you mean 'Tag'?"),
            ])
    }

    @Test func overridesThatDoNotFitTheirProperty() throws {
        let versions = [
            Self.v1,
            """
            entities:
              Person:
                attributes: { firstName: string, nickname: string?, age: integer16, score: integer32? }
                relationships:
                  tags: { destination: Tag, toMany: true, inverse: people }
              Tag:
                attributes: { label: string, color: string? }
                relationships:
                  people: { destination: Person, toMany: true, inverse: tags }
            """,
        ]
        let (result, path) = try Self.resolve(
            """
            entities:
              Person:
                properties:
                  firstName: { default: ~ }
                  tags: { default: 1 }
                  score: $source.fullName
                  age: $source.age
              Tag:
                properties:
                  color: policy
            """, versions: versions)
        #expect(
            Self.diagnostics(result) == [
                Diagnostic(
                    .error, "property 'Person.age': $source.age is integer64, not convertible to integer16",
                    at: SourceLocation(file: path, line: 7, column: 7),
                    hint: "set it in a policy instead (`age: policy`)"),
                Diagnostic(
                    .error, "property 'Person.firstName': the attribute is required; nil is not a value for it",
                    at: SourceLocation(file: path, line: 4, column: 7)),
                Diagnostic(
                    .error, "property 'Person.score': $source.fullName is string, not convertible to integer32",
                    at: SourceLocation(file: path, line: 6, column: 7),
                    hint: "set it in a policy instead (`score: policy`)"),
                Diagnostic(
                    .error, "property 'Person.tags': a relationship takes no default but null (it starts empty)",
                    at: SourceLocation(file: path, line: 5, column: 7)),
                Diagnostic(
                    .error, "property 'Tag.color': set by a policy, but the entity names no policy",
                    at: SourceLocation(file: path, line: 10, column: 7),
                    hint: "add `policy: <Name>` to entity 'Tag'"),
            ])
    }

    /// Issue 17, item 3: `age: { default: 500 }` was accepted though the destination
    /// says `max: 200`, and 500 was written to every row. A value is held to every
    /// rule of the destination attribute, as a default in the model is.
    @Test func valuesAreCheckedAgainstEveryRuleOfTheDestinationAttribute() throws {
        let model = try Models.compile([
            "entities:\n  Person:\n    attributes: { name: string }\n",
            """
            entities:
              Person:
                attributes:
                  name: string
                  age: { type: integer16, max: 200, default: 0 }
                  nickname: { type: string, optional: true, min: 2, max: 5 }
                  rating: { type: decimal, min: 0, max: "9.99", default: 0 }
                  joined: { type: date, min: 2001-01-01, default: 2001-01-01 }
                  motto: { type: string, default: "-" }
                  code: { type: string, max: 3, default: abc }
            """,
        ])
        let folder = try TemporaryDirectory(prefix: "mapping-values")
        defer { folder.remove() }
        let path = try folder.write(
            "Migrations/Shop/1-to-2.yaml",
            """
            entities:
              Person:
                properties:
                  age: { default: 500 }
                  nickname: { default: a }
                  rating: { default: "10.00" }
                  joined: { default: 2000-12-31 }
                  motto: { default: "a\\0b" }
                  code: { default: ~ }
            """)
        let (file, parseDiagnostics, _) = MappingFile.parse(path: path)
        #expect(parseDiagnostics == [])
        let parsed = try #require(file)
        let result = Result { try MappingResolver.resolve(model, from: 1, to: 2, file: parsed) }
        let person = try #require(model.current.entity(named: "Person"))
        func declared(_ name: String) throws -> String {
            "'\(name)' is declared at \(try #require(person.attribute(named: name)).declaration.location)"
        }
        func at(_ line: Int) -> SourceLocation { SourceLocation(file: path, line: line, column: 7) }
        #expect(
            Self.diagnostics(result) == [
                Diagnostic(
                    .error,
                    """
                    property 'Person.age': default 500 is above max 200
                    """, at: at(4), hint: try declared("age")),
                Diagnostic(
                    .error, "property 'Person.code': the attribute is required; nil is not a value for it", at: at(9)),
                Diagnostic(
                    .error, "property 'Person.joined': default 2000-12-31T00:00:00Z is below min 2001-01-01T00:00:00Z",
                    at: at(7),
                    hint: try declared("joined")),
                Diagnostic(
                    .error,
                    """
                    property 'Person.motto': a NUL character (\\0) is not allowed (SQLite's SQL text ends at the first \
                    NUL)
                    """,
                    at: at(8)),
                Diagnostic(
                    .error, "property 'Person.nickname': default a is below min 2", at: at(5),
                    hint: try declared("nickname")),
                Diagnostic(
                    .error, "property 'Person.rating': default 10.00 is above max 9.99", at: at(6),
                    hint: try declared("rating")),
            ])
    }

    @Test func valuesWithinTheLimitsAreKept() throws {
        let (result, _) = try Self.resolve(
            """
            entities:
              Person:
                properties:
                  firstName: $source.fullName
                  age: { default: 200 }
                  nickname: { default: abcde }
            """,
            versions: [
                Self.v1,
                Self.v2.replacingOccurrences(of: "age: integer16", with: "age: { type: integer16, max: 200 }")
                    .replacingOccurrences(
                        of: "nickname: string?", with: "nickname: { type: string, optional: true, max: 5 }"),
            ])
        let person = try #require(try result.get().mapping(forDestination: "Person"))
        #expect(person.property("age") == added("age", default: .integer(200)))
        #expect(person.property("nickname") == added("nickname", default: .string("abcde")))
    }

    @Test func aPolicyNeedsSourceRows() throws {
        let (result, path) = try Self.resolve(
            "entities:\n  Customer:\n    policy: Import\n",
            versions: [Self.v1, Self.v1 + "\n  Customer:\n    attributes: { name: string }\n"])
        #expect(
            Self.diagnostics(result) == [
                Diagnostic(
                    .error,
                    "entity 'Customer': a policy needs source rows; 'Customer' has no source entity in version 1",
                    at: SourceLocation(file: path, line: 2, column: 3), hint: "add `source: <Entity of version 1>`")
            ])
    }

    @Test func copyFromAnotherSourcePropertyWidensWhereItMust() throws {
        let (result, _) = try Self.resolve(
            """
            entities:
              Person:
                properties:
                  firstName: $source.fullName
                  age: $source.score
                  rank: $source.score
            """,
            versions: [
                Self.v1,
                Self.v2.replacingOccurrences(of: "score: integer32? }", with: "score: integer32?, rank: integer64? }"),
            ])
        let person = try #require(try result.get().mapping(forDestination: "Person"))
        #expect(
            person.properties == [
                copy("age", from: "score"), copy("firstName", from: "fullName"),
                added("nickname"), convert("rank", from: "score", .widen), convert("score", .widen),
            ])
        #expect(person.droppedProperties == ["age", "handle"])
    }

    /// `mappingName:` renames the entity's own mapping (a policy and a `$manager` expression
    /// name it so), and a name another mapping of the hop has is refused at the entry.
    @Test func aMappingNameNamesTheEntitysMapping() throws {
        let same = "entities:\n  Person:\n    attributes: { name: string }\n  Tag:\n    attributes: { label: string }\n"
        let named = try Self.resolve("entities:\n  Tag:\n    mappingName: TagsAndMore\n", versions: [same, same]).result
            .get()
        #expect(named.mapping(forDestination: "Tag")?.name == "TagsAndMore")
        // `migrate diff` says so (`Tag (unchanged, entity mapping TagsAndMore)`); a default name goes unsaid.
        #expect(named.mapping(forDestination: "Tag")?.change == "unchanged, entity mapping TagsAndMore")
        #expect(named.mapping(forDestination: "Person")?.change == "unchanged")
        #expect(named.mapping(forDestination: "Person")?.name == "PersonToPerson")
        let clash = try Self.resolve("entities:\n  Tag:\n    mappingName: PersonToPerson\n", versions: [same, same])
            .result
        #expect(
            Self.diagnostics(clash).map(\.message) == [
                "entity 'Tag': mappingName 'PersonToPerson': another entity mapping of this hop has that name"
            ])
    }

    /// A further mapping keyed with another mapping's name (Member's own `MemberToMember`)
    /// is refused at the entry (apply failed on it in SQLite).
    @Test func aFurtherMappingNamedLikeAnotherIsRefused() throws {
        let v1 = "entities:\n  Member:\n    attributes: { name: string }\n  Guest:\n    attributes: { name: string }\n"
        let v2 = "entities:\n  Member:\n    attributes: { name: string }\n"
        let result = try Self.resolve(
            "entities:\n  MemberToMember:\n    destination: Member\n    source: Guest\n", versions: [v1, v2]
        ).result
        #expect(
            Self.diagnostics(result).map(\.message) == [
                "entity mapping 'MemberToMember': another entity mapping of this hop has that name"
            ])
    }

    /// A relationship moved up to a new parent whose inverse is renamed: the file's copy of
    /// the moved side lends its pairs to the inverse, as inference's own does (Core Data sets
    /// an inverse whenever one side is set); a `policy` on it lends none.
    @Test func aCopiedInverseLendsItsPairs() throws {
        let v1 = """
            entities:
              Book:
                attributes: { title: string }
                relationships:
                  lastPlayed: { destination: Library, inverse: lastPlayedBook }
              Library:
                relationships:
                  lastPlayedBook: { destination: Book, inverse: lastPlayed }
            """
        let v2 = """
            entities:
              Item:
                abstract: true
                attributes: { title: string }
                relationships:
                  lastPlayed: { destination: Library, inverse: lastPlayedItem }
              Book:
                parent: Item
              Library:
                relationships:
                  lastPlayedItem: { destination: Item, inverse: lastPlayed }
            """
        let copied = try Self.resolve(
            "entities:\n  Book:\n    properties:\n      lastPlayed: $source.lastPlayed\n", versions: [v1, v2]
        ).result.get()
        #expect(
            copied.mapping(forDestination: "Library")?.property("lastPlayedItem")?.source
                == .copy(from: "lastPlayedBook"))
    }
}
