package import Foundation
import SQLiteStore
import ScratchFiles

/// The copy of a store that `apply` takes before changing it (`--backup PATH`,
/// `--backup-dir DIR`).
///
/// The copy is taken under the migration's own lock, inside its transaction, after
/// the check that the store is still the version planned and before the first
/// write: no other migrator (another process, another path to the same file) can
/// slip in between the check, the copy and the migration, so a backup always holds
/// the version its name says. It is written to a temporary file beside its final
/// name and synced, and takes that name (a hard link: an existing file is never
/// replaced) only when the migration is about to commit. A run that changes nothing
/// (a failed check, a policy error, a dry run, a signal, a store another process
/// migrated first) leaves no backup; a kill leaves at most the temporary file
/// (`temporaryPath`), which the next `apply` or `restore` that looks in the folder
/// removes (`ScratchFile`).
package struct StoreBackup {
    /// Where the backup goes.
    enum Destination {
        /// Exactly this file (`--backup PATH`), which must not exist.
        case file(String)
        /// A new file in `folder`, named after the store and the hop: `folder` is the
        /// store's own folder under `root`, the folder `--backup-dir` names
        /// (`filedFolder(in:for:)`).
        case folder(String, root: String)
    }

    let destination: Destination
    /// The store's file name without `.sqlite`.
    let storeName: String
    let from: Int
    let to: Int
    /// The folders this backup created (deepest first), removed again when they
    /// stay empty because the migration failed and kept no backup.
    private(set) var createdFolders: [String] = []

    /// The folder the backup goes into.
    var folder: String {
        switch destination {
        case .folder(let folder, _): return folder
        case .file(let path):
            let parent = PathText.parent(of: path)
            return parent.isEmpty ? "." : parent
        }
    }

    /// The folder as messages name it: the folder `--backup-dir` names, or the
    /// backup file's folder (the working folder's path for `.`).
    var shown: String {
        if case .folder(_, let root) = destination { return root }
        return folder == "." ? FileManager.default.currentDirectoryPath : folder
    }

    /// Where `--backup-dir ROOT` files the backups of the store at `store`: `ROOT` +
    /// the store's own absolute folder path, so that `/srv/a/App.sqlite` and
    /// `/srv/b/App.sqlite` keep their backups in `ROOT/srv/a` and `ROOT/srv/b`, and
    /// `restore` never takes one store's backup for the other's (`StoreRestore`).
    /// Fleets and single stores file them alike.
    package static func filedFolder(in root: String, for store: String) -> String {
        let absolute = FleetStoreList.standardized(store)
        let parent = PathText.parent(of: absolute)
        let relative = parent.drop(while: { $0 == "/" })
        return relative.isEmpty ? root : (root as NSString).appendingPathComponent(String(relative))
    }

    /// The backup `options` ask for, if any, checked before the store is opened: a
    /// file that exists, a folder that is missing, not a folder or not writable is
    /// refused here, before anything waits for the store's lock. A backup folder is
    /// created (with its parents).
    static func requested(by options: Migrator.Options, plan: MigrationPlan) throws -> StoreBackup? {
        // Named and filed after the file a symbolic link leads to: that is the store,
        // and `restore` finds it by that name and folder through any link.
        let resolved =
            realpath(plan.storePath, nil).map { pointer in
                defer { free(pointer) }
                return String(cString: pointer)
            } ?? plan.storePath
        let destination: Destination
        if let path = options.backupPath {
            var info = stat()
            // Anything there, even a symbolic link to nothing, is never replaced.
            if let why = StoreSideFiles.pairing(of: path, with: plan.storePath) {
                // SQLite resets or deletes such a file at the store's next open.
                throw MigrationError(
                    kind: .backupFailed, message: "\(path): cannot keep the backup there: \(why); choose another path")
            }
            if lstat(path, &info) == 0 {
                throw MigrationError(
                    kind: .backupFailed, message: "\(path): the backup file already exists; choose a new path")
            }
            destination = .file(path)
        } else if let root = options.backupDirectory {
            destination = .folder(filedFolder(in: root, for: resolved), root: root)
        } else {
            return nil
        }
        var name = (resolved as NSString).lastPathComponent
        if name.hasSuffix(".sqlite") { name.removeLast(7) }
        var backup = StoreBackup(
            destination: destination, storeName: name,
            from: plan.sourceVersion, to: plan.targetVersion)
        try backup.prepareFolder()
        return backup
    }

    /// Makes sure the folder exists (creating a backup folder) and that this user may
    /// create files in it: first the folder `--backup-dir` names, as the user wrote it
    /// (messages name it), then the store's own folder beneath it.
    mutating func prepareFolder() throws {
        switch destination {
        case .file:
            try prepare(folder)
        case .folder(let filed, let root):
            try prepare(root)
            guard filed != root else { return }
            try prepare(filed)
        }
    }

    /// Creates `path` (with its parents) when it is missing, and checks that it is a
    /// folder this user may create files in; failures name `shown`.
    private mutating func prepare(_ path: String) throws {
        var info = stat()
        if case .folder = destination, stat(path, &info) != 0 {
            var missing: [String] = []
            var part = path
            while !part.isEmpty, part != "/", stat(part, &info) != 0 {
                missing.append(part)
                part = PathText.parent(of: part)
            }
            do {
                try Self.createFolders(path)
            } catch {
                let verb = "cannot create the backup folder"
                switch Self.creationProblem(path) {
                case (ENOTDIR, let blocker?):
                    throw failure(
                        reason: "\(blocker) is a file, not a folder", advice: advice(for: ENOTDIR), subject: shown,
                        verb: verb)
                case (let code?, let blocker?) where code == EACCES || code == EPERM:
                    throw failure(
                        reason: "permission denied: this user cannot create folders in \(blocker)",
                        advice: advice(for: code).replacingOccurrences(of: "the folder", with: blocker), subject: shown,
                        verb: verb)
                case (let code?, _):
                    throw failure(code, subject: shown, verb: verb)
                default:
                    throw failure(
                        reason: error.localizedDescription, advice: advice(for: 0), subject: shown, verb: verb)
                }
            }
            createdFolders = missing + createdFolders
        }
        guard stat(path, &info) == 0 else { throw failure(errno, subject: shown) }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw failure(reason: "it is a file, not a folder", advice: advice(for: ENOTDIR), subject: shown)
        }
        guard access(path, W_OK | X_OK) == 0 else { throw failure(errno, subject: shown) }
    }

    /// `mkdir -p`, again when a folder of the path vanished meanwhile: a store of the same
    /// fleet run that failed removes the folders it created, which may be parents this
    /// store's backup is being filed under (a healthy store failed with "cannot create the
    /// backup folder … doesn't exist" beside a failing sibling). Nothing stands in the way
    /// when the deepest existing part of the path is a folder this user may write.
    private static func createFolders(_ path: String) throws {
        var attempt = 0
        while true {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
                return
            } catch {
                attempt += 1
                guard attempt < 50, creationProblem(path).code == nil, creationProblem(path).path != nil else {
                    throw error
                }
            }
        }
    }

    /// Why a folder could not be created: the deepest existing part of its path is
    /// a file (`ENOTDIR`), or a folder that refuses a new folder (its error); with
    /// that part's path.
    static func creationProblem(_ folder: String) -> (code: Int32?, path: String?) {
        var path = PathText.parent(of: folder)
        var info = stat()
        while true {
            let shown = path.isEmpty ? "." : path
            if stat(shown, &info) == 0 {
                if (info.st_mode & S_IFMT) != S_IFDIR { return (ENOTDIR, shown) }
                return (access(shown, W_OK | X_OK) == 0 ? nil : errno, shown)
            }
            if path.isEmpty || path == "/" { return (nil, nil) }
            path = PathText.parent(of: path)
        }
    }

    // MARK: Writing

    /// A copy written to its temporary file, not yet a backup.
    struct Copy {
        /// The temporary file.
        let temporary: String
        /// When the copy was taken (the time in a backup folder's file name).
        let taken: Date
    }

    /// Copies the store, which `store`'s connection holds locked with no write made
    /// yet, into a temporary file beside the backup's final name, and syncs it.
    ///
    /// Rollback-journal stores: under the exclusive lock the database file is the
    /// committed store, byte for byte, so it is copied as it is, through SQLite's own
    /// file handle (a descriptor of ours on the store, once closed, would drop every
    /// POSIX lock this process holds on it). WAL stores: committed pages may still be
    /// in the -wal file, so SQLite's backup API copies them, through a second
    /// connection: a reader, which WAL lets in beside the writer, sees exactly the
    /// last commit, because nobody else can write while this migration holds the
    /// write lock. (SQLite refuses a backup from a connection inside a write
    /// transaction.)
    func write(from store: Store, isWAL: Bool, cancellation: MigrationCancellation?) throws -> Copy {
        let taken = Date()
        ScratchFile.sweep(folder: folder)
        let temporary = temporaryPath(taken: taken)
        Self.remove(temporary)
        var info = stat()
        let mode = stat(store.resolvedPath, &info) == 0 ? mode_t(info.st_mode & 0o666) : 0o644
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw failure(errno, subject: shown) }
        do {
            if isWAL {
                close(descriptor)
                try copyWithBackupAPI(store, to: temporary)
                try Self.sync(temporary)
            } else {
                defer { close(descriptor) }
                try copyFile(store.connection, to: descriptor, cancellation: cancellation)
                guard fsync(descriptor) == 0 else { throw failure(errno, subject: shown) }
            }
        } catch {
            Self.remove(temporary)
            throw error
        }
        return Copy(temporary: temporary, taken: taken)
    }

    /// The database file's bytes, a megabyte at a time.
    private func copyFile(_ connection: Connection, to descriptor: Int32, cancellation: MigrationCancellation?) throws {
        let size = try connection.mainFileSize()
        var offset: Int64 = 0
        while offset < size {
            if cancellation?.isCancelled == true {
                throw MigrationError(kind: .interrupted, message: "interrupted: rolled back, the store is unchanged")
            }
            let bytes = try connection.readMainFile(offset: offset, count: Int(min(1 << 20, size - offset)))
            if bytes.isEmpty { break }
            let code = writeAll(bytes, to: descriptor)
            if code != 0 { throw failure(code, subject: shown, size: size) }
            offset += Int64(bytes.count)
        }
    }

    /// SQLite's backup API, from a second connection that reads the store.
    private func copyWithBackupAPI(_ store: Store, to temporary: String) throws {
        do {
            try Self.backup(from: store.resolvedPath, to: temporary, timeout: store.connection.busyTimeout)
        } catch {
            let size = (try? store.connection.mainFileSize()) ?? 0
            switch error.kind {
            case .full: throw failure(ENOSPC, subject: shown, size: size)
            case .cantOpen, .readOnly: throw failure(EACCES, subject: shown)
            default: throw failure(reason: Migrator.words(for: error), advice: advice(for: EIO), subject: shown)
            }
        }
    }

    private static func backup(from path: String, to temporary: String, timeout: Double) throws(SQLiteError) {
        let reader = try Connection(path: path, mode: .readOnly, busyTimeout: timeout)
        do {
            try reader.backup(to: temporary)
        } catch {
            try? reader.close()
            throw error
        }
        try reader.close()
    }

    /// Gives the synced copy its final name and syncs the folder, so that the name
    /// survives a power cut as the commit that follows does. Returns the backup's path.
    func publish(_ copy: Copy) throws -> String {
        var candidates: AnyIterator<String>
        switch destination {
        case .file(let path):
            candidates = AnyIterator([path].makeIterator())
        case .folder(let folder, _):
            let stem = (folder as NSString).appendingPathComponent(
                "\(storeName).v\(from)-to-\(to).\(Self.stamp(copy.taken))")
            var suffix = 1
            candidates = AnyIterator {
                defer { suffix += 1 }
                return suffix == 1 ? stem + ".sqlite" : "\(stem)-\(suffix).sqlite"
            }
        }
        while let candidate = candidates.next() {
            let code = Self.claim(copy.temporary, as: candidate)
            if code == 0 {
                Self.remove(copy.temporary)
                try Self.sync(folder)
                return candidate
            }
            guard code == EEXIST else { throw failure(code, subject: shown) }
            if case .file(let path) = destination {
                throw MigrationError(
                    kind: .backupFailed, message: "\(path): the backup file already exists; choose a new path")
            }
        }
        throw failure(EEXIST, subject: shown)
    }

    /// `link(2)`, which never replaces a file; where the file system has no hard
    /// links, a rename onto a name nothing holds. 0, or the error number.
    static func claim(_ temporary: String, as path: String) -> Int32 {
        if link(temporary, path) == 0 { return 0 }
        let code = errno
        guard [EPERM, EOPNOTSUPP, EXDEV, EMLINK, ENOSYS].contains(code) else { return code }
        var info = stat()
        if lstat(path, &info) == 0 { return EEXIST }
        return rename(temporary, path) == 0 ? 0 : errno
    }

    /// The temporary file of a copy, beside the backup's name and named after this
    /// process (`ScratchFile`): several processes may write into one backup folder
    /// at once, and a copy whose process was killed is removed by the next run that
    /// takes or restores a backup there (``write(from:isWAL:cancellation:)`` sweeps
    /// the folder first), never a live process's copy in progress.
    func temporaryPath(taken: Date) -> String {
        switch destination {
        case .file(let path):
            return ScratchFile.path(beside: path, purpose: "backup")
        case .folder(let folder, _):
            let name = "\(storeName).v\(from)-to-\(to).\(Self.stamp(taken)).sqlite"
            return ScratchFile.path(beside: (folder as NSString).appendingPathComponent(name), purpose: "backup")
        }
    }

    /// Removes a file and the journal files SQLite may have left beside it.
    static func remove(_ path: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
    }

    /// A UTC time as backup names carry it (`20261201T101500Z`).
    package static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }

    /// `fsync` of a file or a folder (so that a new name survives a power cut).
    static func sync(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StoreError(.sqlite, "cannot open to sync: \(String(cString: strerror(errno)))", path: path)
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw StoreError(.sqlite, "cannot sync: \(String(cString: strerror(errno)))", path: path)
        }
    }

    // MARK: Messages

    /// What to do about an error number, in words.
    func advice(for code: Int32) -> String {
        let another: String
        switch destination {
        case .folder: another = "choose another backup folder"
        case .file: another = "choose a backup path in another folder"
        }
        switch code {
        case EACCES, EPERM: return "make the folder writable by this user, or \(another)"
        case ENOSPC, EDQUOT: return "free some space, or \(another) on another disk"
        case EFBIG: return "raise the file-size limit (ulimit -f), or \(another)"
        case EROFS: return "\(another) on a writable file system"
        case ENOENT: return "create the folder, or \(another)"
        default: return another
        }
    }

    /// The reason an error number gives, in words.
    static func reason(for code: Int32, size: Int64?) -> String {
        let needs =
            size.map { " (the copy needs \(ByteCountFormatter.string(fromByteCount: $0, countStyle: .file)))" } ?? ""
        switch code {
        case EACCES, EPERM: return "permission denied: this user cannot create files in it"
        case ENOSPC, EDQUOT: return "no space left on the disk\(needs)"
        case EFBIG: return "the file-size limit was reached\(needs)"
        case EROFS: return "the file system is read-only"
        case ENOENT: return "the folder does not exist"
        case ENOTDIR: return "it is not a folder (a file, or a path through a file)"
        default: return String(cString: strerror(code))
        }
    }

    func failure(_ code: Int32, subject: String, size: Int64? = nil, verb: String = "cannot write the backup there")
        -> MigrationError
    {
        failure(reason: Self.reason(for: code, size: size), advice: advice(for: code), subject: subject, verb: verb)
    }

    func failure(reason: String, advice: String, subject: String, verb: String = "cannot write the backup there")
        -> MigrationError
    {
        MigrationError(kind: .backupFailed, message: "\(subject): \(verb): \(reason); \(advice); nothing was changed")
    }
}

/// Writes all of `bytes` to `descriptor`; 0, or the error number.
private func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32 {
    var written = 0
    while written < bytes.count {
        let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
        if count < 0 {
            if errno == EINTR { continue }
            return errno
        }
        written += count
    }
    return 0
}
