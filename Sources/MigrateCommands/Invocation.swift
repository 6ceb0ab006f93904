import Foundation
package import MigrationPolicies
import ModelMigration
package import ScratchFiles

/// One run of the tool: the streams it reads and writes, the environment it reads, the
/// policies it knows, and what its output has met so far.
///
/// The process's run (``MigrateTool/main(policies:)``) has descriptors 0, 1 and 2 and
/// the process's environment. A run in process (``MigrateTool/run(_:in:)``, which the
/// CLI's tests use) has descriptors of its own, so that several runs in one process
/// never mix their output. The run is the calling thread's, and every thread the run
/// starts (fleet workers, the signal watcher, progress) inherits it
/// (`ThreadInherited`).
package final class Invocation: ScratchRemovals, Sendable {
    /// What the writes have met so far; fleet workers write from several threads.
    struct OutputState {
        var stdoutFailure: String?
        var stderrFailed = false
        var outputIsTheProduct = false
    }

    /// Standard input, output and error.
    package let input: Int32
    package let output: Int32
    package let errors: Int32
    /// The variables the tool reads (`JOB_COMPLETION_INDEX`).
    package let environment: [String: String]
    /// The policies mapping files may name.
    package let policies: PolicyCatalog
    /// The tool's name in what it says (`run \`migrate apply …\``): the executable's.
    package let name: String
    /// The width help and usage text wrap at; nil: the terminal's, else 80, as
    /// argument-parser measures it for the process's own streams.
    package let columns: Int?
    /// When the run started: a fleet run's `tally.seconds` counts from here.
    let started = Date()
    let outputState = Locked(OutputState())
    /// The scratch entries this run's sweeps removed, said when it ends.
    package let scratchRemoved = ScratchFile.Record()

    package init(
        input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO, errors: Int32 = STDERR_FILENO,
        environment: [String: String] = ProcessInfo.processInfo.environment, columns: Int? = nil,
        name: String = CommandLine.arguments.first.map { ($0 as NSString).lastPathComponent } ?? "migrate",
        policies: PolicyCatalog
    ) {
        self.input = input
        self.output = output
        self.errors = errors
        self.environment = environment
        self.columns = columns
        self.name = name
        self.policies = policies
    }

    /// The run this thread works for; a thread no run started (none in the tool) gets
    /// the process's streams with no policies.
    static var current: Invocation {
        ThreadInherited.value as? Invocation ?? fallback
    }

    private static let fallback = Invocation(policies: PolicyCatalog([]))

    /// Runs `body` as this run's, on the calling thread.
    func enter<T>(_ body: () throws -> T) rethrows -> T {
        let outer = ThreadInherited.value
        ThreadInherited.value = self
        defer { ThreadInherited.value = outer }
        return try body()
    }
}
