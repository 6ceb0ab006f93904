public import DataModel
import PropertyList

/// One migration recorded in a store's metadata.
public struct MigrationRecord: Sendable, Hashable, Codable {
    /// The version before.
    public var fromVersion: Int
    /// The version after.
    public var toVersion: Int
    /// When it committed, seconds since 2001-01-01 (Core Data's reference date).
    public var date: Double
    /// Wall-clock seconds it took.
    public var duration: Double
    /// Rows written (inserted, copied or updated).
    public var rowsTouched: Int64
    /// SHA-256 digests (hex) of the mappings used, one per hop.
    public var mappingDigests: [String]
    /// The toolkit version that ran it.
    public var tool: String

    /// Creates a record.
    public init(
        fromVersion: Int, toVersion: Int, date: Double, duration: Double, rowsTouched: Int64, mappingDigests: [String],
        tool: String
    ) {
        self.fromVersion = fromVersion
        self.toVersion = toVersion
        self.date = date
        self.duration = duration
        self.rowsTouched = rowsTouched
        self.mappingDigests = mappingDigests
        self.tool = tool
    }
}

/// A store's metadata (`Z_METADATA.Z_PLIST`), Core Data's keys and ours.
///
/// Keys this type does not know (Apple's `_NSAutoVacuumLevel`,
/// `NSStoreModelVersionChecksumKey`, an app's own) are kept in `otherKeys` and
/// written back unchanged.
public struct StoreMetadata: Sendable, Hashable {
    /// `NSStoreType`: "SQLite".
    public var storeType: String = "SQLite"
    /// `NSStoreUUID`.
    public var storeUUID: String
    /// `NSStoreModelVersionHashes`: entity → 32-byte hash.
    public var versionHashes: [String: VersionHash]
    /// `NSStoreModelVersionHashesVersion` (3).
    public var hashesVersion: Int = VersionHasher.hashesVersion
    /// `NSStoreModelVersionHashesDigest` (base64 SHA-512), when present.
    public var hashesDigest: String?
    /// `NSStoreModelVersionIdentifiers`.
    public var versionIdentifiers: [String] = []
    /// `NSPersistenceFrameworkVersion`: written by Apple's Core Data only.
    public var frameworkVersion: Int64?
    /// Ours: the model's name.
    public var modelName: String?
    /// Ours: the model version number.
    public var modelVersion: Int?
    /// Ours: the layout hash of that version.
    public var layoutHash: VersionHash?
    /// Ours: every migration applied to this store, oldest first.
    public var history: [MigrationRecord] = []
    /// Every other key, kept as read.
    package var otherKeys: [String: PropertyListValue] = [:]

    /// Ours, kept among `otherKeys`: the highest entity number the store ever used,
    /// so that an entity added after another was removed never reuses its number.
    package static let maximumEntityNumberKey = "MMMaxEntityNumber"

    /// True when our own keys are present (a store this toolkit created or migrated).
    public var isManagedByToolkit: Bool { modelName != nil && modelVersion != nil }

    /// Ours, kept among `otherKeys`: the store was created to be opened by Apple's
    /// Core Data (`migrate create --for-core-data`).
    package static let coreDataNumberingKey = "MMCoreDataNumbering"

    /// True for a store that came from Apple's Core Data (it carries
    /// `NSPersistenceFrameworkVersion`, which this toolkit never writes on its own
    /// stores), even after this toolkit migrated it, and for a store created here
    /// for Core Data. Core Data derives entity numbers from the model, not from the
    /// store, so such a store must keep Core Data's numbering to stay openable there.
    /// True for a store Apple's Core Data wrote (it stamps its framework version;
    /// this toolkit never does, even on stores it makes for Core Data).
    public var writtenByCoreData: Bool { frameworkVersion != nil }

    public var followsCoreDataNumbering: Bool {
        frameworkVersion != nil || otherKeys[Self.coreDataNumberingKey]?.booleanValue == true
    }

    /// Core Data's key names, and ours.
    enum Key {
        static let storeType = "NSStoreType"
        static let storeUUID = "NSStoreUUID"
        static let hashes = "NSStoreModelVersionHashes"
        static let hashesVersion = "NSStoreModelVersionHashesVersion"
        static let digest = "NSStoreModelVersionHashesDigest"
        static let identifiers = "NSStoreModelVersionIdentifiers"
        static let framework = "NSPersistenceFrameworkVersion"
        static let modelName = "MMModelName"
        static let modelVersion = "MMModelVersion"
        static let layoutHash = "MMLayoutHash"
        static let history = "MMMigrationHistory"
        static let all: Set<String> = [
            storeType, storeUUID, hashes, hashesVersion, digest, identifiers, framework,
            modelName, modelVersion, layoutHash, history,
        ]
    }

    /// Metadata for a new store of `version`.
    package init(version: CompiledVersion, storeUUID: String) {
        self.storeUUID = storeUUID
        self.versionHashes = [:]
        stamp(version)
    }

    /// Sets every version-dependent key to `version`'s values.
    package mutating func stamp(_ version: CompiledVersion) {
        versionHashes = version.versionHashes
        hashesVersion = VersionHasher.hashesVersion
        hashesDigest = version.versionHashesDigest
        versionIdentifiers = version.identifier.map { [$0] } ?? []
        modelName = version.model
        modelVersion = version.version
        layoutHash = version.layoutHash
    }

    /// Reads metadata from a decoded plist. Core Data keeps the UUID in
    /// `Z_METADATA.Z_UUID` rather than in the plist; pass it as `storeUUID`.
    package init(plist: PropertyListValue, storeUUID fallbackUUID: String? = nil) throws(StoreError) {
        guard let dictionary = plist.dictionaryValue else {
            throw StoreError(.invalidMetadata, "metadata: the plist's root is not a dictionary")
        }
        func string(_ key: String) -> String? { dictionary[key]?.stringValue }
        guard let uuid = string(Key.storeUUID) ?? fallbackUUID else {
            throw StoreError(.invalidMetadata, "metadata: \(Key.storeUUID) is missing")
        }
        storeUUID = uuid
        storeType = string(Key.storeType) ?? "SQLite"
        var hashes: [String: VersionHash] = [:]
        for (entity, value) in dictionary[Key.hashes]?.dictionaryValue ?? [:] {
            guard let bytes = value.dataValue else {
                throw StoreError(.invalidMetadata, "metadata: the version hash of '\(entity)' is not data")
            }
            hashes[entity] = VersionHash(bytes: bytes)
        }
        versionHashes = hashes
        hashesVersion = Int(dictionary[Key.hashesVersion]?.integerValue ?? 0)
        hashesDigest = string(Key.digest)
        versionIdentifiers = (dictionary[Key.identifiers]?.arrayValue ?? []).compactMap { value in
            value.stringValue ?? value.integerValue.map(String.init)
        }
        frameworkVersion =
            dictionary[Key.framework]?.integerValue ?? dictionary[Key.framework]?.stringValue.flatMap { Int64($0) }
        modelName = string(Key.modelName)
        modelVersion = dictionary[Key.modelVersion]?.integerValue.map { Int($0) }
        layoutHash = string(Key.layoutHash).flatMap(VersionHash.init(hex:))
        history = (dictionary[Key.history]?.arrayValue ?? []).compactMap(Self.record)
        otherKeys = dictionary.filter { !Key.all.contains($0.key) }
    }

    /// The plist Core Data and this toolkit read.
    package var plist: PropertyListValue {
        var dictionary = otherKeys
        dictionary[Key.storeType] = .string(storeType)
        dictionary[Key.storeUUID] = .string(storeUUID)
        dictionary[Key.hashes] = .dictionary(versionHashes.mapValues { .data($0.bytes) })
        dictionary[Key.hashesVersion] = .integer(Int64(hashesVersion))
        if let hashesDigest { dictionary[Key.digest] = .string(hashesDigest) }
        dictionary[Key.identifiers] = .array(versionIdentifiers.map { .string($0) })
        if let frameworkVersion { dictionary[Key.framework] = .integer(frameworkVersion) }
        if let modelName { dictionary[Key.modelName] = .string(modelName) }
        if let modelVersion { dictionary[Key.modelVersion] = .integer(Int64(modelVersion)) }
        if let layoutHash { dictionary[Key.layoutHash] = .string(layoutHash.hex) }
        if !history.isEmpty { dictionary[Key.history] = .array(history.map(Self.plist)) }
        return .dictionary(dictionary)
    }

    private static func plist(_ record: MigrationRecord) -> PropertyListValue {
        .dictionary([
            "from": .integer(Int64(record.fromVersion)),
            "to": .integer(Int64(record.toVersion)),
            "date": .date(record.date),
            "duration": .real(record.duration),
            "rowsTouched": .integer(record.rowsTouched),
            "mappingDigests": .array(record.mappingDigests.map { .string($0) }),
            "tool": .string(record.tool),
        ])
    }

    private static func record(_ value: PropertyListValue) -> MigrationRecord? {
        guard let from = value["from"]?.integerValue, let to = value["to"]?.integerValue else { return nil }
        return MigrationRecord(
            fromVersion: Int(from), toVersion: Int(to),
            date: value["date"]?.dateValue ?? 0, duration: value["duration"]?.realValue ?? 0,
            rowsTouched: value["rowsTouched"]?.integerValue ?? 0,
            mappingDigests: (value["mappingDigests"]?.arrayValue ?? []).compactMap(\.stringValue),
            tool: value["tool"]?.stringValue ?? "")
    }
}
