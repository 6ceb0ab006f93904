public import DataModel

/// A shipped version edited after stores were made with it: the store's own
/// record of its version (the compiled model it keeps) and the YAML of that version
/// now differ in their hashes.
///
/// A shipped version never changes; a change belongs in a new version. Migrating
/// from either side would be wrong: from the YAML, the plan would expect tables the
/// store does not have; from the store's record, the YAML's author would believe
/// their edit took effect. So `status`, `plan` and `apply` exit 5 and name every
/// difference.
public struct VersionDrift: Sendable, Hashable {
    /// The model.
    public var model: String
    /// The version edited.
    public var version: Int
    /// The YAML file of that version.
    public var file: String
    /// One line per difference (entity or property).
    public var differences: [String]

    /// Compares the version a store recorded with the same version's YAML now.
    public init(recorded: CompiledVersion, now: CompiledVersion) {
        model = now.model
        version = now.version
        file = now.file
        var lines: [String] = []
        let names = Set(recorded.entities.map(\.name)).union(now.entities.map(\.name)).sorted()
        for name in names {
            switch (recorded.entity(named: name), now.entity(named: name)) {
            case (nil, _?):
                lines.append("\(name): added to the YAML after stores were made")
            case (_?, nil):
                lines.append("\(name): removed from the YAML after stores were made")
            case (let old?, let new?) where old.versionHash != new.versionHash:
                lines += Self.differences(old, new)
            default:
                continue
            }
        }
        differences = lines
    }

    /// What differs within one entity, property by property.
    static func differences(_ old: CompiledEntity, _ new: CompiledEntity) -> [String] {
        var lines: [String] = []
        let name = old.name
        if old.parent != new.parent {
            lines.append(
                "\(name): parent \(old.parent ?? "none") in the store's version, \(new.parent ?? "none") in the YAML")
        }
        if old.isAbstract != new.isAbstract {
            lines.append(
                """
                \(name): \(old.isAbstract ? "abstract" : "not abstract") in the store's version, \
                \(new.isAbstract ? "abstract" : "not abstract") in the YAML
                """)
        }
        if old.hashModifier != new.hashModifier {
            lines.append(
                """
                \(name): hashModifier \(old.hashModifier ?? "none") in the store's version, \
                \(new.hashModifier ?? "none") in the YAML
                """
            )
        }
        if Set(old.uniqueness) != Set(new.uniqueness) {
            lines.append("\(name): uniqueness \(old.uniqueness) in the store's version, \(new.uniqueness) in the YAML")
        }
        let attributes = Set(old.attributes.map(\.name)).union(new.attributes.map(\.name)).sorted()
        for property in attributes {
            let a = old.attribute(named: property), b = new.attribute(named: property)
            guard a?.versionHash != b?.versionHash else { continue }
            lines.append(
                """
                \(name).\(property): \(a.map(describe) ?? "absent") in the store's version, \
                \(b.map(describe) ?? "absent") in the YAML
                """
            )
        }
        let relationships = Set(old.relationships.map(\.name)).union(new.relationships.map(\.name)).sorted()
        for property in relationships {
            let a = old.relationship(named: property), b = new.relationship(named: property)
            guard a?.versionHash != b?.versionHash else { continue }
            lines.append(
                """
                \(name).\(property): \(a.map(describe) ?? "absent") in the store's version, \
                \(b.map(describe) ?? "absent") in the YAML
                """
            )
        }
        if lines.isEmpty { lines.append("\(name): its version hash differs") }
        return lines
    }

    static func describe(_ attribute: CompiledAttribute) -> String {
        let d = attribute.declaration
        var text = d.type.rawValue + (d.isOptional ? "?" : "")
        if d.isTransient { text += " transient" }
        if let modifier = d.hashModifier { text += " hashModifier \(modifier)" }
        return text
    }

    static func describe(_ relationship: CompiledRelationship) -> String {
        let d = relationship.declaration
        var text = (d.isToMany ? "to-many " : "to-one ") + d.destination + (d.isOptional ? "?" : "")
        if let inverse = d.inverse { text += " inverse \(inverse)" }
        if d.isOrdered { text += " ordered" }
        if let modifier = d.hashModifier { text += " hashModifier \(modifier)" }
        return text
    }

    /// The explanation and the remedy, for exit 5.
    public var explanation: String {
        ([
            """
            version \(version) of model \(model) was edited after this store was made with it \
            (\(file) no longer has the hashes the store recorded for version \(version)):
            """
        ]
            + differences.map { "  " + $0 }
            + ["a shipped version never changes: restore \(file) as it shipped, and put the change in a new version"])
            .joined(separator: "\n")
    }
}
