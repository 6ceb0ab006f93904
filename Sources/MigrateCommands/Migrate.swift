import ArgumentParser
import Foundation
import ModelMigration

/// The `migrate` command: Core Data model versioning and store migration for
/// deploy pipelines. Exit codes are part of the interface (README, "Exit codes").
struct Migrate: ParsableCommand {
    /// The executable's own name (a deploy package's `deploy-migrate` says so).
    static var toolName: String { Invocation.current.name }

    /// Computed, for the tool's name is the run's.
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: toolName,
            abstract: "Validate and compile versioned Core Data models; inspect and migrate SQLite stores.",
            // No `version:` here: argument-parser would add `--version` to every
            // subcommand, where `restore --version N` and `create --version N` mean a
            // model version. `migrate --version` is answered by `MigrateTool.main`.
            discussion: "`\(toolName) --version` prints the tool's version.",
            subcommands: [
                Validate.self, Compile.self, Diff.self, Diagram.self, Create.self, Import.self, Export.self,
                Inspect.self,
                Status.self,
                Plan.self, Apply.self, Restore.self, Fleet.self, Backups.self, Load.self, Dump.self, Fetch.self,
                Update.self, Delete.self,
            ]
        )
    }
}
