package import DataModel
import Foundation
package import Mapping

/// The mapping files of one model, exported beside its `.xcdatamodeld`: one
/// `<Model> <A> to <B>.xcmappingmodel` per file (spans included) and one
/// `<Policy>.swift` stub per policy the files name. Pure: the caller writes ``files``.
package struct MappingModelExport: Sendable {
    /// One mapping model written, for the report.
    package struct Written: Sendable, Encodable {
        /// The mapping file: `1-to-2.yaml`.
        package var mappingFile: String
        /// The mapping model folder: `Books 1 to 2.xcmappingmodel`.
        package var mappingModel: String
        package var sourceVersion: Int
        package var destinationVersion: Int
        package var entityMappings: Int
        package var policies: [String]
        /// What Xcode's format has no place for.
        package var omissions: [String]
        /// What export decided that the file alone does not say (a hop inference refuses is
        /// written from the file alone).
        package var notes: [String]
        /// `sourcemodelpath` and `destinationmodelpath`: `Books.xcdatamodeld/Books 2.xcdatamodel`.
        package var sourceModelPath: String
        package var destinationModelPath: String
    }

    /// The mapping models, in hop order.
    package var mappingModels: [Written] = []
    /// The policy stubs written: `Policy.swift`.
    package var policyStubs: [String] = []
    /// The files to write, relative to the bundle's folder: `X.xcmappingmodel/xcmapping.xml`, `Policy.swift`.
    package var files: [(path: String, text: String)] = []
    /// Problems of a mapping file with its versions that the export would drop words of
    /// (an unknown entity or property, an expression that does not parse): the file is
    /// what `validate` refuses, and its export would come back as another file, so the
    /// caller refuses the export.
    package var diagnostics: [Diagnostic] = []
    /// Every omission, one line each.
    package var omissions: [String] { mappingModels.flatMap(\.omissions) }
    /// Every note, one line each.
    package var notes: [String] { mappingModels.flatMap(\.notes) }

    /// Exports `mappingFiles` of `model`, whose versions `exported` writes into the bundle
    /// `bundleName` (`Books.xcdatamodeld`).
    package init(mappingFiles: MappingFiles, model: CompiledModel, exported: ExportedModel, bundleName: String) {
        var stubs: [String: MigrationPolicyStub] = [:]
        var order: [String] = []
        var taken: Set<String> = []
        for file in mappingFiles.files.sorted(by: {
            ($0.sourceVersion, $0.destinationVersion) < ($1.sourceVersion, $1.destinationVersion)
        }) {
            guard let source = model.version(file.sourceVersion),
                let destination = model.version(file.destinationVersion)
            else { continue }
            let label = (file.path as NSString).lastPathComponent
            let (resolved, problems, notes) = Self.resolve(file, of: model, label: label)
            func folder(_ number: Int) -> String {
                let name =
                    exported.versions.first { $0.number == number }?.folder
                    ?? XcodeModelExporter.defaultFolder(model: model.name, version: number)
                return "\(bundleName)/\(name)"
            }
            // A file import wrote goes back under the name of the mapping model it came from.
            let imported = Self.importedName(of: file.path).flatMap { taken.contains($0) ? nil : $0 }
            let name =
                imported
                ?? MappingFileExporter.folderName(
                    model: model.name, from: file.sourceVersion, to: file.destinationVersion)
            taken.insert(name)
            let exporter = MappingFileExporter(
                file: file, resolved: resolved, source: source, destination: destination,
                modelPaths: (folder(file.sourceVersion), folder(file.destinationVersion)))
            let result = exporter.export(named: name)
            if !problems.isEmpty, !result.omissions.isEmpty {
                diagnostics += problems
                continue
            }
            let xml = result.mappingModel.xml
            guard XMLText.canHold(xml) else {
                diagnostics.append(
                    Diagnostic(
                        .error,
                        """
                        \(file.path): a filter or a name holds a control character (other than tab and line breaks), \
                        which XML cannot hold
                        """,
                        at: nil, hint: "remove the control character from the mapping file"))
                continue
            }
            files.append((path: "\(name)/xcmapping.xml", text: xml))
            mappingModels.append(
                Written(
                    mappingFile: label, mappingModel: name, sourceVersion: file.sourceVersion,
                    destinationVersion: file.destinationVersion,
                    entityMappings: result.mappingModel.entityMappings.count, policies: result.policies,
                    omissions: result.omissions,
                    notes: notes, sourceModelPath: folder(file.sourceVersion),
                    destinationModelPath: folder(file.destinationVersion)))
            Self.collect(result.mappingModel, file: file, into: &stubs, order: &order)
        }
        for name in order {
            files.append((path: "\(name).swift", text: stubs[name]!.swift))
            policyStubs.append("\(name).swift")
        }
    }

    /// `file` resolved against the model, or why not: the errors of a file that does not
    /// validate (written as it says when every word of it has a place in the mapping
    /// model, an imported file the toolkit cannot plan yet; refused when the export would
    /// drop some), and a note either way.
    private static func resolve(
        _ file: MappingFile, of model: CompiledModel, label: String
    ) -> (resolved: MappingModel?, problems: [Diagnostic], notes: [String]) {
        let hop = "\(label): \(model.name) \(file.sourceVersion) → \(file.destinationVersion)"
        do {
            let resolved = try MappingResolver.resolve(
                model, from: file.sourceVersion, to: file.destinationVersion, file: file)
            return (resolved, [], [])
        } catch let error as DiagnosticsError {
            let problems = error.diagnostics.filter { $0.severity == .error }
            let note = "\(hop) does not validate (\(problems.first?.message ?? "?")); written as the file says"
            return (nil, problems, [note])
        } catch {
            let note = """
                \(hop) does not resolve (\(summary(error))); written from the file alone, its other entities paired by \
                name
                """
            return (nil, [], [note])
        }
    }

    /// The policies of a mapping model: the entity mappings naming each, the
    /// properties its stages set, the selectors called on it.
    private static func collect(
        _ mappingModel: XcodeMappingModel, file: MappingFile, into stubs: inout [String: MigrationPolicyStub],
        order: inout [String]
    ) {
        for entityMapping in mappingModel.entityMappings {
            guard let policy = entityMapping.policyClass, let destination = entityMapping.destination else { continue }
            if stubs[policy] == nil {
                stubs[policy] = MigrationPolicyStub(
                    name: policy, entityMappings: [], stageProperties: [], selectors: [])
                order.append(policy)
            }
            stubs[policy]!.entityMappings.append("\(mappingModel.path): \(entityMapping.effectiveName)")
            let override = file.entities.first { $0.name == destination }
            for (property, value) in (override?.properties ?? [:]).sorted(by: { $0.key < $1.key }) {
                if case .policy = value { stubs[policy]!.stageProperties.append("\(destination).\(property)") }
            }
            for attribute in entityMapping.attributes {
                guard let data = attribute.valueExpression, let expression = try? ArchivedExpression.decode(data) else {
                    continue
                }
                for call in expression.functionCalls where call.operand == "$entityPolicy" {
                    let use = "\(mappingModel.path): \(destination).\(attribute.name)"
                    if let index = stubs[policy]!.selectors.firstIndex(where: { $0.selector == call.selector }) {
                        stubs[policy]!.selectors[index].uses.append(use)
                    } else {
                        stubs[policy]!.selectors.append(.init(selector: call.selector, uses: [use]))
                    }
                }
            }
        }
    }

    /// One line of why a hop does not resolve.
    private static func summary(_ error: Error) -> String {
        let text = "\(error)".split(separator: "\n").first.map(String.init) ?? "\(error)"
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }

    /// The mapping model a file was imported from, as the first line `migrate import
    /// --mapping-models` writes names it (`… from DeltaToDelta2.xcmappingmodel`).
    static func importedName(of path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 4096),
            let first = String(decoding: data, as: UTF8.self).split(separator: "\n").first
        else { return nil }
        let prefix = "# Imported by `migrate import --mapping-models` from "
        guard first.hasPrefix(prefix) else { return nil }
        let name = String(first.dropFirst(prefix.count))
        guard name.hasSuffix(".xcmappingmodel"), !name.contains("/"), name.count > 15 else { return nil }
        return name
    }
}

extension MappingModelExport {
    /// A mapping model in the bundle's folder (or below it, where `import
    /// --mapping-models` looks too) that maps versions of the bundle and that this export
    /// does not write: one from an earlier export whose mapping file is gone or was
    /// written under another name, or one made in Xcode alone. Core Data in the app still
    /// uses it where its hashes pair, so the export names it; it never deletes a file it
    /// was not asked to write. One that cannot be read is named too: an import of the
    /// folder refuses it.
    package struct Leftover: Sendable, Encodable {
        /// The `.xcmappingmodel` folder's path.
        package var path: String
        /// The model versions it records (`Books.xcdatamodeld/Books 3.xcdatamodel`); nil when it cannot be read.
        package var sourceModel: String?
        package var destinationModel: String?
        /// The mapping model written now for the same two versions, when there is one.
        package var sameVersionsAs: String?
        /// What it means, for a warning.
        package var message: String
    }

    /// The leftovers in `folder` and below for the bundle `bundleName`, beside the
    /// mapping models written now (`written`, folder names under `folder`).
    package func leftovers(in folder: String, bundleName: String) -> [Leftover] {
        let written = Dictionary(mappingModels.map { ($0.mappingModel, $0) }, uniquingKeysWith: { a, _ in a })
        var found: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let relative = enumerator?.nextObject() as? String {
            let last = (relative as NSString).lastPathComponent
            guard last.hasSuffix(".xcmappingmodel") || last.hasSuffix(".xcdatamodeld") || last.hasPrefix(".") else {
                continue
            }
            enumerator?.skipDescendants()
            if last.hasSuffix(".xcmappingmodel"), written[relative] == nil { found.append(relative) }
        }
        return found.sorted().compactMap { relative in
            let path = (folder as NSString).appendingPathComponent(relative)
            let mappingModel: XcodeMappingModel
            do throws(ImportError) {
                mappingModel = try XcodeMappingModel.read(path: path)
            } catch {
                return Leftover(
                    path: path,
                    message:
                        "\(error.problems.joined(separator: "; ")): a mapping model that cannot be read beside the "
                        + "bundle; "
                        + "an import of this folder with --mapping-models refuses it")
            }
            guard let source = mappingModel.sourceModelPath, let destination = mappingModel.destinationModelPath,
                [source, destination].contains(where: { $0.split(separator: "/").contains(Substring(bundleName)) })
            else { return nil }
            let same = written.values.first { ($0.sourceModelPath, $0.destinationModelPath) == (source, destination) }?
                .mappingModel
            let message =
                if let same {
                    """
                    \(path) maps the same versions as \(same), written now: the app would have two mapping models for \
                    that hop; delete this one
                    """
                } else {
                    "\(path) maps \(source) to \(destination) and no mapping file wrote it: Core Data in the app still "
                        + "uses it; "
                        + "delete it if the hop is now inferred"
                }
            return Leftover(
                path: path, sourceModel: source, destinationModel: destination, sameVersionsAs: same, message: message)
        }
    }
}
