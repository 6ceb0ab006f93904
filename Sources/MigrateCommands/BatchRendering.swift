import ArgumentParser
import Foundation
import ModelMigration

enum BatchRendering {
    static func render(_ result: BatchResult, verb: String, json: Bool) throws {
        if json {
            try Output.json(result)
            return
        }
        let parts = result.byEntity.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        var line = "\(verb) \(result.total) object\(result.total == 1 ? "" : "s")"
        if !parts.isEmpty { line += " (\(parts.joined(separator: ", ")))" }
        if verb.hasSuffix("delete") || verb.hasSuffix("deleted") {
            line += """
                ; \(result.referencesCleared) reference\(result.referencesCleared == 1 ? "" : "s") cleared, \
                \(result.joinRowsRemoved) join row\(result.joinRowsRemoved == 1 ? "" : "s") removed
                """
        }
        if result.dryRun { line += "; dry run, nothing was changed" }
        Output.out(line)
    }
}
