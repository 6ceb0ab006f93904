/// Compiles validated version descriptions into `CompiledVersion`s: inheritance
/// resolved, Core Data's version hashes, our layout hash and the storage layout.
///
/// The compiler trusts its input: run `ModelValidator` first (the loader does).
public enum ModelCompiler {
    /// Compiles one validated version.
    public static func compile(_ version: ModelVersionDescription) -> CompiledVersion {
        var builder = Builder(version: version)
        return builder.build()
    }

    /// Core Data's default entity numbering for a new store: root entities in name
    /// order, each followed by its subentities depth-first, children in name order
    /// (as `Z_PRIMARYKEY` of stores written by Core Data shows).
    public static func defaultEntityOrder(_ entities: [(name: String, parent: String?)]) -> [String] {
        var children: [String: [String]] = [:]
        var roots: [String] = []
        for entity in entities {
            if let parent = entity.parent { children[parent, default: []].append(entity.name) } else { roots.append(entity.name) }
        }
        // Core Data compares names without regard to case (AddressBook's model numbers
        // ABCDUnknownProperty before ABCDURLAddress); code units break ties.
        let byCodeUnits: (String, String) -> Bool = { a, b in
            let (la, lb) = (a.lowercased(), b.lowercased())
            return la != lb ? la.utf16.lexicographicallyPrecedes(lb.utf16) : a.utf16.lexicographicallyPrecedes(b.utf16)
        }
        var order: [String] = []
        var stack = roots.sorted(by: byCodeUnits).reversed().map { $0 }
        while let next = stack.popLast() {
            order.append(next)
            stack.append(contentsOf: (children[next] ?? []).sorted(by: byCodeUnits).reversed())
        }
        return order
    }

    private struct Builder {
        let version: ModelVersionDescription
        let byName: [String: EntityDescription]
        var entityHashes: [String: VersionHash] = [:]

        init(version: ModelVersionDescription) {
            self.version = version
            byName = Dictionary(version.entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        }

        /// The entity itself then its ancestors, nearest first.
        func lineage(_ name: String) -> [EntityDescription] {
            var result: [EntityDescription] = []
            var current: String? = name
            while let n = current, let entity = byName[n], !result.contains(where: { $0.name == n }) {
                result.append(entity)
                current = entity.parent
            }
            return result
        }

        func isAncestor(_ ancestor: String, of entity: String) -> Bool {
            lineage(entity).dropFirst().contains { $0.name == ancestor }
        }

        /// The relationship named `name` on `entity` or an ancestor, with its declaring entity.
        func relationship(_ name: String, on entity: String) -> (RelationshipDescription, String)? {
            for owner in lineage(entity) {
                if let r = owner.relationships.first(where: { $0.name == name }) { return (r, owner.name) }
            }
            return nil
        }

        func isOwnInverse(_ relationship: RelationshipDescription, declaredIn owner: String) -> Bool {
            relationship.inverse == relationship.name
                && (relationship.destination == owner || isAncestor(owner, of: relationship.destination))
        }

        mutating func entityHash(_ name: String) -> VersionHash {
            if let known = entityHashes[name] { return known }
            let entity = byName[name]!
            let parentHash = entity.parent.map { entityHash($0) }
            var properties: [(name: String, hash: VersionHash)] = []
            for owner in lineage(name) {
                for a in owner.attributes where !a.isTransient { properties.append((a.name, VersionHasher.hash(a))) }
                for r in owner.relationships where !r.isTransient {
                    properties.append((r.name, VersionHasher.hash(r, isOwnInverse: isOwnInverse(r, declaredIn: owner.name))))
                }
            }
            let hash = VersionHasher.hashEntity(name: name, isAbstract: entity.isAbstract, parentHash: parentHash,
                                                properties: properties, hashModifier: entity.hashModifier,
                                                uniqueness: entity.uniqueness.map(\.properties))
            entityHashes[name] = hash
            return hash
        }

        mutating func build() -> CompiledVersion {
            let sortedNames = version.entities.map(\.name).sorted { $0.utf16.lexicographicallyPrecedes($1.utf16) }
            var compiled: [CompiledEntity] = []
            for name in sortedNames {
                let entity = byName[name]!
                let chain = lineage(name)
                var attributes: [CompiledAttribute] = []
                var relationships: [CompiledRelationship] = []
                for owner in chain.reversed() {
                    for a in owner.attributes {
                        attributes.append(CompiledAttribute(declaration: a, declaredIn: owner.name, versionHash: VersionHasher.hash(a)))
                    }
                    for r in owner.relationships {
                        let inverse = r.inverse.flatMap { relationship($0, on: r.destination) }
                        relationships.append(CompiledRelationship(
                            declaration: r, declaredIn: owner.name, inverseEntity: inverse?.1,
                            versionHash: VersionHasher.hash(r, isOwnInverse: isOwnInverse(r, declaredIn: owner.name)),
                            isManyToMany: r.isToMany && (inverse?.0.isToMany ?? false)))
                    }
                }
                // Core Data compares names without regard to case (AddressBook's model numbers
        // ABCDUnknownProperty before ABCDURLAddress); code units break ties.
        let byCodeUnits: (String, String) -> Bool = { a, b in
            let (la, lb) = (a.lowercased(), b.lowercased())
            return la != lb ? la.utf16.lexicographicallyPrecedes(lb.utf16) : a.utf16.lexicographicallyPrecedes(b.utf16)
        }
                attributes.sort { byCodeUnits($0.name, $1.name) }
                relationships.sort { byCodeUnits($0.name, $1.name) }
                compiled.append(CompiledEntity(
                    name: name, parent: entity.parent, root: chain.last!.name,
                    subentities: version.entities.filter { $0.parent == name }.map(\.name).sorted(by: byCodeUnits),
                    isAbstract: entity.isAbstract, attributes: attributes, relationships: relationships,
                    uniqueness: entity.uniqueness.map(\.properties), indexes: entity.indexes,
                    renamedFrom: entity.renamedFrom, hashModifier: entity.hashModifier,
                    versionHash: entityHash(name), location: entity.location))
            }
            let hashes = Dictionary(uniqueKeysWithValues: compiled.map { ($0.name, $0.versionHash) })
            let layout = LayoutBuilder(entities: compiled).build()
            return CompiledVersion(
                model: version.model, version: version.version, identifier: version.identifier,
                entities: compiled, versionHashes: hashes, versionHashesDigest: VersionHasher.digest(hashes),
                layoutHash: LayoutHash.compute(compiled), layout: layout, file: version.file)
        }
    }
}

/// The layout hash: SHA-256 over a canonical text of every stored fact of a version,
/// including those Core Data leaves out of its hashes (defaults, indexes, renames,
/// delete rules, transformers, limits). Entity numbers and table names are not part
/// of it: a migrated store and a new store of the same version have the same hash.
enum LayoutHash {
    static func compute(_ entities: [CompiledEntity]) -> VersionHash {
        var lines: [String] = ["layout-hash 1"]
        func field(_ value: String?) -> String {
            guard let value else { return "-" }
            // Length-prefixed, so that no value can imitate a separator.
            return "\(value.utf8.count):\(value)"
        }
        for entity in entities {
            lines.append("entity \(field(entity.name)) \(entity.versionHash.hex) \(field(entity.renamedFrom))")
            for attribute in entity.attributes where attribute.declaredIn == entity.name {
                let a = attribute.declaration
                lines.append("  attribute \(field(a.name)) \(a.type.rawValue) indexed=\(a.isIndexed) transient=\(a.isTransient) "
                    + "default=\(field(a.defaultValue.map(tagged))) renamedFrom=\(field(a.renamedFrom)) "
                    + "transformer=\(field(a.transformer)) min=\(field(a.minimum.map(tagged))) max=\(field(a.maximum.map(tagged)))")
            }
            for relationship in entity.relationships where relationship.declaredIn == entity.name {
                let r = relationship.declaration
                lines.append("  relationship \(field(r.name)) deleteRule=\(r.deleteRule.rawValue) renamedFrom=\(field(r.renamedFrom))")
            }
            for index in entity.indexes {
                let elements = index.elements.map { "\(field($0.property))\($0.isDescending ? " desc" : "")" }
                lines.append("  index \(field(index.name)) \(elements.joined(separator: ","))")
            }
        }
        return VersionHasher.sha256(Array(lines.joined(separator: "\n").utf8))
    }

    static func tagged(_ value: AttributeValue) -> String {
        "\(value)"
    }
}
