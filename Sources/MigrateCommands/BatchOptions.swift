import ArgumentParser
import Foundation
import ModelMigration

/// Options shared by `update` and `delete`.
struct BatchOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The store.", valueName: "store"))
    var store: String

    @Argument(help: ArgumentHelp("The entity.", valueName: "entity"))
    var entity: String

    @Option(
        name: .customLong("where"),
        help: ArgumentHelp(
            "A predicate in Core Data's format syntax selecting the objects (default: every object).",
            valueName: "predicate"))
    var predicate: String?

    @Flag(name: .customLong("no-subentities"), help: "Leave out objects of subentities.")
    var noSubentities = false

    @Flag(name: .long, help: "Report what would change, and change nothing.")
    var dryRun = false

    @Option(
        name: .long, help: ArgumentHelp("Seconds to wait for other writers' locks (default 30).", valueName: "seconds"))
    var timeout: Double = 30

    func validate() throws {
        // NaN fails every comparison, and infinity would trap where seconds are shown.
        if !(timeout >= 0) || !timeout.isFinite {
            throw ValidationError("--timeout must be a number of seconds, 0 or more")
        }
    }
}
