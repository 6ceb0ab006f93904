import ArgumentParser
import Foundation
import ModelMigration
import ScratchFiles

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
        // A closed stdout or stderr (`migrate apply --json | head -n 1`, a log shipper
        // that restarts) is EPIPE on the write, which `Output` keeps and reports on the
        // stream still open; SIGPIPE's default action would instead kill the process
        // inside its transaction, leaving a hot journal and no word.
        signal(SIGPIPE, SIG_IGN)
        // What a killed run left in the temporary folder (a private copy made to read a
        // store, an import's scratch folder) is removed by whichever command runs next.
        ScratchFile.sweep(folder: ScratchFile.temporaryFolder)
        // `migrate --version` alone: the root command has no such flag (Migrate.swift says why).
        if CommandLine.arguments.dropFirst().elementsEqual(["--version"]) {
            print(ToolVersion.number)
            exit(Output.finish())
        }
        do {
            var command = try Migrate.parseAsRoot()
            try command.run()
        } catch {
            // Help, usage errors and the exit codes commands throw, as
            // `ParsableCommand.main()` renders them; the removals are said first.
            Output.reportRemovedScratch()
            Migrate.exit(withError: error)
        }
        exit(Output.finish())
    }
}
