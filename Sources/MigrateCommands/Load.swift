import ArgumentParser
import Foundation
import ModelMigration

/// `migrate load STORE ENTITY FILE`: insert JSON Lines objects, all or nothing.
struct Load: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Load objects from a JSON Lines file into a store, all or nothing.",
        discussion: "The format is described in the README (\"Loading and dumping objects\"). FILE - reads standard input.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The store.", valueName: "store"))
    var store: String

    @Argument(help: ArgumentHelp("The entity of the objects (a line may name a subentity with _entity).", valueName: "entity"))
    var entity: String

    @Argument(help: ArgumentHelp("The JSON Lines file, or - for standard input.", valueName: "file"))
    var file: String

    @Option(name: .long, help: ArgumentHelp("Seconds to wait for other writers' and readers' locks (default 30).", valueName: "seconds"))
    var timeout: Double = 30

    func validate() throws {
        // NaN fails every comparison, and infinity would trap where seconds are shown.
        if !(timeout >= 0) || !timeout.isFinite { throw ValidationError("--timeout must be a number of seconds, 0 or more") }
    }

    func run() throws {
        // Read whole before the store is opened: a file that cannot be read leaves
        // the store untouched, and is never taken for an empty one.
        let bytes: [UInt8]
        do {
            bytes = try Self.readAll(file == "-" ? nil : file)
        } catch {
            throw global.fail("\(file == "-" ? "<stdin>" : file): cannot read the file: \(error.reason) (nothing was loaded)", ExitStatus.failure)
        }
        let models = global.loadModelsIfPresent()
        do {
            let opened = try Store.open(path: store, access: .readWrite, busyTimeout: timeout)
            let version = try opened.currentVersion(among: models)
            let access = try ObjectAccess(store: opened, version: version)
            // The entity argument is a usage error like fetch's (64, with a suggestion).
            try global.requireEntity(entity, in: version, suffix: " (nothing was loaded)")
            let count = try global.rollingBackOnSignals(opened) {
                try ObjectJSONLines.load(access, entity: entity, bytes: bytes, file: file == "-" ? "<stdin>" : file)
            }
            try opened.close()
            if global.json {
                try Output.json(Loaded(store: store, entity: entity, loaded: count))
            } else {
                Output.out("loaded \(count) \(entity) object\(count == 1 ? "" : "s") into \(store)")
            }
        } catch let error as UnknownVersionError {
            throw global.fail("\(error)", ExitStatus.unknownVersion)
        } catch let error as LoadError {
            // One refused line a line of output; the last says that nothing was loaded.
            let lines = error.description.split(separator: "\n").map { "error: \($0)" }
            throw global.fail("\(error) (nothing was loaded)", ExitStatus.failure,
                              rendered: lines.joined(separator: "\n") + " (nothing was loaded)")
        } catch let error as StoreError {
            throw global.fail("\(error)\(error.kind == .invalidObject || error.kind == .unknownEntity ? " (nothing was loaded)" : "")", ExitStatus.failure)
        } catch let error as SQLiteError where error.kind == .busy || error.kind == .locked {
            let who = LockHolders.describe(path: store).map { " (held by \($0))" } ?? ""
            throw global.fail("\(store): another migration, writer or reader holds the store\(who); nothing was loaded", ExitStatus.failure)
        } catch let error as SQLiteError {
            throw global.fail("\(StoreError.from(error, path: store)) (nothing was loaded)", ExitStatus.failure)
        } catch let error as ExitCode {
            throw error
        } catch {
            throw global.fail("\(error)", ExitStatus.failure)
        }
    }

    /// Why a file could not be read: the system's reason (`Is a directory`).
    struct ReadError: Error {
        var reason: String
    }

    /// Every byte of a file (standard input for nil), or the system's reason why
    /// not: a directory, a file this user may not read, an I/O error midway.
    static func readAll(_ path: String?) throws(ReadError) -> [UInt8] {
        func failure() -> ReadError { ReadError(reason: String(cString: strerror(errno))) }
        let fd = path.map { open($0, O_RDONLY | O_CLOEXEC) } ?? STDIN_FILENO
        guard fd >= 0 else { throw failure() }
        defer { if path != nil { close(fd) } }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n == 0 { return bytes }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure()
            }
            bytes += chunk[..<n]
        }
    }

    /// `load --json`.
    struct Loaded: Encodable {
        var store: String
        var entity: String
        var loaded: Int
    }
}
