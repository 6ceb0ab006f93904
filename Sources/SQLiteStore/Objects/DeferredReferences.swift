/// The references of a batch that wait for its end (``DeferredReference``), in
/// arrival order, with bounded memory: past a few thousand they go to a table of the
/// connection's temporary database (`temp.mm_deferred_references`, on disk behind
/// SQLite's page cache, gone with the connection), and come back in the same order
/// when the batch ends. Held in memory, a million books loaded before their folders
/// took over 300 MB.
struct DeferredReferences {
    /// How many references wait in memory before they go to the table.
    static let memoryLimit = 4096

    private(set) var waiting: [DeferredReference] = []
    /// How many references went to the table.
    private(set) var spilled = 0

    var isEmpty: Bool { waiting.isEmpty && spilled == 0 }

    mutating func append(_ reference: DeferredReference, connection: Connection) throws(SQLiteError) {
        waiting.append(reference)
        if waiting.count >= Self.memoryLimit { try spill(connection) }
    }

    private mutating func spill(_ connection: Connection) throws(SQLiteError) {
        if spilled == 0 {
            try connection.execute(
                """
                CREATE TEMP TABLE IF NOT EXISTS mm_deferred_references (
                    seq INTEGER PRIMARY KEY, entity TEXT NOT NULL, key INTEGER NOT NULL, source INTEGER NOT NULL, refs \
                BLOB NOT NULL);
                DELETE FROM temp.mm_deferred_references;
                """)
        }
        let statement = try connection.cachedStatement(
            "INSERT INTO temp.mm_deferred_references (seq, entity, key, source, refs) VALUES (?, ?, ?, ?, ?)")
        for reference in waiting {
            spilled += 1
            try statement.bind([
                .integer(Int64(spilled)), .text(reference.entityName), .integer(reference.key),
                .integer(Int64(reference.source)),
                .blob(reference.encodedReferences()),
            ])
            try statement.execute()
        }
        waiting.removeAll(keepingCapacity: true)
    }

    /// Takes every reference, in arrival order, leaving none: `body` is called for each
    /// (and may write to the store).
    mutating func drain(_ connection: Connection, _ body: (DeferredReference) throws -> Void) throws {
        if spilled > 0 {
            var seq: Int64 = 0
            // A page at a time by sequence number, so that no statement reads the table
            // while `body` writes to the store.
            while seq < Int64(spilled) {
                var page: [DeferredReference] = []
                let statement = try connection.cachedStatement(
                    """
                    SELECT seq, entity, key, source, refs FROM temp.mm_deferred_references WHERE seq > ? ORDER BY seq \
                    LIMIT 1024
                    """
                )
                try statement.bind([.integer(seq)])
                while try statement.step() {
                    seq = statement.int64(at: 0)
                    guard let entity = statement.value(at: 1).string, let bytes = statement.value(at: 4).blob else {
                        throw DeferredReference.damaged
                    }
                    page.append(
                        try DeferredReference(
                            entityName: entity, key: statement.int64(at: 2), source: Int(statement.int64(at: 3)),
                            encoded: bytes))
                }
                statement.reset()
                guard !page.isEmpty else { break }
                for reference in page { try body(reference) }
            }
            try connection.execute("DELETE FROM temp.mm_deferred_references")
            spilled = 0
        }
        let rest = waiting
        waiting = []
        for reference in rest { try body(reference) }
    }
}

/// Relationships of an inserted object whose targets were not written yet when it
/// was: set when the batch ends.
struct DeferredReference {
    var entityName: String
    var key: Int64
    var relationships: [String: [Int64]]
    var positions: [String: Int64]
    var source: Int
}

extension DeferredReference {
    /// `relationships` and `positions` as bytes: per relationship its name (length,
    /// UTF-8), its count of targets and the targets; then per position its name and
    /// value; integers little-endian, lengths and counts in 8 bytes.
    func encodedReferences() -> [UInt8] {
        var bytes: [UInt8] = []
        func append(_ value: Int64) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        func append(_ name: String) {
            append(Int64(name.utf8.count))
            bytes += name.utf8
        }
        append(Int64(relationships.count))
        for (name, targets) in relationships {
            append(name)
            append(Int64(targets.count))
            for target in targets { append(target) }
        }
        append(Int64(positions.count))
        for (name, position) in positions {
            append(name)
            append(position)
        }
        return bytes
    }

    /// Reads what ``encodedReferences()`` wrote.
    init(entityName: String, key: Int64, source: Int, encoded bytes: [UInt8]) throws(SQLiteError) {
        var offset = 0
        func integer() throws(SQLiteError) -> Int64 {
            guard offset + 8 <= bytes.count else { throw Self.damaged }
            var value: Int64 = 0
            for i in 0..<8 { value |= Int64(bytes[offset + i]) << (8 * i) }
            offset += 8
            return value
        }
        func name() throws(SQLiteError) -> String {
            let length = try integer()
            guard length >= 0, length <= bytes.count - offset else { throw Self.damaged }
            defer { offset += Int(length) }
            return String(decoding: bytes[offset..<offset + Int(length)], as: UTF8.self)
        }
        func count() throws(SQLiteError) -> Int {
            let count = try integer()
            guard count >= 0, count <= (bytes.count - offset) / 8 else { throw Self.damaged }
            return Int(count)
        }
        var relationships: [String: [Int64]] = [:]
        for _ in 0..<(try count()) {
            let relationship = try name()
            var targets: [Int64] = []
            for _ in 0..<(try count()) { targets.append(try integer()) }
            relationships[relationship] = targets
        }
        var positions: [String: Int64] = [:]
        for _ in 0..<(try count()) { positions[try name()] = try integer() }
        self.init(entityName: entityName, key: key, relationships: relationships, positions: positions, source: source)
    }

    static var damaged: SQLiteError {
        SQLiteError(
            resultCode: 11, message: "a deferred reference read back from temp.mm_deferred_references is damaged")
    }
}
