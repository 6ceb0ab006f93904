package import DataModel
import Foundation
import SQLiteStore
import ScratchFiles

/// Puts a backup that `apply --backup-dir` kept back in place of its store
/// (`migrate restore`): the rollback of a deploy.
///
/// The backup is checked first (it opens, it is a store, `PRAGMA integrity_check`
/// passes, and its entity hashes are those of the version its name says), copied
/// beside the store and synced, then renamed over the store, so that the store's
/// path names either the old store or the whole checked copy at every moment. The
/// store it replaces is kept in `.replaced/` beside it
/// (`.replaced/<store>.replaced.<UTC time>.sqlite`, a hard link taken before the
/// rename, where fleets never take it for a store: `ReplacedStore`), with its rollback journal or write-ahead
/// log: SQLite pairs those files with a database by name, so they move with the
/// database they belong to, and a hot journal of the old store is never applied to
/// the restored one.
///
/// Like `apply`, it takes the store's lock (SQLite's own lock bytes, all of them)
/// and refuses while another process reads or writes the store; the new file is
/// locked the same way before it takes the store's name, so that nobody opens it
/// before the old store's journal files have moved.
package enum StoreRestore {
    /// A backup in a backup folder: `<store>.v<from>-to-<to>.<UTC time>[-n].sqlite`.
    package struct Backup: Sendable, Hashable, Codable {
        /// The backup file.
        package var path: String
        /// The version the store was at when the copy was taken (the version it holds).
        package var from: Int
        /// The version that migration went to.
        package var to: Int
        /// The UTC time in its name (`20261201T101500Z`).
        package var stamp: String
        /// The `-n` that tells apart backups taken in the same second (1 when none).
        package var sequence: Int

        /// Whether it lies in the store's own folder under the backup folder (where
        /// `apply` files backups), not in the backup folder itself (the earlier
        /// layout, shared by every store of the same file name).
        package var isFiled = false

        /// The file name.
        package var name: String { (path as NSString).lastPathComponent }
    }

    /// What was restored.
    package struct Result: Sendable, Codable {
        /// The store.
        package var store: String
        /// The backup put in its place.
        package var backup: String
        /// The model and version the store now holds.
        package var model: String
        package var version: Int
        /// Where the store that was replaced is kept (nil when there was none).
        package var replaced: String?
        /// Logs a removed store left at the path (no store there), each with where it
        /// was set aside: SQLite would have applied them to the restored store.
        package var setAside: [SetAside] = []
        /// Partial copies that restores killed before they finished left beside the
        /// store (their processes are gone), removed by this one.
        package var removedPartials: [String] = []
    }

    /// A file moved out of SQLite's way: where it was, where it is.
    package struct SetAside: Sendable, Codable, Hashable {
        /// Its path before.
        package var from: String
        /// Its path now.
        package var to: String
    }

    /// Options of a restore.
    package struct Options: Sendable {
        /// The folder `apply --backup-dir` wrote into.
        package var backupDirectory: String
        /// Only backups taken at this version (their from-version); nil: the newest backup.
        package var version: Int?
        /// This backup file instead of one chosen in the folder (`restore --from`);
        /// checked as any backup.
        package var file: String?
        /// Stops the restore (a signal) before the copy takes the store's name: the
        /// partial copy is removed and the store is unchanged.
        package var cancellation: MigrationCancellation?
        /// Seconds to wait for other processes' locks on the store.
        package var timeout: Double = 30
        /// The models, to check the backup's hashes against its name (when empty, the
        /// model the backup keeps of its own version answers).
        package var models: [CompiledModel] = []
        /// Puts back a backup that fails `PRAGMA integrity_check` (`--allow-damaged`):
        /// a store already damaged when `apply` (without `--verify`) copied it comes
        /// back as it was. Its hashes are still checked.
        package var allowsDamaged = false

        /// Options for a folder.
        package init(backupDirectory: String, version: Int? = nil) {
            self.backupDirectory = backupDirectory
            self.version = version
        }
    }

    /// Why a restore was refused; the store is unchanged.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// The broad reason.
        package enum Kind: Sendable, Hashable {
            /// No backup of the store (of that version) in the folder.
            case noBackup
            /// The backup is damaged, not a store, or not the version its name says.
            case badBackup
            /// Another process holds the store.
            case locked
            /// Reading, copying or renaming failed.
            case failed
            /// Cancelled (a signal) before the copy took the store's name.
            case interrupted
        }
        /// The reason.
        package var kind: Kind
        /// What happened, for people.
        package var message: String

        package var description: String { message }
    }

    // MARK: Finding backups

    /// The backups of the store at `storePath` under `folder`, oldest first: those
    /// filed in the store's own folder (`StoreBackup.filedFolder(in:for:)`, where
    /// `apply` and fleets write them) and those of its file name lying in `folder`
    /// itself, where `apply --backup-dir` wrote them before it filed them per store.
    package static func backups(of storePath: String, in folder: String) -> [Backup] {
        var name = (storePath as NSString).lastPathComponent
        if name.hasSuffix(".sqlite") { name.removeLast(7) }
        var found: [Backup] = []
        var seen: Set<String> = []
        let filed = StoreBackup.filedFolder(in: folder, for: storePath)
        for candidate in [filed, folder] where seen.insert(candidate).inserted {
            // A backup copy whose `apply` was killed is never a backup: removed here.
            ScratchFile.sweep(folder: candidate)
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: candidate) else { continue }
            for file in names {
                if var backup = parse(file, storeName: name, folder: candidate) {
                    backup.isFiled = candidate == filed
                    found.append(backup)
                }
            }
        }
        return found.sorted { ($0.stamp, $0.sequence, $0.path) < ($1.stamp, $1.sequence, $1.path) }
    }

    /// A backup's name, as `StoreBackup.publish` writes it; nil for any other file.
    static func parse(_ file: String, storeName: String, folder: String) -> Backup? {
        guard file.hasPrefix(storeName + ".v"), file.hasSuffix(".sqlite") else { return nil }
        let middle = file.dropFirst(storeName.count + 2).dropLast(7)  // "<from>-to-<to>.<stamp>[-n]"
        let parts = middle.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let versions = parts[0].components(separatedBy: "-to-")
        guard versions.count == 2, let from = Int(versions[0]), let to = Int(versions[1]), from > 0, to > from else {
            return nil
        }
        let stampParts = parts[1].split(separator: "-", omittingEmptySubsequences: false)
        guard (1...2).contains(stampParts.count) else { return nil }
        let stamp = String(stampParts[0])
        guard stamp.count == 16,
            stamp.utf8.enumerated().allSatisfy({ index, byte in
                switch index {
                case 8: return byte == UInt8(ascii: "T")
                case 15: return byte == UInt8(ascii: "Z")
                default: return byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
                }
            })
        else { return nil }
        var sequence = 1
        if stampParts.count == 2 {
            guard let n = Int(stampParts[1]), n >= 2 else { return nil }
            sequence = n
        }
        return Backup(
            path: (folder as NSString).appendingPathComponent(file), from: from, to: to, stamp: stamp,
            sequence: sequence)
    }

    /// The backups of the store in the folder under its path as given and under the
    /// file it names (`apply` names a backup after the store a symbolic link leads to).
    static func backups(of storePath: String, resolved target: String, in folder: String) -> [Backup] {
        var all = backups(of: storePath, in: folder)
        if target != storePath {
            let known = Set(all.map(\.path))
            all += backups(of: target, in: folder).filter { !known.contains($0.path) }
            all.sort { ($0.stamp, $0.sequence, $0.path) < ($1.stamp, $1.sequence, $1.path) }
        }
        return all
    }

    /// The file `restore --from` names, as a backup: the versions its name says, when
    /// it is named as `apply --backup-dir` names backups (else the store decides).
    static func explicitBackup(_ file: String, store storePath: String) throws(Failure) -> Backup {
        if let why = StoreSideFiles.pairing(of: file, with: storePath) {
            throw Failure(
                kind: .badBackup, message: "\(file): cannot restore the store from it: \(why); nothing was changed")
        }
        var info = stat()
        guard stat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw Failure(kind: .noBackup, message: "\(file): no such backup file; nothing was changed")
        }
        let name = (file as NSString).lastPathComponent
        let folder = PathText.parent(of: file)
        if let dot = name.range(of: ".v", options: .backwards),
            let named = parse(name, storeName: String(name[..<dot.lowerBound]), folder: folder.isEmpty ? "." : folder)
        {
            return Backup(path: file, from: named.from, to: named.to, stamp: named.stamp, sequence: named.sequence)
        }
        return Backup(path: file, from: 0, to: 0, stamp: "", sequence: 1)
    }

    /// The backup to restore: the newest one, of `version` when given.
    package static func choose(for storePath: String, options: Options) throws(Failure) -> Backup {
        try choose(for: storePath, resolved: storePath, options: options).chosen
    }

    /// The backup to restore and the other candidates in the folder, newest first.
    static func choose(for storePath: String, resolved target: String, options: Options) throws(Failure) -> (
        chosen: Backup, others: [Backup]
    ) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: options.backupDirectory, isDirectory: &isDirectory),
            isDirectory.boolValue
        else {
            throw Failure(
                kind: .noBackup, message: "\(options.backupDirectory): no such backup folder; nothing was changed")
        }
        let all = backups(of: storePath, resolved: target, in: options.backupDirectory)
        let wanted = options.version.map { version in all.filter { $0.from == version } } ?? all
        guard !wanted.isEmpty else {
            let name = (storePath as NSString).lastPathComponent
            let which = options.version.map { " taken at version \($0)" } ?? ""
            let others =
                all.isEmpty
                ? ""
                : """
                 (it has: \
                \(all.reversed().map { shownPath($0, folder: options.backupDirectory) }.joined(separator: ", ")))
                """
            throw Failure(
                kind: .noBackup,
                message: "\(options.backupDirectory): no backup of \(name)\(which)\(others); nothing was changed")
        }
        let identity = StoreIdentity(path: storePath, timeout: options.timeout)
        let own = try ownBackups(wanted, of: storePath, identity: identity, folder: options.backupDirectory)
        guard let newest = own.last else { preconditionFailure("ownBackups returns at least one backup or throws") }
        return (newest, own.reversed().filter { $0 != newest })
    }

    // MARK: Checking

    /// Checks that `backup` is a whole store of the version its name says (any
    /// version of the models when its name says none); returns that version and the
    /// store's UUID. A refusal lists `others`, the folder's other backups, and how to
    /// restore one of them.
    static func check(
        _ backup: Backup, models: [CompiledModel], others: [Backup] = [], allowsDamaged: Bool = false
    ) throws(Failure) -> (version: CompiledVersion, uuid: String) {
        func refuse(_ why: String) -> Failure {
            let listed = others.prefix(10).map { "\($0.path) (taken at version \($0.from))" }.joined(separator: ", ")
            let advice =
                others.isEmpty
                ? ""
                : " (other backups of the store, newest first: \(listed)\(others.count > 10 ? ", …" : ""); "
                    + "restore one with --from <its path>)"
            return Failure(kind: .badBackup, message: "\(backup.path): \(why); nothing was changed\(advice)")
        }
        // A journal beside the backup would be part of it: only a copy nobody opened
        // for writing is one whole file.
        var info = stat()
        if stat(backup.path + "-journal", &info) == 0 || (stat(backup.path + "-wal", &info) == 0 && info.st_size > 0) {
            throw refuse(
                """
                a journal or write-ahead log lies beside it (the copy was opened for writing); it is not one whole file
                """
            )
        }
        let store: Store
        do {
            store = try Store.open(path: backup.path, access: .readOnly)
        } catch {
            throw refuse("not a readable store: \(error.message)")
        }
        defer { try? store.close() }
        do {
            let integrity = try store.connection.scalarString("PRAGMA integrity_check") ?? "?"
            guard integrity == "ok" || allowsDamaged else {
                throw refuse(
                    """
                    PRAGMA integrity_check says: \(integrity.replacingOccurrences(of: "\n", with: "; ")) (when the \
                    store was already damaged as apply copied it, --allow-damaged puts it back as it was)
                    """)
            }
            let metadata = try store.readMetadata()
            let version: CompiledVersion
            do {
                version = try store.currentVersion(among: models)
            } catch {
                throw refuse("its entity hashes match no version of the models (\(error))")
            }
            guard backup.from == 0 || version.version == backup.from, version.versionHashes == metadata.versionHashes
            else {
                throw refuse(
                    """
                    its name says version \(backup.from), but its entity hashes are those of version \
                    \(version.version) of \(version.model)
                    """)
            }
            return (version, metadata.storeUUID)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw refuse("cannot be read: \(error)")
        }
    }

    // MARK: Restoring

    /// Restores the chosen backup over the store at `storePath` (which may be missing).
    package static func restore(store storePath: String, options: Options) throws(Failure) -> Result {
        // The file the path names (a symbolic link stays; its target is replaced).
        var target = storePath
        if let resolved = realpath(storePath, nil) {
            target = String(cString: resolved)
            free(resolved)
        }
        let backup: Backup
        var others: [Backup] = []
        if let file = options.file {
            backup = try explicitBackup(file, store: storePath)
        } else {
            (backup, others) = try choose(for: storePath, resolved: target, options: options)
        }
        let (version, uuid) = try check(
            backup, models: options.models, others: others, allowsDamaged: options.allowsDamaged)
        var info = stat()
        let exists = lstat(target, &info) == 0
        if exists {
            try settle(target, shownAs: storePath, timeout: options.timeout, backupUUID: uuid)
        }
        let lock =
            exists
            ? try FileLock(
                path: target, shownAs: storePath, timeout: options.timeout, cancellation: options.cancellation) : nil
        defer { lock?.release() }
        let removedPartials = removeDeadPartials(beside: target, shownAs: storePath)
        let stamp = StoreBackup.stamp(Date())
        let temporary = ScratchFile.path(beside: target, purpose: "restore")
        let copy = try copyAndSync(
            backup.path, to: temporary, mode: exists ? mode_t(info.st_mode & 0o666) : 0o644, shownAs: storePath,
            cancellation: options.cancellation)
        // Locked before it takes the store's name, so that nobody opens it before
        // the old store's journal files have moved.
        defer { copy.release() }
        do {
            try copy.lockAll()
            try stopIfCancelled(options.cancellation, temporary: temporary)
        } catch {
            unlink(temporary)
            throw error
        }
        var replaced: String?
        var setAside: [SetAside] = []
        if exists {
            replaced = try putInPlace(temporary, over: target, stamp: stamp, shownAs: storePath)
        } else {
            setAside = try putInPlace(temporary, at: target, stamp: stamp, shownAs: storePath)
        }
        let folder = PathText.parent(of: target)
        try? StoreBackup.sync(folder.isEmpty ? "." : folder)
        // Named as the store was given (a folder reached through a link names them
        // too), except when the store itself is a symbolic link: the kept and set-aside
        // files lie beside the file it leads to, not beside the link, where no such file is.
        var link = stat()
        let storeIsLink = lstat(storePath, &link) == 0 && (link.st_mode & S_IFMT) == S_IFLNK
        func shown(_ path: String) -> String {
            if storeIsLink || target == storePath { return path }
            if path.hasPrefix(target) { return storePath + path.dropFirst(target.count) }
            // The kept copy, in `.replaced/` beside the file: named from the store's folder as given.
            let targetFolder = PathText.parent(of: target) + "/"
            guard path.hasPrefix(targetFolder) else { return path }
            let given = PathText.parent(of: storePath)
            let rest = String(path.dropFirst(targetFolder.count))
            return given.isEmpty ? rest : (given as NSString).appendingPathComponent(rest)
        }
        return Result(
            store: storePath, backup: backup.path, model: version.model, version: version.version,
            replaced: replaced.map(shown),
            setAside: setAside.map { SetAside(from: shown($0.from), to: shown($0.to)) },
            removedPartials: removedPartials.map(shown))
    }

    /// Throws `interrupted` (removing the partial copy) once the restore is cancelled.
    static func stopIfCancelled(_ cancellation: MigrationCancellation?, temporary: String) throws(Failure) {
        guard cancellation?.isCancelled == true else { return }
        unlink(temporary)
        throw Failure(kind: .interrupted, message: "interrupted: the partial copy was removed; the store is unchanged")
    }

    /// Renames the checked copy over the existing store, whose file is kept as
    /// `.replaced/<store>.replaced.<time>.sqlite` with its journal and log
    /// (`ReplacedStore`); returns that path.
    static func putInPlace(_ temporary: String, over target: String, stamp: String, shownAs storePath: String)
        throws(Failure) -> String
    {
        let replaced = try ReplacedStore.keep(target, stamp: stamp, shownAs: storePath, temporary: temporary)
        // The old store's journal and log go with it; its -shm index is rebuilt
        // from its log by whoever opens it.
        var info = stat()
        for suffix in StoreSideFiles.logSuffixes where lstat(target + suffix, &info) == 0 {
            guard rename(target + suffix, replaced + suffix) == 0 else {
                let code = errno
                unlink(temporary)
                throw Failure(
                    kind: .failed,
                    message: """
                        \(storePath)\(suffix): cannot move it beside the replaced store: \
                        \(String(cString: strerror(code))); nothing was changed (the replaced store is also at \
                        \(replaced))
                        """)
            }
        }
        unlink(target + "-shm")
        guard rename(temporary, target) == 0 else {
            let code = errno
            unlink(temporary)
            throw Failure(
                kind: .failed,
                message: "\(storePath): cannot rename the restored copy into place: \(String(cString: strerror(code)))")
        }
        return replaced
    }

    /// Puts the checked copy where no store is, never replacing a store someone
    /// created meanwhile. A log a removed store left at the path is set aside first
    /// (SQLite would apply it to the restored store); returns where each went.
    static func putInPlace(_ temporary: String, at target: String, stamp: String, shownAs storePath: String)
        throws(Failure) -> [SetAside]
    {
        let moved: [(from: String, to: String)]
        do {
            moved = try StoreSideFiles.setAsideLeftoverLogs(beside: target, stamp: stamp)
        } catch {
            unlink(temporary)
            throw Failure(kind: .failed, message: "\(error.message); nothing was changed")
        }
        guard link(temporary, target) == 0 || (errno != EEXIST && rename(temporary, target) == 0) else {
            let code = errno
            unlink(temporary)
            throw Failure(
                kind: .failed,
                message: """
                    \(storePath): cannot put the restored copy there: \(String(cString: strerror(code))); nothing was \
                    changed
                    """)
        }
        unlink(temporary)
        return moved.map { SetAside(from: $0.from, to: $0.to) }
    }

    /// Removes the scratch copies beside the store whose process is gone (a restore
    /// killed mid-copy; `ScratchFile`), and `<store>.restoring.<pid>.partial` files, as
    /// earlier releases named them; a live process's copy is left alone. Returns the
    /// latter (the sweep keeps its own record, which the command line reports).
    static func removeDeadPartials(beside target: String, shownAs shown: String) -> [String] {
        // Scratch copies of killed restores (and backups) are said by the sweep's record.
        ScratchFile.sweep(beside: target)
        // The name restores used before scratch names (`<store>.restoring.<pid>.partial`).
        let folder = PathText.parent(of: target)
        let prefix = (target as NSString).lastPathComponent + ".restoring."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder) else {
            return []
        }
        var removed: [String] = []
        for name in names.sorted() where name.hasPrefix(prefix) && name.hasSuffix(".partial") {
            guard let pid = pid_t(name.dropFirst(prefix.count).dropLast(8)), pid > 0, pid != getpid() else { continue }
            // ESRCH: no such process. EPERM means it lives (under another user).
            guard kill(pid, 0) != 0, errno == ESRCH else { continue }
            let path = folder.isEmpty ? name : (folder as NSString).appendingPathComponent(name)
            if unlink(path) == 0 { removed.append(path) }
        }
        return removed
    }

    /// Lets SQLite settle the old store before it is set aside: a hot journal left by
    /// a crashed writer is rolled back into it, and when nobody else has it open a
    /// write-ahead log is checkpointed into it, so that the replaced store is one
    /// whole file where possible. A backup of another store (another UUID) is
    /// refused while the store can be read.
    static func settle(_ path: String, shownAs shown: String, timeout: Double, backupUUID: String) throws(Failure) {
        let store: Store
        do {
            // Opening reads the schema: SQLite rolls a hot journal back first.
            store = try Store.open(path: path, access: .readWrite, busyTimeout: timeout)
        } catch {
            guard error.kind == .locked else { return }  // a damaged store is replaced as it is
            let who = LockHolders.describe(path: path).map { " (held by \($0))" } ?? ""
            throw Failure(
                kind: .locked,
                message: """
                    \(shown): another process holds the store\(who); waited \(Migrator.seconds(timeout)) s \
                    (--timeout); nothing was changed
                    """)
        }
        defer { try? store.close() }
        guard let metadata = try? store.readMetadata(), metadata.storeUUID != backupUUID else { return }
        throw Failure(
            kind: .badBackup,
            message: """
                \(shown): the backup is of another store (store UUID \(backupUUID); this store's is \
                \(metadata.storeUUID)); nothing was changed (to put it there anyway, move the store away first)
                """)
    }

    /// Copies the backup to `temporary` (a new file) and syncs it; the returned lock
    /// holds the copy's descriptor. A cancellation stops the copy and removes it.
    static func copyAndSync(
        _ source: String, to temporary: String, mode: mode_t, shownAs shown: String,
        cancellation: MigrationCancellation? = nil
    ) throws(Failure) -> FileLock {
        unlink(temporary)
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else {
            throw Failure(
                kind: .failed,
                message: "\(source): cannot read: \(String(cString: strerror(errno))); nothing was changed")
        }
        defer { close(input) }
        let output = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard output >= 0 else {
            throw Failure(
                kind: .failed,
                message: "\(temporary): cannot write the copy: \(String(cString: strerror(errno))); nothing was changed"
            )
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var failure: Int32 = 0
        while failure == 0 {
            if cancellation?.isCancelled == true {
                failure = EINTR
                break
            }
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                failure = errno
                break
            }
            var written = 0
            while written < count {
                let n = buffer.withUnsafeBytes { write(output, $0.baseAddress! + written, count - written) }
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    break
                }
                written += n
            }
        }
        if failure == 0, fsync(output) != 0 { failure = errno }
        if failure != 0 {
            close(output)
            unlink(temporary)
            try stopIfCancelled(cancellation, temporary: temporary)
            throw Failure(
                kind: .failed,
                message:
                    "\(temporary): cannot write the copy: \(String(cString: strerror(failure))); nothing was changed")
        }
        return FileLock(descriptor: output, shownAs: shown)
    }
}
