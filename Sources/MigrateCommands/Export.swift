import ArgumentParser
import CoreDataImport
import DataModel
import Foundation
import ModelMigration

/// `migrate export --model M -o M.xcdatamodeld`: the YAML versions as an Xcode bundle.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a model's YAML versions as an Xcode data model bundle (.xcdatamodeld).",
        discussion: """
            One <Model> N.xcdatamodel/contents per version (version 1 is <Model>.xcdatamodel), in the XML \
            current Xcode writes, and .xccurrentversion naming the last version. Importing the bundle gives \
            the same versions: the same compiled model and version hashes. The model is validated and \
            compiled first. Exit 0 when written; 1 when the model has errors, the model is not found, or OUT \
            exists (without --force).
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("The model to export (a folder under --models).", valueName: "name"))
    var model: String

    @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp("The bundle to write.", valueName: "path.xcdatamodeld"))
    var output: String

    @Flag(name: .long, help: "Replace an existing bundle at the output path.")
    var force = false

    struct Report: Encodable {
        var model: String
        var bundle: String
        var versions: [String]
        var current: String
        var omissions: [String]
        var notes: [String]
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
        let result = ModelLoader.load(path: folder)
        do {
            _ = try result.compiledModels()
        } catch {
            let errors = error.diagnostics.filter { $0.severity == .error }
            throw global.fail(
                errors.count == 1 ? errors[0].description : "\(errors.count) errors in the model", .failed,
                diagnostics: error.diagnostics, rendered: DiagnosticRenderer(sources: result.sources).render(error.diagnostics))
        }
        guard let loaded = result.models.first(where: { $0.name == model }) ?? result.models.first else {
            throw global.fail("\(folder): no model versions", .failed)
        }
        let exported = XcodeModelExporter().export(loaded.versions, model: model)
        do {
            try exported.write(to: output, force: force)
        } catch {
            throw global.fail(error.description, .failed)
        }
        let report = Report(
            model: model, bundle: output, versions: exported.versions.map(\.folder),
            current: exported.current, omissions: exported.omissions, notes: exported.notes)
        if global.json {
            try Output.json(report)
            return
        }
        for omission in exported.omissions { Output.err("warning: not exported (no place in Xcode's format): \(omission)") }
        for note in exported.notes { Output.err("note: \(note)") }
        Output.out("wrote \(output): \(exported.versions.count) version\(exported.versions.count == 1 ? "" : "s"), current \(report.current)")
    }

    static func modelNames(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }
}
