import ArgumentParser
import DataModel
import Foundation
import Mapping
import ModelMigration

/// `migrate diagram [N | A B]`: a version's entities as a Mermaid or Graphviz
/// diagram, or the changes from A to B drawn on B.
struct Diagram: MigrateCommand {
    static let configuration = CommandConfiguration(
        abstract:
            """
            Draw a version's entities, attributes, relationships and inheritance as a Mermaid erDiagram or Graphviz DOT.
            """,
        discussion: """
            With no version, the current one; with two, A B, version B with what `diff A B` lists marked on it (added, \
            removed, renamed, changed), and A's removed entities and properties drawn too. Exit 64 for an unknown \
            model or version, 1 for invalid models or mapping files, 4 when no mapping covers A → B.
            """)

    /// The drawing language.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case mermaid, dot
    }

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("The model (default: the only one under --models).", valueName: "name"))
    var model: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "mermaid (an erDiagram, rendered by GitHub and most Markdown viewers) or dot (Graphviz).",
            valueName: "format"))
    var format: Format = .mermaid

    @Option(
        name: .shortAndLong, help: ArgumentHelp("Write the diagram to this file instead of stdout.", valueName: "file"))
    var output: String?

    @Argument(
        help: ArgumentHelp(
            "The version to draw (default: the current one), or two versions A B to draw B with the changes from A.",
            valueName: "version"))
    var versions: [Int] = []

    func validate() throws {
        if versions.count > 2 {
            throw ValidationError("give one version (N) or two (A B), not \(versions.count)")
        }
    }

    func run() throws {
        let compiled = try global.model(named: model, in: global.loadModels())
        let chosen = try global.versions(versions, of: compiled)
        let diagram: EntityDiagram
        if chosen.count == 2 {
            let resolution: Diff.Resolution
            do {
                resolution = try Diff.resolve(compiled, from: chosen[0].version, to: chosen[1].version, global: global)
            } catch let failure as InferenceFailure {
                throw global.fail(failure)
            }
            if let note = resolution.note, !global.json { Output.err(note) }
            if !global.json { for warning in resolution.warnings { Output.err(warning) } }
            diagram = EntityDiagram(mapping: resolution.mapping, source: chosen[0], destination: chosen[1])
        } else {
            diagram = EntityDiagram(version: chosen.first ?? compiled.current)
        }
        let text =
            switch format {
            case .mermaid: MermaidRenderer.render(diagram)
            case .dot: DOTRenderer.render(diagram)
            }
        if let output {
            do {
                try text.write(toFile: output, atomically: true, encoding: .utf8)
            } catch {
                throw global.fail("\(output): cannot write: \(error.localizedDescription)", .failed)
            }
        }
        if global.json {
            // The picture's text inside JSON, for scripts that embed it.
            try Output.json(Report(format: format.rawValue, output: output, diagram: output == nil ? text : nil))
        } else if let output {
            Output.out("wrote \(output)")
        } else {
            Output.out(text)
        }
    }

    /// `diagram --json`.
    struct Report: Encodable {
        var format: String
        var output: String?
        var diagram: String?
    }
}
