/// A map from 64-bit keys to 64-bit values for the caches a batch keeps per object
/// (``ObjectBatch``: list ends, row entities, inverse counts): open addressing with
/// linear probing and a multiplicative hash of blocks of 16 keys. A `Dictionary<Int64, Int64>` hashes each
/// key with SipHash; for a million objects, each looked up and noted several times, that
/// was a tenth of a load's time. Held to `Dictionary` by a differential test
/// (`IntegerTableTests`).
struct IntegerTable {
    /// A slot: 16 bytes, empty when its key is ``empty`` (that key's entry is kept
    /// aside, in ``emptyKeyValue``), so that four slots share a cache line.
    private struct Slot {
        var key: Int64
        var value: Int64
    }

    private static let empty = Int64.min
    private var slots: [Slot]
    /// The value of the key ``empty``, which no slot can hold.
    private var emptyKeyValue: Int64?
    /// `slots.count - 1` (the count is a power of two).
    private var mask: Int
    /// 64 minus the number of bits of a block's index (a block: 16 slots).
    private var shift: UInt64
    private(set) var count = 0

    init() {
        slots = Array(repeating: Slot(key: Self.empty, value: 0), count: 32)
        mask = 31
        shift = 63
    }

    var isEmpty: Bool { count == 0 }

    private func home(_ key: Int64) -> Int {
        // Keys come mostly in runs (primary keys): 16 consecutive keys share a block of
        // 16 consecutive slots, so that a run of keys touches a few cache lines, not one
        // each; blocks are spread by Fibonacci hashing of the rest of the key.
        let block = Int(truncatingIfNeeded: (UInt64(bitPattern: key >> 4) &* 0x9E37_79B9_7F4A_7C15) >> shift)
        return (block << 4 | Int(truncatingIfNeeded: key & 15)) & mask
    }

    /// The slot holding `key`, or the free slot where it would go.
    private func find(_ key: Int64) -> Int {
        var index = home(key)
        while slots[index].key != key, slots[index].key != Self.empty { index = (index + 1) & mask }
        return index
    }

    subscript(key: Int64) -> Int64? {
        get {
            if key == Self.empty { return emptyKeyValue }
            let slot = slots[find(key)]
            return slot.key == key ? slot.value : nil
        }
        set {
            if key == Self.empty {
                count += (newValue != nil ? 1 : 0) - (emptyKeyValue != nil ? 1 : 0)
                emptyKeyValue = newValue
                return
            }
            let index = find(key)
            if let newValue {
                if slots[index].key == key {
                    slots[index].value = newValue
                    return
                }
                slots[index] = Slot(key: key, value: newValue)
                count += 1
                // At most half full: probes stay short.
                if count * 2 > slots.count { grow() }
            } else if slots[index].key == key {
                remove(at: index)
            }
        }
    }

    /// Empties the table, keeping its storage.
    mutating func removeAll() {
        guard count > 0 else { return }
        for index in slots.indices { slots[index].key = Self.empty }
        emptyKeyValue = nil
        count = 0
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(key: Self.empty, value: 0), count: old.count * 2)
        mask = slots.count - 1
        shift -= 1
        for slot in old where slot.key != Self.empty {
            let index = find(slot.key)
            slots[index] = slot
        }
    }

    /// Removes the entry at `index` and moves later entries of its probe run back, so
    /// that every entry stays reachable from its home slot (no tombstones).
    private mutating func remove(at index: Int) {
        var hole = index
        var next = (index + 1) & mask
        while slots[next].key != Self.empty {
            let home = home(slots[next].key)
            // Move the entry into the hole unless its home lies cyclically in (hole, next].
            let distanceToNext = (next - home) & mask
            let distanceToHole = (hole - home) & mask
            if distanceToHole < distanceToNext {
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole].key = Self.empty
        count -= 1
    }
}
