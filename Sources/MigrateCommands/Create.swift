import ArgumentParser
import ModelMigration

/// `migrate create STORE`: a new empty store of a model version.
struct Create: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create an empty store of a model version (default: the current version).")

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The store file to create.", valueName: "store"))
    var store: String

    @Option(name: .long, help: ArgumentHelp("The model (default: the only one under --models).", valueName: "name"))
    var model: String?

    @Option(name: .long, help: ArgumentHelp("The version (default: the current, highest version).", valueName: "n"))
    var version: Int?

    @Flag(name: .long, help: "Replace an existing file.")
    var force = false

    @Flag(name: .long, help: "The store will be opened by Apple's Core Data: migrations keep Core Data's entity numbering, decimals are declared DECIMAL.")
    var forCoreData = false

    func run() throws {
        let compiled = try global.model(named: model, in: global.loadModels())
        let target: CompiledVersion
        if let version {
            guard let found = compiled.version(version) else {
                throw global.fail("model \(compiled.name) has no version \(version) (versions 1 to \(compiled.current.version))", .usage)
            }
            target = found
        } else {
            target = compiled.current
        }
        do {
            let created = try Store.create(path: store, version: target, overwrite: force, forCoreData: forCoreData)
            try created.close()
        } catch {
            throw global.fail(error)
        }
        if global.json {
            try Output.json(Created(store: store, model: compiled.name, version: target.version, forCoreData: forCoreData))
        } else {
            Output.out("created \(store): model \(compiled.name) version \(target.version)")
        }
    }

    /// `create --json`.
    struct Created: Encodable {
        var store: String
        var model: String
        var version: Int
        var forCoreData: Bool
    }
}
