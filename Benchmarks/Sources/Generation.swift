import DataModel
import Foundation
import ModelMigration
import SQLiteStore

// MARK: Store generation (raw SQL through the C API, as fast as SQLite goes)

func writeModels(_ hop: Hop, into folder: String) throws {
    let base = baseModel
    try? FileManager.default.removeItem(atPath: folder)
    try FileManager.default.createDirectory(atPath: folder + "/Models/Bench", withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: folder + "/Migrations/Bench", withIntermediateDirectories: true)
    try version(1, base).write(toFile: folder + "/Models/Bench/1.yaml", atomically: true, encoding: .utf8)
    for (i, text) in hop.versions.enumerated() {
        try version(i + 2, text).write(
            toFile: folder + "/Models/Bench/\(i + 2).yaml", atomically: true, encoding: .utf8)
    }
    if let (name, text) = hop.mapping {
        try text.write(toFile: folder + "/Migrations/Bench/\(name)", atomically: true, encoding: .utf8)
    }
}

func generate(people count: Int, at path: String, work: String, firstHop: Hop) throws {
    let folder = work + "/base-model"
    try writeModels(firstHop, into: folder)
    let model = try ModelLoader.loadModel(path: folder + "/Models", named: "Bench")
    let store = try Store.create(path: path, version: model.version(1)!)
    let c = store.connection
    try c.execute("PRAGMA synchronous = OFF")
    try c.transaction(.exclusive) {
        let person = try c.prepare(
            """
            INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZFULLNAME, ZEMAIL, ZAGE, ZCITY, ZSCORE) VALUES (?, 3, 1, ?, ?, ?, \
            ?, 0)
            """
        )
        let post = try c.prepare(
            "INSERT INTO ZPOST (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZBODY, ZPAGES, ZAUTHOR) VALUES (?, 4, 1, ?, ?, ?, ?)")
        let tagged = try c.prepare("INSERT INTO Z_4TAGS (Z_4POSTS, Z_5TAGS) VALUES (?, ?)")
        let item = try c.prepare("INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZLABEL, ZPAGES) VALUES (?, ?, 1, ?, ?)")
        let first = ["Ann", "José", "Zoë", "Łukasz", "Mei", "Ana María"],
            last = ["Smith", "García", "da Silva", "Ng", "Müller"]
        for pk in 1...count {
            let name = pk % 11 == 0 ? first[pk % first.count] : "\(first[pk % first.count]) \(last[pk % last.count])"
            try person.bind([
                .integer(Int64(pk)), .text(name), .text("p\(pk)@example.com"),
                pk % 5 == 0 ? .null : .integer(Int64(18 + pk % 70)), pk % 3 == 0 ? .null : .text("Lisbon"),
            ])
            try person.execute()
            for k in 0..<3 {
                let key = Int64(pk * 3 + k - 2)
                try post.bind([
                    .integer(key), .text("Post \(key)"), k == 0 ? .null : .text("Body"),
                    k == 2 ? .null : .text("\(key % 400) pages"),
                    .integer(Int64(pk)),
                ])
                try post.execute()
                try tagged.bind([.integer(key), .integer(key % 100 + 1)])
                try tagged.execute()
            }
            if pk % 10 == 0 {
                let book = pk % 20 == 0
                try item.bind([
                    .integer(Int64(pk / 10)), .integer(book ? 2 : 1), .text("item \(pk / 10)"),
                    book ? .integer(Int64(pk % 900)) : .null,
                ])
                try item.execute()
            }
        }
        for tag in 1...100 {
            try c.execute("INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (\(tag), 5, 1, 'tag \(tag)')")
        }
        try c.execute(
            """
            UPDATE Z_PRIMARYKEY SET Z_MAX = \(count) WHERE Z_ENT = 3; UPDATE Z_PRIMARYKEY SET Z_MAX = \(count * 3) \
            WHERE Z_ENT = 4;
            UPDATE Z_PRIMARYKEY SET Z_MAX = 100 WHERE Z_ENT = 5; UPDATE Z_PRIMARYKEY SET Z_MAX = \(count / 10) WHERE \
            Z_ENT IN (1, 2)
            """)
    }
    try store.close()
}

// MARK: Measuring

struct Measurement: Codable {
    var hop: String
    var kind: String
    var people: Int
    var rows: Int
    var seconds: Double
    var boundSeconds: Double
    var ratio: Double
    var rowsPerSecond: Double
    var peakMemoryMB: Double
    var exitStatus: Int32
    /// The same change as a row-by-row Python loop, when the hop has one.
    var pythonSeconds: Double? = nil
}

/// Runs a child process; returns (exit status, seconds, peak resident memory in MB).
func run(_ executable: String, _ args: [String]) -> (Int32, Double, Double) {
    var pid: pid_t = 0
    let argv = ([executable] + args).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    let start = Date()
    guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else { return (-1, 0, 0) }
    var status: Int32 = 0
    var usage = rusage()
    wait4(pid, &status, 0, &usage)
    let seconds = Date().timeIntervalSince(start)
    return ((status >> 8) & 0xff, seconds, Double(usage.ru_maxrss) / 1024)
}

/// Copies a store and flushes the copy to disk, so that neither side of a
/// measurement pays for writing back the copy at its first fsync.
func copy(_ from: String, _ to: String) throws {
    try? FileManager.default.removeItem(atPath: to)
    try FileManager.default.copyItem(atPath: from, toPath: to)
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: to))
    try handle.synchronize()
    try handle.close()
}

func bound(_ sql: [String], on path: String) throws -> Double {
    let connection = try Connection(path: path)
    let start = Date()
    try connection.execute("BEGIN IMMEDIATE")
    for statement in sql { try connection.execute(statement) }
    try connection.execute("COMMIT")
    let seconds = Date().timeIntervalSince(start)
    try connection.close()
    return seconds
}
