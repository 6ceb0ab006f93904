import Foundation
import ScratchFiles

/// Where `restore` keeps the store it replaces: in a folder of its own beside the
/// store, `.replaced/`, as `<store file name>.replaced.<UTC time>[-n].sqlite`.
///
/// A kept copy is an old store: kept beside the store (as earlier releases did,
/// `<store>.replaced.<time>.sqlite`), a fleet's `*.sqlite` pattern took it for a
/// store, so that after one rollback `fleet status` refused the deploy (the copy's
/// version is unknown to the rolled-back models) and a later `fleet apply` would
/// have migrated it. A hidden folder is never searched by a fleet (as `.git` is
/// not), whatever `--pattern` says; and the name is recognised anywhere
/// (``isKeptName(_:)``), so that a copy moved elsewhere, a `.replaced` folder named
/// on the command line, or a copy an earlier release left beside its store is
/// never taken for a store either. The folder is beside the store, on its file
/// system, so the copy is a hard link taken before the rename: the store's path
/// never names nothing.
enum ReplacedStore {
    /// The folder beside a store that holds its kept copies.
    static let folderName = ".replaced"

    /// `.replaced/` beside the store file at `target`.
    static func folder(beside target: String) -> String {
        let parent = PathText.parent(of: target)
        return parent.isEmpty ? folderName : (parent as NSString).appendingPathComponent(folderName)
    }

    /// Whether a file name is one `restore` gives a replaced store:
    /// `<store>.replaced.<yyyyMMddTHHmmssZ>[-<n>].sqlite`.
    static func isKeptName(_ name: String) -> Bool {
        guard name.hasSuffix(".sqlite"), let range = name.range(of: ".replaced.", options: .backwards) else {
            return false
        }
        let tail = name[range.upperBound...].dropLast(7)
        let parts = tail.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count),
            parts.count == 1 || (!parts[1].isEmpty && parts[1].allSatisfy(\.isASCIIDigit))
        else { return false }
        let stamp = parts[0]
        return stamp.count == 16 && stamp.hasSuffix("Z") && stamp.dropFirst(8).first == "T"
            && stamp.filter(\.isASCIIDigit).count == 14
    }

    /// A hard link to the old store at `target` in `.replaced/` beside it: the
    /// store's path keeps naming it until the rename. Creates the folder; a
    /// `.replaced` that is not a folder (a file, a symbolic link) is refused.
    static func keep(_ target: String, stamp: String, shownAs shown: String, temporary: String) throws(StoreRestore
        .Failure) -> String
    {
        let folder = folder(beside: target)
        func refuse(_ why: String) -> StoreRestore.Failure {
            unlink(temporary)
            return StoreRestore.Failure(
                kind: .failed,
                message: "\(shown): cannot keep the replaced store in \(folder): \(why); nothing was changed")
        }
        var info = stat()
        if lstat(folder, &info) != 0 {
            guard mkdir(folder, 0o755) == 0 || errno == EEXIST else { throw refuse(String(cString: strerror(errno))) }
        }
        guard lstat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw refuse("it is not a folder (move it away, or restore by hand)")
        }
        let name = (target as NSString).lastPathComponent
        for sequence in 1...100 {
            let candidate = (folder as NSString).appendingPathComponent(
                "\(name).replaced.\(stamp)\(sequence == 1 ? "" : "-\(sequence)").sqlite")
            let code = StoreBackup.claim(target, as: candidate)
            if code == 0 {
                try? StoreBackup.sync(folder)
                return candidate
            }
            guard code == EEXIST else { throw refuse("\(candidate): \(String(cString: strerror(code)))") }
        }
        throw refuse("100 kept copies of this second already")
    }
}
