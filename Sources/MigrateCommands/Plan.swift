import ArgumentParser
import ModelMigration

/// `migrate plan STORE`: every step, its SQL, cost and warnings, changing nothing.
struct Plan: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show what apply would do: every hop and step with its cost class, destructive warnings, and with --sql the SQL.",
        discussion: "Exit 0 with a plan (or nothing to do); 4 no migration path; 5 unknown store version; 1 failure.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var options: PlanOptions

    @Flag(name: .long, help: "Show the SQL of every step.")
    var sql = false

    @Flag(name: .long, help: "Count rows and dropped values exactly even in tables over a million rows (slower).")
    var exactCounts = false

    func run() throws {
        switch global.makePlan(options, exactCounts: exactCounts) {
        case .failure(let message, let code):
            Output.err(message)
            throw code
        case .plan(let plan):
            if global.json {
                try Output.json(plan)
            } else {
                Output.out(PlanRenderer.render(plan, showSQL: sql))
            }
        }
    }
}
