import DataModel
import Foundation
import ModelMigration
import SQLiteStore

/// Thrown by `#require`-like checks in test support (no Testing dependency here).
public struct TestSupportError: Error, CustomStringConvertible {
    /// What was missing.
    public var description: String
}
