import ArgumentParser
import DataModel
import Foundation
import Mapping
import MigrationPolicies
import ModelMigration

/// `migrate validate [PATH]`: check every version of every model, report all problems.
struct Validate: MigrateCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check model files and report every problem with file, line and column.",
        discussion: """
            PATH is a folder of models, one model's folder or one version file (default: --models). Each valid model's \
            mapping files (--migrations) are checked too: their names and versions, each file against the two versions \
            it maps, and the names accepted-losses.yaml accepts. Exit 0 when valid, 1 otherwise.
            """
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
        var result = ModelLoader.load(path: path ?? global.models)
        var models = result.models.map {
            ModelReport(name: $0.name, path: $0.path, versions: $0.versions.map(\.version), valid: $0.compiled != nil)
        }
        for (index, model) in result.models.enumerated() {
            guard let compiled = model.compiled else { continue }
            let (diagnostics, sources) = Self.checkMappingFiles(of: compiled, in: global.migrations)
            result.diagnostics += diagnostics
            result.sources.merge(sources) { old, _ in old }
            if diagnostics.contains(where: { $0.severity == .error }) { models[index].valid = false }
        }
        result.diagnostics += MappingFiles.strayFolders(in: global.migrations, models: Set(result.models.map(\.name)))
        let hasErrors = result.diagnostics.contains { $0.severity == .error }
        let report = Report(
            valid: !hasErrors,
            models: models,
            diagnostics: result.diagnostics,
            error: hasErrors
                ? .init(
                    Outcome(
                        .failed, "\(result.diagnostics.filter { $0.severity == .error }.count) errors in the models"))
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
                Output.out(
                    "\(model.path): \(model.versions.count) version\(model.versions.count == 1 ? "" : "s") valid")
            }
            if errors > 0 {
                Output.err("\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")")
            }
        }
        if hasErrors { throw global.said(.failed) }
    }

    /// The problems of a model's mapping files: what `MappingFiles.load` refuses
    /// (names, versions the model lacks), then each file against the two versions it
    /// maps (entities, properties, expressions), as `plan` would report them. What
    /// only a store decides (inference refusing a hop, a policy not compiled in) is
    /// `plan`'s verdict, not a file's error.
    static func checkMappingFiles(of model: CompiledModel, in folder: String) -> ([Diagnostic], [String: String]) {
        let files = MappingFiles.load(folder: folder, model: model.name, versions: model.versions.map(\.version))
        var diagnostics = files.diagnostics
        for file in files.files {
            do {
                _ = try MappingResolver.resolve(
                    model, from: file.sourceVersion, to: file.destinationVersion, file: file,
                    knownPolicies: Set(MigrateTool.policies.names),
                    policyFunctions: MigrateTool.policies.functions)
            } catch let error as DiagnosticsError {
                diagnostics += error.diagnostics
            } catch {
                continue
            }
        }
        var sources = files.sources
        do {
            let losses = try AcceptedLosses.load(accept: [], migrationsFolder: folder, model: model.name)
            diagnostics += losses.unknownNames(in: model)
            if let file = losses.file, let text = try? String(contentsOfFile: file, encoding: .utf8) {
                sources[file] = text
            }
        } catch let error as DiagnosticsError {
            diagnostics += error.diagnostics
        } catch {
            diagnostics.append(Diagnostic(.error, "\(error)", at: nil))
        }
        return (diagnostics, sources)
    }
}
