import Foundation
import ModelMigration

/// A `fleet apply --json` log (JSON Lines, possibly several runs appended): the runs
/// it holds, by run id, and the stores each migrated with the backup it took.
struct FleetLog {
    /// One run of the log.
    struct Run {
        /// Its id (`run` in each record; empty for a log written before runs had ids).
        var id: String
        /// The stores it migrated and kept a backup of, in the log's order.
        var items: [FleetRestorer.Item] = []
        /// The stores it migrated without a backup (no `--backup-dir`).
        var withoutBackup: [String] = []

        /// The id as messages show it.
        var shown: String { id.isEmpty ? "(records without a run id)" : id }
    }

    /// The runs, in the order they first appear.
    var runs: [Run] = []
    /// Lines that are not JSON objects (a line cut short by a killed run).
    var unreadableLines = 0

    /// A new run id: the UTC time and a random part, so that the pods of a sharded
    /// run, all process 1 in their containers, never share one.
    static func newRunID() -> String {
        "\(StoreBackup.stamp(Date()))-\(String(format: "%08x", UInt32.random(in: 0...UInt32.max)))"
    }

    /// The read of the log ended by a stop (a signal) before its end.
    struct Interrupted: Error {}

    /// The log could not be opened or read.
    struct Unreadable: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    /// Reads the log at `path` (`-`: standard input), given up when `stop` stops the
    /// run: a writer that keeps a pipe open must not hold a stopped run.
    init(path: String, stop: FleetStop? = nil) throws {
        var lines = LineReader(path: path, stop: stop, standardInput: Invocation.current.input)
        var index: [String: Int] = [:]
        while let line = lines.next() {
            guard !line.allSatisfy({ $0 == " " }) else { continue }
            guard let record = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                unreadableLines += 1
                continue
            }
            let id = record["run"] as? String ?? ""
            let migrated = record["event"] as? String == "store" && record["status"] as? String == "migrated"
            // A run that migrated nothing is a run too (its summary names it).
            guard migrated || !id.isEmpty else { continue }
            let at = index[id] ?? runs.count
            if at == runs.count {
                index[id] = at
                runs.append(Run(id: id))
            }
            guard migrated, let store = record["store"] as? String else { continue }
            guard let backup = record["backup"] as? String, let version = record["version"] as? Int else {
                runs[at].withoutBackup.append(store)
                continue
            }
            runs[at].items.append(
                FleetRestorer.Item(store: store, backup: backup, version: version, migratedTo: record["target"] as? Int)
            )
        }
        if lines.wasCutShort { throw Interrupted() }
        if let error = lines.error { throw Unreadable(reason: error) }
    }
}
