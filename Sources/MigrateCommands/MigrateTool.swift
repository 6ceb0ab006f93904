import ArgumentParser
import Foundation
import ModelMigration

/// Runs the `migrate` command line with a set of entity migration policies.
///
/// A deploy package gets its own `migrate`, with its policies, from one line of
/// `main.swift`:
///
/// ```swift
/// import MigrateCommands
/// MigrateTool.main(policies: PolicyCatalog([SplitFullName.self]))
/// ```
public enum MigrateTool {
    /// The policies mapping files may name. Set once by `main(policies:)` before
    /// any command runs and only read afterwards, hence `nonisolated(unsafe)`.
    nonisolated(unsafe) public private(set) static var policies = PolicyCatalog([])

    /// Parses the process's arguments, runs the command and exits with its code.
    public static func main(policies: PolicyCatalog) -> Never {
        self.policies = policies
        // A file-size limit (`ulimit -f`) is a full disk for our purposes: the write
        // fails (EFBIG), SQLite rolls back and the command says so, instead of
        // SIGXFSZ killing the process halfway with a hot journal beside the store.
        signal(SIGXFSZ, SIG_IGN)
        Migrate.main()
        exit(Output.finish())
    }
}
