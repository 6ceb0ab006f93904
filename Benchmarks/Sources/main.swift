// `make bench`: migration speed and memory against the raw-SQL bound, side by side.
//
// For each store size it generates a Core Data-style store of a benchmark model
// (people with three posts each), then for every hop kind migrates one copy with
// the release-built `migrate apply` (a child process, so its peak resident memory
// is measured alone) and runs the hand-written SQL a database engineer would write
// for the same change on another copy, in this process through the SQLite C API.
//
//     Benchmarks [--quick] [--sizes 10000,1000000] --migrate PATH [--work DIR] [--results DIR] [--only TEXT]
//                [--keep] [--rewrite-rows N]
//
// `--only TEXT` runs the hops whose name contains TEXT (`--only load`: the load and
// dump measurements alone, at sizes up to 1 M: four line shapes and books in ordered
// folders, each against Python's loops, ObjectIO.swift); `--keep` leaves the
// generated stores in the work folder (people-N.sqlite) for a closer look.
import DataModel
import Foundation
import ModelMigration
import SQLiteStore

// MARK: Options

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
    let arguments = Array(CommandLine.arguments.dropFirst())
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}
let quick = arguments.contains("--quick")
let sizes: [Int] =
    option("--sizes").map { $0.split(separator: ",").compactMap { Int($0) } }
    ?? (quick ? [10_000, 1_000_000] : [10_000, 1_000_000, 10_000_000])
guard let migrate = option("--migrate") else {
    let usage = "usage: Benchmarks [--quick] [--sizes N,N] --migrate PATH [--work DIR] [--results DIR]\n"
    try? FileHandle.standardError.write(contentsOf: Data(usage.utf8))
    exit(64)
}
let work = option("--work") ?? "Benchmarks/work"
/// `--only TEXT`: the hops whose name contains TEXT (to look at one closely).
let only = option("--only")
let resultsFolder = option("--results") ?? "Benchmarks/results"
try? FileManager.default.removeItem(atPath: work)
try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
try FileManager.default.createDirectory(atPath: resultsFolder, withIntermediateDirectories: true)

// MARK: The benchmark model: version 1 and, per hop kind, the version after it

// What real models have: an indexed attribute and a uniqueness constraint on the
// table most hops change, a many-to-many (posts and tags, a join table with a row
// per post), a one-to-many with its foreign-key index, and a hierarchy (items and
// books in one table). Entity numbers in a new store: Item 1, Book 2, Person 3,
// Post 4, Tag 5; the join table is Z_4TAGS (Z_4POSTS, Z_5TAGS).
let baseModel = """
      Person:
        attributes:
          fullName: string
          email: { type: string, indexed: true }
          age: integer16?
          city: string?
          score: { type: integer32, default: 0 }
        relationships:
          posts: { destination: Post, toMany: true, inverse: author }
        uniqueness: [[email]]
      Post:
        attributes:
          title: string
          body: string?
          pages: string?
        relationships:
          author: { destination: Person, inverse: posts }
          tags: { destination: Tag, toMany: true, inverse: posts }
      Tag:
        attributes:
          name: string
        relationships:
          posts: { destination: Post, toMany: true, inverse: tags }
        uniqueness: [[name]]
      Item:
        attributes:
          label: { type: string, indexed: true }
      Book:
        parent: Item
        attributes:
          pages: integer32?
    """

func version(_ n: Int, _ entities: String) -> String { "model: Bench\nversion: \(n)\nentities:\n\(entities)\n" }

struct Hop {
    var name: String
    var kind: String  // "additive", "rewrite", "policy"
    var versions: [String]  // YAML of versions 2, 3, … (version 1 is `base`)
    var mapping: (String, String)?  // a mapping file (name, text)
    var bound: [String]  // the raw-SQL bound
    var rows: @Sendable (Int) -> Int  // rows the change concerns, for rows/s
    var python: String? = nil  // the same change as a row-by-row Python sqlite3 loop
}

let base = baseModel
let people: @Sendable (Int) -> Int = { $0 }
/// The two indexes of ZPERSON, as a hand-written rebuild recreates them.
let personIndexes = [
    #"CREATE INDEX "ZPERSON_ZEMAIL_INDEX" ON "ZPERSON" ("ZEMAIL")"#,
    #"CREATE UNIQUE INDEX "Z_Person_UNIQUE_email" ON "ZPERSON" ("ZEMAIL")"#,
]
let withNickname = base.replacingOccurrences(
    of: "      city: string?\n", with: "      city: string?\n      nickname: string?\n")
let withViews = withNickname.replacingOccurrences(
    of: "      body: string?\n", with: "      body: string?\n      views: integer64?\n")
let withNote = withViews + "\n  Note:\n    attributes:\n      text: string\n"
/// SplitFullName as a Python programmer would write it with the sqlite3 module:
/// stream the rows, split each name, executemany into the new table, drop, rename,
/// rebuild the two email indexes, one transaction.
let pythonSplit = #"""
    import sqlite3, sys
    PARTICLES = {"da","das","de","del","della","der","di","do","dos","du","la","le","ten","ter","van","von","bin","al"}
    def split(name):
        words = (name or "").split()
        if not words: return "", ""
        if len(words) == 1: return words[0], ""
        i = len(words) - 1
        while i > 1 and words[i - 1] in PARTICLES: i -= 1
        return " ".join(words[:i]), " ".join(words[i:])
    c = sqlite3.connect(sys.argv[1], isolation_level=None)
    c.execute("BEGIN IMMEDIATE")
    c.execute("CREATE TABLE N (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAGE INTEGER, ZSCORE \#
    INTEGER, ZCITY VARCHAR, ZEMAIL VARCHAR, \#
    ZFIRSTNAME VARCHAR, ZLASTNAME VARCHAR)")
    def rows():
        for pk, ent, opt, age, score, city, email, full in c.execute("SELECT Z_PK, Z_ENT, Z_OPT, ZAGE, ZSCORE, \#
    ZCITY, ZEMAIL, ZFULLNAME \#
    FROM ZPERSON ORDER BY Z_PK"):
            first, last = split(full)
            yield (pk, ent, opt, age, score, city, email, first, last)
    c.executemany("INSERT INTO N VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows())
    c.execute("DROP TABLE ZPERSON")
    c.execute("ALTER TABLE N RENAME TO ZPERSON")
    c.execute('CREATE INDEX "ZPERSON_ZEMAIL_INDEX" ON "ZPERSON" ("ZEMAIL")')
    c.execute('CREATE UNIQUE INDEX "Z_Person_UNIQUE_email" ON "ZPERSON" ("ZEMAIL")')
    c.execute("COMMIT")
    """#
let hops: [Hop] = [
    Hop(
        name: "add an attribute (indexed, unique table)", kind: "additive",
        versions: [withNickname],
        bound: ["ALTER TABLE ZPERSON ADD COLUMN ZNICKNAME VARCHAR"], rows: people),
    Hop(
        name: "add an attribute (many-to-many side)", kind: "additive",
        versions: [
            base.replacingOccurrences(
                of: "      body: string?\n", with: "      body: string?\n      views: integer64?\n")
        ],
        bound: ["ALTER TABLE ZPOST ADD COLUMN ZVIEWS INTEGER"], rows: { $0 * 3 }),
    Hop(
        name: "add an entity", kind: "additive",
        versions: [base + "\n  Note:\n    attributes:\n      text: string\n"],
        bound: [
            "CREATE TABLE ZNOTE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTEXT VARCHAR)",
            "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (6, 'Note', 0, 0)",
        ], rows: people),
    Hop(
        name: "rename an attribute (indexed, unique table)", kind: "additive",
        versions: [
            base.replacingOccurrences(
                of: "      city: string?\n", with: "      town: { type: string, optional: true, renamedFrom: city }\n")
        ],
        bound: ["ALTER TABLE ZPERSON RENAME COLUMN ZCITY TO ZTOWN"], rows: people),
    Hop(
        name: "additive chain v1 → v4 (three hops)", kind: "additive",
        versions: [withNickname, withViews, withNote],
        bound: [
            "ALTER TABLE ZPERSON ADD COLUMN ZNICKNAME VARCHAR", "ALTER TABLE ZPOST ADD COLUMN ZVIEWS INTEGER",
            "CREATE TABLE ZNOTE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTEXT VARCHAR)",
            "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (6, 'Note', 0, 0)",
        ], rows: people),
    Hop(
        name: "drop an attribute", kind: "rewrite",
        versions: [base.replacingOccurrences(of: "      city: string?\n", with: "")],
        bound: ["ALTER TABLE ZPERSON DROP COLUMN ZCITY"], rows: people),
    Hop(
        name: "widen a type (integer16 → double)", kind: "rewrite",
        versions: [base.replacingOccurrences(of: "      age: integer16?\n", with: "      age: double?\n")],
        bound: [
            """
            CREATE TABLE N (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAGE FLOAT, ZSCORE INTEGER, ZCITY \
            VARCHAR, ZEMAIL VARCHAR, ZFULLNAME VARCHAR)
            """,
            """
            INSERT INTO N SELECT Z_PK, Z_ENT, Z_OPT, CAST(ZAGE AS REAL), ZSCORE, ZCITY, ZEMAIL, ZFULLNAME FROM ZPERSON
            """,
            "DROP TABLE ZPERSON", "ALTER TABLE N RENAME TO ZPERSON",
        ] + personIndexes, rows: people),
    Hop(
        name: "make an attribute required with a default", kind: "rewrite",
        versions: [
            base.replacingOccurrences(
                of: "      city: string?\n", with: "      city: { type: string, default: \"\" }\n")
        ],
        bound: ["UPDATE ZPERSON SET ZCITY = '' WHERE ZCITY IS NULL"], rows: people),
    Hop(
        name: "move an entity into a hierarchy", kind: "rewrite",
        versions: [
            base.replacingOccurrences(
                of: "  Person:\n", with: "  Party:\n    abstract: true\n  Person:\n    parent: Party\n")
        ],
        // The table takes the root's name, so do its indexes: the same end schema.
        bound: [
            "ALTER TABLE ZPERSON RENAME TO ZPARTY", #"DROP INDEX "ZPERSON_ZEMAIL_INDEX""#,
            #"DROP INDEX "Z_Person_UNIQUE_email""#,
            #"CREATE INDEX "ZPARTY_Z_ENT_INDEX" ON "ZPARTY" ("Z_ENT")"#,
            #"CREATE INDEX "ZPARTY_ZEMAIL_INDEX" ON "ZPARTY" ("ZEMAIL")"#,
            #"CREATE UNIQUE INDEX "Z_Person_UNIQUE_email" ON "ZPARTY" ("ZEMAIL") WHERE Z_ENT IN (3)"#,
            "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (6, 'Party', 0, 0)",
            "UPDATE Z_PRIMARYKEY SET Z_SUPER = 6 WHERE Z_ENT = 3",
        ], rows: people),
    Hop(
        name: "fused v1 → v3 chain (add, then drop)", kind: "rewrite",
        versions: [
            withNickname, base.replacingOccurrences(of: "      city: string?\n", with: "      nickname: string?\n"),
        ],
        bound: ["ALTER TABLE ZPERSON ADD COLUMN ZNICKNAME VARCHAR", "ALTER TABLE ZPERSON DROP COLUMN ZCITY"],
        rows: people),
    Hop(
        name: "mapping-file expressions (lowercase, parse)", kind: "rewrite",
        versions: [base.replacingOccurrences(of: "      pages: string?\n", with: "      pages: integer32?\n")],
        mapping: (
            "1-to-2.yaml",
            "entities:\n  Post:\n    properties:\n      title: { value: \"lowercase:($source.title)\" }\n"
                + "      pages: { value: \"CAST($source.pages, 'NSNumber')\" }\n"
        ),
        // What a database engineer writes: SQLite's own lower() and CAST (ASCII
        // data, so they agree with NSString's lowercase and integerValue here).
        bound: [
            """
            CREATE TABLE N (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHOR INTEGER, ZPAGES INTEGER, \
            ZBODY VARCHAR, ZTITLE VARCHAR)
            """,
            """
            INSERT INTO N SELECT Z_PK, Z_ENT, Z_OPT, ZAUTHOR, CAST(ZPAGES AS INTEGER), ZBODY, lower(ZTITLE) FROM ZPOST
            """,
            "DROP TABLE ZPOST", "ALTER TABLE N RENAME TO ZPOST",
            #"CREATE INDEX "ZPOST_ZAUTHOR_INDEX" ON "ZPOST" ("ZAUTHOR")"#,
        ],
        rows: { $0 * 3 }),
    Hop(
        name: "SplitFullName policy", kind: "policy",
        versions: [
            base.replacingOccurrences(
                of: "      fullName: string\n",
                with:
                    """
                          firstName: { type: string, default: \"\" }\n      lastName: { type: string, default: \"\" }\n
                    """
            )
        ],
        mapping: (
            "1-to-2.yaml",
            """
            entities:\n  Person:\n    policy: SplitFullName\n    properties:\n      firstName: policy\n      lastName: \
            policy\n
            """
        ),
        // Pure SQL: everything up to the last space is the first name.
        bound: [
            """
            CREATE TABLE N (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAGE INTEGER, ZSCORE INTEGER, \
            ZCITY VARCHAR, ZEMAIL VARCHAR, ZFIRSTNAME VARCHAR, ZLASTNAME VARCHAR)
            """,
            """
            INSERT INTO N SELECT Z_PK, Z_ENT, Z_OPT, ZAGE, ZSCORE, ZCITY, ZEMAIL, trim(rtrim(ZFULLNAME, \
            replace(ZFULLNAME, ' ', ''))), substr(ZFULLNAME, length(rtrim(ZFULLNAME, replace(ZFULLNAME, ' ', ''))) + \
            1) FROM ZPERSON
            """,
            "DROP TABLE ZPERSON", "ALTER TABLE N RENAME TO ZPERSON",
        ] + personIndexes, rows: people, python: pythonSplit),
    Hop(
        name: "SplitFullName policy functions", kind: "functions",
        versions: [
            base.replacingOccurrences(
                of: "      fullName: string\n",
                with:
                    """
                          firstName: { type: string, default: \"\" }\n      lastName: { type: string, default: \"\" }\n
                    """
            )
        ],
        // The policy's Swift functions called inside the set-based copy.
        mapping: (
            "1-to-2.yaml",
            "entities:\n  Person:\n    policy: SplitFullName\n    properties:\n"
                + "      firstName: { value: \"FUNCTION($entityPolicy, 'firstNameFrom:', $source.fullName)\" }\n"
                + "      lastName: { value: \"FUNCTION($entityPolicy, 'lastNameFrom:', $source.fullName)\" }\n"
        ),
        bound: [
            """
            CREATE TABLE N (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAGE INTEGER, ZSCORE INTEGER, \
            ZCITY VARCHAR, ZEMAIL VARCHAR, ZFIRSTNAME VARCHAR, ZLASTNAME VARCHAR)
            """,
            """
            INSERT INTO N SELECT Z_PK, Z_ENT, Z_OPT, ZAGE, ZSCORE, ZCITY, ZEMAIL, trim(rtrim(ZFULLNAME, \
            replace(ZFULLNAME, ' ', ''))), substr(ZFULLNAME, length(rtrim(ZFULLNAME, replace(ZFULLNAME, ' ', ''))) + \
            1) FROM ZPERSON
            """,
            "DROP TABLE ZPERSON", "ALTER TABLE N RENAME TO ZPERSON",
        ] + personIndexes, rows: people, python: pythonSplit),
]
// `--rewrite-rows N`: one rebuild at N rows, its audit included, alone (RewriteAtScale.swift; `make bench-rewrite`).
if let rows = option("--rewrite-rows").flatMap({ Int($0) }) {
    exit(try RewriteAtScale(migrate: migrate, work: work, rows: rows).measure(hops))
}

// MARK: Object I/O: `load` and `dump` against the Python loops a programmer writes (ObjectIO.swift)

var objectIO: [ObjectIO] = []
if only.map({ "load and dump".contains($0) }) ?? true {
    let bench = ObjectBenchmark(migrate: migrate, work: work, peopleModel: version(1, baseModel))
    for size in sizes where size <= 1_000_000 { objectIO += try bench.measure(size: size) }
}

var measurements: [Measurement] = []
var planSeconds: (Int, Double)?
var progressOverhead: (Int, Double)?
for size in sizes where hops.contains(where: { hop in only.map { hop.name.contains($0) } ?? true }) {
    let store = "\(work)/people-\(size).sqlite"
    let generated = Date()
    try generate(people: size, at: store, work: work, firstHop: hops[0])
    // Written back before anything is timed: otherwise the first hop measured
    // (the only one with `--only`) shares the disk with the store's write-back.
    let generatedStore = try FileHandle(forUpdating: URL(fileURLWithPath: store))
    try generatedStore.synchronize()
    try generatedStore.close()
    print(
        """
        generated \(size) people, \(size * 3) posts in \(String(format: "%.1f", Date().timeIntervalSince(generated))) s
        """
    )
    for (index, hop) in hops.enumerated() where only.map({ hop.name.contains($0) }) ?? true {
        let folder = "\(work)/hop-\(index)"
        try writeModels(hop, into: folder)
        let target = "\(work)/migrated.sqlite", raw = "\(work)/raw.sqlite"
        // An O(1) hop takes tens of milliseconds, most of them process start and the
        // commit's fsyncs, which vary by as much between runs: the best of three
        // (each on a fresh copy) is its time.
        var (status, seconds, memory) = (Int32(0), Double.infinity, 0.0)
        for _ in 0..<(hop.kind == "additive" ? 3 : 1) {
            try copy(store, target)
            let (s, t, m) = run(
                migrate,
                [
                    "apply", target, "--models", folder + "/Models", "--migrations", folder + "/Migrations",
                    "--timeout", "60",
                ])
            (status, seconds, memory) = (s != 0 ? s : status, min(seconds, t), max(memory, m))
        }
        try copy(store, raw)
        let boundSeconds = try bound(hop.bound, on: raw)
        let rows = hop.rows(size)
        var m = Measurement(
            hop: hop.name, kind: hop.kind, people: size, rows: rows, seconds: seconds, boundSeconds: boundSeconds,
            ratio: boundSeconds > 0 ? seconds / boundSeconds : 0, rowsPerSecond: Double(rows) / seconds,
            peakMemoryMB: memory, exitStatus: status)
        if let script = hop.python {
            try copy(store, raw)
            let (pythonStatus, pythonSeconds, _) = run("/usr/bin/env", ["python3", "-c", script, raw])
            if pythonStatus == 0 {
                m.pythonSeconds = pythonSeconds
            } else {
                print("  the Python loop failed (exit \(pythonStatus))")
            }
        }
        measurements.append(m)
        print(
            String(
                format: "%9d  %-46@ %8.3f s  bound %8.3f s  ratio %6.2f  %10.0f rows/s  peak %6.1f MB%@%@", size,
                hop.name as NSString,
                seconds, boundSeconds, m.ratio, m.rowsPerSecond, memory,
                m.pythonSeconds.map { String(format: "  Python loop %.3f s", $0) } ?? "",
                status == 0 ? "" : "  FAILED (exit \(status))"))
        try? FileManager.default.removeItem(atPath: target)
        try? FileManager.default.removeItem(atPath: raw)
    }
    if size == sizes.max(), only == nil, let index = hops.firstIndex(where: { $0.kind == "rewrite" }) {
        // What reporting rows done within a rebuild costs: the same hop without it.
        let folder = "\(work)/hop-\(index)"
        let target = "\(work)/migrated.sqlite"
        var times: [Bool: [Double]] = [:]
        for round in 0..<4 {
            let quiet = round % 2 == 1
            try copy(store, target)
            let (_, seconds, _) = run(
                migrate,
                ["apply", target, "--models", folder + "/Models", "--migrations", folder + "/Migrations", "--json"]
                    + (quiet ? ["--no-progress"] : []))
            times[quiet, default: []].append(seconds)
            try? FileManager.default.removeItem(atPath: target)
        }
        let with = times[false]!.min()!, without = times[true]!.min()!
        progressOverhead = (size, with / without)
        print(
            String(
                format: "%9d  %-45@ %8.3f s  without %8.3f s  overhead %+.1f%%", size,
                "\(hops[index].name), progress on" as NSString,
                with, without, (with / without - 1) * 100))
    }
    if size == sizes.max(), only == nil {
        let folder = "\(work)/hop-\(hops.firstIndex { $0.name.hasPrefix("fused") }!)"
        _ = run(migrate, ["plan", store, "--models", folder + "/Models", "--migrations", folder + "/Migrations"])
        let (_, seconds, _) = run(
            migrate, ["plan", store, "--models", folder + "/Models", "--migrations", folder + "/Migrations"])
        planSeconds = (size, seconds)
        print(String(format: "%9d  migrate plan (fused chain)                     %8.3f s", size, seconds))
    }
    if !arguments.contains("--keep") { try? FileManager.default.removeItem(atPath: store) }
}

// MARK: Targets

var targets: [(String, Bool, String)] = []
let small = sizes.min()!, large = sizes.max()!
for hop in hops where hop.kind == "additive" {
    guard let a = measurements.first(where: { $0.hop == hop.name && $0.people == small }),
        let b = measurements.first(where: { $0.hop == hop.name && $0.people == large })
    else { continue }
    targets.append(
        (
            "\(hop.name): O(1), time at \(large) within 2× of \(small)", b.seconds <= 2 * a.seconds,
            String(format: "%.3f s vs %.3f s (%.2f×)", b.seconds, a.seconds, b.seconds / a.seconds)
        ))
}
for m in measurements where m.kind == "rewrite" && m.people == large {
    targets.append(("\(m.hop): ≤ 1.10× the SQL bound at \(large)", m.ratio <= 1.10, String(format: "%.2f×", m.ratio)))
}
// The split by policy functions, at every size from 1 M: against the hand-written
// SQL split and the Python loop measured in the same run.
for m in measurements where m.kind == "functions" && m.people >= 1_000_000 {
    let speed = m.boundSeconds / m.seconds
    targets.append(
        (
            "SplitFullName functions: ≥ 0.9× the hand-written SQL split at \(m.people)", speed >= 0.9,
            String(format: "%.2f× (%.3f s against %.3f s)", speed, m.seconds, m.boundSeconds)
        ))
    if let python = m.pythonSeconds {
        targets.append(
            (
                "SplitFullName functions: ≥ 1.3× the Python sqlite3 loop at \(m.people)", python / m.seconds >= 1.3,
                String(format: "%.2f× (%.3f s against %.3f s)", python / m.seconds, m.seconds, python)
            ))
    }
}
for m in measurements where m.kind == "policy" && m.people == large {
    let speed = m.boundSeconds / m.seconds
    targets.append(
        (
            "SplitFullName: ≥ 0.5× the pure-SQL split at \(large)", speed >= 0.5,
            String(format: "%.2f× the bound's speed", speed)
        ))
    if let python = m.pythonSeconds {
        var detail = String(format: "%.2f× (%.3f s against %.3f s)", python / m.seconds, m.seconds, python)
        if python / m.seconds < 2, python / m.boundSeconds < 2 {
            // Say why when the bound itself cannot meet it: the split as one
            // INSERT … SELECT inside SQLite is the fastest this change goes.
            detail += String(
                format:
                    "; why: the pure-SQL split itself is only %.2f× as fast as the loop (%.3f s), so 2× the loop (%.3f "
                    + "s) "
                    + "would be %.2f× the time of SQLite doing the whole split in one INSERT … SELECT, which a "
                    + "row-by-row policy "
                    + "(a statement step per row read and per row written) cannot undercut", python / m.boundSeconds,
                m.boundSeconds,
                python / 2, python / 2 / m.boundSeconds)
        }
        targets.append(
            ("SplitFullName: ≥ 2× as fast as the Python sqlite3 loop at \(large)", python / m.seconds >= 2, detail))
    }
}
targets += ObjectBenchmark.targets(objectIO)
let peak = measurements.filter { $0.people == large }.map(\.peakMemoryMB).max() ?? 0
targets.append(("peak resident memory ≤ 64 MB at \(large) for every hop", peak <= 64, String(format: "%.1f MB", peak)))
if let (size, seconds) = planSeconds {
    targets.append(("migrate plan < 200 ms at \(size)", seconds < 0.2, String(format: "%.0f ms", seconds * 1000)))
}
if let (size, ratio) = progressOverhead {
    targets.append(
        (
            "rows-done progress costs ≤ 3% of a rebuild at \(size)", ratio <= 1.03,
            String(format: "%+.1f%%", (ratio - 1) * 100)
        ))
}
if large < 10_000_000 {
    print("\nnote: the targets are set for 10,000,000 people; this run's largest store has \(large)")
}
print("\ntargets:")
for (name, met, detail) in targets { print("  \(met ? "met    " : "NOT MET") \(name): \(detail)") }

// MARK: Results files

var host = utsname()
uname(&host)
let machine = withUnsafeBytes(of: &host.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
let cores = ProcessInfo.processInfo.activeProcessorCount
let memory = ProcessInfo.processInfo.physicalMemory / 1_073_741_824
let date = ISO8601.format(secondsSinceReferenceDate: Date().timeIntervalSinceReferenceDate)
struct Results: Codable {
    var date: String
    var machine: String
    var sizes: [Int]
    var measurements: [Measurement]
    var planSeconds: Double?
    var objectIO: [ObjectIO]
    var targets: [[String: String]]
}
let results = Results(
    date: date, machine: "\(machine), \(cores) cores, \(memory) GiB", sizes: sizes, measurements: measurements,
    planSeconds: planSeconds?.1, objectIO: objectIO,
    targets: targets.map { ["target": $0.0, "met": $0.1 ? "yes" : "no", "measured": $0.2] })
let encoder = JSONEncoder()
encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
let stamp = String(date.prefix(19)).replacingOccurrences(of: ":", with: "-")
try encoder.encode(results).write(to: URL(fileURLWithPath: "\(resultsFolder)/\(stamp).json"))
var markdown =
    """
    # Benchmark \(date)\n\nMachine: \(results.machine). Sizes: \(sizes.map(String.init).joined(separator: ", ")) \
    people, three posts each.\n\n
    """
markdown +=
    """
    | people | hop | seconds | SQL bound | ratio | rows/s | peak MB | Python loop \
    |\n|---:|---|---:|---:|---:|---:|---:|---:|\n
    """
for m in measurements {
    markdown += String(
        format: "| %d | %@ | %.3f | %.3f | %.2f | %.0f | %.1f | %@ |\n", m.people, m.hop as NSString, m.seconds,
        m.boundSeconds, m.ratio,
        m.rowsPerSecond, m.peakMemoryMB, m.pythonSeconds.map { String(format: "%.3f", $0) } ?? "")
}
if !objectIO.isEmpty { markdown += ObjectBenchmark.markdown(objectIO) }
if let (size, seconds) = planSeconds {
    markdown += String(format: "\n`migrate plan` at %d people: %.0f ms.\n", size, seconds * 1000)
}
markdown +=
    "\n## Targets\n\n" + targets.map { "- \($0.1 ? "met" : "**not met**"): \($0.0) — \($0.2)" }.joined(separator: "\n")
    + "\n"
try markdown.write(toFile: "\(resultsFolder)/\(stamp).md", atomically: true, encoding: .utf8)
try markdown.write(toFile: "\(resultsFolder)/latest.md", atomically: true, encoding: .utf8)
print("\nwrote \(resultsFolder)/\(stamp).json and .md")

// MARK: Validating and compiling a large model (issue 17, item 10)

// 10,000 entities in hierarchies of ten, each with attributes, an inverse pair, a
// uniqueness constraint and an index: every check and the layout must stay
// linear (or n log n) in the entities. Loaded in this process, release-built.
let bigModel = "\(work)/big-model/Big"
try FileManager.default.createDirectory(atPath: bigModel, withIntermediateDirectories: true)
var bigText = "model: Big\nversion: 1\nentities:\n"
for i in 0..<10_000 {
    bigText += "  E\(i):\n" + (i % 10 == 0 ? "" : "    parent: E\(i - i % 10)\n")
    bigText += "    attributes: { name\(i): string, count\(i): integer32, note\(i): string? }\n"
    bigText +=
        "    relationships:\n      next\(i): { destination: E\((i + 1) % 10_000), inverse: prev\((i + 1) % 10_000) }\n"
    bigText +=
        """
              prev\(i): { destination: E\((i + 9_999) % 10_000), inverse: next\((i + 9_999) % 10_000), toMany: true }\n
        """
    bigText += "    uniqueness: [[name\(i)]]\n    indexes: [[count\(i), name\(i)]]\n"
}
try bigText.write(toFile: bigModel + "/1.yaml", atomically: true, encoding: .utf8)
let loadStart = Date()
let bigResult = ModelLoader.load(path: bigModel)
let loadSeconds = Date().timeIntervalSince(loadStart)
let bigEntities = bigResult.models.first?.compiled?.current.entities.count ?? 0
print(
    String(
        format: "\nvalidate + compile %d entities: %.3f s (%@ < 1 s)%@", bigEntities, loadSeconds,
        loadSeconds < 1 ? "met" : "NOT MET", bigResult.hasErrors ? "  FAILED: the model has errors" : ""))
