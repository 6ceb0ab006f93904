package import DataModel
import Foundation

/// Losses a team reviewed and accepts, so that `--fail-on-destructive` lets exactly
/// those through and still refuses any other: names given with `--accept` (every
/// hop) and the file `accepted-losses.yaml` beside the model's mapping files (per
/// hop).
///
/// A name is `Entity.property` (a dropped attribute or relationship, its pairs or
/// its order) or `Entity` (every loss of that entity: its objects, any of its
/// properties). The file maps hops to names:
///
/// ```yaml
/// # Migrations/Library/accepted-losses.yaml
/// 2-to-3: [Book.playlist]        # reviewed in release 3.0: the playlist moved to Folder.items
/// 4-to-5: [Draft]
/// ```
///
/// A hop's names accept the losses of any migration step that covers it (a fused run
/// of hops, a direct mapping across it).
package struct AcceptedLosses: Sendable, Hashable {
    /// Names accepted on every hop.
    package var everywhere: Set<String> = []
    /// Names accepted on one hop: (from, to, names).
    package var perHop: [Hop] = []
    /// The file they came from, if any.
    package var file: String? = nil

    /// Names accepted on one hop.
    package struct Hop: Sendable, Hashable {
        /// The hop's source version.
        package var from: Int
        /// The hop's destination version.
        package var to: Int
        /// The accepted names.
        package var names: Set<String>
        /// Where the file names each of them, for the errors of a name that matches nothing.
        package var locations: [String: SourceLocation] = [:]
        /// Where the file names the hop (its key).
        package var location: SourceLocation? = nil
    }

    /// No accepted loss.
    package init() {}

    /// Names accepted on every hop (`--accept`).
    package init(_ names: [String]) { everywhere = Set(names) }

    /// The file's name beside a model's mapping files.
    package static let fileName = "accepted-losses.yaml"

    /// True when nothing is accepted.
    package var isEmpty: Bool { everywhere.isEmpty && perHop.isEmpty }

    /// Whether `warning`, a destructive one, is accepted: its subject (or its entity)
    /// is named on every hop, or on a hop its step covers.
    package func accepts(_ warning: MigrationWarning) -> Bool {
        guard warning.isDestructive, let subject = warning.subject else { return false }
        func names(_ set: Set<String>) -> Bool {
            set.contains(subject) || set.contains(String(subject.prefix { $0 != "." }))
        }
        if names(everywhere) { return true }
        guard let from = warning.fromVersion, let to = warning.toVersion else { return false }
        return perHop.contains { $0.from >= from && $0.to <= to && names($0.names) }
    }

    /// `--accept` names and the file `<migrations>/<model>/accepted-losses.yaml`,
    /// when it exists.
    ///
    /// - Throws: `DiagnosticsError` naming the file, line and column of what is not
    ///   `A-to-B: [names]`.
    package static func load(accept: [String], migrationsFolder: String, model: String) throws -> AcceptedLosses {
        var losses = AcceptedLosses(accept)
        let path = ((migrationsFolder as NSString).appendingPathComponent(model) as NSString).appendingPathComponent(
            fileName)
        guard FileManager.default.fileExists(atPath: path) else { return losses }
        losses.file = path
        let root: YAMLNode
        do {
            root = try YAMLLoader.load(contentsOf: path)
        } catch {
            // The YAML error's own place (a duplicate key, a tab), as for mapping files.
            throw DiagnosticsError([
                Diagnostic(.error, error.message, at: error.location ?? SourceLocation(file: path, line: 1, column: 1))
            ])
        }
        var problems: [Diagnostic] = []
        if root.isNull { return losses }
        guard let pairs = root.mappingPairs else {
            throw DiagnosticsError([
                Diagnostic(
                    .error, "accepted losses: expected a mapping of hops (`2-to-3: [Entity.property]`)",
                    at: root.location)
            ])
        }
        for pair in pairs {
            let key = pair.key.scalarText ?? ""
            // Canonical numbers only: `02-to-03` would silently merge with `2-to-3`.
            let parts = key.components(separatedBy: "-to-").compactMap { Int($0) }
            let canonical = parts.count == 2 && key == "\(parts[0])-to-\(parts[1])"
            guard canonical, parts[0] < parts[1] else {
                problems.append(
                    Diagnostic(
                        .error, "accepted losses: '\(key)' is not a hop (`A-to-B`, A below B)", at: pair.key.location))
                continue
            }
            let items = pair.value.sequenceItems ?? (pair.value.scalarText.map { _ in [pair.value] } ?? [])
            var names: Set<String> = []
            var locations: [String: SourceLocation] = [:]
            for item in items {
                guard let name = item.scalarText, Self.isName(name) else {
                    problems.append(
                        Diagnostic(
                            .error, "accepted losses: expected `Entity` or `Entity.property` under \(key)",
                            at: item.location))
                    continue
                }
                names.insert(name)
                locations[name] = item.location
            }
            if items.isEmpty {
                problems.append(
                    Diagnostic(
                        .error, "accepted losses: expected a list of names under \(key)", at: pair.value.location))
            }
            losses.perHop.append(
                Hop(from: parts[0], to: parts[1], names: names, locations: locations, location: pair.key.location))
        }
        if !problems.isEmpty { throw DiagnosticsError(problems) }
        return losses
    }

    /// `Entity` or `Entity.property`: identifiers joined by one dot.
    package static func isName(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return (1...2).contains(parts.count)
            && parts.allSatisfy { part in
                guard let first = part.first, first.isLetter || first == "_" else { return false }
                return part.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
            }
    }
}
