import CoreDataImport
import Foundation
import Mapping

/// `migrate import`'s human output: what it wrote, and with --report the hops and
/// the paths `plan` takes.
extension Import {
    /// One line per file written: versions, mapping files, policy skeletons.
    func printWritten(_ versions: [VersionReport], _ mappingReport: MappingModelsReport?, skeletons: [PolicySkeleton]) {
        for version in versions {
            let entities = version.entityHashes.count
            Output.out(
                """
                wrote \(version.file) ← \(version.source) \
                (\(entities) entit\(entities == 1 ? "y" : "ies")\(version.current ? ", current in Xcode" : ""))
                """)
        }
        for mapping in mappingReport?.imported ?? [] {
            let policies =
                mapping.policies.isEmpty
                ? "" : ", polic\(mapping.policies.count == 1 ? "y" : "ies") \(mapping.policies.joined(separator: ", "))"
            Output.out(
                """
                wrote \(mapping.file) ← \(mapping.mappingModel) (\(mapping.entityMappings) entity \
                mapping\(mapping.entityMappings == 1 ? "" : "s")\(policies), \(mapping.decodedExpressions) \
                expression\(mapping.decodedExpressions == 1 ? "" : "s") decoded, \(mapping.notCarried.count) not \
                carried)
                """)
            for split in mapping.splits { Output.out("  carried: \(split)") }
        }
        for (skeleton, path) in zip(skeletons, mappingReport?.policySkeletons ?? []) {
            let selectors = "\(skeleton.selectors.count) selector\(skeleton.selectors.count == 1 ? "" : "s")"
            Output.out(
                "wrote \(path) (policy skeleton for \(skeleton.coreDataClasses.joined(separator: ", ")): \(selectors))")
        }
    }

    /// The app's stale mapping model for hop `from` → `to` (or a span containing it),
    /// with the entities whose recorded hashes differ, for the report.
    static func staleNote(_ stale: [StaleMappingModel], from: Int, to: Int) -> String? {
        stale.first { $0.sourceVersion <= from && to <= $0.destinationVersion }.map {
            "\(($0.path as NSString).lastPathComponent) (\($0.entities.joined(separator: ", ")) differ)"
        }
    }

    /// How each hop migrates: the app's mapping model, inference, a mapping file,
    /// or the mapping file it needs.
    func printHops(_ hops: [HopReport], model: String) {
        Output.out("")
        Output.out("hops:")
        for hop in hops {
            if let app = hop.appMappingModel {
                let span = hop.appMappingModelSpan.map { " (spanning \($0))" } ?? ""
                Output.out("  \(hop.from) → \(hop.to): the app ships \(app)\(span): \(hop.imported ?? "")")
                if let error = hop.error { Output.out("    " + error.replacingOccurrences(of: "\n", with: "\n    ")) }
            } else if hop.inferred {
                let stale =
                    hop.staleAppMappingModel.map { "; the app's \($0) is stale: Core Data does not use it" } ?? ""
                Output.out("  \(hop.from) → \(hop.to): inferred (lightweight)\(stale)")
            } else if let file = hop.mappingFile, hop.error == nil {
                Output.out("  \(hop.from) → \(hop.to): mapping file \(file)")
            } else {
                let stale =
                    hop.staleAppMappingModel.map { " (the app's \($0) is stale: Core Data does not use it)" } ?? ""
                Output.out(
                    """
                      \(hop.from) → \(hop.to): needs a mapping file \
                    (\(global.migrations)/\(model)/\(hop.from)-to-\(hop.to).yaml)\(stale)
                    """
                )
                for refusal in hop.refusals { Output.out("    \(refusal.description)") }
                if let error = hop.error { Output.out("    \(error)") }
            }
        }
    }

    /// The path `plan` takes from each version to the last, or why it refuses.
    func printPaths(_ paths: [PathReport]) {
        guard let last = paths.last else { return }
        Output.out("")
        Output.out("paths to version \(last.to) (what plan takes from each version):")
        for path in paths {
            if let refused = path.refused {
                // The hops above detail each refusal: its first line and the paths not taken.
                let lines = refused.split(separator: "\n", omittingEmptySubsequences: false)
                Output.out("  from \(path.from): plan refuses: \(lines.first ?? "")")
                for line in lines.dropFirst() where line.hasPrefix("not taken: ") { Output.out("    \(line)") }
            } else {
                Output.out("  from \(path.from): \(path.path ?? "")")
            }
        }
    }
}
