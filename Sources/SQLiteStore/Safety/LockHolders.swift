import Foundation

/// Who holds SQLite's locks on a store, for messages that say who is in the way.
///
/// SQLite locks byte ranges of the database file (rollback journal) or of its
/// `-shm` file (WAL) with POSIX advisory locks. Linux lists every such lock in
/// `/proc/locks` with the process that holds it; reading that file opens no
/// descriptor on the store, which matters: closing any descriptor of a file drops
/// all of this process's POSIX locks on it, SQLite's included. Elsewhere the
/// answer is empty and messages simply say less.
package enum LockHolders {
    /// One process holding a lock.
    package struct Holder: Sendable, Hashable {
        /// The process id.
        package var pid: Int
        /// True for a write lock (a writer), false for a read lock (a reader).
        package var writes: Bool
    }

    /// Processes other than this one holding locks on the store at `path` or its
    /// `-shm` file.
    package static func of(path: String) -> [Holder] {
        guard let text = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return [] }
        var inodes: Set<UInt64> = []
        for file in [path, path + "-shm"] {
            var info = stat()
            if stat(file, &info) == 0 { inodes.insert(UInt64(info.st_ino)) }
        }
        let me = Int(getpid())
        var found: [Int: Bool] = [:]
        for line in text.split(separator: "\n") {
            // "1: POSIX  ADVISORY  READ  12345 08:01:1234567 1073741826 1073742335"
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "POSIX", let pid = Int(fields[4]), pid != me else { continue }
            let device = fields[5].split(separator: ":")
            guard device.count == 3, let inode = UInt64(device[2]), inodes.contains(inode) else { continue }
            found[pid, default: false] = found[pid, default: false] || fields[3] == "WRITE"
        }
        return found.map { Holder(pid: $0.key, writes: $0.value) }.sorted { $0.pid < $1.pid }
    }

    /// "process 123 (reading), process 456 (writing)", or `nil` when unknown.
    package static func describe(path: String) -> String? {
        let holders = of(path: path)
        guard !holders.isEmpty else { return nil }
        return holders.map { "process \($0.pid) (\($0.writes ? "writing or migrating" : "reading"))" }.joined(
            separator: ", ")
    }
}
