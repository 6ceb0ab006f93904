import ArgumentParser
import Foundation
import ModelMigration

/// Options every subcommand shares.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The folder of models (Models/<Model>/<N>.yaml).", valueName: "path"))
    var models: String = "./Models"

    @Option(
        name: .customLong("migrations"),
        help: ArgumentHelp("The folder of mapping files (default ./Migrations).", valueName: "path"))
    var migrationsOption: String?

    @Flag(name: .long, help: "Write machine-readable JSON to stdout instead of text.")
    var json = false

    @Flag(name: .long, help: "On a failure, also print the SQL statement that failed (--json always carries it).")
    var verbose = false

    /// The folder of mapping files in use: the one given, else ./Migrations (which
    /// may be missing: then no hop has a mapping file).
    var migrations: String { migrationsOption ?? "./Migrations" }

    func validate() throws {
        // A folder given on purpose that is not there is a mistake, not "no files".
        if let folder = migrationsOption {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) else {
                throw ValidationError(
                    "--migrations \(folder): no such folder (leave the option out when there are no mapping files)")
            }
            guard isDirectory.boolValue else {
                throw ValidationError(
                    "--migrations \(folder): a file, not a folder (the folder that holds <Model>/<A>-to-<B>.yaml)")
            }
        }
    }
}
