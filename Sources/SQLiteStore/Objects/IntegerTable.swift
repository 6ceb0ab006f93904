/// A map from 64-bit keys to 64-bit values for the caches a batch keeps per object
/// (``ObjectBatch``: list ends, row entities, inverse counts): open addressing with
/// linear probing and a multiplicative hash. A `Dictionary<Int64, Int64>` hashes each
/// key with SipHash; for a million objects, each looked up and noted several times, that
/// was a tenth of a load's time. Held to `Dictionary` by a differential test
/// (`IntegerTableTests`).
struct IntegerTable {
    private struct Slot {
        var key: Int64
        var value: Int64
        var used: Bool
    }

    private var slots: [Slot]
    /// `slots.count - 1` (the count is a power of two).
    private var mask: Int
    /// 64 minus the number of bits of a slot's index.
    private var shift: UInt64
    private(set) var count = 0

    init() {
        slots = Array(repeating: Slot(key: 0, value: 0, used: false), count: 16)
        mask = 15
        shift = 60
    }

    var isEmpty: Bool { count == 0 }

    private func home(_ key: Int64) -> Int {
        // Fibonacci hashing: the high bits of the product spread consecutive keys.
        Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The slot holding `key`, or the free slot where it would go.
    private func find(_ key: Int64) -> Int {
        var index = home(key)
        while slots[index].used, slots[index].key != key { index = (index + 1) & mask }
        return index
    }

    subscript(key: Int64) -> Int64? {
        get {
            let index = find(key)
            return slots[index].used ? slots[index].value : nil
        }
        set {
            let index = find(key)
            if let newValue {
                if slots[index].used {
                    slots[index].value = newValue
                    return
                }
                slots[index] = Slot(key: key, value: newValue, used: true)
                count += 1
                // At most half full: probes stay short.
                if count * 2 > slots.count { grow() }
            } else if slots[index].used {
                remove(at: index)
            }
        }
    }

    /// Empties the table, keeping its storage.
    mutating func removeAll() {
        guard count > 0 else { return }
        for index in slots.indices { slots[index].used = false }
        count = 0
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(key: 0, value: 0, used: false), count: old.count * 2)
        mask = slots.count - 1
        shift -= 1
        for slot in old where slot.used {
            let index = find(slot.key)
            slots[index] = slot
        }
    }

    /// Removes the entry at `index` and moves later entries of its probe run back, so
    /// that every entry stays reachable from its home slot (no tombstones).
    private mutating func remove(at index: Int) {
        var hole = index
        var next = (index + 1) & mask
        while slots[next].used {
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
        slots[hole].used = false
        count -= 1
    }
}
