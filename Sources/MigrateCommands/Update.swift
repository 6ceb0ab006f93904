import ArgumentParser
import Foundation
import ModelMigration
import SQLiteStore

/// `migrate update STORE ENTITY --set 'KEY = EXPR'`: Core Data's `NSBatchUpdateRequest`.
struct Update: MigrateCommand {
    static let configuration = CommandConfiguration(
        abstract: "Set attributes of every object a predicate selects, in one transaction (NSBatchUpdateRequest).",
        discussion: """
            Values are expressions in Core Data's syntax over the object (visits + 1, lowercase:(email), nil) and are \
            checked against the model (type, required, min/max, uniqueness); Z_OPT goes up by one on every updated \
            object. Exit 0; 1 when the model refuses the new values (nothing changed); 3 when the store needs a \
            migration first (a --dry-run runs at the version the store holds); 5 when its version is unknown; 64 for a \
            predicate, key or value that does not fit the model.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var options: BatchOptions

    @Option(
        name: .customLong("set"), help: ArgumentHelp("KEY = EXPR; repeat for more attributes.", valueName: "assignment")
    )
    var assignments: [String] = []

    func validate() throws {
        if assignments.isEmpty { throw ValidationError("give at least one --set 'KEY = EXPR'") }
        for text in assignments where BatchUpdateRequest.Assignment(parsing: text) == nil {
            throw ValidationError("--set \(text): expected KEY = EXPR")
        }
    }

    func run() throws {
        let access = try global.openStoreForRequest(options)
        defer { try? access.store.close() }
        var request = BatchUpdateRequest(
            entity: options.entity, predicate: options.predicate,
            assignments: assignments.compactMap(BatchUpdateRequest.Assignment.init(parsing:)))
        request.includesSubentities = !options.noSubentities
        let result: BatchResult
        do {
            result = try global.rollingBackOnSignals(access.store) {
                try StoreRequests(access: access).update(request, dryRun: options.dryRun, timeout: options.timeout)
            }
        } catch let error as RequestError {
            throw global.fail(error)
        }
        try BatchRendering.render(result, verb: options.dryRun ? "would update" : "updated", json: global.json)
    }
}
