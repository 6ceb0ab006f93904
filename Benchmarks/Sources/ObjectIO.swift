// `migrate load` and `migrate dump` against the Python loops a programmer writes
// (`json` + `sqlite3` `executemany`; `json.dumps`), both measured in the same run on
// the same files, for every shape a JSON Lines file comes in, and for members of an
// ordered to-many (books in folders) against the same books outside any list.
import DataModel
import Foundation
import SQLiteStore

/// One measured case: `migrate` and Python loading the same lines, and dumping them.
struct ObjectIO: Codable {
    var people: Int
    /// The lines' shape (`LineShape.rawValue`).
    var shape: String
    var loadSeconds: Double
    var loadPeakMB: Double
    var pythonLoadSeconds: Double
    var pythonLoadPeakMB: Double
    var dumpSeconds: Double
    var dumpPeakMB: Double
    var pythonDumpSeconds: Double
    var pythonDumpPeakMB: Double
    var loadStatus: Int32
    var dumpStatus: Int32
    /// CPU seconds (user + system) of each side: on a machine busy with other work the
    /// steadier measure of the work each side does.
    var loadCPU: Double
    var pythonLoadCPU: Double
    var dumpCPU: Double
    var pythonDumpCPU: Double
    /// False for the shapes measured by loading only (ObjectShapes.swift).
    var measuresDump = true

    var loadSpeed: Double { pythonLoadSeconds / loadSeconds }
    var dumpSpeed: Double { pythonDumpSeconds / dumpSeconds }
    var loadCPUSpeed: Double { pythonLoadCPU / loadCPU }
    var dumpCPUSpeed: Double { pythonDumpCPU / dumpCPU }
}

/// The shapes a JSON Lines file of people comes in. Python writes each (that loop is
/// the dump it is measured against), and the lines it wrote are what both sides load.
enum LineShape: String, CaseIterable {
    /// `migrate dump`'s own lines: `_pk`, `_entity`, every field in name order, nulls, no spaces.
    case dump = "dump's own lines"
    /// `json.dumps(row)` with its defaults: `": "` and `", "`, `\u00e9` escapes, no `_pk`.
    case jsonDumps = "json.dumps defaults, no _pk"
    /// Compact, with `_pk`, nulls left out.
    case compact = "compact with _pk, no nulls"
    /// Keys in a random order per line, nulls, `_entity` on every other line, either separator.
    case anyOrder = "any key order, nulls"

    /// The Python expression that writes one row as a line (`f`: the row's fields as
    /// pairs, `_pk` first; `compact`: no spaces, no `\\u` escapes).
    var python: String {
        switch self {
        case .dump: #"json.dumps(dict([f[0], ("_entity", "Person")] + sorted(f[1:])), **compact)"#
        case .jsonDumps: #"json.dumps(dict(f[1:]))"#
        case .compact: #"json.dumps({k: v for k, v in f if v is not None}, **compact)"#
        case .anyOrder: #"shuffled(pk, f + ([("_entity", "Person")] if pk % 2 else []))"#
        }
    }
}

/// Python's load of people: every line through `json.loads`, `executemany`, one transaction
/// (keys allocated past the highest when a line has no `_pk`, as `load` does).
let pythonLoadPeople = #"""
    import json, sqlite3, sys
    c = sqlite3.connect(sys.argv[1], isolation_level=None)
    c.execute("BEGIN IMMEDIATE")
    def rows():
        last = 0
        with open(sys.argv[2], encoding="utf-8") as f:
            for line in f:
                o = json.loads(line)
                pk = o.get("_pk") or last + 1
                last = max(last, pk)
                yield (pk, o["fullName"], o["email"], o.get("age"), o.get("city"), o.get("score", 0))
    c.executemany("INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZFULLNAME, ZEMAIL, ZAGE, ZCITY, ZSCORE) VALUES (?, 3, 1, \#
    ?, ?, ?, ?, ?)", rows())
    c.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = (SELECT max(Z_PK) FROM ZPERSON) WHERE Z_ENT = 3")
    c.execute("COMMIT")
    """#

/// Python's dump of people in one shape (`SHAPE` replaced by `LineShape.python`).
let pythonDumpPeople = #"""
    import json, random, sqlite3, sys
    compact = dict(ensure_ascii=False, separators=(",", ":"))
    def shuffled(pk, pairs):
        random.Random(pk).shuffle(pairs)
        return json.dumps(dict(pairs), ensure_ascii=False, separators=(",", ":") if pk % 3 else (", ", ": "))
    c = sqlite3.connect(sys.argv[1])
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        for pk, age, city, email, name, score in c.execute("SELECT Z_PK, ZAGE, ZCITY, ZEMAIL, ZFULLNAME, ZSCORE FROM \#
    ZPERSON ORDER BY Z_PK"):
            f = [("_pk", pk), ("fullName", name), ("email", email), ("age", age), ("city", city), ("score", score)]
            out.write(SHAPE + "\n")
    """#

/// Books in folders: `Folder.books` is an ordered to-many (Core Data's `Z_FOK_FOLDER`
/// column holds each book's place).
let libraryModel = """
    model: Library
    version: 1
    entities:
      Folder:
        attributes:
          title: string
        relationships:
          books: { destination: Book, toMany: true, ordered: true, inverse: folder }
      Book:
        attributes:
          title: string
          pages: integer32?
          rating: double?
          read: boolean?
        relationships:
          folder: { destination: Folder, inverse: books, optional: true }
    """

/// Python's load of books: `sys.argv[3]` "1" when they join their folders' lists (a
/// counter per folder gives each book the next place).
let pythonLoadBooks = #"""
    import json, sqlite3, sys
    c = sqlite3.connect(sys.argv[1], isolation_level=None)
    c.execute("BEGIN IMMEDIATE")
    ends = {}
    def rows():
        with open(sys.argv[2], encoding="utf-8") as f:
            for line in f:
                o = json.loads(line)
                folder = o.get("folder")
                place = None
                if folder is not None:
                    place = ends[folder] = ends.get(folder, 0) + 1
                yield (o["_pk"], o["title"], o.get("pages"), o.get("rating"), o.get("read"), folder, place)
    c.executemany("INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZPAGES, ZRATING, ZREAD, ZFOLDER, Z_FOK_FOLDER) \#
    VALUES (?, 1, 1, ?, ?, ?, ?, ?, ?)", rows())
    c.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = (SELECT max(Z_PK) FROM ZBOOK) WHERE Z_ENT = 1")
    c.execute("COMMIT")
    """#

/// Python's dump of books, as `migrate dump` writes them (members in list order, `_position`).
let pythonDumpBooks = #"""
    import json, sqlite3, sys
    c = sqlite3.connect(sys.argv[1])
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        for pk, folder, place, pages, rating, read, title in c.execute(
                "SELECT Z_PK, ZFOLDER, Z_FOK_FOLDER, ZPAGES, ZRATING, ZREAD, ZTITLE FROM ZBOOK ORDER BY Z_FOK_FOLDER, \#
    Z_PK"):
            o = {"_pk": pk, "_entity": "Book"}
            if folder is not None:
                o["_position"] = {"folder": place}
            o.update({"folder": folder, "pages": pages, "rating": rating, "read": None if read is None else read == \#
    1, "title": title})
            out.write(json.dumps(o, ensure_ascii=False, separators=(",", ":")) + "\n")
    """#

/// Runs the load and dump cases at one size.
struct ObjectBenchmark {
    /// The release-built `migrate`.
    var migrate: String
    var work: String
    /// Version 1 of the benchmark's people model (YAML, with its `model:` and `version:` lines).
    var peopleModel: String

    /// One run of a child process.
    struct Sample {
        var status: Int32
        var seconds: Double
        /// User + system CPU seconds.
        var cpu: Double
        /// Peak resident memory.
        var megabytes: Double
    }

    /// Runs a child process, its standard output to `output` (both sides of a dump
    /// write to a file).
    func run(_ executable: String, _ args: [String], output: String = "/dev/null") -> Sample {
        var pid: pid_t = 0
        let argv = ([executable] + args).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let start = Date()
        guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else {
            return Sample(status: -1, seconds: 0, cpu: 0, megabytes: 0)
        }
        var status: Int32 = 0
        var usage = rusage()
        wait4(pid, &status, 0, &usage)
        let cpu =
            Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(
                usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        return Sample(
            status: (status >> 8) & 0xff, seconds: Date().timeIntervalSince(start), cpu: cpu,
            megabytes: Double(usage.ru_maxrss) / 1024)
    }

    func python(_ script: String, _ args: [String]) -> Sample {
        let result = run("/usr/bin/env", ["python3", "-c", script] + args)
        if result.status != 0 { print("  a Python loop failed (exit \(result.status))") }
        return result
    }

    /// A case from its four runs.
    static func measured(
        _ size: Int, _ shape: String, load: Sample, pythonLoad: Sample, dump: Sample, pythonDump: Sample
    ) -> ObjectIO {
        ObjectIO(
            people: size, shape: shape, loadSeconds: load.seconds, loadPeakMB: load.megabytes,
            pythonLoadSeconds: pythonLoad.seconds,
            pythonLoadPeakMB: pythonLoad.megabytes, dumpSeconds: dump.seconds, dumpPeakMB: dump.megabytes,
            pythonDumpSeconds: pythonDump.seconds,
            pythonDumpPeakMB: pythonDump.megabytes, loadStatus: load.status, dumpStatus: dump.status, loadCPU: load.cpu,
            pythonLoadCPU: pythonLoad.cpu, dumpCPU: dump.cpu, pythonDumpCPU: pythonDump.cpu)
    }

    /// An empty store of a model's version 1 at `path`, and the models folder.
    func emptyStore(_ name: String, yaml: String, at path: String) throws -> String {
        let folder = "\(work)/objects-\(name)/Models"
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: "\(folder)/\(name)", withIntermediateDirectories: true)
        try yaml.write(toFile: "\(folder)/\(name)/1.yaml", atomically: true, encoding: .utf8)
        let model = try ModelLoader.loadModel(path: folder, named: name)
        try? FileManager.default.removeItem(atPath: path)
        guard let version = model.version(1) else { throw CocoaError(.fileReadCorruptFile) }
        try Store.create(path: path, version: version).close()
        return folder
    }

    /// Every shape of people lines, then the books.
    func measure(size: Int) throws -> [ObjectIO] {
        var results: [ObjectIO] = []
        let empty = "\(work)/people-empty.sqlite",
            models = try emptyStore("Bench", yaml: peopleModel, at: "\(work)/people-empty.sqlite")
        let seed = "\(work)/people-\(size).jsonl", target = "\(work)/loaded.sqlite", raw = "\(work)/raw.sqlite"
        try writePeopleLines(size, to: seed)
        // The source of every shape: a store Python loaded from dump's own lines.
        try copy(empty, raw)
        _ = python(pythonLoadPeople, [raw, seed])
        for shape in LineShape.allCases {
            let lines = "\(work)/people-\(size)-\(shape).jsonl"
            let pythonDump = python(
                pythonDumpPeople.replacingOccurrences(of: "SHAPE", with: shape.python), [raw, lines])
            try copy(empty, target)
            let load = run(migrate, ["load", target, "Person", lines, "--models", models])
            let check = "\(work)/raw-check.sqlite"
            try copy(empty, check)
            let pythonLoad = python(pythonLoadPeople, [check, lines])
            let dump = run(migrate, ["dump", target, "Person", "--models", models], output: "\(work)/dumped.jsonl")
            let m = Self.measured(
                size, shape.rawValue, load: load, pythonLoad: pythonLoad, dump: dump, pythonDump: pythonDump)
            results.append(m)
            report(m, what: "people, \(shape.rawValue)")
            for path in [lines, check] { try? FileManager.default.removeItem(atPath: path) }
        }
        for path in [seed, empty, target, raw] { try? FileManager.default.removeItem(atPath: path) }
        results += try measureBooks(size: size)
        results += try measureShapes(size: size)
        return results
    }

    /// Books in folders (each folder's list appended to, a place per book) against the
    /// same books in no folder.
    func measureBooks(size: Int) throws -> [ObjectIO] {
        var results: [ObjectIO] = []
        let empty = "\(work)/books-empty.sqlite",
            models = try emptyStore("Library", yaml: libraryModel, at: "\(work)/books-empty.sqlite")
        let folders = "\(work)/folders.jsonl", folderCount = max(1, size / 10_000)
        try (1...folderCount).map { #"{"_pk":\#($0),"title":"Folder \#($0)"}"# }.joined(separator: "\n").write(
            toFile: folders, atomically: true, encoding: .utf8)
        for ordered in [false, true] {
            let lines = "\(work)/books-\(size)-\(ordered).jsonl", target = "\(work)/books.sqlite",
                raw = "\(work)/books-raw.sqlite"
            try writeBookLines(size, folders: ordered ? folderCount : nil, to: lines)
            for path in [target, raw] {
                try copy(empty, path)
                _ = run(migrate, ["load", path, "Folder", folders, "--models", models])
            }
            let load = run(migrate, ["load", target, "Book", lines, "--models", models])
            let pythonLoad = python(pythonLoadBooks, [raw, lines, ordered ? "1" : "0"])
            let dump = run(migrate, ["dump", target, "Book", "--models", models], output: "\(work)/dumped.jsonl")
            let pythonDump = python(pythonDumpBooks, [raw, "\(work)/books-python.jsonl"])
            let m = Self.measured(
                size, ordered ? "books in ordered folders" : "books in no folder", load: load, pythonLoad: pythonLoad,
                dump: dump,
                pythonDump: pythonDump)
            results.append(m)
            report(m, what: ordered ? "books, \(folderCount) ordered folders" : "books, no folder")
            for path in [lines, target, raw, "\(work)/books-python.jsonl"] {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        for path in [empty, folders, "\(work)/dumped.jsonl"] { try? FileManager.default.removeItem(atPath: path) }
        return results
    }

    func report(_ m: ObjectIO, what: String) {
        for (verb, seconds, python, cpu, pythonCPU, memory, status) in [
            ("load", m.loadSeconds, m.pythonLoadSeconds, m.loadCPU, m.pythonLoadCPU, m.loadPeakMB, m.loadStatus),
            ("dump", m.dumpSeconds, m.pythonDumpSeconds, m.dumpCPU, m.pythonDumpCPU, m.dumpPeakMB, m.dumpStatus),
        ] where verb == "load" || m.measuresDump {
            print(
                String(
                    format:
                        "%9d  %@ %-36@ %7.3f s  Python %7.3f s  %5.2f×  CPU %6.2f s / %6.2f s %5.2f×  peak %5.1f MB%@",
                    m.people,
                    verb as NSString, what as NSString, seconds, python, python / seconds, cpu, pythonCPU,
                    pythonCPU / cpu, memory,
                    status == 0 ? "" : "  FAILED (exit \(status))"))
        }
    }

    /// The lines `migrate dump` writes for the benchmark's people.
    func writePeopleLines(_ count: Int, to path: String) throws {
        try writeLines(count, to: path) { pk in
            let first = ["Ann", "José", "Zoë", "Łukasz", "Mei", "Ana María"],
                last = ["Smith", "García", "da Silva", "Ng", "Müller"]
            let name = pk % 11 == 0 ? first[pk % first.count] : "\(first[pk % first.count]) \(last[pk % last.count])"
            let age = pk % 5 == 0 ? "null" : String(18 + pk % 70), city = pk % 3 == 0 ? "null" : "\"Lisbon\""
            return
                #"""
                {"_pk":\#(pk),"_entity":"Person","age":\#(age),"city":\#(city),"email":"p\#(pk)@example.com",\#
                "fullName":"\#(name)","score":0}
                """#
        }
    }

    /// Books as `dump` writes them, in folders `1...folders` in turn (no `_position`:
    /// each joins the end of its folder's list).
    func writeBookLines(_ count: Int, folders: Int?, to path: String) throws {
        try writeLines(count, to: path) { pk in
            let folder = folders.map { #""folder":\#(pk % $0 + 1),"# } ?? ""
            let rating = pk % 7 == 0 ? "null" : String(Double(pk % 50) / 10)
            return
                #"""
                {"_pk":\#(pk),"_entity":"Book",\#(folder)"pages":\#(pk % 900),"rating":\#(rating),\#
                "read":\#(pk % 2 == 0),"title":"Book \#
                \#(pk)"}
                """#
        }
    }

    func writeLines(_ count: Int, to path: String, _ line: (Int) -> String) throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        var text = ""
        for pk in 1...count {
            text += line(pk) + "\n"
            if text.utf8.count > 1 << 20 {
                try handle.write(contentsOf: Data(text.utf8))
                text = ""
            }
        }
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }

    /// Copies a store and flushes the copy to disk.
    func copy(_ from: String, _ to: String) throws {
        try? FileManager.default.removeItem(atPath: to)
        try FileManager.default.copyItem(atPath: from, toPath: to)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: to))
        try handle.synchronize()
        try handle.close()
    }

    /// The targets: every case ≥ 1.5× Python both ways, < 64 MB, and books in ordered
    /// folders within 2× of the same books in none.
    static func targets(_ cases: [ObjectIO]) -> [(String, Bool, String)] {
        guard let size = cases.map(\.people).max() else { return [] }
        var targets: [(String, Bool, String)] = []
        // Judged on CPU time (user + system), which other work on the machine moves far
        // less than wall-clock time; both are shown.
        for m in cases where m.people == size {
            for (verb, speed, cpu, pythonCPU, wall) in [
                ("load", m.loadCPUSpeed, m.loadCPU, m.pythonLoadCPU, m.loadSpeed),
                ("dump", m.dumpCPUSpeed, m.dumpCPU, m.pythonDumpCPU, m.dumpSpeed),
            ] where verb == "load" || m.measuresDump {
                targets.append(
                    (
                        "\(verb) (\(m.shape)): ≥ 1.5× the speed of the Python loop at \(size)", speed >= 1.5,
                        String(
                            format: "%.2f× in CPU time (%.2f s against %.2f s); %.2f× in wall-clock time", speed, cpu,
                            pythonCPU, wall)
                    ))
            }
        }
        let peak = cases.filter { $0.people == size }.map { max($0.loadPeakMB, $0.dumpPeakMB) }.max() ?? 0
        targets.append(
            ("load and dump: peak resident memory ≤ 64 MB at \(size)", peak <= 64, String(format: "%.1f MB", peak)))
        if let inLists = cases.first(where: { $0.people == size && $0.shape == "books in ordered folders" }),
            let alone = cases.first(where: { $0.people == size && $0.shape == "books in no folder" })
        {
            let ratio = inLists.loadCPU / alone.loadCPU
            targets.append(
                (
                    "load: books in ordered folders within 2× of the same books in none at \(size)", ratio <= 2,
                    String(
                        format: "%.2f× in CPU time (%.2f s against %.2f s); %.2f× in wall-clock time", ratio,
                        inLists.loadCPU, alone.loadCPU,
                        inLists.loadSeconds / alone.loadSeconds)
                ))
        }
        return targets
    }

    /// The Markdown table of the cases.
    static func markdown(_ cases: [ObjectIO]) -> String {
        var text =
            "\n| objects | lines | load s | Python s | speed (CPU) | dump s | Python s | speed (CPU) | peak MB |\n"
        text += "|---:|---|---:|---:|---:|---:|---:|---:|---:|\n"
        for m in cases where m.measuresDump {
            text += String(
                format: "| %d | %@ | %.3f | %.3f | %.2f× (%.2f×) | %.3f | %.3f | %.2f× (%.2f×) | %.1f |\n", m.people,
                m.shape as NSString,
                m.loadSeconds, m.pythonLoadSeconds, m.loadSpeed, m.loadCPUSpeed, m.dumpSeconds, m.pythonDumpSeconds,
                m.dumpSpeed,
                m.dumpCPUSpeed, max(m.loadPeakMB, m.dumpPeakMB))
        }
        for m in cases where !m.measuresDump {
            text += String(
                format: "| %d | %@ | %.3f | %.3f | %.2f× (%.2f×) | — | — | — | %.1f |\n", m.people, m.shape as NSString,
                m.loadSeconds,
                m.pythonLoadSeconds, m.loadSpeed, m.loadCPUSpeed, m.loadPeakMB)
        }
        return text
    }
}
