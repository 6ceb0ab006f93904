// `Benchmarks --rewrite-rows N --migrate PATH` (`make bench-rewrite`, 10 M by default):
// one rebuild of a table of N people, the audit of its rows included, against the
// hand-written SQL on a copy of the same store, measured in the same run.
//
// The store holds people only: `make bench`'s store of that size also holds three
// posts per person and their tags, many times the rows to generate. Four sides, each
// the best of `rounds` rounds on fresh copies: the release-built `migrate apply` (a child process, as
// `make bench` measures it); the same plan applied in this process, with the entity
// numbers checked by the rebuild's own scan and, as before issue 38 item 7, by a
// scan of their own before the steps (`MigrationPlanner.fusesPreconditions` off);
// and the raw SQL.
import DataModel
import Foundation
import ModelMigration
import SQLiteStore

struct RewriteAtScale {
    let migrate: String
    let work: String
    let rows: Int
    var rounds = 2

    /// Generates the store, measures the widening of `hops` (a rebuild of ZPERSON
    /// that reads every row), prints the figures and the target; the exit status
    /// (1 when the migration failed or the target is not met).
    func measure(_ hops: [Hop]) throws -> Int32 {
        guard let hop = hops.first(where: { $0.name.hasPrefix("widen") }) else { return 1 }
        let folder = "\(work)/rewrite-model"
        try writeModels(hop, into: folder)
        let store = "\(work)/people-only-\(rows).sqlite"
        let started = Date()
        try generate(at: store, models: folder + "/Models")
        print("generated \(rows) people (no posts) in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        let target = "\(work)/migrated.sqlite", raw = "\(work)/raw.sqlite"
        var cli = Double.infinity, fused = Double.infinity, separate = Double.infinity, sql = Double.infinity, memory = 0.0
        var status: Int32 = 0
        for _ in 0..<rounds {
            try copy(store, target)
            let (s, t, m) = run(
                migrate, ["apply", target, "--models", folder + "/Models", "--migrations", folder + "/Migrations", "--timeout", "60"])
            (status, cli, memory) = (s != 0 ? s : status, min(cli, t), max(memory, m))
            try copy(store, target)
            fused = min(fused, try applyInProcess(target, folder: folder, fused: true))
            try copy(store, target)
            separate = min(separate, try applyInProcess(target, folder: folder, fused: false))
            try copy(store, raw)
            sql = min(sql, try bound(hop.bound, on: raw))
        }
        for file in [target, raw] { try? FileManager.default.removeItem(atPath: file) }
        if !arguments.contains("--keep") { try? FileManager.default.removeItem(atPath: store) }
        print(
            String(
                format: "%9d  %-46@ %8.3f s  bound %8.3f s  ratio %6.2f  peak %6.1f MB%@", rows, "\(hop.name), audit in the rebuild" as NSString,
                cli, sql, cli / sql, memory, status == 0 ? "" : "  FAILED (exit \(status))"))
        for (label, seconds) in [("audit in the rebuild, in process", fused), ("audit by its own scan, in process", separate)] {
            print(String(format: "%9d  %-46@ %8.3f s  bound %8.3f s  ratio %6.2f", rows, "\(hop.name), \(label)" as NSString, seconds, sql, seconds / sql))
        }
        let met = status == 0 && cli / sql <= 1.10
        let ratio = String(format: "%.2f×", cli / sql)
        print("\ntargets:\n  \(met ? "met    " : "NOT MET") rewrite at \(rows) rows ≤ 1.10× the SQL bound, audit included: \(ratio)")
        return met ? 0 : 1
    }

    /// A store of `rows` people as `generate(people:…)` writes them, without posts,
    /// items or tags; its indexes are built once the rows are in (the same schema).
    func generate(at path: String, models: String) throws {
        try? FileManager.default.removeItem(atPath: path)
        let model = try ModelLoader.loadModel(path: models, named: "Bench")
        guard let first = model.version(1) else { throw CocoaError(.featureUnsupported) }
        let store = try Store.create(path: path, version: first)
        let c = store.connection
        try c.execute("PRAGMA synchronous = OFF")
        let indexes = try c.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'ZPERSON' AND sql IS NOT NULL").rows()
        try c.transaction(.exclusive) {
            for index in indexes { try c.execute("DROP INDEX \(SchemaSQL.quote(index[0].string ?? ""))") }
            let person = try c.prepare("INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZFULLNAME, ZEMAIL, ZAGE, ZCITY, ZSCORE) VALUES (?, 3, 1, ?, ?, ?, ?, 0)")
            let first = ["Ann", "José", "Zoë", "Łukasz", "Mei", "Ana María"], last = ["Smith", "García", "da Silva", "Ng", "Müller"]
            for pk in 1...rows {
                let name = pk % 11 == 0 ? first[pk % first.count] : "\(first[pk % first.count]) \(last[pk % last.count])"
                try person.bind([
                    .integer(Int64(pk)), .text(name), .text("p\(pk)@example.com"),
                    pk % 5 == 0 ? .null : .integer(Int64(18 + pk % 70)), pk % 3 == 0 ? .null : .text("Lisbon"),
                ])
                try person.execute()
            }
            for index in indexes { try c.execute(index[1].string ?? "") }
            try c.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(rows) WHERE Z_ENT = 3")
        }
        try store.close()
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.synchronize()
        try handle.close()
    }

    /// Plans and applies in this process, as `migrate apply` does; the seconds.
    func applyInProcess(_ path: String, folder: String, fused: Bool) throws -> Double {
        let start = Date()
        let model = try ModelLoader.loadModel(path: folder + "/Models", named: "Bench")
        let store = try Store.open(path: path)
        var planner = MigrationPlanner(models: [model], migrationsFolder: folder + "/Migrations")
        planner.fusesPreconditions = fused
        let plan = try planner.plan(store: store)
        try store.close()
        try Migrator().apply(plan)
        return Date().timeIntervalSince(start)
    }
}
