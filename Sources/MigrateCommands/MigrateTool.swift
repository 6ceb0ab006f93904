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
    /// The policies mapping files may name: those of the run this thread works for.
    public static var policies: PolicyCatalog { Invocation.current.policies }

    /// Parses the process's arguments, runs the command and exits with its code.
    public static func main(policies: PolicyCatalog) -> Never {
        // A fleet run answers a stop with a record for every store: a signal that
        // comes while the process starts (the sweep below, parsing) waits for the
        // run's watcher instead of killing it with no word (fleet trial: SIGTERM in
        // the first 0.2 s). Other commands get the default actions back once parsed.
        mm_signal_early_capture()
        // A file-size limit (`ulimit -f`) is a full disk for our purposes: the write
        // fails (EFBIG), SQLite rolls back and the command says so, instead of
        // SIGXFSZ killing the process halfway with a hot journal beside the store.
        signal(SIGXFSZ, SIG_IGN)
        // A closed stdout or stderr (`migrate apply --json | head -n 1`, a log shipper
        // that restarts) is EPIPE on the write, which `Output` keeps and reports on the
        // stream still open; SIGPIPE's default action would instead kill the process
        // inside its transaction, leaving a hot journal and no word.
        signal(SIGPIPE, SIG_IGN)
        keepStandardStreamsClosed()
        keepHelpWideEnough()
        let arguments = Array(CommandLine.arguments.dropFirst())
        exit(
            run(arguments, in: Invocation(policies: policies)) { command in
                if !(command is FleetApply || command is FleetRestore) { mm_signal_early_release() }
            })
    }

    /// A standard stream the tool was started without (`<&-`, `>&-`, `2>&-`) stays closed
    /// to it, and its number is never taken by a file the tool opens: `/dev/null` holds it,
    /// opened the other way round, so reading a closed stdin or writing a closed stdout
    /// still fails with EBADF. Without it the signal watcher's pipe became descriptor 0,
    /// and `fleet apply --stores-from - <&-` read that pipe and waited for ever.
    private static func keepStandardStreamsClosed() {
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO]
        where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            let placeholder = open("/dev/null", (descriptor == STDIN_FILENO ? O_WRONLY : O_RDONLY) | O_CLOEXEC)
            if placeholder >= 0 && placeholder != descriptor {
                dup2(placeholder, descriptor)
                close(placeholder)
            }
        }
    }

    /// Help is never wrapped under 40 columns: argument-parser measures the width itself
    /// (`COLUMNS`, else the terminal's, else 80) wherever it writes help or usage, and
    /// stops the process under 27 (`COLUMNS=10 migrate --help`, a very narrow terminal).
    private static func keepHelpWideEnough() {
        var width = ProcessInfo.processInfo.environment["COLUMNS"].flatMap { Int($0) }
        if width == nil {
            var size = winsize()
            if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { width = Int(size.ws_col) }
        }
        if let width, width < 40 { setenv("COLUMNS", "40", 1) }
    }

    /// Runs the tool on `arguments` (without the program's name) as `invocation`, on
    /// the calling thread, and returns the exit code; nothing exits the process. The
    /// CLI's tests run commands so, in process, each with streams of its own.
    ///
    /// What a run in process shares with the others: the working folder (relative
    /// paths are the process's; a caller wanting its own gives the thread one), the
    /// signal actions and the process's locks, hence `main`'s own run for everything a
    /// deploy script meets.
    package static func run(_ arguments: [String], in invocation: Invocation) -> Int32 {
        run(arguments, in: invocation) { _ in }
    }

    /// ``run(_:in:)``, calling `parsed` with the command once parsed (`main` puts the
    /// signals' default actions back there).
    private static func run(
        _ arguments: [String], in invocation: Invocation, parsed: (any ParsableCommand) -> Void
    ) -> Int32 {
        invocation.enter {
            // What a killed run left in the temporary folder (a private copy made to
            // read a store, an import's scratch folder) is removed by whichever command
            // runs next.
            ScratchFile.sweep(folder: ScratchFile.temporaryFolder)
            // The tool's version, for the root command alone (see `Migrate.configuration`).
            if arguments == ["--version"] {
                Output.out(ToolVersion.number)
                return 0
            }
            var command: (any ParsableCommand)?
            do {
                command = try Migrate.parseAsRoot(arguments)
                if let command { parsed(command) }
                try command?.run()
            } catch {
                // The one place every error is said: a command's ending, argument-parser's
                // usage errors (with `--json` the error object on stdout too, Docs/JSON.md),
                // anything else through its outcome; help as argument-parser prints it.
                let json = (command as? any MigrateCommand)?.global.json ?? arguments.contains("--json")
                return end(with: error, json: json)
            }
            return Output.finish()
        }
    }

    /// Says how a run that threw ended and gives its exit code.
    private static func end(with error: any Error, json: Bool) -> Int32 {
        guard let ending = CommandEnding.of(error, command: Migrate.self, json: json) else {
            // Help, and a clean exit: said as argument-parser says them.
            // The removals first, as before the help, which argument-parser printed at exit.
            Output.reportRemovedScratch()
            let text = Migrate.fullMessage(for: error, columns: Invocation.current.columns)
            let code = Migrate.exitCode(for: error).rawValue
            if !text.isEmpty {
                if code == ExitCode.success.rawValue { Output.write(text + "\n") } else { Output.err(text + "\n") }
            }
            return code
        }
        Output.render(ending)
        // The removals are said after the failure, as after a success.
        Output.reportRemovedScratch()
        // A failure's exit code stands; what stdout lost is said on stderr too
        // (`fleet apply --json | head -1` with a failed store said nothing at all). With
        // `--json` the failure itself went to stdout: said on stderr as well, as text,
        // or nothing would say why (`status --json >&-` on a damaged store).
        if let lost = Output.stdoutFailure {
            if let text = ending.textWhenJSONIsLost { Output.err(text) }
            Output.err("warning: standard output could not be written (\(lost)); what it received is incomplete")
        }
        return ending.exitCode
    }
}
