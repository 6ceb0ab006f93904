import Foundation

/// The bytes of a file, summarised: its size and a 64-bit hash of its content
/// (`Connection.mainFileFingerprint()`).
///
/// `apply` takes one of the store file under its write lock, before the first
/// write, and another after a failure: equal fingerprints are how it knows, rather
/// than assumes, that a failed migration left the store as it was. The hash is not
/// cryptographic (nobody chooses the bytes against it); it is fast enough to read a
/// gigabyte in well under a second.
package struct FileFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// The file size in bytes (of the prefix hashed, when a limit was given).
    package var size: Int64
    /// The hash of those bytes.
    package var hash: UInt64

    /// Creates a fingerprint.
    package init(size: Int64, hash: UInt64) {
        self.size = size
        self.hash = hash
    }

    package var description: String { "\(size) bytes, hash \(String(hash, radix: 16))" }
}

/// A word-at-a-time multiply-xor hash (in the spirit of wyhash/FxHash): reads
/// eight bytes per step, so hashing is limited by memory bandwidth, not by it.
struct Hasher64 {
    private var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    private var lane: UInt64 = 0xC2B2_AE3D_27D4_EB4F

    mutating func add(_ data: [UInt8]) {
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let words = raw.count / 8
            var a = state, b = lane
            var i = 0
            // Two independent lanes keep the multiplier busy.
            while i + 1 < words {
                a = (a ^ raw.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)) &* 0x9FB2_1C65_1E98_DF25
                a = (a << 29) | (a >> 35)
                b = (b ^ raw.loadUnaligned(fromByteOffset: (i + 1) * 8, as: UInt64.self)) &* 0xC4CE_B9FE_1A85_EC53
                b = (b << 31) | (b >> 33)
                i += 2
            }
            if i < words {
                a = (a ^ raw.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)) &* 0x9FB2_1C65_1E98_DF25
                a = (a << 29) | (a >> 35)
            }
            var tail: UInt64 = 0
            for j in (words * 8)..<raw.count { tail = (tail << 8) | UInt64(raw[j]) }
            if raw.count % 8 != 0 { b = (b ^ tail) &* 0xC4CE_B9FE_1A85_EC53 }
            state = a
            lane = b
        }
    }

    func finish(length: Int64) -> UInt64 {
        var h = state ^ (lane &* 0xFF51_AFD7_ED55_8CCD) ^ UInt64(bitPattern: length)
        h ^= h >> 33
        h = h &* 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 33
        return h
    }
}
