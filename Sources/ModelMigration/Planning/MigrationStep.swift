import DataModel
public import SQLiteStore

/// One step of a plan, each kind with exactly the data it is executed with:
/// `Migrator` switches on the case and never looks at text or emptiness to choose
/// what to do (Docs/Architecture.md, "Following `migrate apply`").
public enum MigrationStep: Sendable, Hashable, Encodable {
    /// `ALTER TABLE … ADD COLUMN`: O(1).
    case addColumn(TableChange)
    /// `ALTER TABLE … RENAME COLUMN`: O(1).
    case renameColumn(TableChange)
    /// `ALTER TABLE … RENAME TO`: O(1).
    case renameTable(TableChange)
    /// `ALTER TABLE … DROP COLUMN`: SQLite rewrites every row inside its schema
    /// change, where no count is visible; its rows written are the plan's count.
    case dropColumn(TableChange)
    /// `DROP TABLE`.
    case dropTable(TableChange)
    /// `CREATE INDEX`.
    case createIndex(TableChange)
    /// `DROP INDEX`.
    case dropIndex(TableChange)
    /// `UPDATE` of some rows in place.
    case updateRows(TableChange)
    /// `DELETE` of some rows.
    case deleteRows(TableChange)
    /// `Z_PRIMARYKEY` bookkeeping: entity numbers and key counters.
    case entityNumbers(TableChange)
    /// A new, empty table (an entity's or a join table) under its build name.
    case createTable(TableBuild)
    /// A table built anew from the old ones (SQLite's 12-step procedure): one
    /// `INSERT … SELECT` per entity, then its row count checked.
    case rebuildTable(TableCopy)
    /// A join table built anew and filled from the old relationship storage.
    case fillJoinTable(TableCopy)
    /// The policies of a hop's custom entity mappings, stage by stage.
    case policy(PolicyStage)
    /// The name of a step's kind, as `plan --json` shows it (`"rebuildTable"`).
    public enum Kind: String, Sendable, Hashable, Codable {
        case addColumn, renameColumn, renameTable, dropColumn, createTable, rebuildTable, fillJoinTable, dropTable,
            deleteRows, updateRows,
            createIndex, dropIndex, entityNumbers, policy
    }

    /// The statements and bookkeeping steps that change one table.
    public struct TableChange: Sendable, Hashable, Encodable {
        /// What it does, for people.
        public package(set) var summary: String
        /// The table it changes (after the step, for a rename).
        public package(set) var table: String
        /// The statements, in order.
        public package(set) var statements: [SQLFragment]
        /// Its cost class.
        public package(set) var cost: StepCost
        /// For a unique index: the groups of rows holding the same values, asked
        /// when SQLite refuses the index, so that the refusal names the objects
        /// (values a mapping computed or a move up merged, which no requirement
        /// could read before the hop).
        public package(set) var duplicates: MigrationCheck? = nil

        /// Creates a change.
        package init(
            summary: String, statements: [SQLFragment], cost: StepCost, table: String, duplicates: MigrationCheck? = nil
        ) {
            self.summary = summary
            self.table = table
            self.statements = statements
            self.cost = cost
            self.duplicates = duplicates
        }

        /// Creates a change of statements without bound values.
        package init(summary: String, sql: [String], cost: StepCost, table: String, duplicates: MigrationCheck? = nil) {
            self.init(
                summary: summary, statements: sql.map { SQLFragment($0) }, cost: cost, table: table,
                duplicates: duplicates)
        }
    }

    /// A table created empty, under the name it is built under until a later step
    /// moves it into place: O(1).
    public struct TableBuild: Sendable, Hashable, Encodable {
        /// What it does, for people.
        public package(set) var summary: String
        /// The table's name once in place.
        public package(set) var table: String
        /// The name it is built under.
        public package(set) var buildTable: String
        /// `CREATE TABLE`.
        public package(set) var statements: [SQLFragment]
    }

    /// A table built anew and filled by set-based copies from the old tables.
    public struct TableCopy: Sendable, Hashable, Encodable {
        /// What it does, for people.
        public package(set) var summary: String
        /// The table's name once in place.
        public package(set) var table: String
        /// The name it is built under.
        public package(set) var buildTable: String
        /// `CREATE TABLE`, then the copies.
        public package(set) var statements: [SQLFragment]
        /// Its cost class.
        public package(set) var cost: StepCost
        /// The rows the new table must hold: a count query on the old tables, run
        /// just before the copy and compared with the table after it.
        public package(set) var expectedRows: SQLFragment?
        /// The policy functions its copies call (`FUNCTION($entityPolicy, …)`
        /// values), registered on the connection while the step runs.
        public package(set) var policyFunctions: [PolicyFunctionCall] = []
        /// The source table every row of which the copies read: one unfiltered copy
        /// per entity stored there, and ``expectedRows`` that table's whole count,
        /// so that a row of no entity of its hierarchy fails the count (nil: the
        /// copies read some of its rows, or several tables).
        public package(set) var readsEveryRowOf: String? = nil
    }

    /// The policy step of a hop: every custom entity mapping's policy, in the
    /// mapping file's order. They run in Core Data's stages across the hop: every
    /// mapping creates its destination objects, then every mapping sets
    /// relationships, then every mapping validates.
    public struct PolicyStage: Sendable, Hashable, Encodable {
        /// What it does, for people.
        public package(set) var summary: String
        /// The first policy's destination table.
        public package(set) var table: String?
        /// The invocations, at least one.
        public package(set) var policies: [PolicyInvocation]
        /// Its cost class.
        public package(set) var cost: StepCost
    }
}
