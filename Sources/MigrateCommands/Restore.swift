import ArgumentParser
import Foundation
import ModelMigration
import SQLiteStore

/// `migrate restore STORE --backup-dir DIR`: put back a backup `apply` kept.
struct Restore: MigrateCommand {
    static let configuration = CommandConfiguration(
        abstract:
            """
            Put back the newest backup of a store that apply --backup-dir kept (of --version N: taken at version N), \
            atomically.
            """,
        discussion: """
            The backup must open, pass PRAGMA integrity_check and hold the version its name says. It is copied beside \
            the store, synced and renamed over it; the replaced store is kept as .replaced/<store>.replaced.<UTC \
            time>.sqlite beside it with its journal files (a hidden folder fleets never search: never taken for a \
            store). Refused while another process holds the store. A -wal or -journal left at a missing store's path \
            is set aside first. SIGINT/SIGTERM before the rename remove the partial copy. Exit 0 restored; 1 refused \
            or failed (the store is unchanged); 64 usage; 128+N stopped by signal N (the store is unchanged).
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The store (it may be missing: the backup is then put there).", valueName: "store"))
    var store: String

    @Option(
        name: .customLong("backup-dir"),
        help: ArgumentHelp("The folder apply --backup-dir wrote into.", valueName: "folder"))
    var backupDirectory: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Only backups taken at this version (the <from> of their names); default: the newest backup.",
            valueName: "n"))
    var version: Int?

    @Option(
        name: .customLong("from"),
        help: ArgumentHelp(
            """
            This backup file (checked as any backup: a whole store of the models, of this store) instead of one chosen \
            in --backup-dir.
            """, valueName: "file"))
    var file: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Seconds to wait for another process's lock on the store.", valueName: "seconds"))
    var timeout: Double = 30

    @Flag(
        name: .long,
        help: """
            Put back a backup that fails PRAGMA integrity_check: the store was already damaged when apply (without \
            --verify) copied it, and comes back as it was. Its entity hashes are still checked.
            """)
    var allowDamaged = false

    func validate() throws {
        if !(timeout >= 0) || !timeout.isFinite {
            throw ValidationError("--timeout must be a number of seconds, 0 or more")
        }
        if let version, version < 1 { throw ValidationError("--version must be 1 or more") }
        switch (backupDirectory, file) {
        case (nil, nil):
            throw ValidationError("give --backup-dir (the newest backup there) or --from (one backup file)")
        case (.some, .some): throw ValidationError("--backup-dir and --from: give one of them")
        case (nil, .some) where version != nil:
            throw ValidationError("--version chooses among --backup-dir's backups; --from names one file")
        default: break
        }
        if let file, let why = StoreSideFiles.pairing(of: file, with: store) {
            throw ValidationError("--from \(file): SQLite pairs that path with the store: \(why)")
        }
    }

    /// `restore --json`.
    struct Restored: Encodable {
        var store: String
        var backup: String
        var model: String
        var version: Int
        var replaced: String?
        var setAside: [StoreRestore.SetAside]?
        var removedPartials: [String]?
    }

    func run() throws {
        var options = StoreRestore.Options(backupDirectory: backupDirectory ?? "", version: version)
        options.file = file
        options.timeout = timeout
        options.allowsDamaged = allowDamaged
        options.models = global.loadModelsIfPresent()
        // SIGINT and SIGTERM stop the copy; the partial file is removed.
        let interruption: SignalCancellation
        do { interruption = try SignalCancellation() } catch { throw global.fail("\(store): \(error)", .failed) }
        defer { interruption.stop() }
        options.cancellation = interruption.cancellation
        let result: StoreRestore.Result
        do {
            result = try StoreRestore.restore(store: store, options: options)
        } catch {
            guard error.kind == .interrupted else { throw global.fail(error.message, .failed) }
            throw global.fail("\(store): \(error.message)", .interrupted(signal: interruption.signal ?? SIGTERM))
        }
        if global.json {
            try Output.json(
                Restored(
                    store: result.store, backup: result.backup, model: result.model, version: result.version,
                    replaced: result.replaced,
                    setAside: result.setAside.isEmpty ? nil : result.setAside,
                    removedPartials: result.removedPartials.isEmpty ? nil : result.removedPartials))
        } else {
            let setAside = result.setAside.map { "; the removed store's log \($0.from) was set aside as \($0.to)" }
                .joined()
            let partials = result.removedPartials.map { "; removed \($0), left by a restore that was killed" }.joined()
            Output.out(
                """
                restored \(store) to \(result.model) version \(result.version) from \(result.backup)\
                \(result.replaced.map { "; the replaced store is kept as \($0)" } ?? "")\(setAside)\(partials)
                """)
        }
    }
}
