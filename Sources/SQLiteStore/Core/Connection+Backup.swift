internal import CSQLite

extension Connection {
    /// Writes a consistent copy of the main database to the file at `path`, replacing
    /// its contents (https://sqlite.org/backup.html).
    ///
    /// Other connections may keep reading meanwhile; writers wait. Run it outside a write
    /// transaction of this connection, whose uncommitted changes would be copied too.
    package func backup(to path: String) throws(SQLiteError) {
        let destination = try Connection(path: path, mode: .readWriteCreate, busyTimeout: busyTimeout)
        guard let backup = sqlite3_backup_init(destination.db, "main", db, "main") else {
            // sqlite3_backup_init leaves its error on the destination connection.
            try SQLiteError.fail(sqlite3_extended_errcode(destination.db), destination.db, path: path)
        }
        // All pages in one step: the source stays read-locked for the whole copy, so the
        // copy is one snapshot even if another connection commits meanwhile.
        let stepCode = sqlite3_backup_step(backup, -1)
        // finish releases the backup whatever happened and reports the step's error, if
        // any, on the destination connection.
        let finishCode = sqlite3_backup_finish(backup)
        if stepCode != SQLITE_DONE {
            try SQLiteError.fail(stepCode, destination.db, path: path)
        }
        try SQLiteError.check(finishCode, destination.db, path: path)
        try destination.close()
    }
}
