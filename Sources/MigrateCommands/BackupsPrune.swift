import ArgumentParser
import Foundation
import ModelMigration

/// `migrate backups prune --backup-dir DIR --keep N`
struct BackupsPrune: MigrateCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Keep the newest N backups of each store in a backup folder and remove the older ones.",
        discussion: """
            A store's backups are the files of one folder of --backup-dir named <store>.v<from>-to-<to>.<UTC \
            time>.sqlite after one store file name (apply files each store's backups under the store's own folder \
            path). Only complete backups this toolkit wrote are removed (a regular file with a backup's name that \
            opens as a store); anything else named like one is left and listed. --replaced PATH does the same for the \
            stores restore replaced and kept in .replaced/ beside them (PATH: a store, or a folder searched for \
            .replaced folders, a fleet's root). Exit 0 done (or nothing to remove); 1 a folder cannot be read, or a \
            file could not be removed; 64 usage.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(
        name: .customLong("backup-dir"),
        help: ArgumentHelp("The folder apply --backup-dir writes into.", valueName: "folder"))
    var backupDirectory: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            Also keep the newest N stores restore replaced under this store or folder (in .replaced/ beside each \
            store; repeatable).
            """,
            valueName: "path"))
    var replaced: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp("How many backups of each store to keep, the newest (1 or more).", valueName: "n"))
    var keep: Int

    @Flag(name: .long, help: "Say what would be removed; remove nothing.")
    var dryRun = false

    func validate() throws {
        if keep < 1 { throw ValidationError("--keep must be 1 or more") }
        if backupDirectory == nil && replaced.isEmpty {
            throw ValidationError("give --backup-dir DIR, --replaced PATH, or both")
        }
    }

    /// `backups prune --json`.
    struct Pruned: Encodable {
        var backupDir: String?
        var keep: Int
        var dryRun: Bool
        var kept: Int
        var removed: Int
        var stores: [BackupRetention.Report]
        /// `--replaced`: the kept copies of replaced stores, per store (absent without it).
        var replaced: [BackupRetention.Report]?
        /// Folders that could not be read, whose files were not pruned (exit 1; absent when none).
        var unreadable: [String]?
    }

    func run() throws {
        var reports: [BackupRetention.Report] = []
        // Folders that could not be read: their files were not seen, so not pruned (exit 1).
        var unreadable: [String] = []
        if let backupDirectory {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: backupDirectory, isDirectory: &isFolder), isFolder.boolValue
            else {
                throw global.fail("\(backupDirectory): no such backup folder; nothing was removed", .failed)
            }
            reports = BackupRetention.groups(under: backupDirectory, unreadable: &unreadable).map {
                BackupRetention.prune($0, keep: keep, dryRun: dryRun)
            }
        }
        for path in replaced where !FileManager.default.fileExists(atPath: path) {
            throw global.fail("--replaced \(path): no such store or folder; nothing was removed", .failed)
        }
        // Paths that overlap (a fleet's root and one of its stores) name a store once.
        var seen: Set<String> = []
        let groups = replaced.flatMap { BackupRetention.replacedGroups(under: $0, unreadable: &unreadable) }.filter {
            seen.insert(
                ((URL(fileURLWithPath: $0.folder).resolvingSymlinksInPath().path) as NSString).appendingPathComponent(
                    $0.storeName)
            ).inserted
        }
        let kept = groups.map { BackupRetention.prune($0, keep: keep, dryRun: dryRun) }
        if global.json {
            try Output.json(
                Pruned(
                    backupDir: backupDirectory, keep: keep, dryRun: dryRun,
                    kept: reports.reduce(0) { $0 + $1.kept.count },
                    removed: reports.reduce(0) { $0 + $1.removed.count }, stores: reports,
                    replaced: replaced.isEmpty ? nil : kept,
                    unreadable: unreadable.isEmpty ? nil : unreadable))
        } else {
            if let backupDirectory { render(reports, in: backupDirectory, what: "backup") }
            if !replaced.isEmpty { render(kept, in: replaced.joined(separator: ", "), what: "replaced store") }
        }
        for folder in unreadable where !global.json {
            Output.err("error: \(folder): cannot be read; the files in it were not pruned")
        }
        if !unreadable.isEmpty || (reports + kept).contains(where: { $0.left.contains(where: \.failed) }) {
            throw global.said(.failed)
        }
    }

    /// The text of one kind of prune: each file removed, each left, and a count.
    func render(_ reports: [BackupRetention.Report], in place: String, what: String) {
        let kept = reports.reduce(0) { $0 + $1.kept.count }
        let removed = reports.reduce(0) { $0 + $1.removed.count }
        let verb = dryRun ? "would remove" : "removed"
        for report in reports {
            for path in report.removed { Output.out("\(verb) \(path)") }
            for left in report.left { Output.err("\(left.failed ? "error" : "warning"): \(left.path): \(left.reason)") }
        }
        Output.out(
            """
            \(reports.count) store\(reports.count == 1 ? "" : "s") in \(place): kept \(kept) \
            \(what)\(kept == 1 ? "" : "s") (the newest \(keep) of each), \(verb) \
            \(removed)\(dryRun ? " (dry run: nothing was removed)" : "")
            """)
    }
}
