import ArgumentParser
import Foundation
import ModelMigration

/// The `migrate` command: Core Data model versioning and store migration for
/// deploy pipelines. Exit codes are part of the interface (README, "Exit codes").
struct Migrate: ParsableCommand {
    /// The executable's own name (a deploy package's `deploy-migrate` says so).
    static let toolName = CommandLine.arguments.first.map { ($0 as NSString).lastPathComponent } ?? "migrate"

    static let configuration = CommandConfiguration(
        commandName: toolName,
        abstract: "Validate and compile versioned Core Data models; inspect and migrate SQLite stores.",
        subcommands: [
            Validate.self, Compile.self, Diff.self, Diagram.self, Create.self, Import.self, Export.self, Inspect.self, Status.self,
            Plan.self, Apply.self, Restore.self, Fleet.self, Backups.self, Load.self, Dump.self, Fetch.self, Update.self, Delete.self,
        ]
    )

    // The version is a flag of this root command only, not the configuration's
    // `version:`: argument-parser adds that one to every subcommand's help, where
    // `restore --version N` and `create --version N` already mean a model version.
    @Flag(name: .long, help: "Show the tool's version (CHANGELOG.md's top entry).")
    var version = false

    func run() throws {
        guard version else { throw CleanExit.helpRequest(self) }
        print(ToolVersion.number)
    }
}
