import Foundation
import SQLiteStore
import ScratchFiles

/// SQLite's lock bytes of a database file (unix VFS: PENDING_BYTE at 1 GiB, then
/// RESERVED and the 510 SHARED bytes), all write-locked through a descriptor of our
/// own: no connection of SQLite's reads or writes the file while it is held, and a
/// journal beside the file is never taken for a hot one (the RESERVED byte is held).
/// No SQLite connection of this process may have the file open meanwhile: closing
/// either descriptor would drop the other's POSIX locks.
final class FileLock {
    private var descriptor: Int32
    private let shown: String
    static let range = (start: off_t(0x4000_0000), length: off_t(512))

    init(descriptor: Int32, shownAs shown: String) {
        self.descriptor = descriptor
        self.shown = shown
    }

    /// Opens `path` and write-locks its lock bytes, waiting up to `timeout` seconds.
    convenience init(path: String, shownAs shown: String, timeout: Double, cancellation: MigrationCancellation? = nil)
        throws(StoreRestore.Failure)
    {
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StoreRestore.Failure(
                kind: .failed,
                message: "\(shown): cannot open the store: \(String(cString: strerror(errno))); nothing was changed")
        }
        self.init(descriptor: descriptor, shownAs: shown)
        let deadline = Date().addingTimeInterval(max(0, timeout))
        while true {
            do {
                try lockAll()
                return
            } catch {
                if cancellation?.isCancelled == true {
                    release()
                    throw StoreRestore.Failure(
                        kind: .interrupted,
                        message: "interrupted while waiting for the store's lock; the store is unchanged")
                }
                if Date() >= deadline {
                    let who = LockHolders.describe(path: path).map { " (held by \($0))" } ?? ""
                    release()
                    throw StoreRestore.Failure(
                        kind: .locked,
                        message: """
                            \(shown): another process holds the store\(who); waited \(Migrator.seconds(timeout)) s \
                            (--timeout); nothing was changed
                            """)
                }
                usleep(50_000)
            }
        }
    }

    /// Write-locks the lock bytes now, or throws.
    func lockAll() throws(StoreRestore.Failure) {
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = Self.range.start
        lock.l_len = Self.range.length
        guard fcntl(descriptor, F_SETLK, &lock) == 0 else {
            throw StoreRestore.Failure(kind: .locked, message: "\(shown): locked by another process")
        }
    }

    /// Closes the descriptor, which releases the locks.
    func release() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }

    deinit { release() }
}
