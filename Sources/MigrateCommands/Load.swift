import ArgumentParser
import Foundation
import JSONLines
import ModelMigration
import SQLiteStore

/// `migrate load STORE ENTITY FILE`: insert JSON Lines objects, all or nothing.
struct Load: MigrateCommand {
    static let configuration = CommandConfiguration(
        abstract: "Load objects from a JSON Lines file into a store, all or nothing.",
        discussion:
            "The format is described in Docs/Objects.md (\"Loading and dumping objects\"). FILE - reads standard input."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The store.", valueName: "store"))
    var store: String

    @Argument(
        help: ArgumentHelp(
            "The entity of the objects (a line may name a subentity with _entity); left out with --all.",
            valueName: "entity"))
    var entity: String?

    @Argument(help: ArgumentHelp("The JSON Lines file, or - for standard input.", valueName: "file"))
    var entityFile: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A whole store's lines (`dump --all`): every line names its entity with _entity; - for standard input.",
            valueName: "file"))
    var all: String?

    /// The file to read: FILE, or --all's.
    var file: String { all ?? entityFile ?? "-" }

    @Option(
        name: .long,
        help: ArgumentHelp("Seconds to wait for other writers' and readers' locks (default 30).", valueName: "seconds"))
    var timeout: Double = 30

    @Flag(
        name: .long,
        help:
            """
            No progress on stderr (a terminal's line, or a line every 1.5 s off a terminal) and no progress events \
            with --json.
            """
    )
    var noProgress = false

    func validate() throws {
        if all != nil, entity != nil {
            throw ValidationError(
                "--all loads a whole store's lines, each naming its entity: leave out the entity and the file")
        }
        if all == nil, entity == nil || entityFile == nil {
            throw ValidationError("name the entity and the file, or --all FILE for a whole store")
        }
        // NaN fails every comparison, and infinity would trap where seconds are shown.
        if !(timeout >= 0) || !timeout.isFinite {
            throw ValidationError("--timeout must be a number of seconds, 0 or more")
        }
    }

    func run() throws {
        // The file is read as it is loaded, a chunk at a time; its first chunk is
        // read before the store is opened: a file that cannot be read leaves the
        // store untouched, and is never taken for an empty one.
        let descriptor = file == "-" ? Invocation.current.input : open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw unreadable(String(cString: strerror(errno))) }
        defer { if file != "-" { close(descriptor) } }
        let reader = JSONLinesReader(fileDescriptor: descriptor)
        do {
            try reader.prime()
        } catch {
            throw unreadable(error.reason)
        }
        // A regular file's size, for the progress line's time left.
        var status = stat()
        let size: Int64? =
            fstat(descriptor, &status) == 0 && (status.st_mode & UInt32(S_IFMT)) == UInt32(S_IFREG)
            ? Int64(status.st_size) : nil
        let progress = LoadProgress(json: global.json, quiet: noProgress, bytesInAll: size)
        let count: Int
        do {
            count = try load(reader, progress: progress)
        } catch {
            // The progress lines stop before the error is told.
            progress.finish()
            throw failure(error)
        }
        progress.finish()
        if global.json {
            try Output.json(Loaded(store: store, entity: entity, loaded: count))
        } else {
            let noun = entity.map { "\($0) " } ?? ""
            Output.out("loaded \(count) \(noun)object\(count == 1 ? "" : "s") into \(store)")
        }
    }

    /// The file's name in messages.
    private var fileName: String { file == "-" ? "<stdin>" : file }

    private func unreadable(_ reason: String) -> CommandEnding {
        global.fail("\(fileName): cannot read the file: \(reason) (nothing was loaded)", .failed)
    }

    /// Opens the store and loads the lines into it; returns the number of objects loaded.
    private func load(_ reader: JSONLinesReader, progress: LoadProgress) throws -> Int {
        let models = global.loadModelsIfPresent()
        let opened = try Store.open(path: store, access: .readWrite, busyTimeout: timeout)
        let version = try opened.currentVersion(among: models)
        let access = try ObjectAccess(store: opened, version: version)
        // The entity argument is a usage error like fetch's (64, with a suggestion).
        if let entity { try global.requireEntity(entity, in: version, suffix: " (nothing was loaded)") }
        let count = try global.rollingBackOnSignals(opened) { cancellation in
            // A signal also stops a wait for input (an idle producer on stdin).
            reader.isCancelled = { cancellation.isCancelled }
            progress.start()
            do {
                return try ObjectJSONLines.load(
                    access, entity: entity, reader: reader, file: fileName, progress: progress.report)
            } catch {
                // The progress lines stop before any error is told: on a signal, the
                // rollback's message is written on the way out of this closure.
                progress.finish()
                throw error
            }
        }
        try opened.close()
        return count
    }

    /// The exit a failed load ends with, its error told.
    private func failure(_ error: any Error) -> any Error {
        switch error {
        case let error as JSONLinesReader.ReadError:
            return unreadable(error.reason)
        case let error as UnknownVersionError:
            return global.fail(error)
        case let error as LoadError:
            // One refused line a line of output; the last says that nothing was loaded.
            let lines = error.description.split(separator: "\n").map { "error: \($0)" }
            return global.fail(
                "\(error) (nothing was loaded)", .failed,
                rendered: lines.joined(separator: "\n") + " (nothing was loaded)")
        case let error as StoreError:
            return global.fail(
                """
                \(error)\(error.kind == .invalidObject || error.kind == .unknownEntity ? " (nothing was loaded)" : "")
                """,
                .failed)
        case let error as SQLiteError where error.kind == .busy || error.kind == .locked:
            let who = LockHolders.describe(path: store).map { " (held by \($0))" } ?? ""
            return global.fail(
                "\(store): another migration, writer or reader holds the store\(who); nothing was loaded", .failed)
        case let error as SQLiteError:
            return global.fail("\(StoreError.from(error, path: store)) (nothing was loaded)", .failed)
        default:
            return global.fail(error)
        }
    }

    /// `load --json`.
    struct Loaded: Encodable {
        var store: String
        /// Nil for `--all`.
        var entity: String?
        var loaded: Int
    }
}
