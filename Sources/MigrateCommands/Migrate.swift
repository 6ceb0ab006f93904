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

/// The `migrate` command: Core Data model versioning and store migration for
/// deploy pipelines. Exit codes are part of the interface (README, "Exit codes").
struct Migrate: ParsableCommand {
    /// The executable's own name (a deploy package's `deploy-migrate` says so).
    static let toolName = CommandLine.arguments.first.map { ($0 as NSString).lastPathComponent } ?? "migrate"

    static let configuration = CommandConfiguration(
        commandName: toolName,
        abstract: "Validate and compile versioned Core Data models; inspect and migrate SQLite stores.",
        version: "0.1.0",
        subcommands: [Validate.self, Compile.self, Diff.self, Diagram.self, Create.self, Import.self, Export.self, Inspect.self, Status.self,
                      Plan.self, Apply.self, Restore.self, Fleet.self, Load.self, Dump.self, Fetch.self, Update.self, Delete.self]
    )
}

/// Options every subcommand shares.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The folder of models (Models/<Model>/<N>.yaml).", valueName: "path"))
    var models: String = "./Models"

    @Option(name: .customLong("migrations"), help: ArgumentHelp("The folder of mapping files (default ./Migrations).", valueName: "path"))
    var migrationsOption: String?

    @Flag(name: .long, help: "Write machine-readable JSON to stdout instead of text.")
    var json = false

    /// The folder of mapping files in use: the one given, else ./Migrations (which
    /// may be missing: then no hop has a mapping file).
    var migrations: String { migrationsOption ?? "./Migrations" }

    func validate() throws {
        // A folder given on purpose that is not there is a mistake, not "no files".
        if let folder = migrationsOption {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--migrations \(folder): no such folder (leave the option out when there are no mapping files)")
            }
        }
    }
}
