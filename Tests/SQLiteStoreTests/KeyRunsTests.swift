import TestSupport
import Testing

@testable import SQLiteStore

/// KeyRuns against a dictionary, over random arrivals: runs of consecutive keys, keys
/// in any order (a dump's list order), numbers that skip (refused lines), lookups
/// between appends (messages written while a batch goes on).
@Suite struct KeyRunsTests {
    @Test(arguments: 1...24)
    func everyKeyFindsItsNumber(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        // Keys 1…n in blocks of consecutive keys, the blocks in random order (or, for
        // some seeds, mostly in order: long runs and a few keys out of place).
        let n: Int64 = 6_000
        var blocks: [ClosedRange<Int64>] = []
        var start: Int64 = 1
        while start <= n {
            let end = min(n, start + Int64.random(in: 0..<(seed % 2 == 0 ? 40 : 400), using: &random))
            blocks.append(start...end)
            start = end + 1
        }
        if seed % 4 == 1 {
            for _ in 0..<5 {
                blocks.swapAt(
                    Int.random(in: blocks.indices, using: &random), Int.random(in: blocks.indices, using: &random))
            }
        } else {
            blocks.shuffle(using: &random)
        }
        var runs = KeyRuns()
        var reference: [Int64: Int] = [:]
        var number = 0
        var early: [(Int64, Int?, Int?)] = []
        for key in blocks.joined() where Int.random(in: 0..<8, using: &random) != 0 {
            number += Int.random(in: 0..<10, using: &random) == 0 ? 3 : 1
            runs.append(key, number: number)
            reference[key] = number
            // Lookups while keys still arrive (messages written during a batch).
            if seed % 3 == 0, Int.random(in: 0..<40, using: &random) == 0 {
                let probe = Int64.random(in: 0...(n + 1), using: &random)
                early.append((probe, runs.number(for: probe), reference[probe]))
            }
        }
        #expect(early.filter { $0.1 != $0.2 }.map(\.0) == [])
        let found = (0...(n + 1)).map { runs.number(for: $0) }
        let expected = (0...(n + 1)).map { reference[$0] }
        #expect(found == expected)
        #expect(runs.keys == reference.keys.sorted())
    }
}
