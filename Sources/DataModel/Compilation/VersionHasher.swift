import Foundation

/// Core Data's version hashes (hash scheme version 3), byte for byte: see
/// Docs/ModelFormat.md, "Version hashes". Checked against stores written by Apple's Core Data
/// (framework versions 1044 and 1344) in `AppleParityTests`.
package enum VersionHasher {
    /// `NSStoreModelVersionHashesVersion` of the stores this toolkit writes.
    package static let hashesVersion = 3

    private struct Buffer {
        var bytes: [UInt8] = []
        mutating func append(_ text: String?) { if let text { bytes.append(contentsOf: Array(text.utf8)) } }
        mutating func append(_ data: [UInt8]) { bytes.append(contentsOf: data) }
        mutating func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        var sha256: [UInt8] { SHA256.hash(bytes) }
    }

    /// `P = SHA256(name ‖ u16 flags ‖ hashModifier)`; flags: bit 0 optional, bit 1 transient.
    private static func propertyBase(name: String, optional: Bool, transient: Bool, modifier: String?) -> [UInt8] {
        var buffer = Buffer()
        buffer.append(name)
        buffer.append(UInt16((optional ? 1 : 0) | (transient ? 2 : 0)))
        buffer.append(modifier)
        return buffer.sha256
    }

    /// An attribute's version hash.
    package static func hash(_ attribute: AttributeDescription) -> VersionHash {
        var buffer = Buffer()
        buffer.append(
            propertyBase(
                name: attribute.name, optional: attribute.isOptional,
                transient: attribute.isTransient, modifier: attribute.hashModifier))
        buffer.append(attribute.type.typeCode)
        if attribute.allowsExternalStorage { buffer.append(UInt8(1)) }
        if attribute.preservesValueInHistoryOnDeletion { buffer.append(UInt8(1)) }
        return VersionHash(bytes: buffer.sha256)
    }

    /// A composite attribute's version hash, as `-[NSCompositeAttributeDescription
    /// _versionHash:inStyle:]` computes it (read in a public decompilation of the iOS
    /// 26.1 CoreData framework; no store Core Data wrote with a composite has been
    /// checked): SHA-256 over the attribute hashes of the composite's leaf elements
    /// (nested composites flattened), sorted by name, transient ones left out. The
    /// composite's own name, flags and modifier do not enter it: the framework computes
    /// its attribute hash into a buffer that the final digest never reads.
    /// - Parameter leaves: the flattened non-composite elements.
    public static func hashComposite(leaves: [AttributeDescription]) -> VersionHash {
        var buffer = Buffer()
        for leaf in leaves.sorted(by: { $0.name.utf16.lexicographicallyPrecedes($1.name.utf16) })
        where !leaf.isTransient {
            buffer.append(hash(leaf).bytes)
        }
        return VersionHash(bytes: buffer.sha256)
    }

    /// A relationship's version hash. `isOwnInverse` is true when the relationship is
    /// its own inverse (then the inverse name is not hashed).
    package static func hash(_ relationship: RelationshipDescription, isOwnInverse: Bool) -> VersionHash {
        var buffer = Buffer()
        buffer.append(
            propertyBase(
                name: relationship.name, optional: relationship.isOptional,
                transient: relationship.isTransient, modifier: relationship.hashModifier))
        buffer.append(relationship.destination)
        if !isOwnInverse { buffer.append(relationship.inverse) }
        buffer.append(relationship.hashedMaxCount)
        buffer.append(relationship.hashedMinCount)
        if relationship.isOrdered { buffer.append(UInt16(1)) }
        return VersionHash(bytes: buffer.sha256)
    }

    /// An entity's version hash from its already hashed parts.
    /// - Parameter properties: every non-transient property, inherited ones included,
    ///   as (name, hash); sorted here by UTF-16 code units of the name.
    package static func hashEntity(
        name: String, isAbstract: Bool, parentHash: VersionHash?,
        properties: [(name: String, hash: VersionHash)],
        hashModifier: String?, uniqueness: [[String]]
    ) -> VersionHash {
        var buffer = Buffer()
        buffer.append(name)
        buffer.append(UInt8(isAbstract ? 1 : 0))
        if let parentHash { buffer.append(parentHash.bytes) }
        for property in properties.sorted(by: { $0.name.utf16.lexicographicallyPrecedes($1.name.utf16) }) {
            buffer.append(property.hash.bytes)
        }
        buffer.append(hashModifier)
        for constraint in uniqueness.map({ $0.joined(separator: ".") }).sorted(by: {
            $0.utf8.lexicographicallyPrecedes($1.utf8)
        }) {
            buffer.append(constraint)
        }
        return VersionHash(bytes: buffer.sha256)
    }

    /// `NSStoreModelVersionHashesDigest`: base64 of SHA-512 over each entity's name
    /// followed by its hash, in name order.
    package static func digest(_ hashes: [String: VersionHash]) -> String {
        var buffer = Buffer()
        for name in hashes.keys.sorted(by: { $0.utf16.lexicographicallyPrecedes($1.utf16) }) {
            buffer.append(name)
            buffer.append(hashes[name]!.bytes)
        }
        return Data(SHA512.hash(buffer.bytes)).base64EncodedString()
    }

    /// SHA-256 of arbitrary bytes, as lowercase hex (file digests).
    package static func sha256Hex(_ bytes: [UInt8]) -> String {
        VersionHash(bytes: SHA256.hash(bytes)).hex
    }

    /// SHA-256 of arbitrary canonical bytes (the layout hash).
    static func sha256(_ bytes: [UInt8]) -> VersionHash {
        VersionHash(bytes: SHA256.hash(bytes))
    }
}
