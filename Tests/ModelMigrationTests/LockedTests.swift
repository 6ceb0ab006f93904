import Foundation
import ModelMigration
import Testing

@Suite struct LockedTests {
    /// Eight threads adding 10,000 times each lose no increment.
    @Test func concurrentIncrementsAllCount() {
        let counter = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
        }
        #expect(counter.current == 80_000)
    }

    /// Threads filling one dictionary: every key written once, every value kept.
    @Test func concurrentDictionaryWritesAreAllKept() {
        let table = Locked([Int: Int]())
        DispatchQueue.concurrentPerform(iterations: 16) { thread in
            for index in 0..<500 { table.withLock { $0[thread * 1_000 + index] = index } }
        }
        let result = table.current
        #expect(result.count == 16 * 500)
        #expect(result[0] == 0 && result[15_499] == 499 && result[7_250] == 250)
        #expect(result[500] == nil)
    }

    /// A read-modify-write inside one `withLock` is atomic: each thread takes a
    /// distinct ticket, so the tickets are exactly 0..<N.
    @Test func readModifyWriteIsAtomic() {
        let next = Locked(0)
        let taken = Locked([Int]())
        DispatchQueue.concurrentPerform(iterations: 400) { _ in
            let ticket = next.withLock { value -> Int in
                defer { value += 1 }
                return value
            }
            taken.withLock { $0.append(ticket) }
        }
        #expect(taken.current.sorted() == Array(0..<400))
    }

    struct Refused: Error, Equatable { var reason: String }

    /// A body that throws: the error reaches the caller with its type, what the body
    /// changed before throwing stays, and the lock is free again.
    @Test func throwingBodyReleasesTheLock() {
        let box = Locked(["kept"])
        #expect(throws: Refused(reason: "no")) {
            try box.withLock { (value: inout [String]) throws(Refused) in
                value.append("before the throw")
                throw Refused(reason: "no")
            }
        }
        box.withLock { $0.append("after") }
        #expect(box.current == ["kept", "before the throw", "after"])
    }

    /// `withLock` returns the body's result, from a box that holds a value that is
    /// not `Sendable` (a class), as `MigrationCancellation` holds its connection.
    @Test func holdsNonSendableValues() {
        final class Note { var text = "" }
        let box = Locked(Note())
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            box.withLock { $0.text += String(index) }
        }
        let text = box.withLock { $0.text }
        #expect(text.count == 4 && Set(text) == Set("0123"))
    }
}
