import ArgumentParser
import Foundation
import ModelMigration

/// `migrate restore STORE --backup-dir DIR`: put back a backup `apply` kept.
struct Restore: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put back the newest backup of a store that apply --backup-dir kept (of --version N: taken at version N), atomically.",
        discussion: """
            The backup must open, pass PRAGMA integrity_check and hold the version its name says. It is copied beside the store, synced \
            and renamed over it; the replaced store is kept as <store>.replaced.<UTC time>.sqlite with its journal files. \
            Refused while another process holds the store. Exit 0 restored; 1 refused or failed (the store is unchanged).
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The store (it may be missing: the backup is then put there).", valueName: "store"))
    var store: String

    @Option(name: .customLong("backup-dir"), help: ArgumentHelp("The folder apply --backup-dir wrote into.", valueName: "folder"))
    var backupDirectory: String

    @Option(name: .long, help: ArgumentHelp("Only backups taken at this version (the <from> of their names); default: the newest backup.",
                                            valueName: "n"))
    var version: Int?

    @Option(name: .long, help: ArgumentHelp("Seconds to wait for another process's lock on the store.", valueName: "seconds"))
    var timeout: Double = 30

    func validate() throws {
        if !(timeout >= 0) || !timeout.isFinite { throw ValidationError("--timeout must be a number of seconds, 0 or more") }
        if let version, version < 1 { throw ValidationError("--version must be 1 or more") }
    }

    /// `restore --json`.
    struct Restored: Encodable {
        var store: String
        var backup: String
        var model: String
        var version: Int
        var replaced: String?
    }

    func run() throws {
        var options = StoreRestore.Options(backupDirectory: backupDirectory, version: version)
        options.timeout = timeout
        options.models = global.loadModelsIfPresent()
        let result: StoreRestore.Result
        do {
            result = try StoreRestore.restore(store: store, options: options)
        } catch {
            throw global.fail(error.message, .failed)
        }
        if global.json {
            try Output.json(Restored(store: result.store, backup: result.backup, model: result.model, version: result.version, replaced: result.replaced))
        } else {
            Output.out("""
                restored \(store) to \(result.model) version \(result.version) from \(result.backup)\
                \(result.replaced.map { "; the replaced store is kept as \($0)" } ?? "")
                """)
        }
    }
}
