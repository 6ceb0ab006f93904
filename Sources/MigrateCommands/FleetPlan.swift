import ArgumentParser
import DataModel
import Foundation
import ModelMigration

/// `migrate fleet plan STORES…`
struct FleetPlan: MigrateCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract:
            "Plan a fleet: each distinct chain (model, from, to) shown once, with the number of stores it applies to.",
        discussion: """
            Exit 0 every store can be migrated (or is current); 4 some have no path; 5 some have an unknown version; 1 \
            some could not be planned; 6 with --fail-on-destructive, some plans lose data (those stores are listed as \
            destructive).
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var selection: FleetStores
    @OptionGroup var planning: PlanningFlags
    /// The stores and the planning flags (sibling groups, not one nested group: `PlansOneStore`).
    var fleet: FleetOptions { FleetOptions(selection: selection, planning: planning) }

    @Flag(name: .long, help: "Show each step's SQL and each check.")
    var sql = false

    @OptionGroup var gate: DestructiveGate

    @Option(name: .long, help: ArgumentHelp("Stores read at a time (default: the number of cores).", valueName: "n"))
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        try fleet.validate()
        if jobs < 1 { throw ValidationError("--jobs must be 1 or more") }
    }

    func run() throws {
        let planner = try global.fleetPlanner(fleet.planning.options())
        let state = FleetSurvey(json: global.json, showSQL: sql)
        var runner = FleetRunner(planner: planner, jobs: jobs)
        runner.refusesDestructivePlans = gate.failOnDestructive
        runner.acceptedLosses = try gate.losses(for: planner, global: global)
        runner.run(fleet.list(), mode: .survey) { state.add($0) }
        let ending = try state.finish(
            command: "plan", shard: fleet.selectedShard, showPlans: true, sharded: fleet.selectedShard != nil)
        if let ending { throw global.said(ending) }
    }
}
