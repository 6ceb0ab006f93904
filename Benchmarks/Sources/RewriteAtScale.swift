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

    /// Wall-clock and CPU (user + system) seconds of one side, the best of its rounds.
    struct Time {
        var seconds = Double.infinity
        var cpu = Double.infinity

        mutating func keep(_ seconds: Double, _ cpu: Double) {
            self.seconds = min(self.seconds, seconds)
            self.cpu = min(self.cpu, cpu)
        }
    }

    /// Generates the store, measures the widening of `hops` (a rebuild of ZPERSON
    /// that reads every row), prints the figures and the target; the exit status
    /// (1 when the migration failed or the target is not met). On a machine busy
    /// with other work, CPU seconds are the steadier measure of the work each side
    /// does; the target is in wall-clock time, as `make bench`'s.
    func measure(_ hops: [Hop]) throws -> Int32 {
        guard let hop = hops.first(where: { $0.name.hasPrefix("widen") }) else { return 1 }
        let folder = "\(work)/rewrite-model"
        try writeModels(hop, into: folder)
        let store = "\(work)/people-only-\(rows).sqlite"
        let started = Date()
        try generate(at: store, models: folder + "/Models")
        print("generated \(rows) people (no posts) in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        // What the audit's own scan costs: the entity-number check of ZPERSON alone.
        let reader = try Connection(path: store)
        let scan = try timed {
            try reader.scalarInt64("SELECT count(*) FROM ZPERSON WHERE Z_ENT IS NULL OR Z_ENT NOT IN (3)")
        }
        try reader.close()
        let target = "\(work)/migrated.sqlite", raw = "\(work)/raw.sqlite"
        var cli = Time(), fused = Time(), separate = Time(), sql = Time()
        var memory = 0.0
        var status: Int32 = 0
        let child = ObjectBenchmark(migrate: migrate, work: work, peopleModel: "")
        for _ in 0..<rounds {
            try copy(store, target)
            let sample = child.run(
                migrate,
                [
                    "apply", target, "--models", folder + "/Models", "--migrations", folder + "/Migrations",
                    "--timeout", "60",
                ])
            cli.keep(sample.seconds, sample.cpu)
            (status, memory) = (sample.status != 0 ? sample.status : status, max(memory, sample.megabytes))
            try copy(store, target)
            let inFused = try timed { try applyInProcess(target, folder: folder, fused: true) }
            fused.keep(inFused.seconds, inFused.cpu)
            try copy(store, target)
            let inSeparate = try timed { try applyInProcess(target, folder: folder, fused: false) }
            separate.keep(inSeparate.seconds, inSeparate.cpu)
            try copy(store, raw)
            let rawSQL = try timed { try bound(hop.bound, on: raw) }
            sql.keep(rawSQL.seconds, rawSQL.cpu)
        }
        for file in [target, raw] { try? FileManager.default.removeItem(atPath: file) }
        if !arguments.contains("--keep") { try? FileManager.default.removeItem(atPath: store) }
        let sides = [
            ("`migrate apply`, audit in the rebuild", cli), ("in process, audit in the rebuild", fused),
            ("in process, audit by its own scan first", separate),
        ]
        print(
            String(
                format: "%9d  %@: SQL bound %.3f s (CPU %.3f s); the audit's scan alone %.3f s (CPU %.3f s)", rows,
                hop.name as NSString,
                sql.seconds, sql.cpu, scan.seconds, scan.cpu))
        for (label, time) in sides {
            print(
                String(
                    format: "%9d  %-42@ %8.3f s  ratio %5.2f   CPU %8.3f s  ratio %5.2f", rows, label as NSString,
                    time.seconds, time.seconds / sql.seconds,
                    time.cpu, time.cpu / sql.cpu))
        }
        print(
            String(
                format: "           peak resident memory of `migrate apply`: %.1f MB%@", memory,
                status == 0 ? "" : "  FAILED (exit \(status))"))
        let met = status == 0 && cli.seconds / sql.seconds <= 1.10
        let ratio = String(format: "%.2f×", cli.seconds / sql.seconds)
        print(
            """
            \ntargets:\n  \(met ? "met    " : "NOT MET") rewrite at \(rows) rows ≤ 1.10× the SQL bound, audit \
            included: \(ratio)
            """
        )
        return met ? 0 : 1
    }

    /// Runs `body`; its wall-clock and CPU seconds (this process's user + system).
    func timed<T>(_ body: () throws -> T) rethrows -> (seconds: Double, cpu: Double) {
        func cpuNow() -> Double {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(
                usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        }
        let start = Date(), cpu = cpuNow()
        _ = try body()
        return (Date().timeIntervalSince(start), cpuNow() - cpu)
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
        let indexes = try c.prepare(
            "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'ZPERSON' AND sql IS NOT NULL"
        ).rows()
        try c.transaction(.exclusive) {
            for index in indexes { try c.execute("DROP INDEX \(SQLText.q(index[0].string ?? ""))") }
            let person = try c.prepare(
                """
                INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZFULLNAME, ZEMAIL, ZAGE, ZCITY, ZSCORE) VALUES (?, 3, 1, ?, \
                ?, ?, ?, 0)
                """
            )
            let first = ["Ann", "José", "Zoë", "Łukasz", "Mei", "Ana María"],
                last = ["Smith", "García", "da Silva", "Ng", "Müller"]
            for pk in 1...rows {
                let name =
                    pk % 11 == 0 ? first[pk % first.count] : "\(first[pk % first.count]) \(last[pk % last.count])"
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

    /// Plans and applies in this process, as `migrate apply` does.
    func applyInProcess(_ path: String, folder: String, fused: Bool) throws {
        let model = try ModelLoader.loadModel(path: folder + "/Models", named: "Bench")
        let store = try Store.open(path: path)
        var planner = MigrationPlanner(models: [model], migrationsFolder: folder + "/Migrations")
        planner.fusesPreconditions = fused
        let plan = try planner.plan(store: store)
        try store.close()
        try Migrator().apply(plan)
    }
}
