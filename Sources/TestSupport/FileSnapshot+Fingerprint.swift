import DataModel
import Foundation
import ModelMigration
import SQLiteStore

extension FileSnapshot {
    /// The size, an FNV-1a hash of the bytes and the side files, to compare files in
    /// expectations without printing megabytes when they differ.
    package var fingerprint: String {
        Self.fingerprint(bytes) + (sideFiles.isEmpty ? "" : " + " + sideFiles.joined(separator: ", "))
    }

    /// The size and an FNV-1a hash of `bytes` ("none" when nil).
    package static func fingerprint(_ bytes: [UInt8]?) -> String {
        guard let bytes else { return "none" }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return "\(bytes.count) bytes, fnv \(String(hash, radix: 16))"
    }
}
