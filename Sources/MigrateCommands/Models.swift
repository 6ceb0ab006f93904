import DataModel
import Foundation
import ModelMigration

extension GlobalOptions {
    /// The compiled models under --models; on errors, prints them and exits 1.
    func loadModels() throws -> [CompiledModel] {
        let result = ModelLoader.load(path: models)
        do {
            return try result.compiledModels()
        } catch {
            let errors = error.diagnostics.filter { $0.severity == .error }
            throw fail(
                errors.count == 1 ? errors[0].description : "\(errors.count) errors in the models", .failed,
                diagnostics: error.diagnostics,
                rendered: DiagnosticRenderer(sources: result.sources).render(error.diagnostics))
        }
    }

    /// The compiled models, or none (with a warning) when --models has none: for
    /// commands that work without models.
    func loadModelsIfPresent() -> [CompiledModel] {
        guard FileManager.default.fileExists(atPath: models) else { return [] }
        let result = ModelLoader.load(path: models)
        if result.hasErrors {
            Output.err(
                """
                warning: \(models): models not loaded (\(result.diagnostics.filter { $0.severity == .error }.count) \
                errors; run `\(Migrate.toolName) validate`)
                """)
        }
        return result.models.compactMap(\.compiled)
    }

    /// One model: the one named, or the only one.
    func model(named name: String?, in models: [CompiledModel]) throws -> CompiledModel {
        if let name {
            guard let model = models.first(where: { $0.name == name }) else {
                throw fail(
                    """
                    no model named '\(name)' under \(self.models) (found: \(models.map(\.name).joined(separator: ", ")))
                    """,
                    .usage)
            }
            return model
        }
        guard models.count == 1 else {
            throw fail(
                """
                \(models.count) models under \(self.models) (\(models.map(\.name).joined(separator: ", "))); choose \
                one with --model
                """,
                .usage)
        }
        return models[0]
    }

    /// The versions with these numbers; an unknown one is a usage error naming the model's range.
    func versions(_ numbers: [Int], of model: CompiledModel) throws -> [CompiledVersion] {
        try numbers.map { number in
            guard let version = model.version(number) else {
                throw fail(
                    """
                    model \(model.name) has no version \(number) (versions \(model.versions[0].version) to \
                    \(model.current.version))
                    """,
                    .usage)
            }
            return version
        }
    }
}
