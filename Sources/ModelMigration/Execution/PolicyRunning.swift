import DataModel
import Foundation
import Mapping
public import MigrationPolicies
public import SQLiteStore

/// Runs policy steps (`PolicyEngine` does, with a `PolicyCatalog`).
public protocol PolicyRunning {
    /// Runs the policy step of `hop` (every custom mapping's policy, stage by stage)
    /// against `store`, inside the apply transaction.
    func run(_ invocations: [PolicyInvocation], hop: MigrationHop, store: Store, progress: (MigrationEvent) -> Void)
        throws -> PolicyStageReport

    /// The functions of the policy `name` (`EntityMigrationPolicy.functions`), for a
    /// step's `FUNCTION($entityPolicy, …)` values; nil when it is not available.
    /// Default: nil.
    func functions(of name: String) -> [PolicyFunction]?
}
