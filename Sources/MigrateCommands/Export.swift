import ArgumentParser
import CoreDataImport
import DataModel
import Foundation
import Mapping
import ModelMigration
import ScratchFiles

/// `migrate export --model M -o M.xcdatamodeld`: the YAML versions as an Xcode bundle,
/// and the model's mapping files as `.xcmappingmodel`s beside it.
struct Export: MigrateCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a model's YAML versions as an Xcode data model bundle (.xcdatamodeld).",
        discussion: """
            One <Model> N.xcdatamodel/contents per version (version 1 is <Model>.xcdatamodel), in the XML \
            current Xcode writes, and .xccurrentversion naming the last version. Importing the bundle gives \
            the same versions: the same compiled model and version hashes. The model is validated and \
            compiled first. Each mapping file under --migrations/<Model>/ (A-to-B.yaml) is written beside the \
            bundle as "<Model> A to B.xcmappingmodel" (a file import wrote: under the mapping model's own \
            name), with a Swift NSEntityMigrationPolicy stub (<Policy>.swift) for each policy the files name; \
            what Xcode's format cannot hold is listed as a warning. Everything is written or nothing. Exit 0 \
            when written; 1 when the model or a mapping file has errors (what validate refuses), the model is \
            not found, the output is inside --models or the model's mapping files, or something to write \
            exists (without --force).
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("The model to export (a folder under --models).", valueName: "name"))
    var model: String

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: ArgumentHelp("The bundle to write.", valueName: "path.xcdatamodeld"))
    var output: String

    @Flag(name: .long, help: "Replace an existing bundle, mapping models and policy stubs at the output paths.")
    var force = false

    struct Report: Encodable {
        var model: String
        var bundle: String
        var versions: [String]
        var current: String
        var omissions: [String]
        var notes: [String]
        /// The mapping models written beside the bundle, one per mapping file.
        var mappingModels: [MappingModelExport.Written]
        /// The policy stubs written beside them (`Policy.swift`).
        var policyStubs: [String]
        /// Mapping models beside the bundle (or below its folder) that map its versions and
        /// that no mapping file wrote now, or that cannot be read: export never deletes them.
        var leftovers: [MappingModelExport.Leftover]
    }

    func validate() throws {
        guard output.hasSuffix(".xcdatamodeld") else {
            throw ValidationError("--output must name a .xcdatamodeld bundle (got \(output))")
        }
    }

    func run() throws {
        let folder = (global.models as NSString).appendingPathComponent(model)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw global.fail(
                "\(folder): no such model folder (models under \(global.models): "
                    + "\(Self.modelNames(in: global.models).joined(separator: ", ")))", .failed)
        }
        // Written inside the models or the model's mapping files, the export would be read
        // back as versions or mapping files of their own.
        for (inside, what) in [
            (global.models, "--models"),
            ((global.migrations as NSString).appendingPathComponent(model), "the mapping files"),
        ]
        where Self.isWithin(PathText.parent(of: output), inside) {
            throw global.fail("\(output): inside \(what) (\(inside)): write the bundle elsewhere", .failed)
        }
        let result = ModelLoader.load(path: folder)
        let compiled: [CompiledModel]
        do {
            compiled = try result.compiledModels()
        } catch {
            let errors = error.diagnostics.filter { $0.severity == .error }
            throw global.fail(
                errors.count == 1 ? errors[0].description : "\(errors.count) errors in the model", .failed,
                diagnostics: error.diagnostics,
                rendered: DiagnosticRenderer(sources: result.sources).render(error.diagnostics))
        }
        guard let loaded = result.models.first(where: { $0.name == model }) ?? result.models.first,
            let compiledModel = compiled.first(where: { $0.name == loaded.name })
        else {
            throw global.fail("\(folder): no model versions", .failed)
        }
        let exported = XcodeModelExporter().export(loaded.versions, model: model)
        let mappings = try exportMappingFiles(of: compiledModel, exported: exported)
        try write(exported, mappings)
        let leftovers = mappings.leftovers(
            in: PathText.parent(of: output), bundleName: (output as NSString).lastPathComponent)
        let report = Report(
            model: model, bundle: output, versions: exported.versions.map(\.folder),
            current: exported.current, omissions: exported.omissions, notes: exported.notes,
            mappingModels: mappings.mappingModels, policyStubs: mappings.policyStubs, leftovers: leftovers)
        if global.json {
            try Output.json(report)
            return
        }
        for omission in exported.omissions + mappings.omissions {
            Output.err("warning: not exported (no place in Xcode's format): \(omission)")
        }
        for note in exported.notes + mappings.notes { Output.err("note: \(note)") }
        for leftover in leftovers { Output.err("warning: \(leftover.message)") }
        Output.out(
            """
            wrote \(output): \(exported.versions.count) version\(exported.versions.count == 1 ? "" : "s"), current \
            \(report.current)
            """
        )
        let parent = PathText.parent(of: output)
        for written in mappings.mappingModels {
            let count = "\(written.entityMappings) entity mapping\(written.entityMappings == 1 ? "" : "s")"
            let policies = written.policies.isEmpty ? "" : ", policy " + written.policies.joined(separator: ", ")
            Output.out(
                """
                wrote \((parent as NSString).appendingPathComponent(written.mappingModel)) ← \(written.mappingFile) \
                (\(count)\(policies))
                """
            )
        }
        for stub in mappings.policyStubs {
            Output.out("wrote \((parent as NSString).appendingPathComponent(stub)) (NSEntityMigrationPolicy stub)")
        }
    }

    /// The model's mapping files as mapping models; refuses (exit 1) when one does not load.
    private func exportMappingFiles(of compiled: CompiledModel, exported: ExportedModel) throws -> MappingModelExport {
        let files = MappingFiles.load(
            folder: global.migrations, model: compiled.name, versions: compiled.versions.map(\.version))
        let errors = files.diagnostics.filter { $0.severity == .error }
        if !errors.isEmpty {
            throw global.fail(
                errors.count == 1
                    ? errors[0].description : "\(errors.count) errors in the mapping files of \(compiled.name)",
                .failed,
                diagnostics: files.diagnostics,
                rendered: DiagnosticRenderer(sources: files.sources).render(files.diagnostics))
        }
        let bundle = (output as NSString).lastPathComponent
        let export = MappingModelExport(mappingFiles: files, model: compiled, exported: exported, bundleName: bundle)
        // A file `validate` refuses would come back as another, valid one: refused, nothing written.
        let problems = export.diagnostics.filter { $0.severity == .error }
        if !problems.isEmpty {
            throw global.fail(
                problems.count == 1
                    ? problems[0].description : "\(problems.count) errors in the mapping files of \(compiled.name)",
                .failed,
                diagnostics: export.diagnostics,
                rendered: DiagnosticRenderer(sources: files.sources).render(export.diagnostics))
        }
        return export
    }

    /// The mapping models and stubs beside the bundle, then the bundle: all or nothing.
    private func write(_ exported: ExportedModel, _ mappings: MappingModelExport) throws {
        let parent = PathText.parent(of: output)
        let files = mappings.files.map { (path: (parent as NSString).appendingPathComponent($0.path), text: $0.text) }
        if !force {
            let existing =
                ([output] + mappings.mappingModels.map { (parent as NSString).appendingPathComponent($0.mappingModel) }
                + mappings.policyStubs.map { (parent as NSString).appendingPathComponent($0) })
                .filter { FileManager.default.fileExists(atPath: $0) }
            if !existing.isEmpty {
                let (verb, object) = existing.count == 1 ? ("exists", "it") : ("exist", "them")
                throw global.fail(
                    "\(existing.joined(separator: ", ")) \(verb); pass --force to replace \(object)", .failed)
            }
        }
        do {
            try FileSetWriter(files: files).write { try exported.write(to: output, force: force) }
        } catch let error as ExportError {
            throw global.fail(error.description, .failed)
        } catch {
            throw global.fail("\(error)", .failed)
        }
    }

    /// Whether `path` is `folder` or inside it (both made absolute, `.` and `..` resolved).
    static func isWithin(_ path: String, _ folder: String) -> Bool {
        func absolute(_ p: String) -> [String] {
            let full = p.hasPrefix("/") ? p : FileManager.default.currentDirectoryPath + "/" + p
            var parts: [String] = []
            for part in full.split(separator: "/").map(String.init) where part != "." && !part.isEmpty {
                if part == ".." { _ = parts.popLast() } else { parts.append(part) }
            }
            return parts
        }
        let (inner, outer) = (absolute(path), absolute(folder))
        return inner.count >= outer.count && Array(inner.prefix(outer.count)) == outer
    }

    static func modelNames(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }
}
