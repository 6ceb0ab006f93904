import ArgumentParser
import DataModel
import Foundation
import Mapping
import ModelMigration

/// `migrate fleet status|plan|apply STORES…`: many stores in one command.
struct Fleet: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Status, plan, migrate or restore many stores at once: files, folders searched for stores, or a list.",
        discussion: """
            Each store is handled as `migrate status`, `plan` or `apply` handles one, `--jobs` at a time; \
            a store that fails never stops the others. `--shard I/N` (or `--shards N` with \
            $JOB_COMPLETION_INDEX) takes a stable share of the stores, so that the pods of a Kubernetes \
            Indexed Job handle every store exactly once.
            """,
        subcommands: [FleetStatus.self, FleetPlan.self, FleetApply.self, FleetRestore.self])
}
