import Foundation
import TestSupport
import Testing

/// `--fail-on-destructive --accept`: exactly the reviewed losses go through; any
/// other still exits 6, and output says which were accepted with their counts.
@Suite struct AcceptedLossTests {
    static func fixture() throws -> (GateFixture, String) {
        let f = try GateFixture(
            "  A: {attributes: {k: string, x: string?, y: string?}}\n", "  A: {attributes: {k: string}}\n")
        let store = try f.store([("A", #"{"k":"a","x":"1","y":"2"}"#), ("A", #"{"k":"b","x":"3"}"#)])
        return (f, store)
    }

    @Test func anAcceptedLossPassesAndAnyOtherStillRefuses() throws {
        let (f, store) = try Self.fixture()
        defer { f.remove() }
        let before = f.snapshot()
        let one = try f.migrate(["apply", store, "--fail-on-destructive", "--accept", "A.x"])
        #expect(one.status == 6)
        #expect(
            one.stderr.hasSuffix(
                """
                has 1 destructive step (--fail-on-destructive) beside 1 accepted; nothing was changed:
                  A.y is dropped: 1 non-nil value will be lost (accept with --accept A.y)

                """), "\(one.stderr)")
        #expect(f.snapshot() == before)
        let both = try f.migrate([
            "apply", store, "--fail-on-destructive", "--accept", "A.x", "--accept", "A.y", "--json",
        ])
        #expect(both.status == 0, "\(both.stderr)")
        let done = try #require(both.stdout.split(separator: "\n").last)
        #expect(done.contains(#""destructive (accepted): A.x is dropped: 2 non-nil values will be lost""#), "\(done)")
        #expect(
            try f.migrate(["dump", store, "A"]).stdout
                == "{\"_pk\":1,\"_entity\":\"A\",\"k\":\"a\"}\n{\"_pk\":2,\"_entity\":\"A\",\"k\":\"b\"}\n")
    }

    /// An entity name accepts every loss of the entity; `plan --json` gives each
    /// warning's subject, count and whether it is accepted.
    @Test func anEntityAcceptsItsLossesAndJSONSaysSo() throws {
        let (f, store) = try Self.fixture()
        defer { f.remove() }
        let plan = try f.migrate(["plan", store, "--fail-on-destructive", "--accept", "A", "--json"])
        #expect(plan.status == 0, "\(plan.stderr)")
        let report = try #require(JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any])
        let warnings = try #require(report["warnings"] as? [[String: Any]])
        #expect(warnings.map { $0["subject"] as? String } == ["A.x", "A.y"])
        #expect(warnings.map { $0["count"] as? Int } == [2, 1])
        #expect(warnings.allSatisfy { $0["isAccepted"] as? Bool == true })
    }

    /// `accepted-losses.yaml` beside the mapping files accepts per hop; a malformed
    /// one names its line and column.
    @Test func theFileBesideTheMappingFilesAcceptsPerHop() throws {
        let (f, store) = try Self.fixture()
        defer { f.remove() }
        _ = try f.directory.write("Migrations/G/accepted-losses.yaml", "# reviewed for release 2\n1-to-2: [A.x, A.y]\n")
        #expect(try f.migrate(["apply", store, "--fail-on-destructive"]).status == 0)
        let g = try GateFixture("  A: {attributes: {k: string, x: string?}}\n", "  A: {attributes: {k: string}}\n")
        defer { g.remove() }
        let other = try g.store([("A", #"{"k":"a","x":"1"}"#)])
        _ = try g.directory.write("Migrations/G/accepted-losses.yaml", "1-to-2: [A..x]\n")
        let bad = try g.migrate(["plan", other, "--fail-on-destructive"])
        #expect(bad.status == 1)
        #expect(
            bad.stderr.contains(
                """
                Migrations/G/accepted-losses.yaml:1:10: error: accepted losses: expected `Entity` or `Entity.property` \
                under 1-to-2
                """
            ))
        #expect(try g.migrate(["plan", other, "--fail-on-destructive", "--accept", "A..x"]).status == 64)
    }

    /// A name that names nothing is a mistake, not a gate that accepts nothing:
    /// `--accept` exits 64 with a suggestion (on a current store too), a name in the
    /// file fails `plan` and `validate` at its line; `--accept` without the gate is a
    /// usage error.
    @Test func aNameThatNamesNothingIsAnError() throws {
        let (f, store) = try Self.fixture()
        defer { f.remove() }
        let before = f.snapshot()
        let property = try f.migrate(["apply", store, "--fail-on-destructive", "--accept", "A.xx"])
        #expect(property.status == 64)
        #expect(
            property.stderr.contains(
                "--accept A.xx: A has no attribute or relationship xx in versions 1–2; did you mean 'x'?"),
            "\(property.stderr)")
        let entity = try f.migrate(["plan", store, "--fail-on-destructive", "--accept", "B", "--json"])
        #expect(entity.status == 64)
        #expect(
            entity.stdout.contains("--accept B: G has no entity B in versions 1–2; did you mean 'A'?"),
            "\(entity.stdout)")
        let ungated = try f.migrate(["plan", store, "--accept", "A.x"])
        #expect(ungated.status == 64)
        #expect(ungated.stderr.contains("give --fail-on-destructive too"), "\(ungated.stderr)")
        #expect(f.snapshot() == before)
        #expect(try f.migrate(["apply", store, "--fail-on-destructive", "--accept", "A"]).status == 0)
        #expect(try f.migrate(["apply", store, "--fail-on-destructive", "--accept", "A.xx"]).status == 64)
        _ = try f.directory.write("Migrations/G/accepted-losses.yaml", "1-to-2:\n  - A.x\n  - A.yy\n3-to-4: [A]\n")
        let validate = try f.migrate(["validate"])
        #expect(validate.status == 1)
        let file = "Migrations/G/accepted-losses.yaml"
        #expect(
            validate.stderr.contains(
                "\(file):3:5: error: accepted losses: 1-to-2: A.yy: A has no attribute or relationship yy"),
            "\(validate.stderr)")
        #expect(
            validate.stderr.contains("\(file):4:1: error: accepted losses: 3-to-4: G has no version 3 or 4"),
            "\(validate.stderr)")
        #expect(try f.migrate(["apply", store, "--fail-on-destructive"]).status == 1)
    }
}
