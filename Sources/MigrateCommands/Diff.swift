import ArgumentParser
import Foundation
import ModelMigration

/// `migrate diff A B`: the mapping between two versions, or every reason there is none.
struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the mapping between two model versions: per entity, each property kept, renamed, added, removed, converted or set by a policy.",
        discussion: "For adjacent versions a mapping file Migrations/<Model>/<A>-to-<B>.yaml is merged over inference. Exit 0 with a mapping; 4 with every change no mapping covers.")

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("The model (default: the only one under --models).", valueName: "name"))
    var model: String?

    @Argument(help: ArgumentHelp("The source version.", valueName: "a"))
    var from: Int

    @Argument(help: ArgumentHelp("The destination version.", valueName: "b"))
    var to: Int

    func run() throws {
        let compiled = try global.model(named: model, in: global.loadModels())
        for version in [from, to] where compiled.version(version) == nil {
            throw global.fail("model \(compiled.name) has no version \(version) (versions 1 to \(compiled.current.version))", ExitStatus.usage)
        }
        let files = MappingFiles.load(folder: global.migrations, model: compiled.name)
        if files.diagnostics.contains(where: { $0.severity == .error }) {
            throw global.fail("the mapping files have errors", ExitStatus.failure, diagnostics: files.diagnostics,
                              rendered: DiagnosticRenderer(sources: files.sources).render(files.diagnostics))
        }
        let file = to == from + 1 ? files.file(from: from, to: to) : nil
        let mapping: MappingModel
        do {
            mapping = try MappingResolver.resolve(compiled, from: from, to: to, file: file, knownPolicies: Set(MigrateTool.policies.names))
        } catch let failure as InferenceFailure {
            if global.json {
                try Output.json(DiffReport(mapping: nil, refusals: failure.refusals,
                                           error: .init(message: failure.description, exitCode: ExitStatus.noMigrationPath.rawValue, diagnostics: nil)))
                throw ExitStatus.noMigrationPath
            }
            throw global.fail(failure.description, ExitStatus.noMigrationPath)
        } catch let error as DiagnosticsError {
            throw global.fail("the mapping file has errors", ExitStatus.failure, diagnostics: error.diagnostics,
                              rendered: DiagnosticRenderer(sources: files.sources).render(error.diagnostics))
        }
        if global.json {
            try Output.json(DiffReport(mapping: mapping, refusals: [], error: nil))
            return
        }
        Output.out(Self.render(mapping, source: compiled.version(from), destination: compiled.version(to)))
        let skipped = files.files.filter { $0.sourceVersion >= min(from, to) && $0.destinationVersion <= max(from, to) && $0.path != file?.path }
        if !skipped.isEmpty {
            Output.err("note: mapping files of single hops are not merged into a multi-hop diff (\(skipped.map { ($0.path as NSString).lastPathComponent }.joined(separator: ", "))); diff adjacent versions to see them")
        }
    }

    struct DiffReport: Encodable {
        var mapping: MappingModel?
        var refusals: [Refusal]
        /// Set when there is no mapping (exit 4), as every command's failure.
        var error: ErrorReport.Detail?
    }

    static func render(_ mapping: MappingModel, source: CompiledVersion? = nil, destination: CompiledVersion? = nil) -> String {
        var lines = ["\(mapping.model) \(mapping.sourceVersion) → \(mapping.destinationVersion): "
            + (mapping.mappingFile.map { "mapping file \($0) merged over inference" } ?? "inferred (lightweight)")]
        for entity in mapping.entityMappings {
            lines.append("")
            switch entity.kind {
            case .add: lines.append("\(entity.destination!) (new entity)")
            case .remove: lines.append("\(entity.source!) (removed: its rows are dropped)")
            case .copy: lines.append("\(entity.destination!) (unchanged)")
            case .transform:
                lines.append("\(entity.destination!) (changed\(entity.source != entity.destination ? ", renamed from \(entity.source!)" : ""))")
            case .custom:
                lines.append("\(entity.destination!) (policy \(entity.policy!)\(entity.source != entity.destination ? ", from \(entity.source!)" : ""))")
            }
            if entity.kind == .remove || (entity.kind == .copy && entity.layoutChanges.isEmpty) { continue }
            let width = max(8, entity.properties.map(\.name.count).max() ?? 0)
            for property in entity.properties {
                lines.append("  \(property.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(Self.change(property, of: entity, source: source, destination: destination))")
            }
            for dropped in entity.droppedProperties {
                lines.append("  \(dropped.padding(toLength: width, withPad: " ", startingAt: 0))  removed")
            }
            for change in entity.layoutChanges { lines.append("  layout: \(change)") }
        }
        if let requirements = mapping.requirements, !requirements.isEmpty {
            lines.append("")
            lines.append("the stored data decides (plan counts the objects that would break it):")
            for requirement in requirements { lines.append("  \(requirement)") }
        }
        return lines.joined(separator: "\n")
    }

    /// One line per property change, with the types where a conversion changes
    /// them: `integer16 → integer32 (widened)`, `optional → required: nil takes "" `.
    static func change(_ property: PropertyMapping, of entity: EntityMapping, source: CompiledVersion?, destination: CompiledVersion?) -> String {
        guard case .convert(let from, let conversion) = property.source,
              let old = entity.source.flatMap({ source?.entity(named: $0) })?.attribute(named: from)?.declaration,
              let new = entity.destination.flatMap({ destination?.entity(named: $0) })?.attribute(named: property.name)?.declaration else {
            return property.change
        }
        let renamed = from == property.name ? "" : "renamed from \(from), "
        switch conversion {
        case .widen:
            let required = old.isOptional && !new.isOptional ? "; optional → required, nil takes \(new.defaultValue?.displayText ?? "nil")" : ""
            return "\(renamed)\(old.type.rawValue) → \(new.type.rawValue) (widened)\(required)"
        case .fillDefault:
            return "\(renamed)optional → required: nil values take \(new.defaultValue?.displayText ?? "nil")"
        default:
            return property.change
        }
    }
}
