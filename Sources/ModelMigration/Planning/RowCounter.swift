import SQLiteStore

/// Counts rows for plans, each count once.
package struct RowCounter {
    let connection: Connection
    /// Count every row even in large tables (`plan --exact-counts`).
    var exact = false
    var cache: [String: Int64] = [:]
    /// Tables above this many rows are not scanned for a plan: their row count is
    /// the highest row id (exact unless rows were deleted), and dropped values are
    /// checked for presence only, so that planning stays fast on large stores.
    package static let exactCountLimit: Int64 = 1_000_000
    /// The limit `plan`, `apply`, `status` and fleets share by default
    /// (`PlanningOptions.countLimit`): a table above it is audited once, by `apply`
    /// under its lock, rather than scanned while planning and again under the lock,
    /// which would cost a migration of a 1 M-row table a third more time.
    package static let planningCountLimit: Int64 = 100_000
    /// The limit in use.
    var limit = exactCountLimit
    /// `countValues`' answer for "some, not counted".
    static let notCounted: Int64 = -1
    /// `countValues`' answer for a later hop's column an earlier hop of the run writes:
    /// what it will hold is not in the store to count before the apply.
    static let notYetWritten: Int64 = -2

    mutating func estimate(_ table: String) throws -> Int64 {
        try connection.scalarInt64("SELECT max(rowid) FROM \(SQLText.q(table))") ?? 0
    }

    var existing: Set<String>?

    /// Tables a later hop creates do not exist yet: they count as empty (the plan's
    /// counts for later hops are the store's counts now).
    mutating func exists(_ table: String) throws -> Bool {
        if existing == nil { existing = Set(try connection.tables()) }
        return existing!.contains(table)
    }

    mutating func count(_ table: String, _ numbers: [Int]?) throws -> Int64 {
        let key = "\(table)|\(numbers.map { $0.map(String.init).joined(separator: ",") } ?? "*")"
        if let known = cache[key] { return known }
        guard try exists(table) else { return 0 }
        let filter = numbers.map { " WHERE Z_ENT IN (\(SQLText.list($0)))" } ?? ""
        let value =
            try tooLargeToScan(table)
            ?? connection.scalarInt64("SELECT count(*) FROM \(SQLText.q(table))\(filter)") ?? 0
        cache[key] = value
        return value
    }

    /// The estimated row count of an existing table over the limit, which a plan does
    /// not scan (nil when it may be scanned: small, or every row counted).
    mutating func tooLargeToScan(_ table: String) throws -> Int64? {
        guard !exact, try exists(table) else { return nil }
        if let known = large[table] { return known }
        var rows = try estimate(table)
        if rows > limit, rows > (try mostRowsTheFileCanHold()) {
            // A highest key the file is too small to hold that many rows for (one
            // object loaded with a key near 2^63) is no row count: a scan that
            // stops after `limit + 1` rows says whether the table is really large.
            let scanned =
                try connection.scalarInt64(
                    "SELECT count(*) FROM (SELECT 1 FROM \(SQLText.q(table)) LIMIT \(limit + 1))") ?? 0
            if scanned <= limit { rows = 0 }
        }
        let answer = rows > limit ? rows : nil
        large[table] = .some(answer)
        return answer
    }

    /// `tooLargeToScan`'s answers, each table checked once.
    var large: [String: Int64?] = [:]

    /// An upper bound on the rows of any table: a table b-tree cell takes at least
    /// 4 bytes (a 2-byte pointer, a payload size, a rowid, a record header), so the
    /// file holds at most its size / 4 rows. Checked once per plan (O(1)).
    mutating func mostRowsTheFileCanHold() throws -> Int64 {
        if let fileRows { return fileRows }
        let pages = try connection.scalarInt64("PRAGMA page_count") ?? 0
        let size = try connection.scalarInt64("PRAGMA page_size") ?? 4096
        let (bytes, overflow) = pages.multipliedReportingOverflow(by: size)
        let answer = overflow ? Int64.max : bytes / 4
        fileRows = answer
        return answer
    }

    var fileRows: Int64?

    /// Whether the store has `table` (and its `column`) now: a later hop's table or
    /// column that an earlier hop of the run makes, renames or computes is not there,
    /// so what it will hold cannot be counted before the apply.
    mutating func has(_ table: String, column: String? = nil) throws -> Bool {
        guard try exists(table) else { return false }
        guard let column else { return true }
        return try connection.columns(of: table).contains { $0.name == column }
    }

    mutating func countValues(_ table: String, _ column: String, _ numbers: [Int]) throws -> Int64 {
        guard try exists(table), try connection.columns(of: table).contains(where: { $0.name == column }) else {
            return 0
        }
        if try tooLargeToScan(table) != nil {
            let any =
                try connection.scalarInt64(
                    """
                    SELECT EXISTS (SELECT 1 FROM \(SQLText.q(table)) \
                    WHERE \(SQLText.q(column)) IS NOT NULL AND Z_ENT IN (\(SQLText.list(numbers))))
                    """) ?? 0
            return any == 0 ? 0 : Self.notCounted
        }
        return try connection.scalarInt64(
            "SELECT count(\(SQLText.q(column))) FROM \(SQLText.q(table)) WHERE Z_ENT IN (\(SQLText.list(numbers)))")
            ?? 0
    }
}
