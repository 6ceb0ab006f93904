import CoreDataImport
import DataModel
import Foundation
import Mapping
import MigrationPolicies
import ModelMigration

/// What import says of each hop and path: inferred, mapped, refused, and why.
extension Import {
    /// The path `plan` takes from each version to the current one (as
    /// `MigrationPath.choose` decides it, every mapping file on it resolved, its
    /// policies written), or why it refuses: an inferred piece over a hop the app
    /// ships a mapping model for that was not imported is refused, never inferred.
    func pathReports(_ compiled: CompiledModel, mappings: ImportedMappings?, migrations: String) -> [PathReport] {
        let files = MappingFiles.load(
            folder: migrations, model: compiled.name, versions: compiled.versions.map(\.version))
        let known = Set(MigrateTool.policies.names)
        let unwritten = MigrateTool.policies.unwritten
        let target = compiled.current.version
        return compiled.versions.filter { $0.version < target }.map { version in
            var report = PathReport(from: version.version, to: target)
            if files.diagnostics.contains(where: { $0.severity == .error }) {
                report.refused = files.diagnostics.filter { $0.severity == .error }.map(\.description).joined(
                    separator: "\n")
                return report
            }
            let path: MigrationPath
            do {
                path = try MigrationPath.choose(
                    model: compiled, source: version, target: target, files: files, knownPolicies: known)
            } catch {
                report.refused = "\(error)"
                return report
            }
            var problems: [String] = []
            for piece in path.pieces {
                if piece.kind == .mappingFile, let file = files.file(from: piece.from, to: piece.to) {
                    do {
                        let resolved = try MappingResolver.resolve(
                            compiled, from: piece.from, to: piece.to, file: file, knownPolicies: known)
                        for policy in resolved.entityMappings.compactMap(\.policy) where unwritten[policy] != nil {
                            problems.append(
                                "policy \(policy) (named in \(file.path)) is not written yet: "
                                    + (unwritten[policy] ?? []).joined(separator: "; "))
                        }
                    } catch {
                        problems.append("\(error)")
                    }
                    continue
                }
                for skipped in mappings?.skipped ?? [] {
                    guard let a = skipped.sourceVersion, let b = skipped.destinationVersion, a < b, piece.from <= a,
                        b <= piece.to
                    else { continue }
                    problems.append(
                        """
                        the app ships \((skipped.path as NSString).lastPathComponent) for \(a) → \(b), which was not \
                        imported (\(skipped.reason)): \(piece.kind) \(piece.from) → \(piece.to) would not do what it \
                        does
                        """)
                }
            }
            report.differences = path.differences.isEmpty ? nil : path.differences
            if problems.isEmpty {
                report.path = path.summary
                report.pieces = path.pieces
                report.notTaken = path.notTaken.isEmpty ? nil : path.notTaken
            } else {
                report.refused = "\(path.summary): " + problems.joined(separator: "\n")
            }
            return report
        }
    }

    /// The report of a hop the app's own mapping model covers, alone or in a span: never
    /// reported as inferred.
    private func importedHopReport(
        _ mapping: ImportedMapping, from: Int, to: Int, _ compiled: CompiledModel, files: MappingFiles,
        migrations: String, refusals: [Refusal], inferenceAccepts: Bool
    ) -> HopReport {
        let span =
            mapping.destinationVersion - mapping.sourceVersion > 1
            ? "\(mapping.sourceVersion)-to-\(mapping.destinationVersion)" : nil
        let path = (migrations as NSString).appendingPathComponent("\(compiled.name)/\(mapping.fileName)")
        var report = HopReport(
            from: from, to: to, inferred: false, mappingFile: path, refusals: refusals, error: nil,
            inferenceAccepts: inferenceAccepts, appMappingModel: mapping.mappingModel, appMappingModelSpan: span
        )
        let what =
            (span == nil ? "" : "spanning \(mapping.sourceVersion) → \(mapping.destinationVersion): ")
            + (mapping.carried.isEmpty ? "every entity as inferred" : mapping.carried.joined(separator: "; "))
        guard let file = files.file(from: mapping.sourceVersion, to: mapping.destinationVersion) else {
            let problems = files.diagnostics.filter { $0.message.contains(path) || $0.location?.file == path }
                .map(\.message)
            report.imported = "imported as \(path) (\(what)), which plan refuses"
            report.error = problems.isEmpty ? "\(path): not loaded" : problems.joined(separator: "\n")
            return report
        }
        do {
            let resolved = try MappingResolver.resolve(
                compiled, from: mapping.sourceVersion, to: mapping.destinationVersion, file: file,
                knownPolicies: Set(MigrateTool.policies.names))
            let unwritten = MigrateTool.policies.unwritten
            let pending = resolved.entityMappings.compactMap(\.policy).filter { unwritten[$0] != nil }
            if !pending.isEmpty {
                report.error = pending.map {
                    "policy \($0) is not written yet: " + (unwritten[$0] ?? []).joined(separator: "; ")
                }
                .joined(separator: "\n")
            }
            report.imported = "mapping file \(path): \(what)"
        } catch {
            report.imported = "imported as \(path) (\(what)), which plan refuses"
            report.error = "\(error)"
        }
        return report
    }

    func hopReports(_ compiled: CompiledModel, mappings: ImportedMappings?, migrations: String) -> [HopReport] {
        let numbers = compiled.versions.map(\.version)
        let files = MappingFiles.load(
            folder: migrations, model: compiled.name, versions: compiled.versions.map(\.version))
        return zip(numbers, numbers.dropFirst()).map { from, to in
            var inferenceAccepts = false
            var refusals: [Refusal] = []
            do {
                _ = try MappingResolver.resolve(compiled, from: from, to: to, file: nil)
                inferenceAccepts = true
            } catch let failure as InferenceFailure {
                refusals = failure.refusals
            } catch {}
            // The app's own mapping model for this hop, or for a span containing it: never reported as inferred.
            // The mapping model of exactly this hop first, else one spanning it.
            let covering = (mappings?.mappings ?? []).filter { $0.sourceVersion <= from && to <= $0.destinationVersion }
            if let mapping = covering.first(where: { $0.sourceVersion == from && $0.destinationVersion == to })
                ?? covering.first
            {
                return importedHopReport(
                    mapping, from: from, to: to, compiled, files: files, migrations: migrations, refusals: refusals,
                    inferenceAccepts: inferenceAccepts)
            }
            if let skipped = mappings?.skipped.first(where: {
                guard let a = $0.sourceVersion, let b = $0.destinationVersion else { return false }
                return a <= from && to <= b
            }) {
                return HopReport(
                    from: from, to: to, inferred: false, mappingFile: nil, refusals: refusals,
                    error: "\(skipped.path): not imported: \(skipped.reason)", inferenceAccepts: inferenceAccepts,
                    appMappingModel: (skipped.path as NSString).lastPathComponent,
                    appMappingModelSpan: skipped.destinationVersion! - skipped.sourceVersion! > 1
                        ? "\(skipped.sourceVersion!)-to-\(skipped.destinationVersion!)" : nil,
                    imported: "not imported, so what it computes is not carried")
            }
            // The app's stale mapping model (Core Data does not use it, nor does the import) is named beside the hop.
            let stale = Self.staleNote(mappings?.stale ?? [], from: from, to: to)
            guard !inferenceAccepts, let file = files.file(from: from, to: to) else {
                return HopReport(
                    from: from, to: to, inferred: inferenceAccepts, mappingFile: nil,
                    refusals: inferenceAccepts ? [] : refusals, error: nil,
                    inferenceAccepts: inferenceAccepts, staleAppMappingModel: stale)
            }
            // A mapping file covers the hop when inference plus the file resolve.
            do {
                _ = try MappingResolver.resolve(compiled, from: from, to: to, file: file)
                return HopReport(
                    from: from, to: to, inferred: false, mappingFile: file.path, refusals: refusals, error: nil,
                    inferenceAccepts: false)
            } catch {
                return HopReport(
                    from: from, to: to, inferred: false, mappingFile: file.path, refusals: refusals, error: "\(error)",
                    inferenceAccepts: false)
            }
        }
    }
}
