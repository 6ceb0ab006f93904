import Foundation

/// The store as it was under the migration's lock, before the first write.
///
/// Rollback-journal stores: the file's size, its first page (SQLite's header with
/// its change counter, and the schema's root) and the schema, `Z_PRIMARYKEY` and
/// metadata, which every migration changes. WAL stores: an uncommitted transaction
/// never reaches the database file (frames without a commit record are ignored),
/// and the file's bytes may move legitimately (the last connection to close
/// checkpoints committed frames into it), so only the schema, `Z_PRIMARYKEY` and
/// the metadata are compared.
package struct StoreFingerprint: Equatable {
    package var file: FileFingerprint
    package var isWAL: Bool
    package var logical: String

    /// Taken by the connection holding the migration's lock.
    package init(_ store: Store) throws {
        try self.init(store.connection)
    }

    package init(_ connection: Connection) throws {
        let mode = try connection.scalarString("PRAGMA journal_mode")?.lowercased() ?? ""
        isWAL = mode == "wal"
        // The file's size and its first page — SQLite's header (change counter,
        // page count, schema cookie) and the schema's root — not every byte: hashing
        // the whole file would make an O(1) migration cost as much as reading the
        // store (a 2 GB store, seconds). SQLite writes page 1 before any other page
        // a transaction changes and restores it with them, so a rollback that did not
        // complete shows there, and the journal it would leave is checked too.
        let pageSize = Int(try connection.scalarInt64("PRAGMA page_size") ?? 4096)
        file = try connection.mainFileFingerprint(limit: Int64(pageSize))
        logical = try Self.logical(connection)
    }

    /// Taken after a failure, by a new connection: its first read replays a hot
    /// journal, and its read transaction keeps writers out while the file is read.
    package init(path: String, timeout: Double) throws {
        let connection = try Connection(path: path, mode: .readWrite, busyTimeout: timeout)
        defer { try? connection.close() }
        self = try connection.transaction(.deferred) {
            _ = try connection.scalarInt64("SELECT count(*) FROM sqlite_schema")
            return try StoreFingerprint(connection)
        }
    }

    /// The schema, `Z_PRIMARYKEY` and the metadata plist: what a migration changes
    /// first and last.
    package static func logical(_ connection: Connection) throws -> String {
        var parts: [String] = []
        let schema = try connection.prepare(
            "SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_schema ORDER BY name")
        while try schema.step() { parts.append(schema.string(at: 0)) }
        let keys = try connection.prepare(
            "SELECT Z_ENT || ' ' || Z_NAME || ' ' || Z_SUPER || ' ' || Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        while try keys.step() { parts.append(keys.string(at: 0)) }
        let plist = try connection.prepare("SELECT hex(Z_PLIST) FROM Z_METADATA")
        while try plist.step() { parts.append(plist.string(at: 0)) }
        return parts.joined(separator: "\n")
    }
}

extension StoreFingerprint {
    /// After a failed write under the lock (apply, update, delete, load): rolls
    /// back; when SQLite could not, closes the connection and lets a new one replay
    /// the hot journal; then compares the store with its fingerprint from before
    /// the first write, and checks that no journal is left. Returns the error to
    /// report: the original one when the store is proven unchanged. The store is
    /// closed afterwards.
    package static func proveUnchanged(_ store: Store, before: StoreFingerprint, after error: any Error) -> any Error {
        let connection = store.connection
        if connection.isInTransaction { try? connection.execute("ROLLBACK") }
        let path = store.resolvedPath
        if connection.mainFileHasMoved {
            // Another process put another file at the path (a restore): SQLite wrote
            // nothing to either, and the store now there was never opened by this run.
            try? store.close()
            return UnprovenWrite(
                kind: .replaced,
                message: """
                    \(store.path): the store was replaced by another process during this run (its file was renamed \
                    over or removed, e.g. by migrate restore); nothing of this run was written to it; check the store \
                    and run again
                    """)
        }
        var problems: [String] = []
        do { try store.close() } catch { problems.append("closing the connection failed: \(error)") }
        let journal = path + "-journal"
        if problems.isEmpty {
            // A journal beside the file after the writer closed is hot: the new
            // connection's first read rolls it back
            // (https://sqlite.org/atomiccommit.html#hot_journals).
            do {
                let after = try StoreFingerprint(path: path, timeout: 5)
                // In WAL mode the last connection to close checkpoints committed
                // frames into the file: its bytes may move while its content does not.
                if !before.isWAL, after.file != before.file {
                    problems.append("its bytes differ from before (\(before.file) before, \(after.file) now)")
                }
                if after.logical != before.logical { problems.append("its schema or metadata differ from before") }
            } catch {
                problems.append("it cannot be read back: \(error)")
            }
        }
        if let size = (try? FileManager.default.attributesOfItem(atPath: journal))?[.size] as? Int, size > 0 {
            problems.append("a journal of \(size) bytes is still beside the store")
        }
        guard !problems.isEmpty else { return error }
        let original = "\(error)".replacingOccurrences(of: "; nothing was changed", with: "")
        return UnprovenWrite(
            kind: .unproven,
            message: """
                \(original); and the store could not be proven unchanged after that failure: \
                \(problems.joined(separator: "; ")). Run `migrate status` on it (SQLite rolls a hot journal back on \
                the next open) and, if it is not at its old version, restore it from the backup
                """)
    }
}

extension StoreFingerprint {
    /// Runs `body` in one exclusive transaction on `store`, which commits or rolls
    /// back as `body` decides; after any failure proves the store unchanged
    /// (`proveUnchanged`), as apply does. `notBegun` words an error from before the
    /// transaction began (a lock not obtained), `failed` one from inside it.
    package static func guardedTransaction<T>(
        _ store: Store, notBegun: (any Error) -> any Error = { $0 }, failed: (any Error) -> any Error = { $0 },
        _ body: () throws -> (T, Connection.TransactionCompletion)
    ) throws -> T {
        let connection = store.connection
        var before: StoreFingerprint?
        var result: T?
        do {
            try connection.inTransaction(.exclusive) {
                before = try StoreFingerprint(connection)
                let (value, completion) = try body()
                result = value
                return completion
            }
        } catch {
            guard let before else { throw notBegun(error) }
            let reported = failed(error)
            guard needsProof(store) else { throw reported }
            throw proveUnchanged(store, before: before, after: reported)
        }
        return result!
    }

    /// Whether a failed transaction may have left the store other than it was:
    /// SQLite could not end it, or a journal is still beside the store (a rollback
    /// that an I/O error stopped). A refusal our own code raised, after which SQLite
    /// rolled back cleanly, needs no reopening: the store stays open for more work.
    package static func needsProof(_ store: Store) -> Bool {
        if store.connection.isInTransaction { return true }
        let size = (try? FileManager.default.attributesOfItem(atPath: store.resolvedPath + "-journal"))?[.size] as? Int
        return size.map { $0 > 0 } ?? false
    }
}

/// A failed write whose store could not be proven unchanged (`proveUnchanged`):
/// another process replaced the file during the run, or the store differs from its
/// fingerprint, cannot be read back or still has a journal beside it. The library
/// reports it in its callers' terms (`MigrationError`'s `storeChanged` and
/// `restoreFailed`, a request's failure).
package struct UnprovenWrite: Error, CustomStringConvertible {
    package enum Kind: Sendable { case replaced, unproven }

    package var kind: Kind
    package var message: String

    package init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    package var description: String { message }
}
