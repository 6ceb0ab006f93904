import Foundation
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// Hops a plan calls O(1) do not touch rows, on a store with what real models have:
/// indexed and unique attributes, a many-to-many and a hierarchy, 200 k rows.
@Suite struct ConstantHopTests {
    static let v1 = """
        entities:
          Customer:
            attributes:
              name: { type: string, indexed: true }
              email: string
              notes: string?
            relationships:
              tags: { destination: Tag, toMany: true, inverse: customers }
            uniqueness: [[email]]
          Tag:
            attributes: { label: string }
            relationships:
              customers: { destination: Customer, toMany: true, inverse: tags }
          Product:
            attributes: { title: { type: string, indexed: true } }
          Book:
            parent: Product
            attributes: { pages: integer32? }

        """

    /// Version 2: only additive changes and renames: an attribute added to an
    /// indexed table, one renamed, an entity added, an attribute added to a
    /// subentity, a relationship added.
    static let v2 = """
        entities:
          Customer:
            attributes:
              name: { type: string, indexed: true }
              email: string
              remarks: { type: string, optional: true, renamedFrom: notes }
              phone: string?
            relationships:
              tags: { destination: Tag, toMany: true, inverse: customers }
              orders: { destination: Order, toMany: true, inverse: customer }
            uniqueness: [[email]]
          Tag:
            attributes: { label: string }
            relationships:
              customers: { destination: Customer, toMany: true, inverse: tags }
          Product:
            attributes: { title: { type: string, indexed: true } }
          Book:
            parent: Product
            attributes:
              pages: integer32?
              isbn: string?
          Order:
            attributes: { total: double? }
            relationships:
              customer: { destination: Customer, inverse: orders, optional: true }

        """

    static let rows = 200_000

    @Test func additiveHopsOnA200kRowStoreRunNoStatementThatReadsRows() throws {
        let s = try MigrationScenario("Shop", versions: [Self.v1, Self.v2])
        defer { s.remove() }
        let customers = try s.rows(#"SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Customer'"#)[0][0]
        let books = try s.rows(#"SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Book'"#)[0][0]
        guard case .integer(let customer) = customers, case .integer(let book) = books else {
            Issue.record("entity numbers")
            return
        }
        try s.withObjects { access in
            try access.store.connection.execute(
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(Self.rows))
                INSERT INTO ZCUSTOMER (Z_PK, Z_ENT, Z_OPT, ZNAME, ZEMAIL, ZNOTES) \
                SELECT i, \(customer), 1, 'name ' || i, 'c' || i || '@example.com', 'n' FROM n;
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(Self.rows))
                INSERT INTO ZPRODUCT (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZPAGES) SELECT i, \(book), 1, 'book ' || i, i FROM n;
                UPDATE Z_PRIMARYKEY SET Z_MAX = \(Self.rows) WHERE Z_NAME IN ('Customer', 'Product', 'Book');
                """)
        }

        let plan = try s.plan()
        #expect(
            plan.allSteps.allSatisfy { $0.cost == .constant }, "\(plan.allSteps.map { "\($0.summary) [\($0.cost)]" })")
        let sql = plan.allSteps.filter { $0.kind != .entityNumbers }.flatMap(\.sql)
        #expect(
            sql.allSatisfy {
                $0.hasPrefix("ALTER TABLE") || $0.hasPrefix("CREATE TABLE")
                    || $0.hasPrefix("CREATE INDEX") && $0.contains("ZORDER")
            },
            "\(sql)")
        #expect(sql.contains(#"ALTER TABLE "ZCUSTOMER" RENAME COLUMN "ZNOTES" TO "ZREMARKS""#))
        #expect(
            !sql.contains {
                $0.contains("DROP INDEX") || $0.contains("INSERT") || $0.contains("UPDATE")
                    || $0.hasPrefix("CREATE UNIQUE")
            })

        // What ran: every step's rows, as the migrator reports them; only the
        // entity-number bookkeeping (Z_PRIMARYKEY) writes any.
        let started = Date()
        var written: [String: Int64] = [:]
        var summaries: [Int: String] = [:]
        let result = try Migrator().apply(plan) { event in
            switch event {
            case .stepStarted(let index, _, let summary, _): summaries[index] = summary
            case .stepFinished(let index, _, let rows): written[summaries[index] ?? "?", default: 0] += rows
            default: break
            }
        }
        let bookkeeping = plan.allSteps.filter { $0.kind == .entityNumbers }.map(\.summary)
        #expect(written.filter { !bookkeeping.contains($0.key) }.values.allSatisfy { $0 == 0 }, "\(written)")
        #expect(result.rowsTouched < 20)
        #expect(try s.storeVersion() == 2)
        #expect(
            try s.rows(#"SELECT count(*), count(ZREMARKS) FROM ZCUSTOMER"#) == [
                [.integer(Int64(Self.rows)), .integer(Int64(Self.rows))]
            ])
        #expect(
            try s.rows(#"SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZCUSTOMER' ORDER BY name"#)
                .count >= 2)
        // A generous bound: an apply that scanned 200 k rows twice (an index
        // rebuild, a check) takes far longer in a debug build.
        #expect(Date().timeIntervalSince(started) < 5)
    }

    /// Moving an entity with a uniqueness constraint into a hierarchy recreates its
    /// unique index (named after the new table); the store's own unique index
    /// already proves there are no duplicates, so the plan does not count them
    /// (which read every row). Without that index, it does.
    @Test func aUniqueIndexTheStoreHasSparesTheDuplicateCount() throws {
        let moved = Self.v1.replacingOccurrences(
            of: "  Customer:\n", with: "  Party:\n    abstract: true\n  Customer:\n    parent: Party\n")
        let s = try MigrationScenario("Shop", versions: [Self.v1, moved])
        defer { s.remove() }
        let plan = try s.plan()
        #expect(plan.allSteps.contains { $0.sql.contains { $0.hasPrefix("CREATE UNIQUE INDEX") } })
        #expect(plan.hops[0].requirements.isEmpty, "\(plan.hops[0].requirements.map(\.summary))")

        try s.withObjects { try $0.store.connection.execute(#"DROP INDEX "Z_Customer_UNIQUE_email""#) }
        let unproven = try s.plan()
        #expect(
            unproven.hops[0].requirements.map(\.summary).contains {
                $0.contains("stored values are held by several objects")
            })
        #expect(unproven.hops[0].requirements.allSatisfy { !$0.sql.sql.contains("group_concat") })
    }
}
