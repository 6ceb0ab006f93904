import DataModel
import Foundation
import Mapping
import SQLiteStore

/// A progress event of `apply`, for a progress bar or JSON Lines.
public enum MigrationEvent: Sendable {
    /// A step starts: its position, the total, its summary and cost.
    case stepStarted(index: Int, of: Int, summary: String, cost: StepCost)
    /// A step ended after `seconds`, having written `rows` rows (as ``MigrationResult/rowsTouched`` counts them).
    case stepFinished(index: Int, seconds: Double, rows: Int64)
    /// Rows done within a long step (a copy, an index build, a policy), of a total.
    case rows(done: Int64, total: Int64)
    /// The checks start.
    case checking(count: Int)
}
