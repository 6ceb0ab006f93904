import ArgumentParser
import DataModel
import Foundation
import ModelMigration

/// `migrate compile [PATH] [-o FILE]`: the compiled model as JSON, or a summary.
struct Compile: MigrateCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compile every version into entity metadata, version hashes and storage layout.",
        discussion:
            """
            Writes JSON with a stable key order to stdout, or to FILE with -o (then a summary is printed). Exit 1 when \
            a model has errors.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("A models folder, a model folder or a version file.", valueName: "path"))
    var path: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the JSON to this file.", valueName: "file"))
    var output: String?

    @Flag(name: .long, help: "Print a human summary (versions, entities, abbreviated hashes) instead of JSON.")
    var summary = false

    func validate() throws {
        // `--json` promises JSON on stdout; the summary is text (an outside tester found
        // `compile --summary --json` printing text under exit 0).
        if summary && global.json {
            throw ValidationError("--summary prints text and --json prints JSON: give one of them")
        }
    }

    func run() throws {
        let result = ModelLoader.load(path: path ?? global.models)
        let models: [CompiledModel]
        do {
            models = try result.compiledModels()
        } catch {
            let errors = error.diagnostics.filter { $0.severity == .error }
            throw global.fail(
                errors.count == 1 ? errors[0].description : "\(errors.count) errors in the models", .failed,
                diagnostics: error.diagnostics,
                rendered: DiagnosticRenderer(sources: result.sources).render(error.diagnostics))
        }
        let warnings = result.diagnostics.filter { $0.severity != .error }
        if !warnings.isEmpty, !global.json {
            Output.err(DiagnosticRenderer(sources: result.sources).render(warnings))
        }
        let json = try CompiledModel.json(models)
        if let output {
            do {
                try json.write(toFile: output, atomically: true, encoding: .utf8)
            } catch {
                throw global.fail("\(output): cannot write: \(error.localizedDescription)", .failed)
            }
        }
        if summary || (output != nil && !global.json) {
            Output.out(models.map(\.summary).joined(separator: "\n"))
            if let output { Output.out("wrote \(output)") }
        } else if output == nil {
            Output.out(json)
        }
    }
}
