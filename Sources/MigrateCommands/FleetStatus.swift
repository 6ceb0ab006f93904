import ArgumentParser
import DataModel
import Foundation
import MigrationPolicies
import ModelMigration

/// `migrate fleet status STORES…`
struct FleetStatus: MigrateCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "How many stores are at each version: current, migratable, without a path, unknown.",
        discussion: """
            Exit 0 every store current; 3 some need a migration, all possible; 4 some have no path; \
            5 some have an unknown version; 1 some could not be read.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var selection: FleetStores
    @OptionGroup var planning: PlanningFlags
    /// The stores and the planning flags (sibling groups, not one nested group: `PlansOneStore`).
    var fleet: FleetOptions { FleetOptions(selection: selection, planning: planning) }

    @Option(name: .long, help: ArgumentHelp("Stores read at a time (default: the number of cores).", valueName: "n"))
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        try fleet.validate()
        if jobs < 1 { throw ValidationError("--jobs must be 1 or more") }
    }

    func run() throws {
        // Read-only, as `status`: a policy this migrate lacks is named, never a refusal.
        let planner = try global.fleetPlanner(fleet.planning.options(), checkingPolicies: false)
        let state = FleetSurvey(json: global.json, knownPolicies: Set(MigrateTool.policies.names))
        FleetRunner(planner: planner, jobs: jobs).run(fleet.list(), mode: .survey) { state.add($0) }
        let ending = try state.finish(
            command: "status", shard: fleet.selectedShard, showPlans: false, sharded: fleet.selectedShard != nil)
        if let ending { throw global.said(ending) }
    }
}
