import ArgumentParser
import DataModel
import Foundation
import ModelMigration
import SQLiteStore

/// `migrate create STORE`: a new empty store of a model version.
struct Create: MigrateCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create an empty store of a model version (default: the current version).")

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The store file to create.", valueName: "store"))
    var store: String

    @Option(name: .long, help: ArgumentHelp("The model (default: the only one under --models).", valueName: "name"))
    var model: String?

    @Option(name: .long, help: ArgumentHelp("The version (default: the current, highest version).", valueName: "n"))
    var version: Int?

    @Flag(
        name: .long, help: "Replace an existing file (or set aside the -wal/-journal a removed store left at the path)."
    )
    var force = false

    @Flag(
        name: .long,
        help:
            """
            The store will be opened by Apple's Core Data: migrations keep Core Data's entity numbering, decimals are \
            declared DECIMAL.
            """
    )
    var forCoreData = false

    func run() throws {
        let compiled = try global.model(named: model, in: global.loadModels())
        let target: CompiledVersion
        if let version {
            guard let found = compiled.version(version) else {
                throw global.fail(
                    "model \(compiled.name) has no version \(version) (versions 1 to \(compiled.current.version))",
                    .usage)
            }
            target = found
        } else {
            target = compiled.current
        }
        var setAside: [(from: String, to: String)] = []
        do {
            var info = stat()
            if force, lstat(store, &info) != 0 {
                // A removed store's log would be applied to the new one: it goes aside, named.
                setAside = try StoreSideFiles.setAsideLeftoverLogs(beside: store, stamp: Store.utcStamp(Date()))
            }
            // A signal while the store is built beside its path stops the command before
            // the new store takes the path; the built file is removed.
            let interruption = try SignalCancellation()
            defer { interruption.stop() }
            let created: Store
            do {
                created = try Store.create(
                    path: store, version: target, overwrite: force, forCoreData: forCoreData,
                    isCancelled: { interruption.cancellation.isCancelled })
            } catch {
                guard error.kind == .interrupted else { throw error }
                throw global.fail("\(store): \(error.message)", .interrupted(signal: interruption.signal ?? SIGTERM))
            }
            try created.close()
        } catch {
            throw global.fail(error)
        }
        if global.json {
            try Output.json(
                Created(
                    store: store, model: compiled.name, version: target.version, forCoreData: forCoreData,
                    setAside: setAside.isEmpty ? nil : setAside.map(\.to)))
        } else {
            Output.out(
                "created \(store): model \(compiled.name) version \(target.version)\(Self.setAsideNote(setAside))")
        }
    }

    /// "; the removed store's log … was set aside as …", or nothing.
    static func setAsideNote(_ moved: [(from: String, to: String)]) -> String {
        moved.isEmpty
            ? ""
            : "; "
                + moved.map { "the removed store's log \($0.from) was set aside as \($0.to)" }.joined(separator: "; ")
    }

    /// `create --json`.
    struct Created: Encodable {
        var store: String
        var model: String
        var version: Int
        var forCoreData: Bool
        /// The leftover logs `--force` set aside (their new paths).
        var setAside: [String]?
    }
}
