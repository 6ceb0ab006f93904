import Foundation

extension BackupRetention {
    /// The stores `restore` replaced and kept in `.replaced/` folders (the store's
    /// file name followed by `.replaced.<UTC time>[-n].sqlite`), grouped by folder and
    /// store, oldest first, so that ``prune(_:keep:sparing:dryRun:)`` keeps the newest
    /// of each. `root` is a store file (its own kept copies), a `.replaced` folder or a
    /// folder searched recursively (symbolic links are not followed).
    /// A `root` that is a symbolic link (a fleet's root, a store) is followed, as
    /// `fleet` and `restore` follow it; links below it are not.
    package static func replacedGroups(under root: String) -> [Group] {
        var unreadable: [String] = []
        return replacedGroups(under: root, unreadable: &unreadable)
    }

    /// ``replacedGroups(under:)``, adding to `unreadable` each folder that could not
    /// be read.
    package static func replacedGroups(under root: String, unreadable: inout [String]) -> [Group] {
        var info = stat()
        var root = root
        if lstat(root, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK, let resolved = realpath(root, nil) {
            root = String(cString: resolved)
            free(resolved)
        }
        guard lstat(root, &info) == 0 else { return [] }
        if (info.st_mode & S_IFMT) != S_IFDIR {
            let name = (root as NSString).lastPathComponent
            return replacedGroups(in: ReplacedStore.folder(beside: root), unreadable: &unreadable).filter {
                $0.storeName == name
            }
        }
        var groups: [Group] = []
        let isKeptFolder = { (folder: String) in (folder as NSString).lastPathComponent == ReplacedStore.folderName }
        walkFolders(from: root, unreadable: &unreadable, entering: { !isKeptFolder($0) }) { folder, names in
            if isKeptFolder(folder) { groups += replacedGroups(in: folder, names: names) }
        }
        return groups.sorted { ($0.folder, $0.storeName) < ($1.folder, $1.storeName) }
    }

    /// The kept copies in one `.replaced` folder, by store file name.
    private static func replacedGroups(in folder: String, unreadable: inout [String]) -> [Group] {
        var info = stat()
        guard lstat(folder, &info) == 0 else { return [] }  // no kept copies yet
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            unreadable.append(folder)
            return []
        }
        return replacedGroups(in: folder, names: names)
    }

    /// The kept copies among `names`, the files of the `.replaced` folder `folder`.
    private static func replacedGroups(in folder: String, names: [String]) -> [Group] {
        var byStore: [String: [StoreRestore.Backup]] = [:]
        for name in names where ReplacedStore.isKeptName(name) {
            guard let marker = name.range(of: ".replaced.", options: .backwards) else { continue }
            let stamp = name[marker.upperBound...].dropLast(7).split(separator: "-")
            let copy = StoreRestore.Backup(
                path: (folder as NSString).appendingPathComponent(name), from: 0, to: 0, stamp: String(stamp[0]),
                sequence: stamp.count == 2 ? Int(stamp[1]) ?? 1 : 1)
            byStore[String(name[..<marker.lowerBound]), default: []].append(copy)
        }
        return byStore.map { store, copies in
            Group(
                folder: folder, storeName: store,
                backups: copies.sorted { ($0.stamp, $0.sequence, $0.path) < ($1.stamp, $1.sequence, $1.path) })
        }
    }
}
