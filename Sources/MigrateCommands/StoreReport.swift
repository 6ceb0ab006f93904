package import DataModel
import ModelMigration
package import PropertyList
package import SQLiteStore

/// Everything `migrate inspect` reports about a store: what the file holds and which
/// model version that is.
package struct StoreReport: Sendable, Codable {
    /// One entity's line.
    package struct Entity: Sendable, Codable {
        /// The entity's name.
        package var name: String
        /// `Z_ENT`.
        package var number: Int
        /// The parent entity.
        package var parent: String?
        /// Rows of exactly this entity.
        package var rows: Int64?
        /// The hash in the metadata (hex).
        package var storedHash: String?
        /// Whether it equals the hash of the recognised (or closest) version.
        package var matches: Bool?
        /// Versions whose entity of this name has exactly this hash.
        package var matchingVersions: [Int]
    }

    /// The store file.
    package var path: String
    /// "toolkit" for stores this toolkit wrote, "core-data" for Apple's.
    package var writtenBy: String
    /// `NSPersistenceFrameworkVersion`, for Apple's stores.
    package var frameworkVersion: Int64?
    /// `NSStoreUUID`.
    package var storeUUID: String
    /// `NSStoreType`.
    package var storeType: String
    /// The model the metadata names, or the one recognised.
    package var model: String?
    /// The version number stamped in the metadata (ours).
    package var stampedVersion: Int?
    /// The version recognised from the hashes; nil when unknown.
    package var recognizedVersion: Int?
    /// The closest version when unknown.
    package var closestVersion: Int?
    /// `NSStoreModelVersionIdentifiers`.
    package var versionIdentifiers: [String]
    /// `NSStoreModelVersionHashesVersion`.
    package var hashesVersion: Int
    /// The layout hash stamped (ours).
    package var layoutHash: String?
    /// SQLite's journal mode.
    package var journalMode: String
    /// Bytes in the main file.
    package var fileSize: Int64
    /// Entities with row counts and hash matches.
    package var entities: [Entity]
    /// Tables as they are in the file.
    package var tables: [StoreInspection.Table]
    /// Migrations applied, oldest first.
    package var history: [MigrationRecord]
    /// Metadata keys neither Core Data's main ones nor ours, as text.
    package var otherMetadata: [String: String]
    /// Why the version could not be recognised, when it could not.
    package var problem: String?
    /// The metadata property list (`Z_METADATA.Z_PLIST`) as JSON: Core Data's keys
    /// and this toolkit's; data as lowercase hex, dates as ISO 8601 text.
    package var metadata: MetadataValue

    /// Builds the report of an inspected store against the models found.
    package init(inspection: StoreInspection, models: [CompiledModel]) {
        let metadata = inspection.metadata
        let recognition = VersionRecognition.recognize(metadata, among: models)
        path = inspection.path
        writtenBy =
            metadata.isManagedByToolkit ? "toolkit" : (metadata.frameworkVersion != nil ? "core-data" : "unknown")
        frameworkVersion = metadata.frameworkVersion
        storeUUID = metadata.storeUUID
        storeType = metadata.storeType
        model = metadata.modelName ?? recognition?.model
        stampedVersion = metadata.modelVersion
        recognizedVersion = recognition?.version
        closestVersion = recognition?.closestVersion
        versionIdentifiers = metadata.versionIdentifiers
        hashesVersion = metadata.hashesVersion
        layoutHash = metadata.layoutHash?.hex
        journalMode = inspection.journalMode
        fileSize = inspection.fileSize
        let comparisons = Dictionary(
            (recognition?.entities ?? []).map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        entities = inspection.entities.map { entity in
            let comparison = comparisons[entity.name]
            return Entity(
                name: entity.name, number: entity.number, parent: entity.parent, rows: entity.rowCount,
                storedHash: entity.storedHash?.hex, matches: comparison.map(\.matches),
                matchingVersions: comparison?.matchingVersions ?? [])
        }
        tables = inspection.tables
        history = metadata.history
        otherMetadata = metadata.otherKeys.mapValues(Self.text)
        self.metadata = MetadataValue(metadata.plist)
        if models.isEmpty {
            problem = "no models to compare with (see --models)"
        } else if let recognition, recognition.version == nil {
            problem = recognition.unknownExplanation
        } else {
            problem = nil
        }
    }

    /// A metadata value as text for people: strings as they are, data as its size.
    static func text(_ value: PropertyListValue) -> String {
        switch value {
        case .string(let s): s
        case .integer(let i): String(i)
        case .real(let r): r.description
        case .boolean(let b): b ? "true" : "false"
        case .date(let d): ISO8601.format(secondsSinceReferenceDate: d)
        case .data(let bytes): "<\(bytes.count) bytes>"
        case .array(let items): "[" + items.map(text).joined(separator: ", ") + "]"
        case .dictionary(let d): "{" + d.keys.sorted().map { "\($0): \(text(d[$0]!))" }.joined(separator: ", ") + "}"
        }
    }
}

/// A property-list value as JSON (`inspect --json`'s `metadata`).
package indirect enum MetadataValue: Sendable, Codable, Hashable {
    case string(String)
    case integer(Int64)
    case real(Double)
    case boolean(Bool)
    case array([MetadataValue])
    case dictionary([String: MetadataValue])

    /// Data becomes lowercase hex and dates ISO 8601 text: JSON has neither.
    package init(_ value: PropertyListValue) {
        switch value {
        case .string(let s): self = .string(s)
        case .integer(let i): self = .integer(i)
        case .real(let r): self = .real(r)
        case .boolean(let b): self = .boolean(b)
        case .date(let d): self = .string(ISO8601.format(secondsSinceReferenceDate: d))
        case .data(let bytes): self = .string(bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined())
        case .array(let items): self = .array(items.map(MetadataValue.init))
        case .dictionary(let d): self = .dictionary(d.mapValues(MetadataValue.init))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let s): try container.encode(s)
        case .integer(let i): try container.encode(i)
        case .real(let r): try container.encode(r)
        case .boolean(let b): try container.encode(b)
        case .array(let items): try container.encode(items)
        case .dictionary(let d): try container.encode(d)
        }
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let b = try? container.decode(Bool.self) {
            self = .boolean(b)
        } else if let i = try? container.decode(Int64.self) {
            self = .integer(i)
        } else if let r = try? container.decode(Double.self) {
            self = .real(r)
        } else if let s = try? container.decode(String.self) {
            self = .string(s)
        } else if let a = try? container.decode([MetadataValue].self) {
            self = .array(a)
        } else {
            self = .dictionary(try container.decode([String: MetadataValue].self))
        }
    }
}
