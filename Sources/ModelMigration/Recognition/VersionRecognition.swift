public import DataModel
public import SQLiteStore

/// Which model version a store holds, recognised by its entity hash set (plus the
/// layout hash for this toolkit's stores), never by the stamped number alone.
public struct VersionRecognition: Sendable, Hashable {
    /// How one stored entity compares with a version.
    public struct EntityComparison: Sendable, Hashable, Codable {
        /// The entity's name.
        public var name: String
        /// The hash in the store's metadata (nil when the version has it and the store not).
        public var storedHash: VersionHash?
        /// The hash in the compared version (nil when the version lacks the entity).
        public var versionHash: VersionHash?
        /// Versions of the model whose entity of this name has exactly the stored hash.
        public var matchingVersions: [Int]

        /// True when both sides have the entity with the same hash.
        public var matches: Bool { storedHash != nil && storedHash == versionHash }
    }

    /// The outcome.
    public enum Outcome: Sendable, Hashable {
        /// The hash set equals this version's (and its layout hash, for our stores).
        case version(Int)
        /// No version has this hash set.
        case unknown
    }

    /// The model compared against.
    public var model: String
    /// The outcome.
    public var outcome: Outcome
    /// The recognised version, or the closest one when unknown (most equal hashes).
    public var closestVersion: Int?
    /// Per entity, against `closestVersion` (or the recognised version).
    public var entities: [EntityComparison]
    /// True when our layout hash was stamped and differs from the recognised version's
    /// (the store matches by Core Data's hashes but misses index or default changes).
    public var layoutDiffers: Bool
    /// The version number the store's metadata states (this toolkit's stores).
    public var stampedVersion: Int? = nil
    /// The model's current version.
    public var currentVersion: Int? = nil

    /// The recognised version number, if any.
    public var version: Int? {
        if case .version(let v) = outcome { return v }
        return nil
    }

    /// Entities that differ from the closest version, for messages.
    public var differences: [EntityComparison] { entities.filter { !$0.matches } }

    /// Recognises the version of a store with `metadata` among `model`'s versions.
    public static func recognize(_ metadata: StoreMetadata, in model: CompiledModel) -> VersionRecognition {
        let stored = metadata.versionHashes
        let candidates = model.versions.filter { $0.versionHashes == stored }
        var chosen: CompiledVersion?
        let sameLayout = metadata.layoutHash.map { layout in candidates.filter { $0.layoutHash == layout } } ?? []
        if !sameLayout.isEmpty {
            // A later version may revert an earlier one: the stamped number decides
            // between versions that look the same.
            chosen = sameLayout.first { $0.version == metadata.modelVersion } ?? sameLayout.first
        } else if let stamped = metadata.modelVersion, let same = candidates.first(where: { $0.version == stamped }) {
            chosen = same
        } else {
            // Stores without our layout hash (Apple's): the lowest version with these
            // hashes, so that index-only changes of later versions are still applied.
            chosen = candidates.first
        }
        // Ties: the stamped version, then the lower one.
        let closest =
            chosen
            ?? model.versions.max { a, b in
                if score(stored, a) != score(stored, b) { return score(stored, a) < score(stored, b) }
                if a.version == metadata.modelVersion { return false }
                if b.version == metadata.modelVersion { return true }
                return a.version > b.version
            }
        var comparisons: [EntityComparison] = []
        let names = Set(stored.keys).union(closest?.versionHashes.keys ?? [String: VersionHash]().keys)
        for name in names.sorted() {
            let matching = model.versions.filter { stored[name] != nil && $0.versionHashes[name] == stored[name] }.map(
                \.version)
            comparisons.append(
                .init(
                    name: name, storedHash: stored[name], versionHash: closest?.versionHashes[name],
                    matchingVersions: matching))
        }
        let layoutDiffers = chosen != nil && metadata.layoutHash != nil && metadata.layoutHash != chosen?.layoutHash
        return VersionRecognition(
            model: model.name, outcome: chosen.map { .version($0.version) } ?? .unknown,
            closestVersion: closest?.version, entities: comparisons, layoutDiffers: layoutDiffers,
            stampedVersion: metadata.modelVersion, currentVersion: model.versions.last?.version)
    }

    private static func score(_ stored: [String: VersionHash], _ version: CompiledVersion) -> Int {
        stored.filter { version.versionHashes[$0.key] == $0.value }.count * 2
            - abs(stored.count - version.versionHashes.count)
    }

    /// Picks the model a store belongs to: the one its metadata names, else the one
    /// with a version matching its hashes, else the closest.
    public static func recognize(_ metadata: StoreMetadata, among models: [CompiledModel]) -> VersionRecognition? {
        if let name = metadata.modelName, let model = models.first(where: { $0.name == name }) {
            return recognize(metadata, in: model)
        }
        let all = models.map { recognize(metadata, in: $0) }
        return all.first { $0.version != nil }
            ?? all.max { $0.entities.filter(\.matches).count < $1.entities.filter(\.matches).count }
    }

    /// A one-paragraph explanation for an unknown version (exit 5).
    public var unknownExplanation: String {
        var lines: [String] = []
        let closestText = closestVersion.map { "closest is version \($0)" } ?? "the model has no versions"
        lines.append("the store's entity hashes match no version of model \(model) (\(closestText))")
        if let stamped = stampedVersion, let current = currentVersion, stamped > current {
            lines.append(
                "  the store says version \(stamped): newer than this deployment, whose current version is \(current)")
        }
        for entity in differences {
            switch (entity.storedHash, entity.versionHash) {
            case (nil, _): lines.append("  \(entity.name): in version \(closestVersion ?? 0), not in the store")
            case (_, nil): lines.append("  \(entity.name): in the store, not in version \(closestVersion ?? 0)")
            default:
                let also =
                    entity.matchingVersions.isEmpty
                    ? "no version has its hash"
                    : "its hash matches version \(entity.matchingVersions.map(String.init).joined(separator: ", "))"
                lines.append(
                    """
                      \(entity.name): hash \(entity.storedHash!.short) differs from \(entity.versionHash!.short) \
                    (\(also))
                    """
                )
            }
        }
        lines.append(
            "a shipped version was edited, the store comes from elsewhere, or it is newer than this deployment")
        return lines.joined(separator: "\n")
    }
}
