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
        discussion: "`migrate --version` shows the tool's version (CHANGELOG.md's top entry).",
        subcommands: [
            Validate.self, Compile.self, Diff.self, Diagram.self, Create.self, Import.self, Export.self, Inspect.self, Status.self,
            Plan.self, Apply.self, Restore.self, Fleet.self, Backups.self, Load.self, Dump.self, Fetch.self, Update.self, Delete.self,
        ]
    )

    // The tool's version is no property of this root command, nor the configuration's
    // `version:` (argument-parser adds that one to every subcommand's help): argument-parser
    // parses a parent command's flags after a subcommand's name too, so a root `--version`
    // flag took `create --version 1` and `restore --version 1` away from their model
    // version ("Unexpected argument '1'"). `MigrateTool.main` answers `migrate --version`.

    func run() throws {
        throw CleanExit.helpRequest(self)
    }
}
