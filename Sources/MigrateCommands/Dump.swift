import ArgumentParser
import ModelMigration

/// `migrate dump STORE ENTITY`: objects as JSON Lines on stdout.
struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write an entity's objects (and its subentities') as JSON Lines, in primary-key order.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The store.", valueName: "store"))
    var store: String

    @Argument(help: ArgumentHelp("The entity.", valueName: "entity"))
    var entity: String

    @Option(name: .long, help: ArgumentHelp("At most this many objects.", valueName: "n"))
    var limit: Int?

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
    }

    func run() throws {
        Output.outputIsTheProduct = true
        let access = try global.openStoreForReading(store, models: global.loadModelsIfPresent(), entity: entity)
        defer { try? access.store.close() }
        do {
            var buffer = ""
            try ObjectJSONLines.dump(access, entity: entity, limit: limit) { line in
                buffer += line + "\n"
                if buffer.utf8.count > 1 << 16 { Output.write(buffer); buffer = "" }
            }
            Output.write(buffer)
        } catch let error as StoreError {
            throw global.fail("\(error)", ExitStatus.failure)
        }
    }
}
