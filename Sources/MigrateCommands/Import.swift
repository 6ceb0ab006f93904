import ArgumentParser
import CoreDataImport
import DataModel
import Foundation
import Mapping
import ModelMigration
import ScratchFiles

/// `migrate import PATH.xcdatamodeld`: every Xcode model version as `Models/<Name>/<N>.yaml`.
struct Import: MigrateCommand {
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
            --report when a hop has neither (the versions are written all the same). --mapping-models FOLDER \
            (repeatable) also imports every .xcmappingmodel under FOLDER as a mapping file <Name>/<A>-to-<B>.yaml in \
            --migrations-out (default: the Migrations folder beside -o, else --migrations), with a Swift skeleton \
            <Name>/Policies/<Policy>.swift for each custom policy class; with --report, a hop the app ships a mapping \
            model for is reported with what the imported file does, never as inferred, and exit 4 when plan would \
            refuse it.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp("The .xcdatamodeld bundle, one .xcdatamodel folder or a contents file.", valueName: "path"))
    var path: String

    @Option(name: .long, help: ArgumentHelp("The model name to write (default: the bundle's name).", valueName: "name"))
    var model: String?

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: ArgumentHelp("The models folder to write <Name>/<N>.yaml into (default: --models).", valueName: "folder"))
    var output: String?

    @Option(
        name: .long,
        help: ArgumentHelp("A text file naming the version folders in order, one a line.", valueName: "file"))
    var order: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A folder whose .xcmappingmodel bundles (at any depth) become mapping files; repeatable.",
            valueName: "folder"))
    var mappingModels: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            The migrations folder to write <Name>/<A>-to-<B>.yaml and policy skeletons into \
            (default: the Migrations folder beside -o, else --migrations).
            """, valueName: "folder"))
    var migrationsOut: String?

    @Flag(name: .long, help: "Overwrite existing version files (and mapping files and policy skeletons).")
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
        /// Whether inference alone accepts the hop (what `migrate diff` says without a mapping file).
        var inferenceAccepts: Bool
        /// The app's mapping model for this hop, or for a span containing it.
        var appMappingModel: String?
        /// The versions that mapping model maps, `A-to-B`.
        var appMappingModelSpan: String?
        /// What the mapping file imported from it does, or why there is none.
        var imported: String?
        /// A mapping model the app ships for this hop (or a span containing it) that
        /// Core Data never uses, its recorded hashes differing from the versions': its
        /// name and the entities that differ.
        var staleAppMappingModel: String? = nil
    }

    /// What `plan` takes from one version to the current one, or why it refuses.
    struct PathReport: Encodable {
        var from: Int
        var to: Int
        /// `mapping file 1-to-3.yaml 1 → 3, then inferred chain 3 → 5`.
        var path: String?
        var pieces: [MigrationPath.Piece]?
        var notTaken: [String]?
        /// Where the chain of hops and the direct mapping to the current version give different data.
        var differences: [PathDifference]?
        /// Why `plan` refuses a store at this version.
        var refused: String?
    }

    struct MappingModelReport: Encodable {
        var mappingModel: String
        var file: String
        var from: Int
        var to: Int
        var pairedBy: String
        var entityMappings: Int
        var policies: [String]
        var decodedExpressions: Int
        var carried: [String]
        var notCarried: [String]
        var splits: [String]
    }

    struct SkippedReport: Encodable {
        var path: String
        var reason: String
        var from: Int?
        var to: Int?
    }

    struct MappingModelsReport: Encodable {
        var folder: String
        var imported: [MappingModelReport]
        var policySkeletons: [String]
        var skipped: [SkippedReport]
        var otherModels: [String]
        /// Mapping models Core Data would never find (their recorded hashes differ):
        /// the hop and the entities that differ; absent when none.
        var stale: [StaleReport]?
    }

    struct StaleReport: Encodable {
        var path: String
        var from: Int
        var to: Int
        var entities: [String]
    }

    struct ImportReport: Encodable {
        var model: String
        var folder: String
        var versions: [VersionReport]
        var notes: [String]
        var hops: [HopReport]?
        /// With --report: the path `plan` takes from each version to the current one.
        var paths: [PathReport]?
        var mappingModels: MappingModelsReport?
    }

    func run() throws {
        let imported = try readBundle()
        let folder = ((output ?? global.models) as NSString).appendingPathComponent(imported.name)
        let files = imported.versions.map { (folder as NSString).appendingPathComponent("\($0.number).yaml") }
        let existing = files.filter { FileManager.default.fileExists(atPath: $0) }
        if !existing.isEmpty, !force {
            throw global.fail(
                """
                \(existing.joined(separator: ", ")): already exist\(existing.count == 1 ? "s" : ""); pass --force to \
                overwrite
                """,
                .failed)
        }

        // Validate and compile in a scratch folder first, so that a failed import writes nothing.
        let compiled = try compileScratch(imported, finalFolder: folder)
        let migrationsFolder = ((migrationsOutFolder) as NSString).appendingPathComponent(imported.name)
        let mappings = mappingModels.isEmpty ? nil : try convertMappingModels(compiled: compiled, imported: imported)
        // A mapping model that cannot be read and whose name names no hop: the step the
        // app maps cannot be recorded (`mappedFrom:`), so plan would infer it. Refused
        // before anything is written; one whose name gives the hop is recorded and
        // plan refuses that hop instead.
        let unplaced = (mappings?.skipped ?? []).filter { $0.sourceVersion == nil || $0.destinationVersion == nil }
        if !unplaced.isEmpty {
            throw global.fail(
                unplaced.map {
                    // A file that was read says why itself ("it records no model paths and its name …").
                    $0.reason.hasPrefix("it records no model paths")
                        ? "\($0.path): \($0.reason)"
                        : "\($0.path): cannot be read (\($0.reason)), and its name names no two versions"
                }.joined(separator: "\n")
                    + """
                    \nthe step it maps would be inferred: repair it or leave it out of --mapping-models; nothing was \
                    written
                    """,
                .failed)
        }
        try write(imported, to: files, mappings: mappings, migrationsFolder: migrationsFolder)
        for mapping in mappings?.mappings ?? [] {
            for line in mapping.notCarried { Output.err("warning: not carried: \(line)") }
        }
        for skipped in mappings?.skipped ?? [] {
            Output.err("warning: \(skipped.path): not imported: \(skipped.reason)")
        }
        for stale in mappings?.stale ?? [] {
            Output.err(
                """
                warning: \(stale.path): not used: the entity hashes it records differ from those of the versions it \
                names (\(stale.entities.joined(separator: ", "))): Core Data never finds it for \(stale.sourceVersion) \
                → \(stale.destinationVersion), so no mapping file is written and the hop is planned as Core Data plans \
                it without one
                """)
        }
        for other in mappings?.otherModels ?? [] { Output.err("note: \(other); skipped") }

        let reportFolder = mappings == nil ? global.migrations : migrationsOutFolder
        let hops = report ? hopReports(compiled, mappings: mappings, migrations: reportFolder) : nil
        let paths = report ? pathReports(compiled, mappings: mappings, migrations: reportFolder) : nil
        let versions = zip(imported.versions, files).map { version, file in
            VersionReport(
                version: version.number, source: version.source, file: file, current: version.isCurrent,
                warnings: version.warnings,
                entityHashes: compiled.version(version.number).map { $0.versionHashes.mapValues(\.hex) } ?? [:])
        }
        // A version plan refuses to migrate from: no migration path (exit 4).
        let uncovered = paths?.contains { $0.refused != nil } ?? false
        let mappingReport = mappings.map { Self.report(of: $0, in: migrationsFolder) }
        if global.json {
            try Output.json(
                ImportReport(
                    model: imported.name, folder: folder, versions: versions, notes: imported.notes, hops: hops,
                    paths: paths, mappingModels: mappingReport))
            if uncovered { throw global.said(.noPath) }
            return
        }
        printWritten(versions, mappingReport, skeletons: mappings?.policies ?? [])
        if let hops { printHops(hops, model: imported.name) }
        if let paths { printPaths(paths) }
        if uncovered { throw global.said(.noPath) }
    }

    /// The Xcode bundle converted to YAML versions, its notes and the warnings of
    /// what was not imported on stderr.
    private func readBundle() throws -> ImportedModel {
        let imported: ImportedModel
        do {
            let bundle = try XcodeModelBundle.read(path: path)
            var importer = XcodeModelImporter(modelName: model, order: try orderList())
            importer.mappedVersions = mappedVersions()
            imported = try importer.convert(bundle)
        } catch let error as ImportError {
            throw global.fail(
                error.problems.joined(separator: "\n"), .failed,
                rendered: error.problems.map { "error: " + $0 }.joined(separator: "\n"))
        }
        for note in imported.notes { Output.err("note: " + note) }
        for version in imported.versions {
            for warning in version.warnings { Output.err("warning: \(version.source): not imported: \(warning)") }
        }
        return imported
    }

    /// Writes the version files, the mapping files and policy skeletons, all or
    /// nothing, refusing (before writing anything) to overwrite mapping files
    /// without --force.
    private func write(
        _ imported: ImportedModel, to files: [String], mappings: ImportedMappings?, migrationsFolder: String
    ) throws {
        var mappingFiles: [(path: String, text: String)] = []
        for mapping in mappings?.mappings ?? [] {
            mappingFiles.append(((migrationsFolder as NSString).appendingPathComponent(mapping.fileName), mapping.yaml))
        }
        for policy in mappings?.policies ?? [] {
            mappingFiles.append(
                ((migrationsFolder as NSString).appendingPathComponent("Policies/\(policy.name).swift"), policy.swift))
        }
        let existingMappings = mappingFiles.map(\.path).filter { FileManager.default.fileExists(atPath: $0) }
        if !existingMappings.isEmpty, !force {
            throw global.fail(
                """
                \(existingMappings.joined(separator: ", ")): already exist\(existingMappings.count == 1 ? "s" : ""); \
                pass --force to overwrite
                """,
                .failed)
        }
        // Each step the app ships a mapping model for, converted or not: plan
        // refuses to infer it when its mapping file is not found.
        var mapped: [Int: [Int]] = [:]
        for mapping in mappings?.mappings ?? [] where mapping.sourceVersion < mapping.destinationVersion {
            mapped[mapping.destinationVersion, default: []].append(mapping.sourceVersion)
        }
        for skipped in mappings?.skipped ?? [] {
            if let from = skipped.sourceVersion, let to = skipped.destinationVersion, from < to {
                mapped[to, default: []].append(from)
            }
        }
        let versionFiles = zip(imported.versions, files).map { version, file in
            (file, version.yaml(mappedFrom: mapped[version.number] ?? []))
        }
        // All or nothing: a failure (a full disk, a folder that cannot be written)
        // leaves no version file without its mapping files, nor a half-replaced set.
        do {
            try FileSetWriter(files: versionFiles + mappingFiles).write()
        } catch {
            throw global.fail("\(error); nothing was written", .failed)
        }
    }

    /// What the imported mapping models became, with the files' paths.
    private static func report(of mappings: ImportedMappings, in migrationsFolder: String) -> MappingModelsReport {
        MappingModelsReport(
            folder: migrationsFolder,
            imported: mappings.mappings.map {
                MappingModelReport(
                    mappingModel: $0.mappingModel,
                    file: (migrationsFolder as NSString).appendingPathComponent($0.fileName),
                    from: $0.sourceVersion, to: $0.destinationVersion, pairedBy: $0.pairedBy,
                    entityMappings: $0.entityMappings,
                    policies: $0.policies, decodedExpressions: $0.decodedExpressions, carried: $0.carried,
                    notCarried: $0.notCarried,
                    splits: $0.splits)
            },
            policySkeletons: mappings.policies.map {
                (migrationsFolder as NSString).appendingPathComponent("Policies/\($0.name).swift")
            },
            skipped: mappings.skipped.map {
                SkippedReport(path: $0.path, reason: $0.reason, from: $0.sourceVersion, to: $0.destinationVersion)
            },
            otherModels: mappings.otherModels,
            stale: mappings.stale.isEmpty
                ? nil
                : mappings.stale.map {
                    StaleReport(path: $0.path, from: $0.sourceVersion, to: $0.destinationVersion, entities: $0.entities)
                })
    }

    private func orderList() throws -> [String]? {
        guard let order else { return nil }
        guard let data = FileManager.default.contents(atPath: order) else {
            throw global.fail("\(order): cannot read the order file", .failed)
        }
        return VersionOrder.parseList(String(decoding: data, as: UTF8.self))
    }

    /// Writes the versions to a temporary `<Name>/` folder and loads it as `migrate
    /// validate` would; diagnostics name the final paths.
    private func compileScratch(_ imported: ImportedModel, finalFolder: String) throws -> CompiledModel {
        let scratch = ScratchFile.temporaryPath(named: "migrate-import", purpose: "import")
        let scratchFolder = (scratch as NSString).appendingPathComponent(imported.name)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        do {
            try FileManager.default.createDirectory(atPath: scratchFolder, withIntermediateDirectories: true)
            for version in imported.versions {
                try version.yaml.write(
                    toFile: (scratchFolder as NSString).appendingPathComponent("\(version.number).yaml"),
                    atomically: true, encoding: .utf8)
            }
        } catch {
            throw global.fail("\(scratch): cannot write a temporary copy (\(error.localizedDescription))", .failed)
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
                let source = version.sourceLocation(ofYAMLLine: location.line)
            else {
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
        let rendered = DiagnosticRenderer(sources: sources).render(diagnostics).replacingOccurrences(
            of: scratchFolder, with: finalFolder)
        guard !result.hasErrors, let compiled = result.models.first?.compiled else {
            throw global.fail(
                "the imported model does not validate; nothing was written", .failed, diagnostics: diagnostics,
                rendered: rendered + "\nerror: the imported model does not validate; nothing was written")
        }
        if !result.diagnostics.isEmpty, !global.json { Output.err(rendered) }
        return compiled
    }

    /// The version folders each `xcmapping.xml` under --mapping-models maps from and
    /// to: evidence of the version order (`XcodeModelImporter.mappedVersions`).
    private func mappedVersions() -> [(source: String, destination: String)] {
        var result: [(source: String, destination: String)] = []
        for folder in mappingModels {
            let entries = (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).filter {
                $0.hasSuffix(".xcmappingmodel")
            }
            for entry in entries {
                guard let model = try? XcodeMappingModel.read(path: (folder as NSString).appendingPathComponent(entry)),
                    let source = model.sourceModelPath, let destination = model.destinationModelPath
                else { continue }
                result.append(((source as NSString).lastPathComponent, (destination as NSString).lastPathComponent))
            }
        }
        return result
    }

    /// Where mapping files go: --migrations-out, else the `Migrations` folder beside -o, else --migrations.
    private var migrationsOutFolder: String {
        if let migrationsOut { return migrationsOut }
        if let output {
            let trimmed = output.count > 1 && output.hasSuffix("/") ? String(output.dropLast()) : output
            return (PathText.parent(of: trimmed) as NSString).appendingPathComponent("Migrations")
        }
        return global.migrations
    }

    /// For each mapping model, the version whose hashes its embedded source and
    /// destination models have (nil where none or several do, or the copy cannot be
    /// read: an inheritance this reader refuses, a stale copy).
    func embeddedVersions(_ mappingModels: [XcodeMappingModel], compiled: CompiledModel) -> [String: (
        source: Int?, destination: Int?
    )] {
        func version(_ hashes: [String: [UInt8]]?) -> Int? {
            guard let hashes else { return nil }
            let matching = compiled.versions.filter { $0.versionHashes.mapValues(\.bytes) == hashes }
            return matching.count == 1 ? matching[0].version : nil
        }
        return embeddedHashes(mappingModels.filter(\.embedsModels), compiled: compiled).mapValues {
            (version($0.source), version($0.destination))
        }
    }

    /// For each mapping model that embeds its models, their entity version hashes
    /// (nil for a copy that cannot be read).
    func embeddedHashes(
        _ mappingModels: [XcodeMappingModel], compiled: CompiledModel
    ) -> [String: (source: [String: [UInt8]]?, destination: [String: [UInt8]]?)] {
        let scratch = ScratchFile.temporaryPath(named: "migrate-embedded", purpose: "import")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        func hashes(of bytes: [UInt8]?, label: String) -> [String: [UInt8]]? {
            guard let bytes,
                let yaml = try? XcodeMappingModel.yaml(ofEmbeddedModel: bytes, model: compiled.name, label: label)
            else { return nil }
            let folder = (scratch as NSString).appendingPathComponent("\(UUID().uuidString)/\(compiled.name)")
            guard (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil,
                (try? yaml.write(
                    toFile: (folder as NSString).appendingPathComponent("1.yaml"), atomically: true, encoding: .utf8))
                    != nil
            else { return nil }
            return (try? ModelLoader.loadModel(path: folder))?.current.versionHashes.mapValues(\.bytes)
        }
        var result: [String: (source: [String: [UInt8]]?, destination: [String: [UInt8]]?)] = [:]
        for mappingModel in mappingModels where mappingModel.embedsModels {
            result[mappingModel.path] = (
                hashes(of: mappingModel.sourceModelData, label: "\(mappingModel.path): sourcemodeldata"),
                hashes(of: mappingModel.destinationModelData, label: "\(mappingModel.path): destinationmodeldata")
            )
        }
        return result
    }

    /// What each mapping model records of the entity hashes it maps between: a
    /// `.cdm`'s entity mappings, or the models an `.xcmappingmodel` embeds.
    func recordedEntityHashes(
        _ mappingModels: [XcodeMappingModel], compiled: CompiledModel
    ) -> [String: (source: [String: [UInt8]]?, destination: [String: [UInt8]]?)] {
        var result = embeddedHashes(mappingModels, compiled: compiled)
        for mappingModel in mappingModels where !mappingModel.embedsModels {
            guard let hashes = mappingModel.recordedHashes else { continue }
            result[mappingModel.path] = (
                hashes.source.isEmpty ? nil : hashes.source, hashes.destination.isEmpty ? nil : hashes.destination
            )
        }
        return result
    }

    /// For each compiled mapping model (a `.cdm`: no model paths, no model copies), the
    /// versions whose entity hashes are those it records for its source and destination
    /// entities, as Core Data finds a mapping model for a store (nil where none or several
    /// versions have them).
    func recordedVersions(_ mappingModels: [XcodeMappingModel], compiled: CompiledModel) -> [String: (
        source: Int?, destination: Int?
    )] {
        func version(_ hashes: [String: [UInt8]]) -> Int? {
            guard !hashes.isEmpty else { return nil }
            let matching = compiled.versions.filter { version in
                hashes.allSatisfy { version.versionHashes[$0.key]?.bytes == $0.value }
            }
            return matching.count == 1 ? matching[0].version : nil
        }
        var result: [String: (source: Int?, destination: Int?)] = [:]
        for mappingModel in mappingModels where !mappingModel.embedsModels {
            guard let hashes = mappingModel.recordedHashes else { continue }
            result[mappingModel.path] = (version(hashes.source), version(hashes.destination))
        }
        return result
    }
}
