internal import CSQLite

extension Connection {
    /// The main database file as SQLite holds it open, read through SQLite's own
    /// file handle (`SQLITE_FCNTL_FILE_POINTER`).
    ///
    /// Reading the file through a descriptor of our own would be wrong while any
    /// connection of this process holds a lock on it: POSIX drops every lock a
    /// process holds on a file when any of its descriptors for that file is closed,
    /// and another process would then roll back a "hot" journal under a live
    /// transaction. SQLite's handle is never closed behind its back.
    private func mainFile() throws(SQLiteError) -> UnsafeMutablePointer<sqlite3_file> {
        var file: UnsafeMutablePointer<sqlite3_file>?
        let code = sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file)
        guard code == SQLITE_OK, let file, file.pointee.pMethods != nil else {
            try SQLiteError.fail(
                code == SQLITE_OK ? SQLITE_CANTOPEN : code, db, message: "the database file is not open", sql: nil,
                path: path)
        }
        return file
    }

    /// Whether the main database file this connection has open is no longer the
    /// file at its path (renamed over or unlinked by another process, e.g. a
    /// `restore`): SQLite then refuses to write it (`SQLITE_READONLY_DBMOVED`), and
    /// the file at the path is another one (`SQLITE_FCNTL_HAS_MOVED`).
    package var mainFileHasMoved: Bool {
        var moved: Int32 = 0
        return sqlite3_file_control(db, "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK && moved != 0
    }

    /// The size of the main database file in bytes.
    package func mainFileSize() throws(SQLiteError) -> Int64 {
        let file = try mainFile()
        var size: sqlite3_int64 = 0
        let code = file.pointee.pMethods.pointee.xFileSize(file, &size)
        if code != SQLITE_OK {
            try SQLiteError.fail(code, db, message: "cannot read the file size", sql: nil, path: path)
        }
        return size
    }

    /// Up to `count` bytes of the main database file from `offset` (fewer at its end).
    package func readMainFile(offset: Int64, count: Int) throws(SQLiteError) -> [UInt8] {
        let file = try mainFile()
        let size = try mainFileSize()
        let available = Int(max(0, min(Int64(count), size - offset)))
        guard available > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: available)
        let code = bytes.withUnsafeMutableBytes { buffer in
            file.pointee.pMethods.pointee.xRead(file, buffer.baseAddress, Int32(available), offset)
        }
        if code != SQLITE_OK {
            try SQLiteError.fail(code, db, message: "cannot read the database file", sql: nil, path: path)
        }
        return bytes
    }

    /// The size and a hash of the main database file's bytes, read through SQLite's
    /// handle: call it while this connection holds a lock, so that nobody writes
    /// the file meanwhile.
    /// `limit`: hash only the first `limit` bytes (the size is the whole file's).
    package func mainFileFingerprint(limit: Int64? = nil) throws(SQLiteError) -> FileFingerprint {
        let size = try mainFileSize()
        let end = min(size, limit ?? size)
        var hasher = Hasher64()
        var offset: Int64 = 0
        let chunk = 1 << 20
        while offset < end {
            let bytes = try readMainFile(offset: offset, count: Int(min(Int64(chunk), end - offset)))
            if bytes.isEmpty { break }
            hasher.add(bytes)
            offset += Int64(bytes.count)
        }
        return FileFingerprint(size: size, hash: hasher.finish(length: offset))
    }
}
