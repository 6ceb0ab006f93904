import Foundation
import ScratchFiles

/// The stores of a fleet, listed lazily: files as given, directories searched
/// (recursively) for file names matching a pattern, and list files with one path a
/// line (`-` for standard input). Nothing is collected: a fleet of a million stores
/// is walked one directory entry at a time, so memory does not grow with it.
///
/// Paths are produced as written (a directory's entries joined to the directory
/// as given), which is what shards hash: every process of a sharded run must be
/// given the same arguments.
public struct FleetStoreList: Sequence, Sendable {
    /// Where stores come from.
    public enum Source: Sendable, Hashable {
        /// A store file, or a directory to search.
        case path(String)
        /// A file with one store path a line (`-`: standard input). Blank lines and
        /// lines starting with `#` are skipped.
        case listFile(String)
    }

    /// Where the stores come from, in order.
    public var sources: [Source]
    /// The file-name pattern a store in a searched directory matches (`fnmatch(3)`).
    public var pattern: String
    /// Folders never searched (the backup folder, whose copies are old stores).
    public var excludedFolders: [String]
    /// Only the stores of this shard, if given.
    public var shard: FleetShard?
    /// A stop that ends the reading of standard input (`--stores-from -`): a writer
    /// that keeps the pipe open must not hold a stopped run.
    package var stop: FleetStop?
    /// The descriptor `-` reads: the process's standard input, or a run in process's own.
    package var standardInput: Int32 = STDIN_FILENO

    /// A list of stores.
    public init(
        sources: [Source], pattern: String = "*.sqlite", excludedFolders: [String] = [], shard: FleetShard? = nil
    ) {
        self.sources = sources
        self.pattern = pattern
        self.excludedFolders = excludedFolders.map(Self.standardized)
        self.shard = shard
    }

    /// One entry: a store path, a path to a store listed already (the same file:
    /// same device and inode, symbolic links followed), or a source that could not be
    /// read.
    public enum Entry: Sendable, Hashable {
        case store(String)
        /// `path` reaches the same file as `of`, listed before it: a hard link, a
        /// symbolic link, or the same file listed twice. It is handled once, as `of`.
        case duplicate(path: String, of: String)
        case unreadable(path: String, reason: String)
        /// A listed path that names a backup copy or a kept replaced store
        /// (``FleetStoreList/notAStoreReason(_:)``): reported, never handled.
        case notAStore(path: String, reason: String)

        /// The path the entry names.
        public var path: String {
            switch self {
            case .store(let path), .duplicate(let path, _), .unreadable(let path, _), .notAStore(let path, _): path
            }
        }
    }

    public func makeIterator() -> Iterator { Iterator(list: self) }

    /// Walks the sources one entry at a time.
    public struct Iterator: IteratorProtocol {
        let list: FleetStoreList
        var sourceIndex = 0
        /// Directories still to read, depth first.
        var pendingDirectories: [String] = []
        /// The directory being read.
        var directory: DirectoryCursor?
        /// The list file being read.
        var lines: LineReader?
        /// The files listed so far, to find a store reached by a second path.
        var identities = StoreIdentities()

        init(list: FleetStoreList) { self.list = list }

        public mutating func next() -> Entry? {
            while true {
                if let entry = nextFromDirectory() { return entry }
                if directory != nil || !pendingDirectories.isEmpty { continue }
                if var reader = lines {
                    let line = reader.next()
                    lines = reader
                    if let line {
                        let path = line.trimmingCharacters(in: .whitespaces)
                        if path.isEmpty || path.hasPrefix("#") { continue }
                        if let entry = start(path, fromList: true) { return entry }
                        continue
                    }
                    if let error = reader.error {
                        lines = nil
                        return .unreadable(path: reader.path, reason: error)
                    }
                    lines = nil
                }
                guard sourceIndex < list.sources.count else { return nil }
                let source = list.sources[sourceIndex]
                sourceIndex += 1
                switch source {
                case .path(let path):
                    if let entry = start(path, fromList: false) { return entry }
                case .listFile(let path):
                    lines = LineReader(path: path, stop: list.stop, standardInput: list.standardInput)
                }
            }
        }

        /// A path given by the user or a list: a store, or a directory to search.
        mutating func start(_ path: String, fromList: Bool) -> Entry? {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                // A folder named like a store (`dir.sqlite`, matched by the pattern) was
                // named as a store, not as a place to search: it is a store that fails
                // (not a store file), never silently an empty search.
                let name = (path as NSString).lastPathComponent
                if fnmatch(list.pattern, name, 0) == 0 { return list.owns(path) ? .store(path) : nil }
                if !list.isExcluded(path) { pendingDirectories.append(path) }
                return nil
            }
            // A file given by name is a store whatever its name, but for the names of
            // backups and kept replaced stores (a list `find` made holds them: they are
            // never migrated, nor stop a deploy); a missing one is reported as such
            // (migrate never creates a store it was asked to migrate).
            if let reason = FleetStoreList.notAStoreReason(path) {
                return list.owns(path) ? .notAStore(path: path, reason: reason) : nil
            }
            var info = stat(), link = stat()
            if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
                let isLink = lstat(path, &link) == 0 && (link.st_mode & S_IFMT) == S_IFLNK
                return entry(path, info: info, isLink: isLink)
            }
            return list.owns(path) ? .store(path) : nil
        }

        /// A store file of this shard: new, or reached already by another path.
        /// Duplicates are found before the shard is chosen, so that every shard
        /// agrees on which path of a file is handled (the first one listed).
        mutating func entry(_ path: String, info: stat, isLink: Bool) -> Entry? {
            let first = identities.firstPath(of: path, info: info, isLink: isLink)
            guard list.owns(path) else { return nil }
            return first.map { .duplicate(path: path, of: $0) } ?? .store(path)
        }

        /// The next store of the directory walk, or nil when the walk needs the next
        /// directory (or is over).
        mutating func nextFromDirectory() -> Entry? {
            while true {
                if directory == nil {
                    guard let path = pendingDirectories.popLast() else { return nil }
                    guard let cursor = DirectoryCursor(path: path) else {
                        return .unreadable(path: path, reason: String(cString: strerror(errno)))
                    }
                    directory = cursor
                }
                guard let cursor = directory else { return nil }
                guard let name = cursor.next() else {
                    directory = nil
                    continue
                }
                let path = cursor.path
                if name == "." || name == ".." { continue }
                let child = path.hasSuffix("/") ? path + name : path + "/" + name
                // Symbolic links to folders are not followed (as `find` without -L):
                // a link back up the tree would list its stores again and again.
                // A link to a store file is a store.
                var info = stat()
                guard lstat(child, &info) == 0 else { continue }
                let isLink = (info.st_mode & S_IFMT) == S_IFLNK
                if isLink {
                    guard stat(child, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
                }
                if (info.st_mode & S_IFMT) == S_IFDIR {
                    // Hidden folders (.git, .snapshot) are not searched.
                    if !name.hasPrefix("."), !list.isExcluded(child) { pendingDirectories.append(child) }
                    continue
                }
                // Never a store, whatever the pattern: backups, kept copies of replaced
                // stores (`.replaced/` is hidden; a copy an earlier release kept beside
                // its store is not), and scratch files of this toolkit.
                guard (info.st_mode & S_IFMT) == S_IFREG, fnmatch(list.pattern, name, 0) == 0,
                    !FleetStoreList.isBackupName(name),
                    !ReplacedStore.isKeptName(name), ScratchFile.owner(ofName: name) == nil
                else { continue }
                if let entry = entry(child, info: info, isLink: isLink) { return entry }
            }
        }
    }

    /// Why the file at `path` is never a store, when it is not: its name is a backup
    /// copy's (``isBackupName(_:)``) or a store's that `restore` replaced and kept, or it
    /// lies in a `.replaced/` folder. `status`, `plan`, `apply` and fleets never take it
    /// for a store (Docs/Deploying.md, "Rolling back").
    public static func notAStoreReason(_ path: String) -> String? {
        let name = (path as NSString).lastPathComponent
        let folder = (PathText.parent(of: path) as NSString).lastPathComponent
        if ReplacedStore.isKeptName(name) || folder == ReplacedStore.folderName {
            return "a store `restore` replaced and kept, never a store to migrate (restore it to use it again)"
        }
        if isBackupName(name) {
            return "a backup copy `apply --backup-dir` took, never a store to migrate (restore it to use it again)"
        }
        return nil
    }

    /// Whether a file name is one `apply --backup-dir` gives its copies,
    /// `<store>.v<A>-to-<B>.<yyyyMMddTHHmmssZ>[-<n>].sqlite`: copies of old versions
    /// are never taken for stores to migrate, wherever the backup folder is.
    public static func isBackupName(_ name: String) -> Bool {
        var parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts.removeLast() == "sqlite" else { return false }
        var stamp = parts.removeLast()
        if let dash = stamp.firstIndex(of: "-") {
            guard stamp[stamp.index(after: dash)...].allSatisfy(\.isASCIIDigit),
                stamp.index(after: dash) != stamp.endIndex
            else { return false }
            stamp = stamp[..<dash]
        }
        let hops = parts.removeLast()
        guard stamp.count == 16, stamp.hasSuffix("Z"), stamp.dropFirst(8).first == "T",
            stamp.filter(\.isASCIIDigit).count == 14
        else { return false }
        guard hops.hasPrefix("v") else { return false }
        let versions = hops.dropFirst().components(separatedBy: "-to-")
        return versions.count == 2 && versions.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }
    }

    func owns(_ path: String) -> Bool { shard?.contains(path) ?? true }

    func isExcluded(_ path: String) -> Bool {
        guard !excludedFolders.isEmpty else { return false }
        let standardized = Self.standardized(path)
        return excludedFolders.contains { standardized == $0 || standardized.hasPrefix($0 + "/") }
    }

    static func standardized(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var standardized = (absolute as NSString).standardizingPath
        while standardized.count > 1 && standardized.hasSuffix("/") { standardized.removeLast() }
        return standardized
    }
}

/// One open directory, read an entry at a time; closed when done or dropped.
final class DirectoryCursor {
    let path: String
    private var handle: OpaquePointer?

    init?(path: String) {
        guard let handle = opendir(path) else { return nil }
        self.path = path
        self.handle = handle
    }

    /// The next entry's name, or nil at the end (the directory is then closed).
    func next() -> String? {
        guard let handle else { return nil }
        guard let entry = readdir(handle) else {
            closedir(handle)
            self.handle = nil
            return nil
        }
        return withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }

    deinit { if let handle { closedir(handle) } }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
