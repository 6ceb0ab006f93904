/// To-one references a batch wrote into their rows before their targets were written
/// (a book's line before its folder's, as `dump --all` writes them: entities in name
/// order): each target is checked once, when the batch ends
/// (``ObjectAccess/checkProvisionalTargets(_:)``), as on insert.
///
/// Written at its line, such a member takes its place in its owner's ordered list at
/// its line, as it would had the owner's line come first. Kept waiting and set by an
/// `UPDATE` at the end (``DeferredReferences``), a million books before their folders
/// loaded at 0.6× the speed of the same books after them.
///
/// Memory stays bounded: each rule keeps its targets with the first source naming
/// them, up to ``defaultMemoryLimit`` targets in all; past that, each reference goes to a
/// table of the connection's temporary database (`temp.mm_provisional_targets_by_key`).
struct ProvisionalTargets {
    /// How many targets wait in memory before references go to the table.
    static let defaultMemoryLimit = 1 << 16
    let memoryLimit: Int

    /// The rules that wrote ahead, in the order they first did.
    private(set) var rules: [TargetRule] = []
    /// Per rule (by its position in `rules`): target → the first source naming it.
    private(set) var targets: [[Int64: Int]] = []
    private var ruleIndex: [ObjectIdentifier: Int] = [:]
    private var count = 0
    /// How many references went to the table.
    private(set) var spilled = 0

    var isEmpty: Bool { rules.isEmpty }

    init(memoryLimit: Int = Self.defaultMemoryLimit) { self.memoryLimit = max(0, memoryLimit) }

    /// Notes that the row of `source` names `target` through `rule`.
    mutating func note(_ target: Int64, rule: TargetRule, source: Int, connection: Connection) throws(SQLiteError) {
        let index: Int
        if let known = ruleIndex[ObjectIdentifier(rule)] {
            index = known
        } else {
            index = rules.count
            ruleIndex[ObjectIdentifier(rule)] = index
            rules.append(rule)
            targets.append([:])
        }
        if targets[index][target] != nil { return }
        if count < memoryLimit {
            targets[index][target] = source
            count += 1
            return
        }
        if spilled == 0 {
            // Keyed by (rule, target), each with its first source: the pages below walk
            // the key; without it each page sorted the whole table again, and a load of
            // 400 k objects naming 400 k later targets ran for minutes (an outside trial).
            try connection.execute(
                """
                CREATE TEMP TABLE IF NOT EXISTS mm_provisional_targets_by_key (rule INTEGER NOT NULL, target INTEGER \
                NOT NULL, source INTEGER NOT NULL, PRIMARY KEY (rule, target)) WITHOUT ROWID;
                DELETE FROM temp.mm_provisional_targets_by_key;
                """)
        }
        let statement = try connection.cachedStatement(
            """
            INSERT INTO temp.mm_provisional_targets_by_key (rule, target, source) VALUES (?, ?, ?) \
            ON CONFLICT (rule, target) DO UPDATE SET source = min(source, excluded.source)
            """)
        try statement.bind([.integer(Int64(index)), .integer(target), .integer(Int64(source))])
        try statement.execute()
        spilled += 1
    }

    /// Every target once per rule, with the first source that named it.
    func forEachTarget(_ connection: Connection, _ body: (TargetRule, Int64, Int) throws -> Void) throws {
        for (index, rule) in rules.enumerated() {
            for (target, source) in targets[index].sorted(by: { $0.key < $1.key }) { try body(rule, target, source) }
        }
        guard spilled > 0 else { return }
        // A page of targets at a time, so that no statement stays open on the table
        // while `body` queries the store. (A target kept in memory never goes to the table.)
        var after: (rule: Int64, target: Int64) = (-1, Int64.min)
        while true {
            let page = try connection.cachedStatement(
                """
                SELECT rule, target, source FROM temp.mm_provisional_targets_by_key \
                WHERE (rule, target) > (?, ?) ORDER BY rule, target LIMIT 1024
                """)
            try page.bind([.integer(after.rule), .integer(after.target)])
            var found: [(Int, Int64, Int)] = []
            while try page.step() { found.append((Int(page.int64(at: 0)), page.int64(at: 1), Int(page.int64(at: 2)))) }
            page.reset()
            guard let last = found.last else { break }
            after = (Int64(last.0), last.1)
            for (index, target, source) in found where rules.indices.contains(index) {
                try body(rules[index], target, source)
            }
        }
        try connection.execute("DELETE FROM temp.mm_provisional_targets_by_key")
    }
}
