/// The order in which Core Data meets the properties of a table when it decides
/// which side of a many-to-many pair inside that table names the join table: the
/// iteration order of a CoreFoundation hash table (`CFDictionary`, `CFBasicHash`)
/// keyed by the properties' column names.
///
/// Core Data does not document this; `Docs/StoreNaming.md` gives the evidence (Wire's
/// history: `UserClient.trustedByClients` names its pair's table exactly while the
/// table holds more than 32 names, the capacity of CoreFoundation's 41-bucket table).
/// Reproduced here from CoreFoundation's open-source definitions:
///
/// - the string hash is `CFStringHash` (`__CFStrHashCharacters` in `CFString.c`) over
///   UTF-16 code units, in a 64-bit `CFHashCode` (every Apple platform Core Data runs
///   on today; a 32-bit process computed it in 32 bits and could pick the other side);
/// - the table has the fewest buckets of CoreFoundation's prime sizes whose capacity
///   holds every key (`__CFBasicHashTableSizes`, `__CFBasicHashTableCapacities`);
/// - a key goes to bucket `hash % buckets`, or the next free one after it (linear
///   probing, `CFDictionary`'s default), and iteration runs through the buckets in order.
enum CoreDataHashOrder {
    /// CoreFoundation's bucket counts and the most keys each holds (`CFBasicHash.c`).
    static let bucketCounts: [Int] = [
        0, 3, 7, 13, 23, 41, 71, 127, 191, 251, 383, 631, 1087, 1723, 2803, 4523, 7351, 11959, 19447,
        31231, 50683, 81919, 132607, 214519, 346607, 561109, 907759, 1468927, 2376191, 3845119,
    ]
    static let capacities: [Int] = [
        0, 3, 6, 11, 19, 32, 52, 85, 118, 155, 237, 390, 672, 1065, 1732, 2795, 4543, 7391, 12019,
        19302, 31324, 50629, 81956, 132580, 214215, 346784, 561026, 907847, 1468567, 2376414,
    ]

    /// `CFStringHash` of a string: its length, then the UTF-16 code units four at a
    /// time (the remainder one at a time), then mixed with a shift by the length.
    /// Strings longer than 96 units are hashed on their first, middle and last 32.
    static func stringHash(_ string: String) -> UInt64 {
        let units = Array(string.utf16)
        let length = UInt64(units.count)
        var result = length
        func fours(_ slice: ArraySlice<UInt16>) {
            var i = slice.startIndex
            while i + 4 <= slice.endIndex {
                result =
                    result &* 67_503_105 &+ UInt64(slice[i]) &* 16_974_593 &+ UInt64(slice[i + 1]) &* 66_049
                    &+ UInt64(slice[i + 2]) &* 257 &+ UInt64(slice[i + 3])
                i += 4
            }
            while i < slice.endIndex {
                result = result &* 257 &+ UInt64(slice[i])
                i += 1
            }
        }
        if units.count <= 96 {
            fours(units[...])
        } else {
            let middle = units.count / 2 - 16
            fours(units[0..<32])
            fours(units[middle..<(middle + 32)])
            fours(units[(units.count - 32)...])
        }
        return result &+ (result << (length & 31))
    }

    /// The number of buckets of a table holding `count` keys.
    static func bucketCount(holding count: Int) -> Int {
        for (position, capacity) in capacities.enumerated() where count <= capacity { return bucketCounts[position] }
        return bucketCounts[bucketCounts.count - 1]
    }

    /// The keys (distinct) in the order a CoreFoundation hash table holding them,
    /// filled in the given order, iterates them.
    static func iterationOrder(of keys: [String]) -> [String] {
        let buckets = bucketCount(holding: keys.count)
        // More keys than CoreFoundation's largest table here holds: no store has that many columns.
        guard buckets > 0, keys.count <= buckets else { return keys }
        var slots = [String?](repeating: nil, count: buckets)
        for key in keys {
            var slot = Int(stringHash(key) % UInt64(buckets))
            while let taken = slots[slot] {
                if taken == key { break }
                slot = (slot + 1) % buckets
            }
            slots[slot] = key
        }
        return slots.compactMap { $0 }
    }
}
