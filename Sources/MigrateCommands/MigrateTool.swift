import ArgumentParser
internal import CSignalPipe
import Foundation
public import MigrationPolicies
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
    /// When the process started: a fleet run's `tally.seconds` counts from here.
    nonisolated(unsafe) static var started = Date()

    /// Parses the process's arguments, runs the command and exits with its code.
    public static func main(policies: PolicyCatalog) -> Never {
        // A fleet run answers a stop with a record for every store: a signal that
        // comes while the process starts (the sweep below, parsing) waits for the
        // run's watcher instead of killing it with no word (fleet trial: SIGTERM in
        // the first 0.2 s). Other commands get the default actions back once parsed.
        mm_signal_early_capture()
        started = Date()
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
        // The tool's version, for the root command alone (see `Migrate.configuration`).
        if Array(CommandLine.arguments.dropFirst()) == ["--version"] {
            print(ToolVersion.number)
            exit(0)
        }
        var command: (any ParsableCommand)?
        do {
            command = try Migrate.parseAsRoot()
            if !(command is FleetApply || command is FleetRestore) { mm_signal_early_release() }
            try command?.run()
        } catch {
            // The one place every error is said: a command's ending, argument-parser's
            // usage errors (with `--json` the error object on stdout too, Docs/JSON.md),
            // anything else through its outcome; help as argument-parser prints it.
            let json =
                (command as? any MigrateCommand)?.global.json ?? CommandLine.arguments.dropFirst().contains("--json")
            guard let ending = CommandEnding.of(error, command: Migrate.self, json: json) else {
                Output.reportRemovedScratch()
                Migrate.exit(withError: error)
            }
            Output.render(ending)
            // The removals are said after the failure, as after a success.
            Output.reportRemovedScratch()
            // A failure's exit code stands; what stdout lost is said on stderr too
            // (`fleet apply --json | head -1` with a failed store said nothing at all).
            if let lost = Output.stdoutFailure {
                Output.err("warning: standard output could not be written (\(lost)); what it received is incomplete")
            }
            exit(ending.exitCode)
        }
        exit(Output.finish())
    }
}
