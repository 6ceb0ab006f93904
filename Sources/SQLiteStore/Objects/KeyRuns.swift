/// Primary keys with a number each (a batch's key → source line), kept compact: a
/// load of a million lines with consecutive keys is one run of three integers, not a
/// dictionary of a million entries, and keys that arrive in any other order (a dump of
/// an ordered list writes its members in list order) cost eight bytes each, in
/// arrival order. Lookups (for messages, rare) search the runs by their first key, and
/// the other keys through an index sorted when first needed and merged as keys arrive.
struct KeyRuns {
    /// `count` keys from `key` with numbers from `number`, both consecutive.
    private struct Run {
        var key: Int64
        var number: Int
        var count: Int64
    }

    /// Keys in increasing order, as runs.
    private var runs: [Run] = []
    /// Keys that arrived at or below the last run's keys, in arrival order.
    private var loose: [Int64] = []
    /// Where the numbers of `loose` start again: `loose[start...]` have numbers
    /// `number`, `number + 1`, … up to the next segment.
    private var segments: [(start: Int, number: Int)] = []
    /// Positions in `loose` sorted by key, covering the loose keys that arrived before
    /// the index was built or last merged; built at the first lookup.
    private var sorted: [Int] = []
    /// Loose keys that arrived since `sorted` was built (key → position in `loose`),
    /// merged into it once they are a quarter of it.
    private var recent: [Int64: Int] = [:]
    private var indexed = false

    /// Keeps `number` for `key` (each key once).
    mutating func append(_ key: Int64, number: Int) {
        if let last = runs.last {
            if key == last.key + last.count, number == last.number + Int(last.count) {
                runs[runs.count - 1].count += 1
                return
            }
            if key < last.key + last.count {
                appendLoose(key, number: number)
                return
            }
        }
        runs.append(Run(key: key, number: number, count: 1))
    }

    private mutating func appendLoose(_ key: Int64, number: Int) {
        let continues = segments.last.map { number == $0.number + (loose.count - $0.start) } ?? false
        if !continues { segments.append((loose.count, number)) }
        if indexed { recent[key] = loose.count }
        loose.append(key)
        if indexed, recent.count >= max(4096, sorted.count / 4) { mergeRecent() }
    }

    /// The number kept for `key`.
    mutating func number(for key: Int64) -> Int? {
        if let number = numberInRuns(key) { return number }
        guard !loose.isEmpty else { return nil }
        if !indexed {
            indexed = true
            sorted = loose.indices.sorted { loose[$0] < loose[$1] }
        }
        if let position = recent[key] { return number(at: position) }
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if loose[sorted[middle]] < key { low = middle + 1 } else { high = middle }
        }
        return low < sorted.count && loose[sorted[low]] == key ? number(at: sorted[low]) : nil
    }

    private func numberInRuns(_ key: Int64) -> Int? {
        var low = 0, high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if runs[middle].key <= key { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let run = runs[low - 1]
        return key < run.key + run.count ? run.number + Int(key - run.key) : nil
    }

    /// The number of the loose key at `position` (the first segment starts at 0).
    private func number(at position: Int) -> Int {
        var low = 0, high = segments.count
        while low < high {
            let middle = (low + high) / 2
            if segments[middle].start <= position { low = middle + 1 } else { high = middle }
        }
        let segment = segments[low - 1]
        return segment.number + (position - segment.start)
    }

    /// Merges the recent loose keys into the sorted index: linear in the keys.
    private mutating func mergeRecent() {
        let added = recent.values.sorted { loose[$0] < loose[$1] }
        var merged: [Int] = []
        merged.reserveCapacity(sorted.count + added.count)
        var i = 0, j = 0
        while i < sorted.count || j < added.count {
            if j == added.count || (i < sorted.count && loose[sorted[i]] < loose[added[j]]) {
                merged.append(sorted[i])
                i += 1
            } else {
                merged.append(added[j])
                j += 1
            }
        }
        sorted = merged
        recent = [:]
    }

    /// Every key, in increasing order.
    var keys: [Int64] {
        var all: [Int64] = []
        all.reserveCapacity(loose.count + runs.count)
        for run in runs { all += (0..<run.count).map { run.key + $0 } }
        return loose.isEmpty ? all : (all + loose).sorted()
    }
}
