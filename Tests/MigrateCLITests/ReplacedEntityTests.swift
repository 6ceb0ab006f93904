import Foundation
import TestSupport
import Testing

/// An entity whose name the next version gives to objects made from another entity,
/// while the store holds objects of it: refused, never dropped unwarned.
@Suite struct ReplacedEntityTests {
    static let listeningAndRecord =
        "  Listening:\n    attributes: { note: string? }\n  Record:\n    attributes: { note: string? }\n"

    /// Inference alone: version 2's Listening is version 1's Record (`renamedFrom`).
    @Test func aRenameOntoAnEntityHoldingObjectsIsRefused() throws {
        let f = try GateFixture(
            Self.listeningAndRecord, "  Listening:\n    renamedFrom: Record\n    attributes: { note: string? }\n")
        defer { f.remove() }
        let store = try f.store([
            ("Listening", #"{"note":"old A"}"#), ("Listening", #"{"note":"old B"}"#), ("Record", #"{"note":"r1"}"#),
        ])
        let before = f.snapshot()
        let apply = try f.migrate(["apply", store, "--verify"])
        #expect(apply.status == 4, "\(apply)")
        #expect(
            apply.stderr.hasSuffix(
                """
                  Listening: the store holds objects of version 1's Listening, which no entity mapping of this hop \
                reads, while version 2's Listening is made from Record: they would be lost, and references to them \
                would name Record's objects: 2 rows: Z_PK 1; Z_PK 2
                    remedy: map them in Migrations/G/1-to-2.yaml (into another entity, or alongside), or delete them \
                first

                """), "\(apply.stderr)")
        #expect(f.snapshot() == before)
    }

    /// A mapping file making Listening from Record while Record goes on.
    @Test func aMappingFileFeedingAnEntityHoldingObjectsIsRefused() throws {
        let f = try GateFixture(
            Self.listeningAndRecord, Self.listeningAndRecord, mapping: "entities:\n  Listening:\n    source: Record\n")
        defer { f.remove() }
        let store = try f.store([("Listening", #"{"note":"old A"}"#), ("Record", #"{"note":"r1"}"#)])
        let before = f.snapshot()
        let plan = try f.migrate(["plan", store])
        #expect(plan.status == 4, "\(plan)")
        #expect(
            plan.stderr.contains(
                "  Listening: the store holds objects of version 1's Listening, which no entity mapping"),
            "\(plan.stderr)")
        #expect(plan.stderr.contains("Record's objects: 1 row: Z_PK 1\n"), "\(plan.stderr)")
        #expect(f.snapshot() == before)
    }

    /// Without objects of its own nothing is lost: the hop migrates.
    @Test func anEmptyReplacedEntityMigrates() throws {
        let f = try GateFixture(
            Self.listeningAndRecord, "  Listening:\n    renamedFrom: Record\n    attributes: { note: string? }\n")
        defer { f.remove() }
        let store = try f.store([("Record", #"{"note":"r1"}"#)])
        #expect(try f.migrate(["apply", store, "--verify"]).status == 0)
        #expect(
            try f.migrate(["dump", store, "Listening"]).stdout == #"{"_pk":1,"_entity":"Listening","note":"r1"}"# + "\n"
        )
    }
}
