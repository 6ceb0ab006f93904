import Foundation
import TestSupport
import Testing

/// `migrate diff A B`, run as a deploy script runs it (in process): the command on a
/// temporary models folder, checking stdout, stderr and the exit code.
@Suite struct DiffCommandTests {
    static let v1 = """
        model: Shop
        version: 1
        entities:
          Person:
            attributes:
              fullName: string
              age: integer16
              city: string?
            relationships:
              orders: { destination: Order, toMany: true, inverse: customer }
          Order:
            attributes: { number: integer64 }
            relationships:
              customer: { destination: Person, inverse: orders }
          Legacy:
            attributes: { code: string, note: string? }
          Zone:
            attributes: { code: string }
        """
    static let v2 = """
        model: Shop
        version: 2
        entities:
          Person:
            attributes:
              name: { type: string, renamedFrom: fullName }
              age: integer32
              email: { type: string, default: "" }
            relationships:
              orders: { destination: Order, toMany: true, ordered: true, inverse: customer }
          Order:
            attributes: { number: { type: integer64, indexed: true } }
            relationships:
              customer: { destination: Person, inverse: orders }
          Tag:
            attributes: { label: string, weight: { type: integer16, default: 1 } }
          Zone:
            attributes: { code: string }
        """
    /// Version 3 refuses three changes from version 2.
    static let v3 = """
        model: Shop
        version: 3
        entities:
          Person:
            attributes:
              name: string
              age: integer16
              email: { type: string, default: "" }
              phone: string
            relationships:
              orders: { destination: Order, toMany: true, ordered: true, inverse: customer }
          Order:
            attributes: { number: { type: integer64, indexed: true } }
            relationships:
              customer: { destination: Person, inverse: orders }
          Tag:
            attributes: { label: string, weight: { type: integer16, default: 1 }, color: string }
          Zone:
            attributes: { code: string }
        """

    /// A folder with `Models/Shop/1…3.yaml` and an empty `Migrations/`.
    static func project() throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory(prefix: "diff-command")
        try folder.write("Models/Shop/1.yaml", v1)
        try folder.write("Models/Shop/2.yaml", v2)
        try folder.write("Models/Shop/3.yaml", v3)
        try FileManager.default.createDirectory(atPath: folder.file("Migrations"), withIntermediateDirectories: true)
        return folder
    }

    static func diff(_ arguments: [String], in folder: TemporaryDirectory) throws -> CommandResult {
        try InProcess.migrate(
            ["diff"] + arguments + ["--models", folder.file("Models"), "--migrations", folder.file("Migrations")])
    }

    @Test func adjacentVersions() throws {
        let folder = try Self.project()
        defer { folder.remove() }
        let result = try Self.diff(["1", "2"], in: folder)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == """
                Shop 1 → 2: inferred (lightweight)

                Order (unchanged)
                  customer  kept
                  number    kept
                  layout: number: index added

                Person (changed)
                  age       integer16 → integer32 (widened)
                  email     added (default "")
                  name      renamed from fullName
                  orders    converted (reorder)
                  city      removed

                Tag (new entity)
                  label     added
                  weight    added (default 1)

                Zone (unchanged)

                Legacy (removed: its rows are dropped)

                """)
    }

    @Test func aRefusedPairExits4WithEveryRefusalOnStderr() throws {
        let folder = try Self.project()
        defer { folder.remove() }
        let result = try Self.diff(["2", "3"], in: folder)
        #expect(result.status == 4)
        #expect(result.stdout == "")
        let hint = "Migrations/Shop/2-to-3.yaml"
        #expect(
            result.stderr == """
                error: no lightweight mapping from Shop version 2 to 3 (3 changes inference cannot cover):
                  Person.age: type change integer32 → integer16 is narrowing, not a widening
                    remedy: write \(hint) with a policy for Person, or split the change across an intermediate version \
                (add the new attribute, copy in a policy, remove the old one)
                  Person.phone: new required attribute without a default or source
                    remedy: add a default (`phone: { type: string, default: … }`), make it optional, or write \(hint) \
                with a policy for Person
                  Tag.color: new required attribute without a default or source
                    remedy: add a default (`color: { type: string, default: … }`), make it optional, or write \(hint) \
                with a policy for Tag

                """)
    }

    @Test func jsonOutputParses() throws {
        let folder = try Self.project()
        defer { folder.remove() }
        let result = try Self.diff(["1", "2", "--json"], in: folder)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["refusals"] as? [Any] != nil && (object["refusals"] as? [Any])?.isEmpty == true)
        let mapping = try #require(object["mapping"] as? [String: Any])
        #expect(mapping["model"] as? String == "Shop")
        #expect(mapping["sourceVersion"] as? Int == 1)
        #expect(mapping["destinationVersion"] as? Int == 2)
        let entities = try #require(mapping["entityMappings"] as? [[String: Any]])
        #expect(
            entities.map { $0["name"] as? String } == [
                "OrderToOrder", "PersonToPerson", "NothingToTag", "ZoneToZone", "LegacyToNothing",
            ])
        #expect(entities.map { $0["kind"] as? String } == ["copy", "transform", "add", "copy", "remove"])
        // The same run gives the same bytes.
        #expect(try Self.diff(["1", "2", "--json"], in: folder).stdout == result.stdout)
    }

    @Test func jsonOutputOfARefusedPair() throws {
        let folder = try Self.project()
        defer { folder.remove() }
        let result = try Self.diff(["2", "3", "--json"], in: folder)
        #expect(result.status == 4)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let refusals = try #require(object["refusals"] as? [[String: Any]])
        #expect(
            refusals.map { $0["kind"] as? String } == [
                "typeChange", "requiredWithoutDefault", "requiredWithoutDefault",
            ])
        #expect(
            refusals.map { "\($0["entity"] as? String ?? "").\($0["property"] as? String ?? "")" } == [
                "Person.age", "Person.phone", "Tag.color",
            ])
        #expect(object["mapping"] == nil)
    }

    @Test func multiHopDiffFollowsRenames() throws {
        let folder = try Self.project()
        defer { folder.remove() }
        try folder.write(
            "Models/Shop/3.yaml",
            Self.v2.replacingOccurrences(of: "version: 2", with: "version: 3")
                .replacingOccurrences(
                    of: "name: { type: string, renamedFrom: fullName }",
                    with: "displayName: { type: string, renamedFrom: name }"))
        let result = try Self.diff(["1", "3"], in: folder)
        #expect(result.status == 0)
        #expect(result.stdout.contains("\n  displayName  renamed from fullName\n"))
    }

    @Test(arguments: [["1", "7"], ["0", "2"]])
    func unknownVersionIsAUsageError(arguments: [String]) throws {
        let folder = try Self.project()
        defer { folder.remove() }
        let result = try Self.diff(arguments, in: folder)
        #expect(result.status == 64)
        #expect(result.stdout == "")
        #expect(result.stderr == "error: model Shop has no version \(arguments[0] == "0" ? 0 : 7) (versions 1 to 3)\n")
    }

    @Test func mappingFileIsMergedForAdjacentVersions() throws {
        let folder = try Self.project()
        defer { folder.remove() }
        let path = try folder.write(
            "Migrations/Shop/2-to-3.yaml",
            """
            entities:
              Person:
                properties:
                  age: { default: 0 }
                  phone: { default: unknown }
              Tag:
                properties:
                  color: { default: black }
            """)
        let result = try Self.diff(["2", "3"], in: folder)
        #expect(result.stderr == "")
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("Shop 2 → 3: mapping file \(path) merged over inference\n"))
        #expect(result.stdout.contains("\n  age       added (default 0)\n"))
        #expect(result.stdout.contains("\n  phone     added (default \"unknown\")\n"))
        // Not merged into a multi-hop diff: a note says so.
        let multi = try Self.diff(["1", "3"], in: folder)
        #expect(multi.status == 4)
    }

    /// Showing a mapping needs no policy: diff shows it and warns (plan and apply exit 4).
    @Test func unknownPolicyInAMappingFileIsNamedNotRefused() throws {
        let folder = try Self.project()
        defer { folder.remove() }
        let path = try folder.write(
            "Migrations/Shop/2-to-3.yaml",
            "entities:\n  Person:\n    policy: AddPhone\n  Tag:\n    properties:\n      color: { default: black }\n")
        let result = try Self.diff(["2", "3"], in: folder)
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("Shop 2 → 3: mapping file \(path) merged over inference\n"))
        #expect(
            result.stderr == """
                warning: \(path) names policy 'AddPhone', which is not compiled into this migrate: `plan` and `apply` \
                of that hop need a migrate built with it (Docs/Migrations.md: "Your own policies and your own migrate")

                """)
    }

    @Test func badMappingFileExits1WithItsPosition() throws {
        let folder = try Self.project()
        defer { folder.remove() }
        let path = try folder.write(
            "Migrations/Shop/2-to-3.yaml", "entities:\n  Persn:\n    properties:\n      age: { default: 0 }\n")
        let result = try Self.diff(["2", "3"], in: folder)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(
            result.stderr == """
                \(path):2:3: error: entity 'Persn': not an entity of Shop version 3
                      Persn:
                      ^
                  hint: did you mean 'Person'?

                """)
    }
}
