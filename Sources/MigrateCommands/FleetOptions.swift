import ArgumentParser
import DataModel
import Foundation
import Mapping
import ModelMigration

/// Where a fleet's stores come from, and which of them this process takes, with the
/// flags that shape each store's plan (`fleet status|plan|apply`): the commands' two
/// sibling option groups, `FleetStores` and `PlanningFlags`, read together.
struct FleetOptions {
    var selection: FleetStores

    /// The flags that shape each store's plan, as `plan`'s (a store whose path
    /// cannot be followed counts as no path, exit 4).
    var planning: PlanningFlags

    /// Called first by each command's `validate()`.
    func validate() throws {
        if selection.isEmpty { throw ValidationError("give the stores: paths, folders or --stores-from FILE") }
    }

    var storesFrom: [String] { selection.storesFrom }
    var pattern: String { selection.pattern }
    var selectedShard: FleetShard? { selection.selectedShard }
    func list(excluding excluded: [String] = []) -> FleetStoreList { selection.list(excluding: excluded) }
    func count(excluding excluded: [String]) -> Int? { selection.count(excluding: excluded) }
}

extension GlobalOptions {
    /// The models compiled once for a whole fleet, and the mapping files of each
    /// checked once, before any store is touched. `checkingPolicies` false (`fleet
    /// status`): a mapping file may name a policy this `migrate` lacks.
    func fleetPlanner(_ options: PlanningOptions, checkingPolicies: Bool = true) throws -> MigrationPlanner {
        let result = ModelLoader.load(path: models)
        let compiled: [CompiledModel]
        do {
            compiled = try result.compiledModels()
        } catch {
            throw fail(Self.modelFailure(error.diagnostics, sources: result.sources))
        }
        for model in compiled {
            let files = MappingFiles.load(
                folder: migrations, model: model.name, versions: model.versions.map(\.version))
            if files.diagnostics.contains(where: { $0.severity == .error }) {
                throw fail(Self.modelFailure(files.diagnostics, sources: [:]))
            }
        }
        return Self.planner(compiled, migrations: migrations, options: options, checkingPolicies: checkingPolicies)
    }
}
