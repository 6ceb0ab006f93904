package import DataModel

/// Which source entity and property each destination entity and property comes
/// from, following `renamedFrom` (Core Data's renaming identifier) hop by hop, so
/// renames chain across versions.
package struct Renames: Sendable {
    /// Destination entity → source entity.
    package var entities: [String: String] = [:]
    /// Destination entity → (destination property → source property).
    package var properties: [String: [String: String]] = [:]
    /// Ambiguous claims found on the way.
    var refusals: [Refusal] = []
    /// The destination entities those claims leave without a source, or with a
    /// property without one.
    package var ambiguous: Set<String> = []

    /// What a mapping file decides itself, which settles an ambiguous rename in a
    /// shipped version (where `renamedFrom` can no longer change). Of several
    /// destination entities claiming one old entity, those the file gives it as their
    /// `source:` take it and the others are new; those it gives another source drop
    /// out, and one claimant left takes it. Of several properties, those the file sets
    /// drop out, and one claimant left takes it.
    package struct Settled: Sendable {
        /// Destination entity → the source entity the file gives it.
        package var entities: [String: String] = [:]
        package var properties: [String: Set<String>] = [:]
        /// Of those, the ones the file sets otherwise than by copying a source property
        /// (`policy`, a default, an expression): they lend no pairs to their inverse.
        package var setOtherwise: [String: Set<String>] = [:]
        package init() {}
    }

    /// The renames of one hop between adjacent versions (or of a span a mapping
    /// file maps).
    package static func hop(from source: CompiledVersion, to destination: CompiledVersion, settled: Settled = Settled())
        -> Renames
    {
        var result = Renames()
        var entityClaims: [String: [String]] = [:]
        let destinationNames = Set(destination.entities.map(\.name))
        for entity in destination.entities {
            guard let match = matchEntity(entity, in: source, beside: destinationNames) else { continue }
            entityClaims[match, default: []].append(entity.name)
            result.entities[entity.name] = match
        }
        // What the file gives a source is made from it, its properties paired with that
        // entity's as inference pairs them (by renaming identifier, widening).
        for (name, given) in settled.entities where source.entity(named: given) != nil {
            result.entities[name] = given
        }
        for (old, all) in entityClaims where all.count > 1 {
            let takers = all.filter { settled.entities[$0] == old }
            let claimants = takers.isEmpty ? all.filter { settled.entities[$0] == nil } : takers
            let ambiguous = takers.isEmpty && claimants.count > 1
            for name in all where settled.entities[name] == nil && (ambiguous || !claimants.contains(name)) {
                result.entities[name] = nil
            }
            guard ambiguous else { continue }
            result.ambiguous.formUnion(claimants)
            result.refusals.append(
                Refusal(
                    kind: .ambiguousRename, entity: claimants.sorted()[0], property: nil,
                    change:
                        """
                        ambiguous rename: entities \(claimants.sorted().joined(separator: " and ")) both claim the old \
                        entity '\(old)'
                        """,
                    remedy:
                        "let one of them continue it: in a version not yet shipped, rename the new one or change its"
                        + " `renamedFrom`; in a shipped version, a mapping file giving one of them `source: \(old)` "
                        + "settles it"
                        + " (the others are new)"))
        }
        for entity in destination.entities {
            guard let sourceName = result.entities[entity.name], let sourceEntity = source.entity(named: sourceName)
            else { continue }
            var claims: [String: [String]] = [:]
            var map: [String: String] = [:]
            let candidates = storedProperties(of: sourceEntity)
            let properties = storedProperties(of: entity)
            let names = Set(properties.map(\.name))
            for property in properties {
                guard let match = matchProperty(property, in: candidates, beside: names) else { continue }
                claims[match, default: []].append(property.name)
                map[property.name] = match
            }
            for (old, all) in claims where all.count > 1 {
                let claimants = all.filter { settled.properties[entity.name]?.contains($0) != true }
                for name in all where claimants.count != 1 || name != claimants[0] { map[name] = nil }
                guard claimants.count > 1 else { continue }
                result.ambiguous.insert(entity.name)
                result.refusals.append(
                    Refusal(
                        kind: .ambiguousRename, entity: entity.name, property: claimants.sorted()[0],
                        change:
                            """
                            ambiguous rename: properties \(claimants.sorted().joined(separator: " and ")) both claim \
                            the old property '\(sourceName).\(old)'
                            """,
                        remedy:
                            """
                            let one of them continue it: in a version not yet shipped, rename the new one or change its
                            """
                                + " `renamedFrom`; in a shipped version, a mapping file setting the others settles it"))
            }
            result.properties[entity.name] = map
        }
        result.pairThroughInverses(from: source, to: destination, settled: settled)
        return result
    }

    /// A relationship that pairs with nothing takes the pairs of its inverse when the
    /// inverse pairs: Core Data's relationship stage sets the paired side, and
    /// setting one side of a relationship sets its inverse, so the two sides stay one
    /// set of pairs (a to-one renamed twice, `d` with `renamedFrom: c` over a store
    /// that knows it as `b`, keeps its objects through its to-many inverse). It pairs
    /// with the source inverse of what its inverse pairs with, when that is a
    /// relationship of its own source entity no other property claims.
    ///
    /// The inverse may be paired on a subentity of its entity only (BookPlayer 7 → 8:
    /// `LibraryItem.lastPlayed` is paired in Book's mapping with v7's `Book.lastPlayed`,
    /// whose inverse is `Library.lastPlayedBook`, so `Library.lastPlayedItem` continues
    /// it), as long as every subentity that pairs it agrees.
    ///
    /// An inverse a mapping file sets otherwise than by a copy (`contactIdentities: policy`,
    /// olvid-ios 5 → 6) lends nothing: what it holds is the file's, not the source's.
    mutating func pairThroughInverses(
        from source: CompiledVersion, to destination: CompiledVersion, settled: Settled = Settled()
    ) {
        for entity in destination.entities {
            guard let sourceName = entities[entity.name], let sourceEntity = source.entity(named: sourceName) else {
                continue
            }
            for relationship in entity.relationships where !relationship.declaration.isTransient {
                let r = relationship.declaration
                guard properties[entity.name]?[r.name] == nil, let inverse = r.inverse else { continue }
                // The source relationship each mapping into the inverse's entity (or a
                // subentity) pairs the inverse with, and that one's own inverse.
                var found: Set<String> = []
                for holder in destination.subtree(of: r.destination) {
                    guard settled.setOtherwise[holder]?.contains(inverse) != true,
                        let pairedInverse = properties[holder]?[inverse],
                        let inverseSource = entities[holder].flatMap({ source.entity(named: $0) }),
                        let sourceInverse = inverseSource.relationship(named: pairedInverse)?.declaration.inverse,
                        let candidate = sourceEntity.relationship(named: sourceInverse),
                        candidate.declaration.inverse == pairedInverse
                    else { continue }
                    found.insert(sourceInverse)
                }
                guard found.count == 1, let sourceInverse = found.first,
                    !(properties[entity.name] ?? [:]).values.contains(sourceInverse)
                else { continue }
                properties[entity.name, default: [:]][r.name] = sourceInverse
            }
        }
    }

    /// `first` (A → B) followed by `second` (B → C): A → C.
    static func compose(_ first: Renames, _ second: Renames) -> Renames {
        var result = Renames(refusals: first.refusals + second.refusals)
        for (destination, middle) in second.entities {
            guard let source = first.entities[middle] else { continue }
            result.entities[destination] = source
            var map: [String: String] = [:]
            for (property, middleProperty) in second.properties[destination] ?? [:] {
                if let sourceProperty = first.properties[middle]?[middleProperty] { map[property] = sourceProperty }
            }
            result.properties[destination] = map
        }
        return result
    }

    struct Property {
        var name: String
        var renamedFrom: String?
    }

    static func storedProperties(of entity: CompiledEntity) -> [Property] {
        entity.attributes.filter { !$0.declaration.isTransient }.map {
            Property(name: $0.name, renamedFrom: $0.declaration.renamedFrom)
        }
            + entity.relationships.filter { !$0.declaration.isTransient }.map {
                Property(name: $0.name, renamedFrom: $0.declaration.renamedFrom)
            }
    }

    /// Core Data pairs by renaming identifier (`renamingIdentifier`: the
    /// `renamedFrom`, else the name): a destination with `renamedFrom` pairs with the
    /// source of that name (this format's hop-by-hop chaining) or with that
    /// identifier (Xcode keeps the identifier in later versions), and never with a
    /// source of its own name when neither exists: its identifier is not that name.
    /// A destination without `renamedFrom` has its name as its identifier: it pairs with
    /// the source of that name, else with the source whose identifier it is (`b`,
    /// `renamedFrom: a`, when the destination is named `a` again): the two share the
    /// identifier `a` (fuzzer seed 2100 trial 20). Unless a destination beside it
    /// (`siblings`) has that source's name: that one continues it, and this one is new
    /// (a new entity `Card` beside `Echo`, renamed from `Card` a version before).
    ///
    /// First of all, a source of its own name that shares its identifier is itself,
    /// unchanged: `C` with `renamedFrom: B` stays `C` in the next version, although a
    /// new `B` was added beside it (fuzzer seed 2303 trial 60).
    private static func matchEntity(_ entity: CompiledEntity, in source: CompiledVersion, beside siblings: Set<String>)
        -> String?
    {
        let identifier = entity.renamedFrom ?? entity.name
        if let same = source.entity(named: entity.name), (same.renamedFrom ?? same.name) == identifier {
            return same.name
        }
        if source.entity(named: identifier) != nil { return identifier }
        guard let found = source.entities.first(where: { $0.renamedFrom == identifier })?.name else { return nil }
        return entity.renamedFrom == nil && siblings.contains(found) ? nil : found
    }

    /// As ``matchEntity(_:in:beside:)``, among the source entity's stored properties.
    private static func matchProperty(_ property: Property, in candidates: [Property], beside siblings: Set<String>)
        -> String?
    {
        let identifier = property.renamedFrom ?? property.name
        if candidates.contains(where: { $0.name == property.name && ($0.renamedFrom ?? $0.name) == identifier }) {
            return property.name
        }
        if candidates.contains(where: { $0.name == identifier }) { return identifier }
        guard let found = candidates.first(where: { $0.renamedFrom == identifier })?.name else { return nil }
        return property.renamedFrom == nil && siblings.contains(found) ? nil : found
    }
}
