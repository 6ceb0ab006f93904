import ArgumentParser
import DataModel
import Foundation
import Mapping
import MigrationPolicies
import ModelMigration

/// `migrate diff A B`: the mapping between two versions, or every reason there is none.
struct Diff: MigrateCommand {
    static let configuration = CommandConfiguration(
        abstract:
            """
            Show the mapping between two model versions: per entity, each property kept, renamed, added, removed, \
            converted or set by a policy.
            """,
        discussion: """
            For adjacent versions a mapping file Migrations/<Model>/<A>-to-<B>.yaml is merged over inference. \
            Exit 0 with a mapping; 4 with every change no mapping covers.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("The model (default: the only one under --models).", valueName: "name"))
    var model: String?

    @Argument(help: ArgumentHelp("The source version.", valueName: "a"))
    var from: Int

    @Argument(help: ArgumentHelp("The destination version.", valueName: "b"))
    var to: Int

    func run() throws {
        let compiled = try global.model(named: model, in: global.loadModels())
        _ = try global.versions([from, to], of: compiled)
        let resolution: Resolution
        do {
            resolution = try Self.resolve(compiled, from: from, to: to, global: global)
        } catch let failure as InferenceFailure {
            if global.json {
                try Output.json(
                    DiffReport(
                        mapping: nil, refusals: failure.refusals,
                        error: .init(Outcome(failure))))
                throw global.said(.noPath)
            }
            throw global.fail(failure)
        }
        if global.json {
            try Output.json(
                DiffReport(
                    mapping: resolution.mapping, refusals: [], error: nil,
                    missingPolicies: resolution.missingPolicies.isEmpty ? nil : resolution.missingPolicies))
            return
        }
        Output.out(Self.render(resolution.mapping, source: compiled.version(from), destination: compiled.version(to)))
        if let note = resolution.note { Output.err(note) }
        for warning in resolution.warnings { Output.err(warning) }
    }

    /// The mapping between two versions and what was left out of it.
    struct Resolution {
        /// The hop's mapping file merged over inference, or inference alone.
        var mapping: MappingModel
        /// A note for stderr when mapping files of single hops were not merged into a multi-hop mapping.
        var note: String?
        /// Policies the mapping file names that this `migrate` lacks (plan and apply of the hop exit 4).
        var missingPolicies: [String] = []

        /// A warning line per missing policy.
        var warnings: [String] {
            missingPolicies.map { GlobalOptions.missingPolicyWarning($0, file: mapping.mappingFile) }
        }
    }

    /// The mapping `diff` shows (and `diagram A B` draws): the mapping file from A to
    /// B (a hop or a span) merged over inference, else inference through every version
    /// in between. Invalid mapping files are printed and exit 1.
    ///
    /// - Throws: `InferenceFailure` with every change no mapping covers (exit 4 for the caller to render).
    static func resolve(_ compiled: CompiledModel, from: Int, to: Int, global: GlobalOptions) throws -> Resolution {
        let files = MappingFiles.load(
            folder: global.migrations, model: compiled.name, versions: compiled.versions.map(\.version))
        if files.diagnostics.contains(where: { $0.severity == .error }) {
            throw global.fail(
                "the mapping files have errors", .failed, diagnostics: files.diagnostics,
                rendered: DiagnosticRenderer(sources: files.sources).render(files.diagnostics))
        }
        // A hop's file, or a span's file from `from` to `to` (as `plan` would use it).
        let file = to > from ? files.file(from: from, to: to) : nil
        let mapping: MappingModel
        do {
            // Showing a mapping needs no policy: a policy this migrate lacks is named, not refused.
            mapping = try MappingResolver.resolve(compiled, from: from, to: to, file: file, knownPolicies: nil)
        } catch let error as DiagnosticsError {
            throw global.fail(
                "the mapping file has errors", .failed, diagnostics: error.diagnostics,
                rendered: DiagnosticRenderer(sources: files.sources).render(error.diagnostics))
        }
        let skipped = files.files.filter {
            $0.sourceVersion >= min(from, to) && $0.destinationVersion <= max(from, to) && $0.path != file?.path
        }
        let note =
            skipped.isEmpty
            ? nil
            : """
            note: mapping files inside the range are not merged into a multi-hop diff \
            (\(skipped.map { ($0.path as NSString).lastPathComponent }.joined(separator: ", "))); diff their own \
            versions to see them
            """
        let known = Set(MigrateTool.policies.names)
        let missing = mapping.entityMappings.compactMap(\.policy).filter { !known.contains($0) }
        return Resolution(
            mapping: mapping, note: note,
            missingPolicies: missing.reduce(into: []) { if !$0.contains($1) { $0.append($1) } })
    }

    struct DiffReport: Encodable {
        var mapping: MappingModel?
        var refusals: [Refusal]
        /// Set when there is no mapping (exit 4), as every command's failure.
        var error: ErrorReport.Detail?
        /// Policies the mapping file names that this `migrate` lacks (absent when none).
        var missingPolicies: [String]? = nil
    }

    static func render(_ mapping: MappingModel, source: CompiledVersion? = nil, destination: CompiledVersion? = nil)
        -> String
    {
        var lines = [
            "\(mapping.model) \(mapping.sourceVersion) → \(mapping.destinationVersion): "
                + (mapping.mappingFile.map { "mapping file \($0) merged over inference" } ?? "inferred (lightweight)")
        ]
        for entity in mapping.entityMappings {
            lines.append("")
            // One source entity feeding several: the others are new objects, not a rename, and
            // what another mapping of the same source reads is not removed (MappingFiles.md).
            let isFurther = mapping.furtherMappings.contains { $0.name == entity.name }
            let change =
                mapping.isAdditional(entity)
                ? "new objects, one for each \(entity.source ?? "?") (entity mapping \(entity.name))"
                : isFurther
                    ? "merged: also one for each \(entity.source ?? "?")"
                        + (entity.filter.map { " where \($0)" } ?? "") + " (entity mapping \(entity.name))"
                    : entity.change
            let dropped = entity.droppedProperties.filter {
                entity.source.map(mapping.droppedProperties(ofSource:))?.contains($0) ?? true
            }
            lines.append("\(entity.destination ?? entity.source ?? entity.name) (\(change))")
            if entity.kind == .remove || (entity.kind == .copy && entity.layoutChanges.isEmpty) { continue }
            let width = max(8, (entity.properties.map(\.name) + dropped).map(\.count).max() ?? 0)
            for property in entity.properties {
                lines.append(
                    """
                      \(property.name.padding(toLength: width, withPad: " ", startingAt: 0))  \
                    \(Self.change(property, of: entity, source: source, destination: destination))
                    """)
            }
            for dropped in dropped {
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
    static func change(
        _ property: PropertyMapping, of entity: EntityMapping, source: CompiledVersion?, destination: CompiledVersion?
    ) -> String {
        guard case .convert(let from, let conversion) = property.source,
            let old = entity.source.flatMap({ source?.entity(named: $0) })?.attribute(named: from)?.declaration,
            let new = entity.destination.flatMap({ destination?.entity(named: $0) })?.attribute(named: property.name)?
                .declaration
        else {
            return property.change
        }
        let renamed = from == property.name ? "" : "renamed from \(from), "
        switch conversion {
        case .widen:
            let required =
                old.isOptional && !new.isOptional
                ? "; optional → required, nil takes \(new.defaultValue?.displayText ?? "nil")" : ""
            return "\(renamed)\(old.type.rawValue) → \(new.type.rawValue) (widened)\(required)"
        case .fillDefault:
            return "\(renamed)optional → required: nil values take \(new.defaultValue?.displayText ?? "nil")"
        default:
            return property.change
        }
    }
}
