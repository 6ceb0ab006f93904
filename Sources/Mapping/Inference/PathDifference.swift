public import DataModel

/// A place where migrating hop by hop through every version (the chain) and the
/// direct inferred mapping between the two ends give different data, as Core Data's
/// staged migration and its direct inferred migration would.
public struct PathDifference: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What differs.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A property removed in one hop and added back later: the chain loses its
        /// values, the direct mapping pairs it again (same name or renaming identifier).
        case removedAndReadded
        /// A property renamed across hops that the direct mapping cannot pair.
        case renamedAcrossHops
        /// An entity dropped in one hop and added back later.
        case entityRemovedAndReadded
        /// An entity renamed across hops that the direct mapping cannot pair.
        case entityRenamedAcrossHops
        /// The two paths take a destination property or entity from different sources.
        case differentSource
        /// An attribute whose type changes in one hop and changes back later.
        case typeChangedAndBack
    }

    /// What differs.
    public var kind: Kind
    /// The destination entity (in the last version).
    public var entity: String
    /// The destination property, or nil for the whole entity.
    public var property: String?
    /// What the chain of hops does with the data.
    public var chain: String
    /// What the direct mapping does with it.
    public var direct: String

    /// `Entity.property: chain …; direct …`.
    public var description: String {
        "\(entity)\(property.map { "." + $0 } ?? ""): the chain of hops \(chain); the direct mapping \(direct)"
    }
}

extension MappingInference {
    /// Where the chain of hops through `chain` (every version from the first to the
    /// last, in order) and the direct inferred mapping between its ends give
    /// different data: properties and entities removed and added back, renames across
    /// hops the direct mapping cannot pair, types changed and changed back. Empty for
    /// one hop.
    public static func pathDifferences(through chain: [CompiledVersion]) -> [PathDifference] {
        guard chain.count > 2 else { return [] }
        // prefixes[i]: chain[i] → chain[0], renames composed hop by hop.
        var prefixes: [Renames] = [Renames()]
        var composed = Renames.hop(from: chain[0], to: chain[1])
        prefixes.append(composed)
        for i in 1..<(chain.count - 1) {
            composed = Renames.compose(composed, Renames.hop(from: chain[i], to: chain[i + 1]))
            prefixes.append(composed)
        }
        let direct = Renames.hop(from: chain[0], to: chain[chain.count - 1])
        // A path inference refuses for an ambiguous rename gives no data to differ from.
        guard direct.refusals.isEmpty, composed.refusals.isEmpty else { return [] }
        var finder = DifferenceFinder(chain: chain, prefixes: prefixes, direct: direct)
        return finder.run()
    }
}

/// Compares the chain's composed renames with the direct ones, entity by entity.
private struct DifferenceFinder {
    let chain: [CompiledVersion]
    let prefixes: [Renames]
    let direct: Renames
    var found: [PathDifference] = []

    var source: CompiledVersion { chain[0] }
    var destination: CompiledVersion { chain[chain.count - 1] }
    var chained: Renames { prefixes[prefixes.count - 1] }

    init(chain: [CompiledVersion], prefixes: [Renames], direct: Renames) {
        self.chain = chain
        self.prefixes = prefixes
        self.direct = direct
    }

    mutating func run() -> [PathDifference] {
        for entity in destination.entities.sorted(by: { $0.name < $1.name }) {
            let d = direct.entities[entity.name], c = chained.entities[entity.name]
            switch (d, c) {
            case (nil, nil):
                continue
            case (let d?, nil):
                let gone = firstVersionLosing(entity: d)
                add(
                    .entityRemovedAndReadded, entity.name, nil,
                    chain: "drops \(d)'s objects in version \(gone) (\(entity.name) starts empty)",
                    direct:
                        """
                        keeps them (\(entity.name) paired with \(d) by \
                        \(entity.name == d ? "name" : "renaming identifier"))
                        """
                )
            case (nil, let c?):
                add(
                    .entityRenamedAcrossHops, entity.name, nil,
                    chain: "carries \(c)'s objects into \(entity.name) (renamed across versions)",
                    direct:
                        """
                        cannot pair \(entity.name) with \(c): \(entity.name) starts empty and \(c)'s objects are dropped
                        """
                )
            case (let d?, let c?) where d != c:
                add(
                    .differentSource, entity.name, nil, chain: "fills \(entity.name) with \(c)'s objects",
                    direct: "fills it with \(d)'s objects")
            case (let d?, _):
                compareProperties(of: entity, source: d)
            }
        }
        return found
    }

    mutating func add(_ kind: PathDifference.Kind, _ entity: String, _ property: String?, chain: String, direct: String)
    {
        found.append(PathDifference(kind: kind, entity: entity, property: property, chain: chain, direct: direct))
    }

    mutating func compareProperties(of entity: CompiledEntity, source sourceName: String) {
        let directMap = direct.properties[entity.name] ?? [:], chainMap = chained.properties[entity.name] ?? [:]
        for property in Renames.storedProperties(of: entity).map(\.name).sorted() {
            let d = directMap[property], c = chainMap[property]
            let isAttribute = entity.attribute(named: property) != nil
            let empty = isAttribute ? emptyValue(entity, property) : "no destinations"
            switch (d, c) {
            case (nil, nil):
                continue
            case (let d?, nil):
                let gone = firstVersionLosing(entity: sourceName, property: d)
                add(
                    .removedAndReadded, entity.name, property,
                    chain: "loses \(sourceName).\(d)'s values: removed in version \(gone), added back later (\(empty))",
                    direct:
                        """
                        keeps them (paired with \(sourceName).\(d) by \(property == d ? "name" : "renaming identifier"))
                        """
                )
            case (nil, let c?):
                add(
                    .renamedAcrossHops, entity.name, property,
                    chain: "keeps \(sourceName).\(c)'s values (renamed across versions)",
                    direct: "cannot pair \(property) with \(sourceName).\(c): its values are dropped (\(empty))")
            case (let d?, let c?) where d != c:
                add(
                    .differentSource, entity.name, property, chain: "takes \(sourceName).\(c)'s values",
                    direct: "takes \(sourceName).\(d)'s")
            case (let d?, _):
                if isAttribute { compareTypes(entity, property, source: sourceName, sourceProperty: d) }
            }
        }
    }

    /// An attribute carried by both paths whose type is the same at both ends but
    /// different in some version in between.
    mutating func compareTypes(
        _ entity: CompiledEntity, _ property: String, source sourceName: String, sourceProperty: String
    ) {
        guard let first = source.entity(named: sourceName)?.attribute(named: sourceProperty)?.declaration.type,
            entity.attribute(named: property)?.declaration.type == first
        else { return }
        for i in 1..<(chain.count - 1) {
            guard let (e, p) = name(inVersion: i, of: sourceName, sourceProperty),
                let type = chain[i].entity(named: e)?.attribute(named: p)?.declaration.type, type != first
            else { continue }
            add(
                .typeChangedAndBack, entity.name, property,
                chain:
                    "converts its values \(first.rawValue) → \(type.rawValue) in version \(chain[i].version) and back",
                direct: "copies them as they are (\(first.rawValue) at both ends)")
            return
        }
    }

    /// What a destination attribute holds when nothing is carried into it.
    func emptyValue(_ entity: CompiledEntity, _ property: String) -> String {
        guard let value = entity.attribute(named: property)?.declaration.defaultValue else { return "nil" }
        return "default \(value.displayText)"
    }

    /// The (entity, property) of version chain[i] that the source's `entity.property` became.
    func name(inVersion i: Int, of entity: String, _ property: String) -> (String, String)? {
        for (e, source) in prefixes[i].entities where source == entity {
            if let (p, _) = prefixes[i].properties[e]?.first(where: { $0.value == property }) { return (e, p) }
        }
        return nil
    }

    /// The first version of the chain no longer holding the source's entity (or property).
    func firstVersionLosing(entity: String, property: String? = nil) -> Int {
        for i in 1..<chain.count {
            let kept =
                property.map { name(inVersion: i, of: entity, $0) != nil }
                ?? prefixes[i].entities.values.contains(entity)
            if !kept { return chain[i].version }
        }
        return chain[chain.count - 1].version
    }
}
