import Foundation

/// The files a fleet's store list has reached so far, by device and inode: a store
/// reached again by another path (a hard link, a symbolic link, a folder listed
/// twice or through a link) is the same store, and is migrated once.
///
/// Two migrations of one file through two paths are safe (SQLite locks the file,
/// not the path), but they are not one migration: the second finds the store
/// changed under it, and reports that instead of the store's real outcome. So the
/// list reports the second path as a duplicate of the first.
///
/// Every file's identity is kept (16 bytes a store, in a set); the path is kept only
/// for files another path can reach without the path itself showing it (more than
/// one hard link, or a symbolic link): any other file can be reached again only
/// through a path that resolves to its real path, which names it.
struct StoreIdentities {
    struct FileID: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    private var seen: Set<FileID> = []
    private var linked: [FileID: String] = [:]

    /// Records the store at `path`, whose `stat` (symbolic links followed) is
    /// `info`; `isLink` when the path itself is a symbolic link. Returns the path
    /// that reached the same file first, when one did.
    mutating func firstPath(of path: String, info: stat, isLink: Bool) -> String? {
        let id = FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        if seen.insert(id).inserted {
            if info.st_nlink > 1 || isLink { linked[id] = path }
            return nil
        }
        if let first = linked[id] { return first }
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        let resolved = String(cString: real)
        // Shown as the list shows paths: relative to the working folder when under it.
        let here = FileManager.default.currentDirectoryPath
        return resolved.hasPrefix(here + "/") ? String(resolved.dropFirst(here.count + 1)) : resolved
    }
}
