public import SQLiteStore

/// What every step has, read from its case: for display, JSON and estimates. The
/// migrator switches on the case itself.
extension MigrationStep {
    /// The name of its kind.
    public var kind: Kind {
        switch self {
        case .addColumn: .addColumn
        case .renameColumn: .renameColumn
        case .renameTable: .renameTable
        case .dropColumn: .dropColumn
        case .dropTable: .dropTable
        case .createIndex: .createIndex
        case .dropIndex: .dropIndex
        case .updateRows: .updateRows
        case .deleteRows: .deleteRows
        case .entityNumbers: .entityNumbers
        case .createTable: .createTable
        case .rebuildTable: .rebuildTable
        case .fillJoinTable: .fillJoinTable
        case .policy: .policy
        }
    }

    /// What it does, for people.
    public var summary: String {
        switch self {
        case .addColumn(let c), .renameColumn(let c), .renameTable(let c), .dropColumn(let c), .dropTable(let c),
            .createIndex(let c),
            .dropIndex(let c), .updateRows(let c), .deleteRows(let c), .entityNumbers(let c):
            c.summary
        case .createTable(let build): build.summary
        case .rebuildTable(let copy), .fillJoinTable(let copy): copy.summary
        case .policy(let stage): stage.summary
        }
    }

    /// Its cost class.
    public var cost: StepCost {
        switch self {
        case .addColumn(let c), .renameColumn(let c), .renameTable(let c), .dropColumn(let c), .dropTable(let c),
            .createIndex(let c),
            .dropIndex(let c), .updateRows(let c), .deleteRows(let c), .entityNumbers(let c):
            c.cost
        case .rebuildTable(let copy), .fillJoinTable(let copy): copy.cost
        case .policy(let stage): stage.cost
        case .createTable: .constant
        }
    }

    /// The table it concerns, if one.
    public var table: String? {
        switch self {
        case .addColumn(let c), .renameColumn(let c), .renameTable(let c), .dropColumn(let c), .dropTable(let c),
            .createIndex(let c),
            .dropIndex(let c), .updateRows(let c), .deleteRows(let c), .entityNumbers(let c):
            c.table
        case .createTable(let build): build.table
        case .rebuildTable(let copy), .fillJoinTable(let copy): copy.table
        case .policy(let stage): stage.table
        }
    }

    /// Its SQL statements with their bound values, in order (none for a policy step).
    public var statements: [SQLFragment] {
        get {
            switch self {
            case .addColumn(let c), .renameColumn(let c), .renameTable(let c), .dropColumn(let c), .dropTable(let c),
                .createIndex(let c),
                .dropIndex(let c), .updateRows(let c), .deleteRows(let c), .entityNumbers(let c):
                c.statements
            case .createTable(let build): build.statements
            case .rebuildTable(let copy), .fillJoinTable(let copy): copy.statements
            case .policy: []
            }
        }
        // Tests replace a statement to make a step fail on purpose.
        set {
            switch self {
            case .addColumn(var c):
                c.statements = newValue
                self = .addColumn(c)
            case .renameColumn(var c):
                c.statements = newValue
                self = .renameColumn(c)
            case .renameTable(var c):
                c.statements = newValue
                self = .renameTable(c)
            case .dropColumn(var c):
                c.statements = newValue
                self = .dropColumn(c)
            case .dropTable(var c):
                c.statements = newValue
                self = .dropTable(c)
            case .createIndex(var c):
                c.statements = newValue
                self = .createIndex(c)
            case .dropIndex(var c):
                c.statements = newValue
                self = .dropIndex(c)
            case .updateRows(var c):
                c.statements = newValue
                self = .updateRows(c)
            case .deleteRows(var c):
                c.statements = newValue
                self = .deleteRows(c)
            case .entityNumbers(var c):
                c.statements = newValue
                self = .entityNumbers(c)
            case .createTable(var build):
                build.statements = newValue
                self = .createTable(build)
            case .rebuildTable(var copy):
                copy.statements = newValue
                self = .rebuildTable(copy)
            case .fillJoinTable(var copy):
                copy.statements = newValue
                self = .fillJoinTable(copy)
            case .policy: break
            }
        }
    }

    /// The text of its statements, in order. Setting it keeps each statement's
    /// bound values by position.
    public var sql: [String] {
        get { statements.map(\.sql) }
        set {
            let old = statements
            statements = newValue.enumerated().map {
                SQLFragment($0.element, $0.offset < old.count ? old[$0.offset].arguments : [])
            }
        }
    }

    /// Whether `apply` can report rows done as the step runs: its work is a scan of
    /// the rows by a statement of its own (a copy, an index build, an update or a
    /// delete), which SQLite counts. A `DROP COLUMN` rewrites the rows inside SQLite's
    /// schema change, where no count is visible, and O(1) steps have no rows to count.
    public var reportsRowsDone: Bool {
        switch self {
        case .rebuildTable, .fillJoinTable, .createIndex, .updateRows, .deleteRows: cost.rows > 0
        case .addColumn, .renameColumn, .renameTable, .dropColumn, .createTable, .dropTable, .dropIndex, .entityNumbers,
            .policy:
            false
        }
    }
}
