import Foundation
import ScratchFiles

/// The files SQLite pairs with a database by name: `<db>-journal` (rollback
/// journal), `<db>-wal` (write-ahead log), `<db>-shm` (its index) and
/// `<db>-mj<hex>` (the super-journal of a transaction over several databases)
/// (https://www.sqlite.org/tempfiles.html).
///
/// SQLite finds them by the database's path, not by the file they were written
/// for: a log left beside a path whose database was removed is replayed (`-wal`)
/// or rolled back (a hot `-journal`) into whatever database is put at that path
/// next (https://www.sqlite.org/atomiccommit.html#hot_journals,
/// https://www.sqlite.org/walformat.html). And a file a command writes under one of
/// those names is reset or deleted by SQLite's next open of the database.
package enum StoreSideFiles {
    /// The logs SQLite replays or rolls back into the database at a path.
    package static let logSuffixes = ["-journal", "-wal"]

    /// Why SQLite would take `candidate` for a file of the database at `store`:
    /// the database itself, or one of its side files (through any symbolic link of
    /// either's folder or of the store); nil when it would not.
    package static func pairing(of candidate: String, with store: String) -> String? {
        let file = resolved(candidate)
        var stores = [absolute(store)]
        let target = resolved(store)
        if target != stores[0] { stores.append(target) }
        for path in stores {
            if file == path { return "it is the store itself" }
            guard file.hasPrefix(path) else { continue }
            let suffix = String(file.dropFirst(path.count))
            switch suffix {
            case "-journal": return "it is where SQLite keeps the store's rollback journal (\(suffix))"
            case "-wal": return "it is where SQLite keeps the store's write-ahead log (\(suffix))"
            case "-shm": return "it is where SQLite keeps the store's write-ahead log index (\(suffix))"
            default:
                if suffix.hasPrefix("-mj") { return "it is where SQLite keeps the store's super-journals (-mj…)" }
            }
        }
        return nil
    }

    /// The logs (`-wal`, `-journal`, not empty) beside a path where no database is:
    /// left by a store that was removed without them. SQLite would apply them to any
    /// database put at that path.
    package static func leftoverLogs(beside path: String) -> [String] {
        var info = stat()
        return logSuffixes.map { path + $0 }.filter { stat($0, &info) == 0 && info.st_size > 0 }
    }

    /// Moves the leftover logs beside `path` (no database there) aside, as
    /// `<path>.leftover.<stamp>[-n].sqlite-wal` (and `-journal`), and removes its
    /// `-shm` index, so that SQLite never applies them to a new database at `path`.
    /// Returns each log's old and new path; throws the failure of a move, naming it.
    package static func setAsideLeftoverLogs(beside path: String, stamp: String) throws(StoreError) -> [(
        from: String, to: String
    )] {
        let logs = leftoverLogs(beside: path)
        guard !logs.isEmpty else { return [] }
        var stem = "\(path).leftover.\(stamp).sqlite"
        var info = stat()
        var sequence = 1
        while logSuffixes.contains(where: { lstat(stem + $0, &info) == 0 }) {
            sequence += 1
            stem = "\(path).leftover.\(stamp)-\(sequence).sqlite"
        }
        var moved: [(from: String, to: String)] = []
        for log in logs {
            let suffix = String(log.dropFirst(path.count))
            guard rename(log, stem + suffix) == 0 else {
                throw StoreError(
                    .permissionDenied, "cannot move the leftover \(log) aside: \(String(cString: strerror(errno)))",
                    path: path)
            }
            moved.append((log, stem + suffix))
        }
        unlink(path + "-shm")
        return moved
    }

    /// The refusal for leftover logs beside a path where a store is to be put.
    package static func refusal(_ logs: [String], advice: String) -> String {
        let names = logs.joined(separator: " and ")
        return """
            \(names) \(logs.count == 1 ? "is" : "are") left beside it by a store that was removed: SQLite would apply \
            \(logs.count == 1 ? "that log" : "those logs") to a new store at this path, which would then hold the \
            removed store's pages; nothing was created (\(advice))
            """
    }

    /// `path` made absolute, its folder's symbolic links resolved (the file itself
    /// may be missing).
    static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let folder = PathText.parent(of: full)
        let name = (full as NSString).lastPathComponent
        guard let real = realpath(folder.isEmpty ? "/" : folder, nil) else {
            return (full as NSString).standardizingPath
        }
        defer { free(real) }
        let resolvedFolder = String(cString: real)
        return resolvedFolder == "/" ? "/" + name : resolvedFolder + "/" + name
    }

    /// `path` with every symbolic link resolved (the file's own too, when it exists).
    static func resolved(_ path: String) -> String {
        if let real = realpath(path, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        return absolute(path)
    }
}
