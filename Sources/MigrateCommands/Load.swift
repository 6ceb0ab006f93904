import ArgumentParser
import Foundation
import ModelMigration
import SQLiteStore

/// `migrate load STORE ENTITY FILE`: insert JSON Lines objects, all or nothing.
struct Load: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Load objects from a JSON Lines file into a store, all or nothing.",
        discussion: "The format is described in Docs/Objects.md (\"Loading and dumping objects\"). FILE - reads standard input.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The store.", valueName: "store"))
    var store: String

    @Argument(help: ArgumentHelp("The entity of the objects (a line may name a subentity with _entity); left out with --all.", valueName: "entity"))
    var entity: String?

    @Argument(help: ArgumentHelp("The JSON Lines file, or - for standard input.", valueName: "file"))
    var entityFile: String?

    @Option(
        name: .long,
        help: ArgumentHelp("A whole store's lines (`dump --all`): every line names its entity with _entity; - for standard input.", valueName: "file"))
    var all: String?

    /// The file to read: FILE, or --all's.
    var file: String { all ?? entityFile ?? "-" }

    @Option(name: .long, help: ArgumentHelp("Seconds to wait for other writers' and readers' locks (default 30).", valueName: "seconds"))
    var timeout: Double = 30

    func validate() throws {
        if all != nil, entity != nil {
            throw ValidationError("--all loads a whole store's lines, each naming its entity: leave out the entity and the file")
        }
        if all == nil, entity == nil || entityFile == nil { throw ValidationError("name the entity and the file, or --all FILE for a whole store") }
        // NaN fails every comparison, and infinity would trap where seconds are shown.
        if !(timeout >= 0) || !timeout.isFinite { throw ValidationError("--timeout must be a number of seconds, 0 or more") }
    }

    func run() throws {
        // The file is read as it is loaded, a chunk at a time; its first chunk is
        // read before the store is opened: a file that cannot be read leaves the
        // store untouched, and is never taken for an empty one.
        let name = file == "-" ? "<stdin>" : file
        let descriptor = file == "-" ? STDIN_FILENO : open(file, O_RDONLY | O_CLOEXEC)
        func unreadable(_ reason: String) -> ExitCode {
            global.fail("\(name): cannot read the file: \(reason) (nothing was loaded)", .failed)
        }
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
        let size: Int64? = fstat(descriptor, &status) == 0 && (status.st_mode & UInt32(S_IFMT)) == UInt32(S_IFREG) ? Int64(status.st_size) : nil
        let progress = LoadProgress(json: global.json, bytesInAll: size)
        let models = global.loadModelsIfPresent()
        do {
            let opened = try Store.open(path: store, access: .readWrite, busyTimeout: timeout)
            let version = try opened.currentVersion(among: models)
            let access = try ObjectAccess(store: opened, version: version)
            // The entity argument is a usage error like fetch's (64, with a suggestion).
            if let entity { try global.requireEntity(entity, in: version, suffix: " (nothing was loaded)") }
            let count = try global.rollingBackOnSignals(opened) { cancellation in
                // A signal also stops a wait for input (an idle producer on stdin).
                reader.isCancelled = { cancellation.isCancelled }
                return try ObjectJSONLines.load(access, entity: entity, reader: reader, file: name, progress: progress.report)
            }
            progress.finish()
            try opened.close()
            if global.json {
                try Output.json(Loaded(store: store, entity: entity, loaded: count))
            } else {
                let noun = entity.map { "\($0) " } ?? ""
                Output.out("loaded \(count) \(noun)object\(count == 1 ? "" : "s") into \(store)")
            }
        } catch let error as JSONLinesReader.ReadError {
            progress.finish()
            throw unreadable(error.reason)
        } catch let error as UnknownVersionError {
            throw global.fail(error)
        } catch let error as LoadError {
            progress.finish()
            // One refused line a line of output; the last says that nothing was loaded.
            let lines = error.description.split(separator: "\n").map { "error: \($0)" }
            throw global.fail(
                "\(error) (nothing was loaded)", .failed,
                rendered: lines.joined(separator: "\n") + " (nothing was loaded)")
        } catch let error as StoreError {
            throw global.fail("\(error)\(error.kind == .invalidObject || error.kind == .unknownEntity ? " (nothing was loaded)" : "")", .failed)
        } catch let error as SQLiteError where error.kind == .busy || error.kind == .locked {
            let who = LockHolders.describe(path: store).map { " (held by \($0))" } ?? ""
            throw global.fail("\(store): another migration, writer or reader holds the store\(who); nothing was loaded", .failed)
        } catch let error as SQLiteError {
            throw global.fail("\(StoreError.from(error, path: store)) (nothing was loaded)", .failed)
        } catch let error as ExitCode {
            throw error
        } catch {
            throw global.fail(error)
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

/// `load`'s progress on stderr, on a terminal and without `--json`: the lines read,
/// and the rate and time left from the bytes read of a regular file.
final class LoadProgress {
    let active: Bool
    let bytesInAll: Int64?
    let started = Date()
    private var lastDraw = Date()

    init(json: Bool, bytesInAll: Int64?) {
        active = !json && Output.stderrIsTerminal
        self.bytesInAll = bytesInAll
    }

    func report(lines: Int, bytes: Int64) {
        guard active else { return }
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        let elapsed = now.timeIntervalSince(started)
        let byBytes = ProgressEstimate(done: bytes, total: bytesInAll, elapsed: elapsed)
        var line = ProgressEstimate(done: Int64(lines), total: nil, elapsed: elapsed).text(unit: "lines")
        if let total = bytesInAll, total > 0 { line += String(format: " (%.0f%% of the file)", Double(bytes) / Double(total) * 100) }
        if let left = byBytes.secondsLeft { line += ", ETA \(left) s" }
        Output.errRaw("\r\u{1B}[K" + line)
    }

    func finish() {
        if active { Output.errRaw("\r\u{1B}[K") }
    }
}
