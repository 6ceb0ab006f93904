import Testing

@testable import SQLiteStore

/// What waits for a batch's end comes back as it went in: from memory, and from the
/// temporary table past the memory limit, in arrival order.
@Suite struct DeferredReferencesTests {
    @Test func referencesComeBackInArrivalOrder() throws {
        let connection = try Connection(path: ":memory:")
        var queue = DeferredReferences()
        let references = (0..<(DeferredReferences.memoryLimit * 2 + 7)).map { i in
            DeferredReference(
                entityName: i % 2 == 0 ? "Book" : "Élément", key: Int64(i + 1),
                relationships: i % 3 == 0
                    ? [:] : ["folder": [Int64(i)], "tags ✓": (0..<(i % 5)).map { Int64.max - Int64($0) }],
                positions: i % 4 == 0 ? ["folder": Int64(-i)] : [:], source: i * 2)
        }
        for reference in references { try queue.append(reference, connection: connection) }
        #expect(queue.spilled == DeferredReferences.memoryLimit * 2)
        var back: [DeferredReference] = []
        try queue.drain(connection) { back.append($0) }
        #expect(back.map(\.key) == references.map(\.key))
        #expect(back.map(\.entityName) == references.map(\.entityName))
        #expect(back.map(\.relationships) == references.map(\.relationships))
        #expect(back.map(\.positions) == references.map(\.positions))
        #expect(back.map(\.source) == references.map(\.source))
        #expect(queue.isEmpty)
        #expect(try connection.prepare("SELECT count(*) FROM temp.mm_deferred_references").rows() == [[.integer(0)]])
    }

    @Test func damagedBytesAreAnErrorNotACrash() {
        for bytes: [UInt8] in [
            [1], [1, 0, 0, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 127],
        ] {
            #expect(throws: SQLiteError.self) {
                try DeferredReference(entityName: "A", key: 1, source: 1, encoded: bytes)
            }
        }
    }
}
