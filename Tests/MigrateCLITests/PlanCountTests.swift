import Foundation
import TestSupport
import Testing

/// What `plan` says a later hop will write is the store's rows as they are now,
/// also when an earlier hop renumbers entities (a store that follows Core Data's
/// numbering takes the destination model's alphabetical numbers).
@Suite struct PlanCountTests {
    /// Version 2 adds `Animal`, which sorts before `Person`: in a Core Data store
    /// Person's number goes from 1 to 2 at hop 1 → 2. Hop 2 → 3 runs a policy over
    /// every person; its count read Z_ENT 2 in a store whose rows still carry 1
    /// and said "policy over 0 rows" before apply wrote both.
    @Test func aLaterHopCountsRowsUnderTheirStoredNumbers() throws {
        let d = try TemporaryDirectory(prefix: "plan-counts")
        defer { d.remove() }
        let person = "Person:\n    attributes: { fullName: string? }\n"
        _ = try d.write("Models/P/1.yaml", "model: P\nversion: 1\nentities:\n  " + person)
        _ = try d.write(
            "Models/P/2.yaml",
            "model: P\nversion: 2\nentities:\n  Animal:\n    attributes: { name: string }\n  " + person)
        _ = try d.write(
            "Models/P/3.yaml",
            """
            model: P
            version: 3
            entities:
              Animal:
                attributes: { name: string }
              Person:
                attributes: { firstName: { type: string, default: "" }, lastName: { type: string, default: "" } }

            """)
        _ = try d.write(
            "Migrations/P/2-to-3.yaml",
            """
            entities:\n  Person:\n    policy: SplitFullName\n    properties:\n      firstName: policy\n      lastName: \
            policy\n
            """
        )
        _ = try d.write("people.jsonl", #"{"fullName":"Ann Lee"}"# + "\n" + #"{"fullName":"Bo Ek"}"# + "\n")
        #expect(
            try InProcess.migrate(["create", "p.sqlite", "--version", "1", "--for-core-data"], in: d.path).status
                == 0)
        #expect(try InProcess.migrate(["load", "p.sqlite", "Person", "people.jsonl"], in: d.path).status == 0)

        let plan = try InProcess.migrate(["plan", "p.sqlite"], in: d.path)
        #expect(plan.status == 0, "\(plan)")
        #expect(plan.stdout.contains("policy SplitFullName: Person → Person  [policy over 2 rows]"), "\(plan.stdout)")
        let apply = try InProcess.migrate(["apply", "p.sqlite"], in: d.path)
        #expect(apply.status == 0, "\(apply)")
        let people = try InProcess.migrate(["dump", "p.sqlite", "Person"], in: d.path)
        #expect(
            people.stdout.contains(#""firstName":"Ann","lastName":"Lee""#)
                && people.stdout.contains(#""firstName":"Bo","lastName":"Ek""#),
            "\(people.stdout)")
    }
}
