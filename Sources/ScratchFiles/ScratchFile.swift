import Foundation

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// Temporary files and folders named after the process that owns them, so that any
/// later run of any command recognises one a killed run left behind, removes it once
/// its owner is gone, and says so.
///
/// A scratch name is the name it stands in for, then the marker, the purpose, the
/// owner's process id, start time and PID namespace, and a random token:
///
///     App.sqlite.mm-scratch.backup.4127.88123456.4026531836.9f2c01ab
///
/// The start time (the `starttime` field of `/proc/PID/stat`, clock ticks since
/// boot; 0 where there is no `/proc`) tells a dead owner from a new process that
/// was given the same id. SQLite's side files of a scratch store
/// (`…9f2c01ab-journal`) are recognised with it.
package enum ScratchFile {
    /// What every scratch name holds.
    package static let marker = ".mm-scratch."

    /// A scratch entry that a sweep removed: its path, what it was for and the
    /// process that made it.
    package struct Removed: Sendable, Hashable, CustomStringConvertible {
        /// The path removed (a file, or a folder and what it held).
        package var path: String
        /// What the owner made it for (`backup`, `read`, `restore`, …).
        package var purpose: String
        /// The owner's process id.
        package var pid: Int32

        /// `PATH (a backup copy left by migrate process 4127, which is gone)`.
        package var description: String {
            "\(path) (\(ScratchFile.noun(purpose)) left by migrate process \(pid), which is gone)"
        }
    }

    /// The scratch name for `name` (a file name, not a path) made for `purpose`
    /// (letters only) by this process.
    package static func name(for name: String, purpose: String) -> String {
        precondition(!purpose.isEmpty && purpose.allSatisfy(\.isLetter), "a scratch purpose is letters only")
        let token = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        return "\(name)\(marker)\(purpose).\(getpid()).\(startTime(of: getpid()) ?? 0).\(namespace).\(token)"
    }

    /// A scratch path beside `path` (in its folder) for `purpose`.
    package static func path(beside path: String, purpose: String) -> String {
        let folder = PathText.parent(of: path)
        let name = self.name(for: (path as NSString).lastPathComponent, purpose: purpose)
        return folder.isEmpty ? name : (folder as NSString).appendingPathComponent(name)
    }

    /// A scratch path in the temporary folder (`$TMPDIR`, else `/tmp`).
    package static func temporaryPath(named name: String, purpose: String) -> String {
        (temporaryFolder as NSString).appendingPathComponent(self.name(for: name, purpose: purpose))
    }

    /// `$TMPDIR`, else `/tmp`.
    package static var temporaryFolder: String {
        let folder = NSTemporaryDirectory()
        return folder.isEmpty ? "/tmp" : folder
    }

    /// The owner's id, start time, PID namespace and purpose of a scratch name, or
    /// nil when `name` is not one.
    package static func owner(ofName name: String) -> (pid: Int32, start: UInt64, namespace: UInt64, purpose: String)? {
        guard let range = name.range(of: marker, options: .backwards) else { return nil }
        let parts = name[range.upperBound...].split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 5, let pid = Int32(parts[1]), pid > 0, let start = UInt64(parts[2]),
            let namespace = UInt64(parts[3])
        else { return nil }
        let token = parts[4].split(separator: "-", maxSplits: 1).first ?? ""
        guard !token.isEmpty, token.allSatisfy(\.isHexDigit), !parts[0].isEmpty else { return nil }
        return (pid, start, namespace, String(parts[0]))
    }

    /// The inode of this process's PID namespace (`/proc/self/ns/pid`; 0 where there
    /// is none): a process id means something only in its own namespace.
    package static let namespace: UInt64 = {
        var info = stat()
        return stat("/proc/self/ns/pid", &info) == 0 ? UInt64(info.st_ino) : 0
    }()

    /// True when the process that made a scratch entry is gone: no process has its
    /// id, or the one that has it started at another time (the id was reused). An
    /// owner in another PID namespace (a container sharing the folder) is never
    /// judged gone: its id names no process here.
    package static func ownerIsGone(pid: Int32, start: UInt64, namespace: UInt64 = ScratchFile.namespace) -> Bool {
        if namespace != Self.namespace { return false }
        if pid == getpid() { return false }
        if kill(pid, 0) != 0 {
            // EPERM: it lives, under another user.
            return errno == ESRCH
        }
        guard start != 0, let now = startTime(of: pid) else { return false }
        return now != start
    }

    /// Removes, in `folder`, every scratch entry whose owner is gone, and returns
    /// them (also kept for ``takeRemoved()``). Entries of live processes, and
    /// anything that is not a scratch name, are left alone. Never throws: a folder
    /// that cannot be listed has nothing this run can clean.
    @discardableResult
    package static func sweep(folder: String) -> [Removed] {
        guard let names = scratchNames(in: folder.isEmpty ? "." : folder) else { return [] }
        var removed: [Removed] = []
        for name in names {
            guard let owner = owner(ofName: name),
                ownerIsGone(pid: owner.pid, start: owner.start, namespace: owner.namespace)
            else {
                continue
            }
            let path = folder.isEmpty ? name : (folder as NSString).appendingPathComponent(name)
            guard (try? FileManager.default.removeItem(atPath: path)) != nil else { continue }
            removed.append(Removed(path: path, purpose: owner.purpose, pid: owner.pid))
        }
        // SQLite's side files of a scratch store go with it, unnamed.
        let paths = Set(removed.map(\.path))
        removed.removeAll { entry in
            ["-journal", "-wal", "-shm"].contains {
                entry.path.hasSuffix($0) && paths.contains(String(entry.path.dropLast($0.count)))
            }
        }
        if !removed.isEmpty { record.withLock { $0.append(contentsOf: removed) } }
        return removed
    }

    /// The names in `folder` that hold the marker, sorted; nil when it cannot be read.
    ///
    /// Every command sweeps the temporary folder, which on a server holds thousands of
    /// entries: a name is looked at as the bytes `readdir` gives, and only one holding
    /// the marker becomes a `String`.
    private static func scratchNames(in folder: String) -> [String]? {
        guard let directory = opendir(folder) else { return nil }
        defer { closedir(directory) }
        let pattern = Array(marker.utf8)
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw -> String? in
                let bytes = raw.bindMemory(to: UInt8.self)
                let length = bytes.firstIndex(of: 0) ?? bytes.count
                guard contains(pattern, in: UnsafeBufferPointer(rebasing: bytes[..<length])) else { return nil }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<length]), as: UTF8.self)
            }
            if let name { names.append(name) }
        }
        return names.sorted()
    }

    /// Whether `bytes` holds `pattern` (a few bytes, in a short name).
    private static func contains(_ pattern: [UInt8], in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = pattern.first, bytes.count >= pattern.count else { return false }
        var index = 0
        while index <= bytes.count - pattern.count {
            if bytes[index] == first && pattern.indices.allSatisfy({ bytes[index + $0] == pattern[$0] }) {
                return true
            }
            index += 1
        }
        return false
    }

    /// Sweeps the folder `path` lies in (``sweep(folder:)``).
    @discardableResult
    package static func sweep(beside path: String) -> [Removed] {
        sweep(folder: PathText.parent(of: path))
    }

    /// Every entry the sweeps of this run removed since the last call, for the
    /// command line to say so once.
    package static func takeRemoved() -> [Removed] {
        record.withLock { list in
            defer { list.removeAll() }
            return list
        }
    }

    /// Where the sweeps of this thread's run keep what they removed: the run's own
    /// (``ThreadInherited``), else the process's.
    private static var record: Record {
        (ThreadInherited.value as? any ScratchRemovals)?.scratchRemoved ?? processRecord
    }

    /// What a scratch entry of `purpose` was, in words.
    static func noun(_ purpose: String) -> String {
        switch purpose {
        case "backup": "a partial backup copy"
        case "restore": "a partial restored copy"
        case "read": "a private copy made to read a store"
        case "create": "a store being created"
        case "import": "an import's unfinished output"
        case "export": "an export's unfinished output"
        default: "a temporary \(purpose) file"
        }
    }

    /// The process's start time in clock ticks since boot, from `/proc/PID/stat`
    /// (field 22, after the command name in parentheses, which may hold spaces).
    package static func startTime(of pid: Int32) -> UInt64? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
            let text = String(data: data, encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state), so field 22 is fields[19].
        guard fields.count > 19 else { return nil }
        return UInt64(fields[19])
    }

    /// The removals of a thread that works for no run of its own, for ``takeRemoved()``.
    private static let processRecord = Record()

    /// A list of removed entries behind a lock: the sweeps may run on fleet workers'
    /// threads.
    package final class Record: @unchecked Sendable {
        // @unchecked: every access to `list` holds `lock`.
        private let lock = NSLock()
        private var list: [ScratchFile.Removed] = []

        package init() {}

        func withLock<T>(_ body: (inout [ScratchFile.Removed]) -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body(&list)
        }
    }
}

/// A run of the tool that keeps what its sweeps removed (``ThreadInherited``'s value).
package protocol ScratchRemovals: AnyObject {
    /// What this run's sweeps removed and have not said yet.
    var scratchRemoved: ScratchFile.Record { get }
}
