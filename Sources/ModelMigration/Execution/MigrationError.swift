import DataModel
import Foundation
import Mapping
import SQLiteStore

/// Why `apply` failed; the store is unchanged (verified), unless `kind` is
/// `restoreFailed`.
public struct MigrationError: Error, Sendable, CustomStringConvertible {
    /// The broad reason.
    public enum Kind: Sendable, Hashable {
        case locked, storeChanged, stepFailed, checkFailed, backupFailed, verifyFailed
        /// The store contradicts what the plan relies on (entity numbers, rows of
        /// unknown entities): migrating would lose or misfile rows.
        case inconsistentStore
        /// After a failure the store could not be proven unchanged: restore it
        /// from a backup.
        case restoreFailed
        /// Cancelled (`MigrationCancellation`, a signal): rolled back, unchanged.
        case interrupted
        /// A later hop's data requirements refuse the store as the earlier hops of
        /// the run left it (a nil where its version makes the attribute required, a
        /// value above a new `max`): the refusal `plan` gives when that hop is first,
        /// so the same outcome (no migration path, exit 4); unchanged.
        case dataRefused
    }
    /// The reason.
    public var kind: Kind
    /// What happened, for people.
    public var message: String
    /// The SQL statement that failed, when a statement did: kept out of
    /// ``message`` (a table rebuild's runs to thousands of characters) and shown
    /// by `--verbose` and in `--json`'s error object.
    public var statement: String?

    /// Creates an error.
    public init(kind: Kind, message: String, statement: String? = nil) {
        self.kind = kind
        self.message = message
        self.statement = statement
    }

    public var description: String { message }
}
