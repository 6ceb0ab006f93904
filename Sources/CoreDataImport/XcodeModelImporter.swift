import DataModel
import Foundation

/// Converts the versions of an Xcode data model into the YAML model format, one text
/// per version, with a warning for everything the format has no place for.
///
/// Pure: it reads an `XcodeModelBundle` value and returns an `ImportedModel` value;
/// writing files is the caller's job.
package struct XcodeModelImporter: Sendable {
    /// The model name to write (default: the bundle's name).
    package var modelName: String?
    /// An explicit version order (folder names, `.xcdatamodel` optional) replacing the rule.
    package var order: [String]?
    /// The version folders the app's mapping models map from and to
    /// (`sourcemodelpath`, `destinationmodelpath`: last path components). A mapping
    /// model into the version `.xccurrentversion` names, from one that sorts after it
    /// by name, shows the marker was switched: the current version is then imported
    /// last, as the marker says, not kept first as a marker never switched would be.
    package var mappedVersions: [(source: String, destination: String)] = []

    /// Creates an importer.
    package init(modelName: String? = nil, order: [String]? = nil) {
        self.modelName = modelName
        self.order = order
    }

    /// A mapping model showing the current version is later than one sorting after
    /// it by name: the source and destination folder names, if there is one.
    func switchedMarker(_ bundle: XcodeModelBundle) -> (source: String, destination: String)? {
        guard let current = bundle.currentVersion,
            case .keptFirst(let later)? = VersionOrder.placement(of: current, among: bundle.versions.map(\.folder))
        else { return nil }
        return mappedVersions.first { $0.destination == current && later.contains($0.source) }
    }

    /// Converts every version of `bundle`; throws every problem of every version at once.
    package func convert(_ bundle: XcodeModelBundle) throws(ImportError) -> ImportedModel {
        let name = modelName ?? bundle.name
        guard NameRules.isModelName(name) else {
            throw ImportError(
                .invalid,
                """
                \(bundle.path): '\(name)' is not a valid model name (letters, digits, '_' and '-', starting with a \
                letter); choose one with --model
                """)
        }
        let ordered = try orderedVersions(bundle)
        let notes = bundle.skipped + orderNotes(bundle, count: ordered.count)
        var versions: [ImportedVersion] = []
        var problems: [String] = []
        let isBundle = bundle.path.hasSuffix(".xcdatamodeld") || bundle.path.hasSuffix(".xcdatamodeld/")
        for (index, version) in ordered.enumerated() {
            var converter = VersionConverter(path: version.path, data: version.contents)
            guard let converted = converter.convert(version.contents) else {
                problems += converter.errors
                continue
            }
            problems += converter.errors
            let isCurrent = version.folder == bundle.currentVersion
            var placed = converted
            // What export cannot derive from the number: the folder's name and a
            // current version that is not the last (Docs/Xcode.md, "Round trip").
            let defaultFolder = XcodeModelExporter.defaultFolder(model: name, version: index + 1)
            if isBundle, version.folder != defaultFolder, version.folder.hasSuffix(".xcdatamodel") {
                placed.bundleName = version.name
            }
            placed.isCurrentBeforeLast = isCurrent && index < ordered.count - 1
            let output = YAMLEmitter.emitMapped(
                placed, model: name, version: index + 1,
                header: header(bundle: bundle, version: version, converted: converted, isCurrent: isCurrent),
                warnings: converter.warnings.lines, conversions: converter.conversions)
            var imported = ImportedVersion(
                number: index + 1, source: version.folder, sourcePath: version.path,
                isCurrent: isCurrent, yaml: output.text, warnings: converter.warnings.lines)
            imported.sourceLines = output.sources.mapValues {
                SourceLocation(file: version.path, line: $0.line, column: $0.column)
            }
            imported.sourceText = String(decoding: version.contents, as: UTF8.self)
            versions.append(imported)
        }
        if !problems.isEmpty {
            throw ImportError(problems.contains(where: { $0.contains("XML") }) ? .malformed : .invalid, problems)
        }
        return ImportedModel(name: name, versions: versions, notes: notes)
    }

    /// What the import says of the order it chose when `.xccurrentversion` and the
    /// folders' names disagree (no `--order` given).
    private func orderNotes(_ bundle: XcodeModelBundle, count: Int) -> [String] {
        guard order == nil, let current = bundle.currentVersion else { return [] }
        switch VersionOrder.placement(of: current, among: bundle.versions.map(\.folder)) {
        case .movedLast(let later)?:
            return [
                """
                \(current) is the current version (.xccurrentversion), so it is imported last, as version \(count), \
                although \(later.joined(separator: ", ")) sort\(later.count == 1 ? "s" : "") after it; pass --order to \
                choose another order
                """
            ]
        case .keptFirst(let later)?:
            if let evidence = switchedMarker(bundle) {
                return [
                    """
                    \(current) is marked current (.xccurrentversion) though it is the first version by name, and a \
                    mapping model of the app maps \(evidence.source) to it, so the marker was switched: \(current) is \
                    imported last, as version \(count); pass --order to choose another order
                    """
                ]
            }
            return [
                """
                \(current) is marked current (.xccurrentversion) but is the first version by name, and \
                \(later.joined(separator: ", ")) sort\(later.count == 1 ? "s" : "") after it: the marker looks never \
                switched, so the versions are imported in name order and \(current) is version 1; pass --order \
                \(current) last if it is the newest
                """
            ]
        case nil:
            return []
        }
    }

    private func orderedVersions(_ bundle: XcodeModelBundle) throws(ImportError) -> [XcodeModelBundle.Version] {
        let byFolder = Dictionary(bundle.versions.map { ($0.folder, $0) }, uniquingKeysWith: { first, _ in first })
        guard let order else {
            if let current = bundle.currentVersion, switchedMarker(bundle) != nil {
                return
                    (VersionOrder.sorted(bundle.versions.map(\.folder), current: nil).filter { $0 != current } + [
                        current
                    ]).compactMap { byFolder[$0] }
            }
            return VersionOrder.sorted(bundle.versions.map(\.folder), current: bundle.currentVersion).compactMap {
                byFolder[$0]
            }
        }
        var problems: [String] = []
        var result: [XcodeModelBundle.Version] = []
        var seen = Set<String>()
        for entry in order {
            let folder = entry.hasSuffix(".xcdatamodel") ? entry : entry + ".xcdatamodel"
            guard let version = byFolder[folder] else {
                problems.append(
                    """
                    order: '\(entry)' is not a version of \(bundle.path) (versions: \
                    \(VersionOrder.sorted(bundle.versions.map(\.folder), current: nil).joined(separator: ", ")))
                    """)
                continue
            }
            if !seen.insert(folder).inserted {
                problems.append("order: '\(entry)' is listed twice")
                continue
            }
            result.append(version)
        }
        let missing = VersionOrder.sorted(bundle.versions.map(\.folder).filter { !seen.contains($0) }, current: nil)
        if !missing.isEmpty {
            problems.append("order: the list leaves out \(missing.joined(separator: ", ")); list every version once")
        }
        if !problems.isEmpty { throw ImportError(.order, problems) }
        return result
    }

    private func header(
        bundle: XcodeModelBundle, version: XcodeModelBundle.Version, converted: ConvertedVersion, isCurrent: Bool
    ) -> [String] {
        let bundleName = (bundle.path as NSString).lastPathComponent
        let origin =
            bundleName == version.folder || bundleName == "contents"
            ? version.folder : "\(bundleName)/\(version.folder)"
        var lines = [
            "Imported by `migrate import` from \(origin):",
            "Xcode model version \"\(version.name)\"\(isCurrent ? " (the current version in Xcode)" : "").",
        ]
        var saved: [String] = []
        if let tools = converted.toolsVersion { saved.append("tools version \(tools)") }
        if let system = converted.systemVersion { saved.append("system \(system)") }
        if !saved.isEmpty { lines.append("Last saved by Xcode " + saved.joined(separator: ", ") + ".") }
        return lines
    }
}
