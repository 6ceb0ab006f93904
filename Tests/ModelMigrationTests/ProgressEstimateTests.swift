import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// `ProgressEstimate`: the rate and time left of every progress line come from the
/// work actually done, and are not shown before they mean something.
@Suite struct ProgressEstimateTests {
    /// A drop column that has visited 20 rows of a million after half a second of
    /// setting up shows no rate and no ETA (the 36 rows/s, ETA 27728 s).
    @Test func noRateBeforeEnoughWorkIsDone() {
        let early = ProgressEstimate(done: 20, total: 1_000_000, elapsed: 0.55)
        #expect(early.rate == nil)
        #expect(early.secondsLeft == nil)
        #expect(early.text(unit: "rows") == "20/1000000 rows")
        // A second of work, but under 1 % of the total: still no rate.
        #expect(ProgressEstimate(done: 9_999, total: 1_000_000, elapsed: 3).rate == nil)
        // 1 % of the total, but under a second.
        #expect(ProgressEstimate(done: 500_000, total: 1_000_000, elapsed: 0.5).rate == nil)
        #expect(ProgressEstimate(done: 0, total: 10, elapsed: 5).rate == nil)
    }

    @Test func theRateIsTheRowsDoneOverTheTimeTheyTook() {
        let half = ProgressEstimate(done: 500_000, total: 1_000_000, elapsed: 2)
        #expect(half.rate == 250_000)
        #expect(half.secondsLeft == 2)
        #expect(half.text(unit: "rows") == "500000/1000000 rows, 250000 rows/s, ETA 2 s")
        // Seconds left round up: 1 row left at 3 rows/s is 1 s, not 0.
        #expect(ProgressEstimate(done: 3, total: 4, elapsed: 1).secondsLeft == 1)
    }

    @Test func noTimeLeftWhenDoneOrWithoutATotal() {
        #expect(ProgressEstimate(done: 10, total: 10, elapsed: 2).text(unit: "rows") == "10/10 rows, 5 rows/s")
        #expect(ProgressEstimate(done: 12, total: 10, elapsed: 2).secondsLeft == nil)
        #expect(ProgressEstimate(done: 3000, total: nil, elapsed: 2).text(unit: "lines") == "3000 lines, 1500 lines/s")
        #expect(ProgressEstimate(done: 5, total: 10, elapsed: .infinity).rate == nil)
    }
}

/// The rows a step counts, which `apply`'s progress shows as its total.
@Suite struct StepRowCountTests {
    /// Over the counting limit each entity's count of a shared table is the table's
    /// estimate: the rebuild of a hierarchy of three entities counted the table three
    /// times (1.8 M for 600 k rows, a progress total three times too high).
    @Test func aSharedTableRebuildCountsItsRowsOnce() throws {
        let v1 = """
            entities:
              Item:
                attributes: { title: string }
              Book:
                parent: Item
                attributes: { pages: integer32? }
              Folder:
                parent: Item
                attributes: { color: string? }

            """
        let s = try MigrationScenario("Library", versions: [v1, v1])
        defer { s.remove() }
        try s.writeMapping(
            "1-to-2.yaml", "entities:\n  Book:\n    properties:\n      pages: { value: \"$source.pages + 1\" }\n")
        try s.withObjects { o in
            for n in 0..<4 {
                try o.insert("Item", values: ["title": .string("i\(n)")])
                try o.insert("Book", values: ["title": .string("b\(n)"), "pages": .integer(Int64(n))])
                try o.insert("Folder", values: ["title": .string("f\(n)")])
            }
        }
        for limit: Int64 in [2, 100] {
            var options = PlanningOptions()
            options.countLimit = limit
            let plan = try s.plan(options)
            let rebuild = try #require(
                plan.hops.first?.steps.first { if case .rebuildTable = $0 { true } else { false } })
            #expect(rebuild.cost == .rewrite(rows: 12), "count limit \(limit)")
        }
        try s.migrate()
        #expect(
            try s.rows("SELECT ZPAGES FROM ZITEM WHERE ZPAGES IS NOT NULL ORDER BY Z_PK").map { $0[0] }
                == (1...4).map { .integer($0) })
    }
}
