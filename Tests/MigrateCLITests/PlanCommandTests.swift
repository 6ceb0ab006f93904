import Foundation
import TestSupport
import Testing

/// `migrate plan`: every step with its SQL and cost, and the destructive warnings,
/// before anything changes.
@Suite struct PlanCommandTests {
    static let rebuildSQL = [
        #"""
        CREATE TABLE "MM_NEW_ZITEM" ( "Z_PK" INTEGER PRIMARY KEY, "Z_ENT" INTEGER, "Z_OPT" INTEGER, "ZSCORE" INTEGER, \#
        "ZOWNER" INTEGER, "ZVALUE" FLOAT, "ZTITLE" VARCHAR )
        """#,
        #"""
        INSERT INTO "MM_NEW_ZITEM" ("Z_PK", "Z_ENT", "Z_OPT", "ZSCORE", "ZOWNER", "ZVALUE", "ZTITLE") SELECT s.Z_PK, \#
        1, s.Z_OPT, 7, s."ZOWNER", CAST(s."ZVALUE" AS REAL), s."ZNAME" FROM "ZITEM" AS s WHERE s.Z_ENT = 1
        """#,
    ]

    @Test func planJSONListsEveryStepWithItsSQL() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        let before = f.snapshot(store)
        let result = try f.migrate(["plan", "--json"] + f.models + [store])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let plan = try StockFixture.object(result.stdout)
        #expect(plan["model"] as? String == "Stock")
        #expect(plan["store"] as? String == store)
        #expect(plan["sourceVersion"] as? Int == 1)
        #expect(plan["targetVersion"] as? Int == 2)
        // The compiled models and layouts stay out unless asked (--include-models).
        #expect(plan["target"] == nil && plan["entityNumbers"] == nil)
        #expect(result.stdout.utf8.count < 20_000)
        let hops = try #require(plan["hops"] as? [[String: Any]])
        #expect(hops.map { [$0["from"] as? Int, $0["to"] as? Int] } == [[1, 2]])
        let steps = try #require(hops[0]["steps"] as? [[String: Any]])
        #expect(
            steps.map { $0["kind"] as? String } == [
                "rebuildTable", "dropTable", "renameTable", "createIndex", "entityNumbers",
            ])
        #expect(steps[0]["sql"] as? [String] == Self.rebuildSQL)
        #expect(steps[0]["table"] as? String == "ZITEM")
        #expect(steps[1]["sql"] as? [String] == [#"DROP TABLE "ZITEM""#])
        #expect(steps[2]["sql"] as? [String] == [#"ALTER TABLE "MM_NEW_ZITEM" RENAME TO "ZITEM""#])
        #expect(
            steps[3]["sql"] as? [String] == [
                #"CREATE INDEX "ZITEM_ZOWNER_INDEX" ON "ZITEM" ("ZOWNER" COLLATE BINARY ASC)"#
            ])
        #expect(steps.allSatisfy { ($0["sql"] as? [String])?.isEmpty == false && $0["summary"] is String })
        #expect(
            hops[0]["checks"] as? [String] == [
                "required Item.score has a value in every row", "Item.owner points to existing Owner objects",
                """
                Z_PRIMARYKEY agrees with the rows (each entity under its planned number: Item 1, Owner 2; \
                Z_MAX of each root entity at least the highest key of its table)
                """,
            ])
        let warnings = try #require(plan["warnings"] as? [[String: Any]])
        #expect(warnings.map { $0["message"] as? String } == ["Item.note is dropped: 200 non-nil values will be lost"])
        #expect(warnings.map { $0["isDestructive"] as? Bool } == [true])
        #expect(f.snapshot(store).fingerprint == before.fingerprint)
        let full = try StockFixture.object(
            try f.migrate(["plan", "--json", "--include-models"] + f.models + [store]).stdout)
        #expect(full["entityNumbers"] as? [String: Int] == ["Item": 1, "Owner": 2])
    }

    @Test func planTextShowsStepsCostsSQLAndWarnings() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        let result = try f.migrate(["plan", "--sql"] + f.models + [store])
        #expect(result.status == 0)
        let lines = result.stdout.components(separatedBy: "\n")
        #expect(
            Array(lines.prefix(6)) == [
                "stock.sqlite: Stock version 1 → 2, 1 hop",
                "",
                "hop 1 → 2: inferred",
                "    1. rebuild ZITEM from ZITEM (SQLite's 12-step procedure)  [rewrite of 300 rows]",
                "         " + Self.rebuildSQL[0],
                "         " + Self.rebuildSQL[1],
            ])
        #expect(lines.contains("warning: destructive: Item.note is dropped: 200 non-nil values will be lost"))
        #expect(lines.contains("    4. create index ZITEM_ZOWNER_INDEX on ZITEM  [index build over 300 rows]"))
        #expect(
            lines.suffix(2) == ["5 steps, about 300 rows to write; run `migrate apply stock.sqlite` to execute", ""])
    }

    @Test func aCurrentStoreHasNothingToDo() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        #expect(try f.migrate(["apply"] + f.models + [store]).status == 0)
        let result = try f.migrate(["plan"] + f.models + [store])
        #expect(result.status == 0)
        #expect(result.stdout == "stock.sqlite: Stock version 2 is current; nothing to do\n")
        let json = try StockFixture.object(try f.migrate(["plan", "--json"] + f.models + [store]).stdout)
        #expect((json["hops"] as? [Any])?.isEmpty == true)
    }
}
