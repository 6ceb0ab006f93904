import Foundation
import SQLiteStore

/// Keeps the newest backups of each store in a backup folder and removes the older
/// ones (`apply --backup-dir DIR --keep N`, `migrate backups prune`).
///
/// A store's backups are the files of one folder named after one store file name
/// (`<store>.v<from>-to-<to>.<UTC time>[-n].sqlite`, `StoreRestore.parse`): `apply`
/// files every store's backups in the store's own folder path under the backup
/// folder (`StoreBackup.filedFolder(in:for:)`), so one folder and one name are one
/// store, and stores of the same file name in different folders are never counted
/// together. (Backups that earlier releases wrote into the backup folder itself
/// are grouped there by file name.) Newest means the UTC time and the `-n` in the
/// name, as `restore` chooses.
///
/// Only a complete backup this toolkit wrote is ever removed: a regular file (not a
/// symbolic link) with a backup's name, that opens as a store with its metadata. A
/// backup takes its name only once it is whole and synced, so a name is never a
/// partial copy (those are scratch files, swept by `ScratchFile`). Anything else
/// named like a backup is left and reported.
package enum BackupRetention {
    /// The backups of one store, oldest first.
    package struct Group: Sendable {
        /// The folder they are in.
        package var folder: String
        /// The store's file name without `.sqlite`.
        package var storeName: String
        package var backups: [StoreRestore.Backup]
    }

    /// What a prune did (or, as a dry run, would do) to one store's backups.
    package struct Report: Sendable, Codable {
        /// The folder and the store's file name without `.sqlite`.
        package var folder: String
        package var store: String
        /// The backups kept, newest first.
        package var kept: [String] = []
        /// The backups removed (with their journal files), newest first.
        package var removed: [String] = []
        /// Files named like backups that were due to go but were left, each with why.
        package var left: [Left] = []
    }

    /// A file a prune left.
    package struct Left: Sendable, Codable, Hashable {
        package var path: String
        package var reason: String
        /// True when removing a backup failed (permissions); false for a file that
        /// is not a backup this toolkit wrote.
        package var failed: Bool
    }

    /// The backups of the store named `storeName` (without `.sqlite`) in `folder`.
    package static func group(folder: String, storeName: String) -> Group {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let backups = names.compactMap { StoreRestore.parse($0, storeName: storeName, folder: folder) }
        return Group(folder: folder, storeName: storeName, backups: backups.sorted(by: newerLast))
    }

    /// Every store's backups under `root`, searched recursively (symbolic links are
    /// not followed), by folder and then store name.
    package static func groups(under root: String) -> [Group] {
        var unreadable: [String] = []
        return groups(under: root, unreadable: &unreadable)
    }

    /// ``groups(under:)``, adding to `unreadable` each folder that could not be read
    /// (its backups are not seen: a prune must say so, not pass over them).
    package static func groups(under root: String, unreadable: inout [String]) -> [Group] {
        var groups: [Group] = []
        walkFolders(from: root, unreadable: &unreadable) { folder, names in
            var byStore: [String: [StoreRestore.Backup]] = [:]
            for name in names {
                guard let dot = name.range(of: ".v", options: .backwards) else { continue }
                let store = String(name[..<dot.lowerBound])
                if let backup = StoreRestore.parse(name, storeName: store, folder: folder) {
                    byStore[store, default: []].append(backup)
                }
            }
            groups += byStore.map { Group(folder: folder, storeName: $0.key, backups: $0.value.sorted(by: newerLast)) }
        }
        return groups.sorted { ($0.folder, $0.storeName) < ($1.folder, $1.storeName) }
    }

    /// Every folder from `root` down, each listed once, depth first (symbolic links are
    /// not followed): `visit` gets the folder and the names of the files in it (not of
    /// its folders); a folder `enter` declines is not descended into. A folder that
    /// cannot be listed goes to `unreadable`.
    static func walkFolders(
        from root: String, unreadable: inout [String], entering enter: (String) -> Bool = { _ in true },
        _ visit: (_ folder: String, _ files: [String]) -> Void
    ) {
        var pending = [root]
        while let folder = pending.popLast() {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
                unreadable.append(folder)
                continue
            }
            var files: [String] = []
            var folders: [String] = []
            for name in names {
                let path = (folder as NSString).appendingPathComponent(name)
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                if (info.st_mode & S_IFMT) == S_IFDIR { folders.append(path) } else { files.append(name) }
            }
            visit(folder, files)
            if enter(folder) { pending += folders }
        }
    }

    /// Keeps the newest `keep` backups of `group` and removes the others, never
    /// `sparing` (the backup a run just took, whatever the clock said when it took
    /// it). A dry run removes nothing and reports what it would remove.
    package static func prune(_ group: Group, keep: Int, sparing: String? = nil, dryRun: Bool = false) -> Report {
        let newestFirst = Array(group.backups.reversed())
        var report = Report(folder: group.folder, store: group.storeName)
        for (index, backup) in newestFirst.enumerated() {
            if index < keep || backup.path == sparing {
                report.kept.append(backup.path)
            } else if let why = notABackup(backup.path) {
                report.left.append(Left(path: backup.path, reason: why, failed: false))
            } else if dryRun {
                report.removed.append(backup.path)
            } else if unlink(backup.path) != 0 {
                report.left.append(
                    Left(
                        path: backup.path, reason: "cannot remove it: \(String(cString: strerror(errno)))", failed: true
                    ))
            } else {
                StoreBackup.remove(backup.path)
                report.removed.append(backup.path)
            }
        }
        if !dryRun, !report.removed.isEmpty { try? StoreBackup.sync(group.folder) }
        return report
    }

    /// Why the file at `path` is not a backup this toolkit wrote, or nil when it is.
    static func notABackup(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return "it is gone" }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            return "not a regular file (a link or a folder named like a backup); left as it is"
        }
        guard StoreRestore.StoreIdentity.uuid(ofStoreAt: path) != nil else {
            return "not a store whose metadata can be read (damaged, or not a backup this toolkit wrote); left as it is"
        }
        return nil
    }

    private static func newerLast(_ a: StoreRestore.Backup, _ b: StoreRestore.Backup) -> Bool {
        (a.stamp, a.sequence, a.path) < (b.stamp, b.sequence, b.path)
    }
}
