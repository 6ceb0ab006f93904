import Foundation

extension CompiledModel {
    /// The compiled model as pretty-printed JSON with sorted keys: byte-identical for
    /// the same input on every run and platform (no floating-point fields are encoded).
    package static func json(_ models: [CompiledModel]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(CompiledModelsDocument(formatVersion: 1, models: models))
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// A human summary: versions, entities and abbreviated hashes.
    package var summary: String {
        var lines = [
            "model \(name): \(versions.count) version\(versions.count == 1 ? "" : "s"), current \(current.version)"
        ]
        for version in versions {
            let label = version.identifier.map { " (\($0))" } ?? ""
            lines.append(
                """
                  version \(version.version)\(label): \(version.entities.count) entities, \
                layout \(version.layoutHash.short), digest \(version.versionHashesDigest.prefix(12))…
                """)
            let width = version.entities.map(\.name.count).max() ?? 0
            for entity in version.entities {
                let parent = entity.parent.map { " : \($0)" } ?? ""
                let flags = entity.isAbstract ? " abstract" : ""
                let stored = entity.attributes.filter { !$0.declaration.isTransient }.count
                lines.append(
                    "    \(entity.name.padding(toLength: width, withPad: " ", startingAt: 0))  "
                        + "\(entity.versionHash.short)  "
                        + "\(stored) attributes, \(entity.relationships.count) relationships\(parent)\(flags)")
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// The top-level object `migrate compile` writes.
package struct CompiledModelsDocument: Sendable, Codable {
    /// The document format, bumped on incompatible changes.
    package var formatVersion: Int
    /// Every compiled model.
    package var models: [CompiledModel]
}
