public import DataModel
package import Foundation
import PropertyList
import ScratchFiles

/// A Core Data-style SQLite store: its connection, metadata, entity numbers and the
/// layout of the model version it holds.
///
/// Owns its `Connection` (not `Sendable`). Open read-only to inspect: nothing is
/// created or changed beside the store, in any state: a store whose `-wal` or hot
/// `-journal` SQLite would have to recover in place is read from a private copy
/// (`Store+PrivateCopy.swift`).
public final class Store {
    /// The file path, as given.
    public let path: String
    /// The file the path names, symbolic links resolved (SQLite's journal and WAL
    /// files sit beside this one).
    public let resolvedPath: String
    /// The connection; exposed to the migrator, which runs its SQL through it.
    package let connection: Connection

    /// How to open a store.
    public enum Access: Sendable {
        /// Reads only.
        case readOnly
        /// Reads and writes an existing store.
        case readWrite
    }

    /// The private folder holding the copy a read-only store is read from, if any.
    private let privateFolder: String?

    private init(path: String, resolvedPath: String? = nil, connection: Connection, privateFolder: String? = nil) {
        self.path = path
        self.resolvedPath = resolvedPath ?? path
        self.connection = connection
        self.privateFolder = privateFolder
    }

    deinit {
        try? connection.close()
        if let privateFolder { try? FileManager.default.removeItem(atPath: privateFolder) }
    }

    /// True when the store is read from a private copy (its `-wal` or hot `-journal`
    /// recovered there, not beside the store).
    package var readsPrivateCopy: Bool { privateFolder != nil }

    /// Closes the connection, reporting any failure.
    public func close() throws(StoreError) {
        defer { if let privateFolder { try? FileManager.default.removeItem(atPath: privateFolder) } }
        do { try connection.close() } catch { throw StoreError.from(error, path: path) }
    }

    // MARK: Opening

    /// Opens an existing store and checks that it is a Core Data-style store.
    public static func open(path: String, access: Access = .readOnly, busyTimeout: Double = 5) throws(StoreError)
        -> Store
    {
        let resolved = try checkFile(path: path, access: access)
        let isWAL = try checkHeader(path: resolved, shownAs: path)
        let connection: Connection
        var privateFolder: String?
        if access == .readOnly, let side = sideFileToRecover(resolved) {
            let copy = try recoveredCopy(of: resolved, side: side, shownAs: path, busyTimeout: busyTimeout)
            privateFolder = PathText.parent(of: copy)
            do {
                connection = try openConnection(path: copy, access: .readOnly, busyTimeout: busyTimeout, isWAL: isWAL)
            } catch {
                try? FileManager.default.removeItem(atPath: privateFolder!)
                throw StoreError.from(error, path: path)
            }
        } else {
            do {
                connection = try openConnection(path: resolved, access: access, busyTimeout: busyTimeout, isWAL: isWAL)
            } catch {
                // SQLite reads a write-ahead log only through its -shm index, which it
                // must create beside the store: without it, and without the right to
                // create it, all it says is "unable to open database file".
                let folder = PathText.parent(of: resolved)
                if isWAL, FileManager.default.fileExists(atPath: resolved + "-wal"),
                    !FileManager.default.fileExists(atPath: resolved + "-shm"),
                    !FileManager.default.isWritableFile(atPath: folder.isEmpty ? "." : folder)
                {
                    throw StoreError(
                        .permissionDenied,
                        """
                        the store's write-ahead log (\(path)-wal) holds changes that SQLite can only read through a \
                        -shm file, which it cannot create in \(folder.isEmpty ? "." : folder) (no write permission for \
                        this user); run as a user who can write that folder, or copy the store with its -wal to one
                        """, path: path)
                }
                throw StoreError.from(error, path: path)
            }
        }
        let store = Store(path: path, resolvedPath: resolved, connection: connection, privateFolder: privateFolder)
        do {
            let tables = try connection.tables()
            guard tables.contains("Z_METADATA"), tables.contains("Z_PRIMARYKEY") else {
                throw StoreError(
                    .notAStore,
                    """
                    an SQLite database, but not a Core Data store (no Z_METADATA and Z_PRIMARYKEY tables; \
                    found \(tables.isEmpty ? "no tables" : tables.prefix(5).joined(separator: ", ")))
                    """, path: path)
            }
        } catch let error as StoreError {
            throw error
        } catch let error as SQLiteError {
            throw StoreError.from(error, path: path)
        } catch {
            throw StoreError(.sqlite, "\(error)", path: path)
        }
        return store
    }

    /// What the path names must be a regular file this process may read (and, for
    /// `readWrite`, write, with a folder it may write SQLite's journal into). A FIFO
    /// or a device is refused before anything opens it (opening a FIFO blocks).
    /// Returns the path with symbolic links resolved.
    static func checkFile(path: String, access mode: Access) throws(StoreError) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            var link = stat()
            switch code {
            case EACCES:
                throw StoreError(
                    .permissionDenied, "permission denied: a folder on the path cannot be searched by this user",
                    path: path)
            case ENOENT where lstat(path, &link) == 0:
                throw StoreError(.notFound, "a symbolic link to a file that does not exist", path: path)
            case ENOENT, ENOTDIR:
                throw StoreError(.notFound, "no such file", path: path)
            default:
                throw StoreError(.notFound, "cannot reach the file: \(String(cString: strerror(code)))", path: path)
            }
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            break
        case S_IFDIR:
            throw StoreError(.notFound, "is a folder, not a store", path: path)
        case S_IFIFO:
            throw StoreError(.notADatabase, "is a named pipe (FIFO), not a store file", path: path)
        case S_IFCHR, S_IFBLK:
            throw StoreError(.notADatabase, "is a device, not a store file", path: path)
        case S_IFSOCK:
            throw StoreError(.notADatabase, "is a socket, not a store file", path: path)
        default:
            throw StoreError(.notADatabase, "is not a regular file", path: path)
        }
        guard let real = realpath(path, nil) else {
            throw StoreError(.notFound, "cannot resolve the path: \(String(cString: strerror(errno)))", path: path)
        }
        defer { free(real) }
        let resolved = String(cString: real)
        guard canAccess(resolved, R_OK) else {
            throw StoreError(.permissionDenied, "permission denied: this user cannot read the file", path: path)
        }
        if mode == .readWrite {
            guard canAccess(resolved, W_OK) else {
                throw StoreError(.permissionDenied, "permission denied: this user cannot write the file", path: path)
            }
            let folder = PathText.parent(of: resolved)
            guard canAccess(folder.isEmpty ? "." : folder, W_OK | X_OK) else {
                throw StoreError(
                    .permissionDenied,
                    """
                    permission denied: this user cannot write the folder \(folder), where SQLite keeps the journal of \
                    a migration
                    """,
                    path: path)
            }
        }
        return resolved
    }

    /// SQLite's 100-byte header: a file that does not start with it is not a database,
    /// and one shorter than its page count says is truncated. Returns whether the
    /// header says WAL.
    ///
    /// Read through SQLite's own file handle, never a descriptor of ours: closing
    /// one would drop the POSIX locks that other connections of this process hold
    /// on the file.
    private static func checkHeader(path: String, shownAs shown: String) throws(StoreError) -> Bool {
        let header: [UInt8]
        let size: Int64
        do {
            let probe = try Connection(path: path, mode: .readOnly, busyTimeout: 0)
            header = try probe.readMainFile(offset: 0, count: 100)
            size = try probe.mainFileSize()
            try probe.close()
        } catch {
            throw StoreError(.permissionDenied, "cannot read the file (\(error.message))", path: shown)
        }
        let magic = Array("SQLite format 3\0".utf8)
        if header.isEmpty {
            throw StoreError(.notADatabase, "the file is empty, not an SQLite database", path: shown)
        }
        guard header.count >= 100, Array(header.prefix(16)) == magic else {
            throw StoreError(
                .notADatabase, "not an SQLite database (the file does not start with SQLite's header)", path: shown)
        }
        var pageSize = Int(header[16]) << 8 | Int(header[17])
        if pageSize == 1 { pageSize = 65_536 }
        let pageCount = Int(header[28]) << 24 | Int(header[29]) << 16 | Int(header[30]) << 8 | Int(header[31])
        // The page count is valid when the change counters agree (SQLite's rule).
        let counterValid = header[24..<28] == header[92..<96]
        // A -wal or hot -journal beside the file completes it: a writer killed while
        // committing leaves the file short, and SQLite's recovery restores it.
        let hasWAL = FileManager.default.fileExists(atPath: path + "-wal")
        let hasJournal = FileManager.default.fileExists(atPath: path + "-journal")
        if counterValid, pageCount > 0, size < Int64(pageCount) * Int64(pageSize), !hasWAL, !hasJournal {
            throw StoreError(
                .corrupt,
                "the file is truncated (\(size) bytes; its header promises \(pageCount) pages of \(pageSize) bytes)",
                path: shown)
        }
        return header[18] == 2 && header[19] == 2
    }

    private static func openConnection(path: String, access: Access, busyTimeout: Double, isWAL: Bool)
        throws(SQLiteError) -> Connection
    {
        switch access {
        case .readWrite:
            return try Connection(path: path, mode: .readWrite, busyTimeout: busyTimeout)
        case .readOnly:
            // A WAL store without a -wal file is complete in the main file: open it
            // immutable so that SQLite creates no -wal/-shm beside it (read-only
            // folders, and "reading never writes").
            // (An empty -wal holds nothing either.) A -wal with frames, or a hot journal,
            // is recovered in a private copy before this is called.
            if isWAL, sideFileToRecover(path) == nil {
                return try Connection(
                    path: "file:\(percentEncoded(path))?immutable=1", mode: .readOnly, busyTimeout: busyTimeout)
            }
            let connection = try Connection(path: path, mode: .readOnly, busyTimeout: busyTimeout)
            _ = try connection.scalarInt64("SELECT count(*) FROM sqlite_schema")
            return connection
        }
    }

    /// Whether the store's header says WAL, read through SQLite's handle.
    var headerSaysWAL: Bool {
        guard let header = try? connection.readMainFile(offset: 0, count: 20), header.count >= 20 else { return false }
        return header[18] == 2 && header[19] == 2
    }

    private static func percentEncoded(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
    }

    // MARK: Creating

    /// `20261201T101500Z`: a UTC time as file names carry it.
    package static func utcStamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }

    /// Creates a new empty store of `version`: tables, indexes, `Z_PRIMARYKEY`,
    /// metadata and the model cache, in one transaction.
    @discardableResult
    /// - Parameter forCoreData: the store will be opened by Apple's Core Data: it is
    ///   marked so that migrations keep Core Data's entity numbering, and decimal
    ///   columns are declared `DECIMAL` as Core Data declares them.
    public static func create(
        path: String, version: CompiledVersion, overwrite: Bool = false, forCoreData: Bool = false
    ) throws(StoreError) -> Store {
        try create(path: path, version: version, overwrite: overwrite, forCoreData: forCoreData, isCancelled: nil)
    }

    /// ``create(path:version:overwrite:forCoreData:)``, asking `isCancelled` once the
    /// new store is built beside its path and before it takes the path: a signal stops
    /// the command there, the built file is removed, and `CancellationError` is thrown
    /// (the old store, with `overwrite`, is left as it was).
    package static func create(
        path: String, version: CompiledVersion, overwrite: Bool, forCoreData: Bool, isCancelled: (() -> Bool)?
    ) throws(StoreError) -> Store {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let logs = StoreSideFiles.leftoverLogs(beside: path)
            if overwrite {
                // Replacing: the removed store's logs go aside, as a replaced store's do.
                _ = try StoreSideFiles.setAsideLeftoverLogs(beside: path, stamp: Self.utcStamp(Date()))
            } else if !logs.isEmpty {
                throw StoreError(
                    .leftoverLog,
                    StoreSideFiles.refusal(logs, advice: "move it away, or run `create --force`, which sets it aside"),
                    path: path)
            }
            return try buildAndClaim(path: path, version: version, forCoreData: forCoreData, isCancelled: isCancelled)
        }
        guard overwrite else {
            throw StoreError(.alreadyExists, "a file already exists here (use --force to replace it)", path: path)
        }
        // --force replaces a file (or the symbolic link), never a folder and what it holds.
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG || kind == S_IFLNK else {
            throw StoreError(
                .alreadyExists,
                "\(kind == S_IFDIR ? "a folder" : "something other than a file") is here; --force replaces only a file",
                path: path)
        }
        // The new store is made whole beside the old one and renamed over it, so that
        // a signal, a crash or a full disk midway leaves the old store as it was.
        ScratchFile.sweep(beside: path)
        let temporary = ScratchFile.path(beside: path, purpose: "create")
        try build(path: temporary, version: version, forCoreData: forCoreData).close()
        if isCancelled?() == true {
            for suffix in ["", "-journal"] { unlink(temporary + suffix) }
            throw StoreError(.interrupted, "interrupted: rolled back, the store is unchanged", path: path)
        }
        // The old store's journal or WAL would be played into the new one.
        for suffix in ["-journal", "-wal", "-shm"] { unlink(path + suffix) }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw StoreError(.sqlite, "cannot replace the file: \(reason); it was left as it was", path: path)
        }
        do {
            return Store(path: path, connection: try Connection(path: path, mode: .readWrite))
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// Builds the store beside `path` and links it into place, which never replaces a
    /// file: of several processes creating one store at once, one wins and the others
    /// get `.alreadyExists` (a store built at `path` itself was removed by a loser's
    /// failure, leaving none).
    private static func buildAndClaim(
        path: String, version: CompiledVersion, forCoreData: Bool, isCancelled: (() -> Bool)?
    ) throws(StoreError) -> Store {
        // Named after this process, so that what a killed `create` left is removed by
        // the next run that creates a store here (ScratchFile).
        ScratchFile.sweep(beside: path)
        let temporary = ScratchFile.path(beside: path, purpose: "create")
        try build(path: temporary, version: version, forCoreData: forCoreData).close()
        defer { unlink(temporary) }
        if isCancelled?() == true {
            throw StoreError(
                .interrupted, "interrupted: rolled back, the store is unchanged (nothing was created)", path: path)
        }
        if link(temporary, path) != 0 {
            let code = errno
            if code == EEXIST {
                throw StoreError(.alreadyExists, "a file already exists here (use --force to replace it)", path: path)
            }
            // A file system without hard links: rename, checking first (a narrow race).
            var info = stat()
            guard lstat(path, &info) != 0 else {
                throw StoreError(.alreadyExists, "a file already exists here (use --force to replace it)", path: path)
            }
            guard rename(temporary, path) == 0 else {
                throw StoreError(.sqlite, "cannot create the file: \(String(cString: strerror(errno)))", path: path)
            }
        }
        do {
            return Store(path: path, connection: try Connection(path: path, mode: .readWrite))
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// Creates the store's file at `path`, which does not exist; removes it on failure.
    private static func build(path: String, version: CompiledVersion, forCoreData: Bool) throws(StoreError) -> Store {
        // Refused before the file exists: nothing to remove.
        if let refusal = version.storageRefusal { throw StoreError(.unsupportedModel, refusal, path: path) }
        do {
            let connection = try Connection(path: path, mode: .readWriteCreate)
            let store = Store(path: path, connection: connection)
            try connection.execute("PRAGMA journal_mode = DELETE")
            try connection.transaction(.exclusive) {
                for sql in SchemaSQL.bookkeeping { try connection.execute(sql) }
                let layout =
                    forCoreData
                    ? version.layout(entityNumbers: version.layout.entityNumbers, coreDataTypes: true) : version.layout
                for sql in SchemaSQL.create(layout) { try connection.execute(sql) }
                try store.writeEntityNumbers(layout: layout, version: version)
                var metadata = StoreMetadata(version: version, storeUUID: UUID().uuidString)
                if forCoreData { metadata.otherKeys[StoreMetadata.coreDataNumberingKey] = .boolean(true) }
                try store.writeMetadata(metadata)
                try store.writeModelCache(version)
            }
            return store
        } catch let error as StoreError {
            try? FileManager.default.removeItem(atPath: path)
            throw error
        } catch let error as SQLiteError {
            try? FileManager.default.removeItem(atPath: path)
            throw StoreError.from(error, path: path)
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw StoreError(.sqlite, "\(error)", path: path)
        }
    }
}

/// `access(2)`: whether this process may use the file at `path` as `mode` says.
private func canAccess(_ path: String, _ mode: Int32) -> Bool { access(path, mode) == 0 }
