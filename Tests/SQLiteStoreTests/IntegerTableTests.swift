import TestSupport
import Testing

@testable import SQLiteStore

/// ``IntegerTable`` against `Dictionary`: random sets, removals and lookups, keys
/// that collide (multiples of a large power of two share their hash's high bits less
/// often than neighbours do, and negative keys and the extremes are keys too), the
/// same answers after every step.
@Suite struct IntegerTableTests {
    @Test(arguments: 1...40)
    func answersAsADictionaryDoes(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var table = IntegerTable()
        var reference: [Int64: Int64] = [:]
        let spread = [Int64(8), 300, 5_000][Int(seed % 3)]
        func key() -> Int64 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0: [Int64.min, Int64.max, 0, -1][Int.random(in: 0..<4, using: &random)]
            case 1: Int64.random(in: 0..<spread, using: &random) << 40
            default: Int64.random(in: -spread..<spread, using: &random)
            }
        }
        for step in 0..<4_000 {
            let k = key()
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                let value = Int64.random(in: -9...9, using: &random)
                table[k] = value
                reference[k] = value
            case 5..<8:
                table[k] = nil
                reference[k] = nil
            case 8 where step % 997 == 0:
                table.removeAll()
                reference.removeAll()
            default:
                break
            }
            #expect(table[k] == reference[k])
            #expect(table.count == reference.count)
        }
        for (k, value) in reference { #expect(table[k] == value) }
        for _ in 0..<500 {
            let k = key()
            #expect(table[k] == reference[k])
        }
    }

    /// Keys in runs (16 consecutive keys share a block of slots), strides of 16 (every key
    /// at the start of its block) and blocks that collide, with removals in the middle of
    /// the probe runs they make: the same answers as a dictionary.
    @Test(arguments: [Int64(1), 16, 17, 1 << 20])
    func runsAndStridesAnswerAsADictionaryDoes(stride: Int64) {
        var random = SplitMix64(seed: UInt64(stride))
        var table = IntegerTable()
        var reference: [Int64: Int64] = [:]
        let keys = (0..<3_000).map { Int64($0) * stride - 700 * stride }
        for (i, k) in keys.enumerated() {
            table[k] = Int64(i)
            reference[k] = Int64(i)
            if i % 3 == 2 {
                let gone = keys[Int.random(in: 0...i, using: &random)]
                table[gone] = nil
                reference[gone] = nil
            }
        }
        #expect(table.count == reference.count)
        for k in keys { #expect(table[k] == reference[k]) }
        table.removeAll()
        #expect(table.isEmpty && keys.allSatisfy { table[$0] == nil })
    }
}
