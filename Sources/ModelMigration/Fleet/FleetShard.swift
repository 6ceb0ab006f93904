import Foundation

/// One share of a fleet: the stores whose path hashes to `index` modulo `count`.
///
/// The hash is FNV-1a (64 bits) over the path's UTF-8 bytes, as the store list
/// gives it, so every process that lists the same fleet the same way (the pods of a
/// Kubernetes Indexed Job, each with its own `JOB_COMPLETION_INDEX`) agrees on who
/// owns each store, without talking to each other: every store is handled by
/// exactly one shard.
public struct FleetShard: Sendable, Hashable, CustomStringConvertible {
    /// This shard, from 0 to `count - 1`.
    public var index: Int
    /// How many shards share the fleet.
    public var count: Int

    /// Shard `index` of `count`; `nil` unless `0 ≤ index < count`.
    public init?(index: Int, count: Int) {
        guard count >= 1, index >= 0, index < count else { return nil }
        self.index = index
        self.count = count
    }

    /// `I/N` as written on the command line.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0].trimmingCharacters(in: .whitespaces)),
            let count = Int(parts[1].trimmingCharacters(in: .whitespaces))
        else { return nil }
        self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }

    /// Whether this shard owns the store at `path`.
    public func contains(_ path: String) -> Bool {
        Int(Self.stableHash(path) % UInt64(count)) == index
    }

    /// FNV-1a, 64 bits: the same on every machine and in every release (Swift's
    /// `Hasher` is seeded per process, so it cannot be used for this).
    public static func stableHash(_ path: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
