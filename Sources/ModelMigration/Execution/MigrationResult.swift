import DataModel
import Foundation
import Mapping
import SQLiteStore

/// What `apply` did.
public struct MigrationResult: Sendable, Codable {
    /// The version before.
    public var from: Int
    /// The version after.
    public var to: Int
    /// Rows the plan's steps wrote: copied by table rebuilds, rewritten by a
    /// `DROP COLUMN`, updated, deleted, or written by policies; the same rows the plan
    /// estimated (``StepCost/rowsWritten``). Index builds and bookkeeping
    /// (`Z_PRIMARYKEY`, metadata) write none.
    public var rowsTouched: Int64
    /// Seconds from the lock to the commit.
    public var duration: Double
    /// Checks run before commit, all passed.
    public var checksPassed: Int
    /// True when rolled back on purpose (`--dry-run`).
    public var dryRun: Bool
    /// The backup written, if any.
    public var backup: String?
    /// With `keepBackups`: the store's older backups removed from the backup folder
    /// (newest first); nil when no retention was asked for.
    public var prunedBackups: [String]?
    /// With `keepBackups`: older files named like the store's backups that were
    /// left, each with why (not a store this toolkit wrote, or not removable).
    public var backupsLeft: [String] = []
    /// References that already dangled before the migration and were carried as
    /// they were (each: the relationship and the number of rows).
    public var carriedDanglingReferences: [String] = []
    /// Destructive warnings found while migrating: properties left to a policy
    /// that it left nil where the source had a value.
    public var warnings: [String] = []

    /// Creates a result.
    public init(
        from: Int, to: Int, rowsTouched: Int64, duration: Double, checksPassed: Int, dryRun: Bool, backup: String?,
        carriedDanglingReferences: [String] = [], warnings: [String] = []
    ) {
        self.from = from
        self.to = to
        self.rowsTouched = rowsTouched
        self.duration = duration
        self.checksPassed = checksPassed
        self.dryRun = dryRun
        self.backup = backup
        self.carriedDanglingReferences = carriedDanglingReferences
        self.warnings = warnings
    }
}
