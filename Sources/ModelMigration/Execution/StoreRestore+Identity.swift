import Foundation
import SQLiteStore

/// Which backups are provably of the store being restored.
///
/// Core Data identifies a store by the `NSStoreUUID` in its metadata (a copy keeps
/// it; a new store gets a new one), and so does `restore`: while the store can be
/// read, only backups with its UUID qualify, wherever they lie. When it is missing
/// or unreadable, nothing proves a backup's identity but where it was filed: only
/// backups in the store's own folder under the backup folder qualify
/// (`StoreBackup.filedFolder(in:for:)`). Backups of the earlier layout, side by side
/// in the backup folder itself, are shared by every store of the same file name; they
/// qualify only through the UUID.
extension StoreRestore {
    /// The store at a path, as far as its identity goes.
    enum StoreIdentity: Equatable {
        /// A store with this `NSStoreUUID`.
        case uuid(String)
        /// Nothing at the path.
        case missing
        /// A file whose metadata cannot be read (damaged, not a store, locked).
        case unreadable

        init(path: String, timeout: Double) {
            var info = stat()
            guard lstat(path, &info) == 0 else {
                self = .missing
                return
            }
            self = Self.uuid(ofStoreAt: path, timeout: timeout).map { .uuid($0) } ?? .unreadable
        }

        /// The `NSStoreUUID` of the store at `path`, nil when it cannot be read.
        static func uuid(ofStoreAt path: String, timeout: Double = 0) -> String? {
            guard let store = try? Store.open(path: path, access: .readOnly, busyTimeout: timeout) else { return nil }
            defer { try? store.close() }
            return try? store.readMetadata().storeUUID
        }
    }

    /// The backups among `candidates` (of the store's file name, oldest first) that
    /// are provably of the store at `storePath`, oldest first; throws when none is,
    /// naming the candidates. A backup whose UUID cannot be read stays a candidate
    /// where its place allows it, so that `check` says what is wrong with it rather
    /// than an older backup being restored in its stead.
    static func ownBackups(
        _ candidates: [Backup], of storePath: String, identity: StoreIdentity,
        folder: String
    ) throws(Failure) -> [Backup] {
        let name = (storePath as NSString).lastPathComponent
        func listed(_ backups: [(Backup, String?)]) -> String {
            backups.reversed().map { backup, uuid in
                "\(shownPath(backup, folder: folder)) (\(uuid.map { "store UUID \($0)" } ?? "unreadable"))"
            }.joined(separator: ", ")
        }
        switch identity {
        case .uuid(let uuid):
            let read = candidates.map { ($0, StoreIdentity.uuid(ofStoreAt: $0.path)) }
            let own = read.filter { $0.1 == nil || $0.1 == uuid }.map(\.0)
            if !own.isEmpty { return own }
            throw Failure(
                kind: .noBackup,
                message: """
                    \(folder): no backup of \(name) (store UUID \(uuid)) in it: \(listed(read)) \
                    \(read.count == 1 ? "is" : "are") of another store; nothing was changed
                    """)
        case .missing, .unreadable:
            let filed = candidates.filter(\.isFiled)
            if !filed.isEmpty { return filed }
            let own = StoreBackup.filedFolder(in: folder, for: storePath)
            let why = identity == .missing ? "is missing" : "cannot be read"
            throw Failure(
                kind: .noBackup,
                message: """
                    \(folder): no backup filed under \(own) and \(name) \(why), so no store UUID proves which backup \
                    of that file name is its own: \
                    \(listed(candidates.map { ($0, StoreIdentity.uuid(ofStoreAt: $0.path)) })); nothing was changed \
                    (to restore one of them, move it into \(own) first)
                    """)
        }
    }

    /// A backup's path as messages show it: below the backup folder.
    static func shownPath(_ backup: Backup, folder: String) -> String {
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        return backup.path.hasPrefix(prefix) ? String(backup.path.dropFirst(prefix.count)) : backup.path
    }
}
