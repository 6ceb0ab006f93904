/// A compiled attribute: the description plus where it is declared and its hash.
public struct CompiledAttribute: Sendable, Hashable, Codable {
    /// The attribute as written (in the entity that declares it).
    public var declaration: AttributeDescription
    /// The entity that declares it (an ancestor for inherited attributes).
    public var declaredIn: String
    /// Core Data's property version hash.
    public var versionHash: VersionHash

    /// The attribute's name.
    public var name: String { declaration.name }
}

/// A compiled relationship: the description plus where it is declared, its hash and
/// its resolved inverse.
public struct CompiledRelationship: Sendable, Hashable, Codable {
    /// The relationship as written.
    public var declaration: RelationshipDescription
    /// The entity that declares it.
    public var declaredIn: String
    /// The entity that declares the inverse relationship, when there is one.
    public var inverseEntity: String?
    /// Core Data's property version hash.
    public var versionHash: VersionHash

    /// The relationship's name.
    public var name: String { declaration.name }
    /// True when both this side and its inverse are to-many.
    public var isManyToMany: Bool
}

/// A compiled entity: inheritance resolved, every property (own and inherited),
/// and Core Data's entity version hash.
public struct CompiledEntity: Sendable, Hashable, Codable {
    /// The entity's name.
    public var name: String
    /// The parent entity.
    public var parent: String?
    /// The topmost ancestor (itself for a root): its table holds this entity's rows.
    public var root: String
    /// Direct subentities, by name.
    public var subentities: [String]
    /// Abstract entities have no instances of their own.
    public var isAbstract: Bool
    /// Every attribute, inherited ones included, sorted by name.
    public var attributes: [CompiledAttribute]
    /// Every relationship, inherited ones included, sorted by name.
    public var relationships: [CompiledRelationship]
    /// Own uniqueness constraints.
    public var uniqueness: [[String]]
    /// Own fetch indexes.
    public var indexes: [IndexDescription]
    /// The previous name (`renamedFrom`).
    public var renamedFrom: String?
    /// `hashModifier`.
    public var hashModifier: String?
    /// Core Data's entity version hash (`NSEntityDescription.versionHash`).
    public var versionHash: VersionHash
    /// Where the entity is written.
    public var location: SourceLocation

    /// An attribute by name (own or inherited).
    public func attribute(named name: String) -> CompiledAttribute? { attributes.first { $0.name == name } }
    /// A relationship by name (own or inherited).
    public func relationship(named name: String) -> CompiledRelationship? { relationships.first { $0.name == name } }
}

/// One compiled model version: entities, hashes and storage layout.
public struct CompiledVersion: Sendable, Hashable, Codable {
    /// The model's name.
    public var model: String
    /// The version number.
    public var version: Int
    /// The `identifier:` label, if any.
    public var identifier: String?
    /// Entities sorted by name.
    public var entities: [CompiledEntity]
    /// Entity name → version hash (`NSStoreModelVersionHashes`).
    public var versionHashes: [String: VersionHash]
    /// `NSStoreModelVersionHashesDigest`: base64 SHA-512 over name ‖ hash, in name order.
    public var versionHashesDigest: String
    /// Our layout hash: also covers what Core Data does not hash (defaults, indexes,
    /// renames, delete rules, transformers), so index-only changes are recognised.
    public var layoutHash: VersionHash
    /// Tables, columns, join tables and indexes of a new store of this version.
    package var layout: StorageLayout
    /// The file it was compiled from.
    public var file: String
    /// The versions the app ships a mapping model from, to this one (`mappedFrom:`):
    /// a migration from one of them needs its mapping file. Nil in models compiled
    /// before the key existed.
    package var mappedFrom: [Int]? = nil

    /// The entity with this name.
    public func entity(named name: String) -> CompiledEntity? {
        // `entities` is sorted by name (UTF-16 code units), so a binary search finds
        // it; callers ask once per entity, and a scan made that quadratic. A list
        // someone reordered by hand still answers, by the scan.
        var low = 0, high = entities.count
        while low < high {
            let middle = (low + high) / 2
            if entities[middle].name.utf16.lexicographicallyPrecedes(name.utf16) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        if low < entities.count, entities[low].name == name { return entities[low] }
        return entities.first { $0.name == name }
    }

    /// Why no store of this version is created, migrated or read here, or nil when
    /// one can be: composite attributes (Xcode 15+), whose columns in Core Data's
    /// stores no store at hand shows. Import, export, validation and hashes still
    /// work (Docs/Xcode.md, "Composite attributes").
    public var storageRefusal: String? {
        let composites = entities.flatMap { entity in
            entity.attributes.filter { $0.declaredIn == entity.name && $0.declaration.type == .composite }.map {
                "\(entity.name).\($0.name)"
            }
        }
        guard !composites.isEmpty else { return nil }
        return """
            version \(version) of \(model) has composite attributes (\(composites.joined(separator: ", "))): \
            how Core Data stores them in SQLite is not proven by any store at hand, so this toolkit does not create, \
            migrate or read stores of this version (import, export, validate and compile work)
            """
    }
}

/// Every version of a model, compiled: what `migrate compile` writes and the other
/// modules consume.
public struct CompiledModel: Sendable, Hashable, Codable {
    /// The model's name.
    public var name: String
    /// Versions in ascending order.
    public var versions: [CompiledVersion]

    /// The highest version.
    public var current: CompiledVersion { versions[versions.count - 1] }

    /// A version by number.
    public func version(_ number: Int) -> CompiledVersion? {
        versions.first { $0.version == number }
    }
}

extension CompiledVersion {
    /// The entity and every subentity below it, depth-first (iterative, so a deep
    /// hierarchy cannot overflow the stack).
    public func subtree(of name: String) -> [String] {
        var names: [String] = []
        var seen: Set<String> = []
        var stack = [name]
        while let next = stack.popLast(), seen.insert(next).inserted {
            names.append(next)
            stack += (entity(named: next)?.subentities ?? []).reversed()
        }
        return names
    }

    /// The entity then its ancestors, nearest first.
    public func lineage(of name: String) -> [String] {
        var names: [String] = []
        var seen: Set<String> = []
        var current: String? = name
        while let n = current, seen.insert(n).inserted {
            names.append(n)
            current = entity(named: n)?.parent
        }
        return names
    }
}
