import ArgumentParser
import Foundation
import ModelMigration
import SQLiteStore

/// `migrate delete STORE ENTITY`: Core Data's `NSBatchDeleteRequest`, following delete rules.
struct Delete: MigrateCommand {
    static let configuration = CommandConfiguration(
        abstract:
            """
            Delete every object a predicate selects, following delete rules, in one transaction (NSBatchDeleteRequest).
            """,
        discussion: """
            Cascade deletes the destinations (recursively), nullify clears the references that remain, deny refuses \
            the whole delete naming the objects; join-table rows go too. Exit 0; 1 when a deny rule refuses (nothing \
            deleted); 3 when the store needs a migration first (a --dry-run runs at the version the store holds); 5 \
            when its version is unknown; 64 for a predicate that does not fit the model.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var options: BatchOptions

    func run() throws {
        let access = try global.openStoreForRequest(options)
        defer { try? access.store.close() }
        var request = BatchDeleteRequest(entity: options.entity, predicate: options.predicate)
        request.includesSubentities = !options.noSubentities
        let result: BatchResult
        do {
            result = try global.rollingBackOnSignals(access.store) {
                try StoreRequests(access: access).delete(request, dryRun: options.dryRun, timeout: options.timeout)
            }
        } catch let error as RequestError {
            throw global.fail(error)
        }
        try BatchRendering.render(result, verb: options.dryRun ? "would delete" : "deleted", json: global.json)
    }
}
