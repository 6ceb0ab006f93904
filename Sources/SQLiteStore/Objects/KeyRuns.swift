/// Primary keys with a number each (a batch's key → source line), kept as runs:
/// a load of a million lines with consecutive keys is one run of three integers,
/// not a dictionary of a million entries. Keys that break a run start another;
/// lookups search the runs by their first key while the runs arrive in increasing
/// order, and a dictionary takes the keys that arrive out of order.
struct KeyRuns {
    /// `count` keys from `key` with numbers from `number`, both consecutive.
    private struct Run {
        var key: Int64
        var number: Int
        var count: Int64
    }

    private var runs: [Run] = []
    /// Keys that arrived below the last run's keys.
    private var scattered: [Int64: Int] = [:]

    /// Keeps `number` for `key` (each key once).
    mutating func append(_ key: Int64, number: Int) {
        if let last = runs.last {
            if key == last.key + last.count, number == last.number + Int(last.count) {
                runs[runs.count - 1].count += 1
                return
            }
            if key < last.key + last.count {
                scattered[key] = number
                return
            }
        }
        runs.append(Run(key: key, number: number, count: 1))
    }

    /// The number kept for `key`.
    subscript(key: Int64) -> Int? {
        if let number = scattered[key] { return number }
        var low = 0, high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if runs[middle].key <= key { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let run = runs[low - 1]
        return key < run.key + run.count ? run.number + Int(key - run.key) : nil
    }

    /// Every key, in the order runs and scattered keys sort.
    var keys: [Int64] {
        var all: [Int64] = []
        for run in runs { all += (0..<run.count).map { run.key + $0 } }
        return all + scattered.keys.sorted()
    }
}
