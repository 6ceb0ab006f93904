import ArgumentParser
import CoreDataImport
import Foundation
import ModelMigration

/// `migrate import PATH.xcdatamodeld`: every Xcode model version as `Models/<Name>/<N>.yaml`.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import an Xcode data model (.xcdatamodeld, .xcdatamodel or a contents file) as YAML model versions.",
        discussion: """
            Versions are numbered in the order Xcode lists them, by name with digits compared as numbers \
            ("Model 2" before "Model 10"), except that the current version (.xccurrentversion) comes last. \
            --order FILE (one version folder name a line) replaces that rule. What the model format has no \
            place for (configurations, fetch requests, fetched properties, class names, user info, …) is \
            listed as a warning on stderr. The imported versions are validated and compiled before anything \
            is written. --report lists, per hop between consecutive versions, whether inference covers it or \
            a mapping file in --migrations does. Exit 0 when imported; 1 when the model cannot be read or \
            converted, a version file exists (without --force) or the result does not validate; 4 with \
            --report when a hop has neither (the versions are written all the same).
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The .xcdatamodeld bundle, one .xcdatamodel folder or a contents file.", valueName: "path"))
    var path: String

    @Option(name: .long, help: ArgumentHelp("The model name to write (default: the bundle's name).", valueName: "name"))
    var model: String?

    @Option(name: [.customShort("o"), .customLong("output")],
            help: ArgumentHelp("The models folder to write <Name>/<N>.yaml into (default: --models).", valueName: "folder"))
    var output: String?

    @Option(name: .long, help: ArgumentHelp("A text file naming the version folders in order, one a line.", valueName: "file"))
    var order: String?

    @Flag(name: .long, help: "Overwrite existing version files.")
    var force = false

    @Flag(name: .long, help: "Also report, per hop between consecutive versions, whether inference covers it.")
    var report = false

    struct VersionReport: Encodable {
        var version: Int
        var source: String
        var file: String
        var current: Bool
        var warnings: [String]
        var entityHashes: [String: String]
    }

    struct HopReport: Encodable {
        var from: Int
        var to: Int
        var inferred: Bool
        /// The mapping file in --migrations that covers the hop, if any.
        var mappingFile: String?
        var refusals: [Refusal]
        var error: String?
    }

    struct ImportReport: Encodable {
        var model: String
        var folder: String
        var versions: [VersionReport]
        var notes: [String]
        var hops: [HopReport]?
    }

    func run() throws {
        let imported: ImportedModel
        do {
            let bundle = try XcodeModelBundle.read(path: path)
            imported = try XcodeModelImporter(modelName: model, order: try orderList()).convert(bundle)
        } catch let error as ImportError {
            throw global.fail(error.problems.joined(separator: "\n"), ExitStatus.failure,
                              rendered: error.problems.map { "error: " + $0 }.joined(separator: "\n"))
        }
        for note in imported.notes { Output.err("note: " + note) }
        for version in imported.versions {
            for warning in version.warnings { Output.err("warning: \(version.source): not imported: \(warning)") }
        }

        let folder = ((output ?? global.models) as NSString).appendingPathComponent(imported.name)
        let files = imported.versions.map { (folder as NSString).appendingPathComponent("\($0.number).yaml") }
        let existing = files.filter { FileManager.default.fileExists(atPath: $0) }
        if !existing.isEmpty, !force {
            throw global.fail("\(existing.joined(separator: ", ")): already exist\(existing.count == 1 ? "s" : ""); pass --force to overwrite",
                              ExitStatus.failure)
        }

        // Validate and compile in a scratch folder first, so that a failed import writes nothing.
        let compiled = try compileScratch(imported, finalFolder: folder)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for (version, file) in zip(imported.versions, files) {
                try version.yaml.write(toFile: file, atomically: true, encoding: .utf8)
            }
        } catch {
            throw global.fail("\(folder): cannot write the version files (\(error.localizedDescription))", ExitStatus.failure)
        }

        let hops = report ? hopReports(compiled) : nil
        let versions = zip(imported.versions, files).map { version, file in
            VersionReport(version: version.number, source: version.source, file: file, current: version.isCurrent,
                          warnings: version.warnings,
                          entityHashes: compiled.version(version.number).map { $0.versionHashes.mapValues(\.hex) } ?? [:])
        }
        // A hop neither inference nor a mapping file covers: no migration path (exit 4).
        let uncovered = hops?.contains { !$0.inferred && ($0.mappingFile == nil || $0.error != nil) } ?? false
        if global.json {
            try Output.json(ImportReport(model: imported.name, folder: folder, versions: versions, notes: imported.notes, hops: hops))
            if uncovered { throw ExitStatus.noMigrationPath }
            return
        }
        for version in versions {
            let entities = version.entityHashes.count
            Output.out("""
                wrote \(version.file) ← \(version.source) \
                (\(entities) entit\(entities == 1 ? "y" : "ies")\(version.current ? ", current in Xcode" : ""))
                """)
        }
        if let hops {
            Output.out("")
            Output.out("hops:")
            for hop in hops {
                if hop.inferred {
                    Output.out("  \(hop.from) → \(hop.to): inferred (lightweight)")
                } else if let file = hop.mappingFile, hop.error == nil {
                    Output.out("  \(hop.from) → \(hop.to): mapping file \(file)")
                } else {
                    Output.out("  \(hop.from) → \(hop.to): needs a mapping file (\(global.migrations)/\(imported.name)/\(hop.from)-to-\(hop.to).yaml)")
                    for refusal in hop.refusals { Output.out("    \(refusal.description)") }
                    if let error = hop.error { Output.out("    \(error)") }
                }
            }
        }
        if uncovered { throw ExitStatus.noMigrationPath }
    }

    private func orderList() throws -> [String]? {
        guard let order else { return nil }
        guard let data = FileManager.default.contents(atPath: order) else {
            throw global.fail("\(order): cannot read the order file", ExitStatus.failure)
        }
        return VersionOrder.parseList(String(decoding: data, as: UTF8.self))
    }

    /// Writes the versions to a temporary `<Name>/` folder and loads it as `migrate
    /// validate` would; diagnostics name the final paths.
    private func compileScratch(_ imported: ImportedModel, finalFolder: String) throws -> CompiledModel {
        let scratch = (NSTemporaryDirectory() as NSString).appendingPathComponent("migrate-import-\(UUID().uuidString)")
        let scratchFolder = (scratch as NSString).appendingPathComponent(imported.name)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        do {
            try FileManager.default.createDirectory(atPath: scratchFolder, withIntermediateDirectories: true)
            for version in imported.versions {
                try version.yaml.write(toFile: (scratchFolder as NSString).appendingPathComponent("\(version.number).yaml"),
                                       atomically: true, encoding: .utf8)
            }
        } catch {
            throw global.fail("\(scratch): cannot write a temporary copy (\(error.localizedDescription))", ExitStatus.failure)
        }
        let result = ModelLoader.load(path: scratchFolder)
        // A problem of the imported YAML is a problem of the Xcode file it came from:
        // point at the `contents` element that made the line (the YAML is never
        // written when it does not validate), and name the YAML place after.
        var sources = result.sources
        let diagnostics = result.diagnostics.map { diagnostic -> Diagnostic in
            guard let location = diagnostic.location, location.file.hasPrefix(scratchFolder) else { return diagnostic }
            let name = (location.file as NSString).lastPathComponent
            let yaml = (finalFolder as NSString).appendingPathComponent(name)
            guard let version = imported.versions.first(where: { "\($0.number).yaml" == name }),
                  let source = version.sourceLocation(ofYAMLLine: location.line) else {
                var moved = diagnostic
                moved.location = SourceLocation(file: yaml, line: location.line, column: location.column)
                return moved
            }
            sources[source.file] = version.sourceText
            var moved = diagnostic
            moved.location = source
            moved.message += " (\(yaml):\(location.line):\(location.column) as imported)"
            return moved
        }
        let rendered = DiagnosticRenderer(sources: sources).render(diagnostics).replacingOccurrences(of: scratchFolder, with: finalFolder)
        guard !result.hasErrors, let compiled = result.models.first?.compiled else {
            throw global.fail("the imported model does not validate; nothing was written", ExitStatus.failure, diagnostics: diagnostics,
                              rendered: rendered + "\nerror: the imported model does not validate; nothing was written")
        }
        if !result.diagnostics.isEmpty, !global.json { Output.err(rendered) }
        return compiled
    }

    private func hopReports(_ compiled: CompiledModel) -> [HopReport] {
        let numbers = compiled.versions.map(\.version)
        let files = MappingFiles.load(folder: global.migrations, model: compiled.name)
        return zip(numbers, numbers.dropFirst()).map { from, to in
            do {
                _ = try MappingResolver.resolve(compiled, from: from, to: to, file: nil)
                return HopReport(from: from, to: to, inferred: true, mappingFile: nil, refusals: [], error: nil)
            } catch let failure as InferenceFailure {
                guard let file = files.file(from: from, to: to) else {
                    return HopReport(from: from, to: to, inferred: false, mappingFile: nil, refusals: failure.refusals, error: nil)
                }
                // A mapping file covers the hop when inference plus the file resolve.
                do {
                    _ = try MappingResolver.resolve(compiled, from: from, to: to, file: file)
                    return HopReport(from: from, to: to, inferred: false, mappingFile: file.path, refusals: failure.refusals, error: nil)
                } catch {
                    return HopReport(from: from, to: to, inferred: false, mappingFile: file.path, refusals: failure.refusals, error: "\(error)")
                }
            } catch {
                return HopReport(from: from, to: to, inferred: false, mappingFile: nil, refusals: [], error: "\(error)")
            }
        }
    }
}
