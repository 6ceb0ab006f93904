/// Compiles validated version descriptions into `CompiledVersion`s: inheritance
/// resolved, Core Data's version hashes, our layout hash and the storage layout.
///
/// The compiler trusts its input: run `ModelValidator` first (the loader does).
public enum ModelCompiler {
    /// Compiles one validated version.
    public static func compile(_ version: ModelVersionDescription) -> CompiledVersion {
        compileCheckingLayout(version).compiled
    }

    /// Compiles one validated version and checks what only its storage layout
    /// shows (`LayoutValidator`): names SQLite cannot tell apart, tables wider than
    /// SQLite allows. The loader reports these with the validator's diagnostics.
    static func compileCheckingLayout(_ version: ModelVersionDescription, inheritance: Inheritance? = nil)
        -> (compiled: CompiledVersion, diagnostics: [Diagnostic])
    {
        var builder = Builder(version: version, inheritance: inheritance ?? Inheritance(version))
        let (compiled, tables, indexes) = builder.build()
        return (compiled, LayoutValidator.check(compiled.layout, tables: tables, indexes: indexes, of: version))
    }

    /// Core Data's default entity numbering for a new store: root entities in name
    /// order, each followed by its subentities depth-first, children in name order
    /// (as `Z_PRIMARYKEY` of stores written by Core Data shows).
    public static func defaultEntityOrder(_ entities: [(name: String, parent: String?)]) -> [String] {
        var children: [String: [String]] = [:]
        var roots: [String] = []
        for entity in entities {
            if let parent = entity.parent {
                children[parent, default: []].append(entity.name)
            } else {
                roots.append(entity.name)
            }
        }
        // Core Data compares names without regard to case (AddressBook's model numbers
        // ABCDUnknownProperty before ABCDURLAddress); code units break ties.
        let byCodeUnits = precedesByCodeUnits
        var order: [String] = []
        var stack = roots.sorted(by: byCodeUnits).reversed().map { $0 }
        while let next = stack.popLast() {
            order.append(next)
            stack.append(contentsOf: (children[next] ?? []).sorted(by: byCodeUnits).reversed())
        }
        return order
    }

    /// Core Data's order of property and subentity names: without regard to case
    /// (AddressBook's model numbers ABCDUnknownProperty before ABCDURLAddress),
    /// code units breaking ties.
    static func sortedByCodeUnits<T>(_ items: [T], name: (T) -> String) -> [T] {
        items.sorted { precedesByCodeUnits(name($0), name($1)) }
    }

    /// The order of `sortedByCodeUnits`. Model names are ASCII, and for ASCII the
    /// comparison needs no lowercased copies (one per comparison made sorting the
    /// properties of 10,000 entities allocation-bound).
    static func precedesByCodeUnits(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        let fast: Bool? = a.withUTF8 { x in
            b.withUTF8 { y -> Bool? in
                guard !x.contains(where: { $0 >= 0x80 }), !y.contains(where: { $0 >= 0x80 }) else { return nil }
                func lower(_ c: UInt8) -> UInt8 { c >= 65 && c <= 90 ? c + 32 : c }
                for (p, q) in zip(x, y) where lower(p) != lower(q) { return lower(p) < lower(q) }
                if x.count != y.count { return x.count < y.count }
                return x.lexicographicallyPrecedes(y)
            }
        }
        if let fast { return fast }
        let (la, lb) = (a.lowercased(), b.lowercased())
        return la != lb ? la.utf16.lexicographicallyPrecedes(lb.utf16) : a.utf16.lexicographicallyPrecedes(b.utf16)
    }

    /// Compiles in time linear in the size of what it produces: each entity lists
    /// every inherited property (that is its size), but no chain is walked and no
    /// property hashed more than once, parents are handled before their children
    /// with no recursion, and inverses are found through `PropertyVisibility`.
    private struct Builder {
        let version: ModelVersionDescription
        let hierarchy: EntityHierarchy
        let visibility: PropertyVisibility

        init(version: ModelVersionDescription, inheritance: Inheritance) {
            self.version = version
            hierarchy = inheritance.hierarchy
            visibility = inheritance.visibility
        }

        /// The relationship named `name` that entity `entity` sees, with the entity declaring it.
        func relationship(_ name: String, on entity: String) -> (RelationshipDescription, String)? {
            guard let i = hierarchy.index[entity], let found = visibility.declaration(of: name, seenFrom: i),
                found.isRelationship
            else { return nil }
            let owner = version.entities[found.entity]
            return (owner.relationships[found.position], owner.name)
        }

        /// An attribute's hash; a composite's from its flattened elements.
        func attributeHash(_ attribute: AttributeDescription) -> VersionHash {
            guard attribute.type == .composite else { return VersionHasher.hash(attribute) }
            return VersionHasher.hashComposite(leaves: leaves(of: attribute.composite, seen: []))
        }

        /// The non-composite elements of a composite, nested ones flattened (the
        /// validator refuses cycles; `seen` stops one anyway).
        func leaves(of name: String?, seen: Set<String>) -> [AttributeDescription] {
            guard let name, !seen.contains(name), let composite = version.composite(named: name) else { return [] }
            return composite.attributes.flatMap { element in
                element.type == .composite ? leaves(of: element.composite, seen: seen.union([name])) : [element]
            }
        }

        func isOwnInverse(_ relationship: RelationshipDescription, declaredIn owner: Int) -> Bool {
            guard relationship.inverse == relationship.name, let destination = hierarchy.index[relationship.destination]
            else { return false }
            return hierarchy.isAncestorOrSelf(owner, of: destination)
        }

        mutating func build() -> (CompiledVersion, tables: [LayoutBuilder.Origin], indexes: [LayoutBuilder.Origin]) {
            let entities = version.entities
            // What each entity declares, compiled once; descendants share it.
            var ownAttributes: [[CompiledAttribute]] = Array(repeating: [], count: entities.count)
            var ownRelationships: [[CompiledRelationship]] = Array(repeating: [], count: entities.count)
            var allAttributes: [[CompiledAttribute]] = Array(repeating: [], count: entities.count)
            var allRelationships: [[CompiledRelationship]] = Array(repeating: [], count: entities.count)
            var hashes: [VersionHash?] = Array(repeating: nil, count: entities.count)
            // Entities first of their name only: the validator refuses duplicates.
            let compiledOrder = hierarchy.preorder.filter { hierarchy.index[entities[$0].name] == $0 }
            for i in compiledOrder {
                let entity = entities[i]
                ownAttributes[i] = entity.attributes.map {
                    CompiledAttribute(declaration: $0, declaredIn: entity.name, versionHash: attributeHash($0))
                }
                ownRelationships[i] = entity.relationships.map { r in
                    let inverse = r.inverse.flatMap { relationship($0, on: r.destination) }
                    return CompiledRelationship(
                        declaration: r, declaredIn: entity.name, inverseEntity: inverse?.1,
                        versionHash: VersionHasher.hash(r, isOwnInverse: isOwnInverse(r, declaredIn: i)),
                        isManyToMany: r.isToMany && (inverse?.0.isToMany ?? false))
                }
                // Root first, as a table filled from the root down lists them.
                let parent = hierarchy.parent[i]
                allAttributes[i] = (parent.map { allAttributes[$0] } ?? []) + ownAttributes[i]
                allRelationships[i] = (parent.map { allRelationships[$0] } ?? []) + ownRelationships[i]
                // Parents come first in `preorder`, so the parent's hash is known.
                var properties: [(name: String, hash: VersionHash)] = []
                properties.reserveCapacity(allAttributes[i].count + allRelationships[i].count)
                for a in allAttributes[i] where !a.declaration.isTransient {
                    properties.append((a.name, a.versionHash))
                }
                for r in allRelationships[i] where !r.declaration.isTransient {
                    properties.append((r.name, r.versionHash))
                }
                hashes[i] = VersionHasher.hashEntity(
                    name: entity.name, isAbstract: entity.isAbstract, parentHash: parent.flatMap { hashes[$0] },
                    properties: properties, hashModifier: entity.hashModifier,
                    uniqueness: entity.uniqueness.map(\.properties))
            }
            let sortedIndexes = compiledOrder.sorted {
                entities[$0].name.utf16.lexicographicallyPrecedes(entities[$1].name.utf16)
            }
            var compiled: [CompiledEntity] = []
            compiled.reserveCapacity(sortedIndexes.count)
            for i in sortedIndexes {
                let entity = entities[i]
                compiled.append(
                    CompiledEntity(
                        name: entity.name, parent: entity.parent, root: entities[hierarchy.root[i]].name,
                        subentities: ModelCompiler.sortedByCodeUnits(
                            hierarchy.children[i].map { entities[$0].name }, name: { $0 }),
                        isAbstract: entity.isAbstract,
                        attributes: ModelCompiler.sortedByCodeUnits(allAttributes[i], name: \.name),
                        relationships: ModelCompiler.sortedByCodeUnits(allRelationships[i], name: \.name),
                        uniqueness: entity.uniqueness.map(\.properties), indexes: entity.indexes,
                        renamedFrom: entity.renamedFrom, hashModifier: entity.hashModifier,
                        versionHash: hashes[i]!, location: entity.location))
            }
            let versionHashes = Dictionary(uniqueKeysWithValues: compiled.map { ($0.name, $0.versionHash) })
            let (layout, tables, indexes) = LayoutBuilder(entities: compiled).buildTracingOrigins()
            let version = CompiledVersion(
                model: version.model, version: version.version, identifier: version.identifier,
                entities: compiled, versionHashes: versionHashes,
                versionHashesDigest: VersionHasher.digest(versionHashes),
                layoutHash: LayoutHash.compute(compiled), layout: layout, file: version.file,
                mappedFrom: version.mappedFrom.isEmpty ? nil : version.mappedFrom)
            return (version, tables, indexes)
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
                lines.append(
                    "  attribute \(field(a.name)) \(a.type.rawValue) indexed=\(a.isIndexed) transient=\(a.isTransient) "
                        + "default=\(field(a.defaultValue.map(tagged))) renamedFrom=\(field(a.renamedFrom)) "
                            + """
                            transformer=\(field(a.transformer)) min=\(field(a.minimum.map(tagged))) \
                            max=\(field(a.maximum.map(tagged)))
                            """
                )
            }
            for relationship in entity.relationships where relationship.declaredIn == entity.name {
                let r = relationship.declaration
                lines.append(
                    """
                      relationship \(field(r.name)) deleteRule=\(r.deleteRule.rawValue) \
                    renamedFrom=\(field(r.renamedFrom))
                    """
                )
            }
            for index in entity.indexes {
                let elements = index.elements.map { element in
                    """
                    \(field(element.property))\(element.expression.map { " expr=" + field($0) } ?? "")\
                    \(element.isDescending ? " desc" : "")
                    """
                }
                lines.append("  index \(field(index.name)) \(elements.joined(separator: ","))")
            }
        }
        return VersionHasher.sha256(Array(lines.joined(separator: "\n").utf8))
    }

    static func tagged(_ value: AttributeValue) -> String {
        "\(value)"
    }
}
