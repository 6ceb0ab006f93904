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

    func run() throws {
        let text: String
        if file == "-" {
            text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        } else {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw global.fail("\(file): cannot read the file", ExitStatus.failure)
            }
            text = String(decoding: data, as: UTF8.self)
        }
        let models = global.loadModelsIfPresent()
        do {
            let opened = try Store.open(path: store, access: .readWrite)
            let version = try opened.currentVersion(among: models)
            let access = try ObjectAccess(store: opened, version: version)
            let count = try global.rollingBackOnSignals(opened) {
                try ObjectJSONLines.load(access, entity: entity, text: text, file: file == "-" ? "<stdin>" : file)
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
        }
    }

    /// `load --json`.
    struct Loaded: Encodable {
        var store: String
        var entity: String
        var loaded: Int
    }
}
