import ArgumentParser
import DataModel
import ModelMigration

/// `migrate validate [PATH]`: check every version of every model, report all problems.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check model files and report every problem with file, line and column.",
        discussion: "PATH is a folder of models, one model's folder or one version file (default: --models). Exit 0 when valid, 1 otherwise."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("A models folder, a model folder or a version file.", valueName: "path"))
    var path: String?

    struct Report: Encodable {
        var valid: Bool
        var models: [ModelReport]
        var diagnostics: [Diagnostic]
        /// Set when the models are invalid (exit 1), as every command's failure.
        var error: ErrorReport.Detail?
    }

    struct ModelReport: Encodable {
        var name: String
        var path: String
        var versions: [Int]
        var valid: Bool
    }

    func run() throws {
        let result = ModelLoader.load(path: path ?? global.models)
        let report = Report(
            valid: !result.hasErrors,
            models: result.models.map { ModelReport(name: $0.name, path: $0.path, versions: $0.versions.map(\.version), valid: $0.compiled != nil) },
            diagnostics: result.diagnostics,
            error: result.hasErrors ? .init(Outcome(.failed, "\(result.diagnostics.filter { $0.severity == .error }.count) errors in the models"))
                : nil)
        if global.json {
            try Output.json(report)
        } else {
            if !result.diagnostics.isEmpty {
                Output.err(DiagnosticRenderer(sources: result.sources).render(result.diagnostics))
            }
            let errors = result.diagnostics.filter { $0.severity == .error }.count
            let warnings = result.diagnostics.count - errors
            for model in report.models where model.valid {
                Output.out("\(model.path): \(model.versions.count) version\(model.versions.count == 1 ? "" : "s") valid")
            }
            if errors > 0 {
                Output.err("\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")")
            }
        }
        if result.hasErrors { throw ExitCode(Outcome.Kind.failed) }
    }
}
