import ArgumentParser
import Foundation
import ModelMigration

/// `migrate backups prune --backup-dir DIR --keep N`
struct BackupsPrune: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Keep the newest N backups of each store in a backup folder and remove the older ones.",
        discussion: """
            A store's backups are the files of one folder of --backup-dir named <store>.v<from>-to-<to>.<UTC time>.sqlite after \
            one store file name (apply files each store's backups under the store's own folder path). Only complete backups this \
            toolkit wrote are removed (a regular file with a backup's name that opens as a store); anything else named like one is \
            left and listed. Exit 0 done (or nothing to remove); 1 the folder cannot be read, or a backup could not be removed; \
            64 usage.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .customLong("backup-dir"), help: ArgumentHelp("The folder apply --backup-dir writes into.", valueName: "folder"))
    var backupDirectory: String

    @Option(name: .long, help: ArgumentHelp("How many backups of each store to keep, the newest (1 or more).", valueName: "n"))
    var keep: Int

    @Flag(name: .long, help: "Say what would be removed; remove nothing.")
    var dryRun = false

    func validate() throws {
        if keep < 1 { throw ValidationError("--keep must be 1 or more") }
    }

    /// `backups prune --json`.
    struct Pruned: Encodable {
        var backupDir: String
        var keep: Int
        var dryRun: Bool
        var kept: Int
        var removed: Int
        var stores: [BackupRetention.Report]
    }

    func run() throws {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: backupDirectory, isDirectory: &isFolder), isFolder.boolValue else {
            throw global.fail("\(backupDirectory): no such backup folder; nothing was removed", .failed)
        }
        let reports = BackupRetention.groups(under: backupDirectory).map { BackupRetention.prune($0, keep: keep, dryRun: dryRun) }
        let kept = reports.reduce(0) { $0 + $1.kept.count }
        let removed = reports.reduce(0) { $0 + $1.removed.count }
        if global.json {
            try Output.json(Pruned(backupDir: backupDirectory, keep: keep, dryRun: dryRun, kept: kept, removed: removed, stores: reports))
        } else {
            let verb = dryRun ? "would remove" : "removed"
            for report in reports {
                for path in report.removed { Output.out("\(verb) \(path)") }
                for left in report.left { Output.err("\(left.failed ? "error" : "warning"): \(left.path): \(left.reason)") }
            }
            Output.out(
                """
                \(reports.count) store\(reports.count == 1 ? "" : "s") in \(backupDirectory): kept \(kept) backup\(kept == 1 ? "" : "s") \
                (the newest \(keep) of each), \(verb) \(removed)\(dryRun ? " (dry run: nothing was removed)" : "")
                """)
        }
        if reports.contains(where: { $0.left.contains(where: \.failed) }) { throw ExitCode(1) }
    }
}
