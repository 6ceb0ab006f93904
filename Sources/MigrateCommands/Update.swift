import ArgumentParser
import Foundation
import ModelMigration

/// Options shared by `update` and `delete`.
struct BatchOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The store.", valueName: "store"))
    var store: String

    @Argument(help: ArgumentHelp("The entity.", valueName: "entity"))
    var entity: String

    @Option(name: .customLong("where"),
            help: ArgumentHelp("A predicate in Core Data's format syntax selecting the objects (default: every object).", valueName: "predicate"))
    var predicate: String?

    @Flag(name: .customLong("no-subentities"), help: "Leave out objects of subentities.")
    var noSubentities = false

    @Flag(name: .long, help: "Report what would change, and change nothing.")
    var dryRun = false

    @Option(name: .long, help: ArgumentHelp("Seconds to wait for other writers' locks (default 30).", valueName: "seconds"))
    var timeout: Double = 30

    func validate() throws {
        // NaN fails every comparison, and infinity would trap where seconds are shown.
        if !(timeout >= 0) || !timeout.isFinite { throw ValidationError("--timeout must be a number of seconds, 0 or more") }
    }
}

/// `migrate update STORE ENTITY --set 'KEY = EXPR'`: Core Data's `NSBatchUpdateRequest`.
struct Update: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Set attributes of every object a predicate selects, in one transaction (NSBatchUpdateRequest).",
        discussion: """
        Values are expressions in Core Data's syntax over the object (visits + 1, lowercase:(email), nil) and are checked \
        against the model (type, required, min/max, uniqueness); Z_OPT goes up by one on every updated object. \
        Exit 0; 1 when the model refuses the new values (nothing changed); 3 when the store needs a migration first; \
        5 when its version is unknown; 64 for a predicate, key or value that does not fit the model.
        """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var options: BatchOptions

    @Option(name: .customLong("set"), help: ArgumentHelp("KEY = EXPR; repeat for more attributes.", valueName: "assignment"))
    var assignments: [String] = []

    func validate() throws {
        if assignments.isEmpty { throw ValidationError("give at least one --set 'KEY = EXPR'") }
        for text in assignments where BatchUpdateRequest.Assignment(parsing: text) == nil {
            throw ValidationError("--set \(text): expected KEY = EXPR")
        }
    }

    func run() throws {
        let access = try global.openCurrentStore(options.store, access: .readWrite, timeout: options.timeout)
        defer { try? access.store.close() }
        var request = BatchUpdateRequest(entity: options.entity, predicate: options.predicate,
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

/// `migrate delete STORE ENTITY`: Core Data's `NSBatchDeleteRequest`, following delete rules.
struct Delete: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Delete every object a predicate selects, following delete rules, in one transaction (NSBatchDeleteRequest).",
        discussion: """
        Cascade deletes the destinations (recursively), nullify clears the references that remain, deny refuses the whole \
        delete naming the objects; join-table rows go too. Exit 0; 1 when a deny rule refuses (nothing deleted); \
        3 when the store needs a migration first; 5 when its version is unknown; 64 for a predicate that does not fit the model.
        """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var options: BatchOptions

    func run() throws {
        let access = try global.openCurrentStore(options.store, access: .readWrite, timeout: options.timeout)
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

enum BatchRendering {
    static func render(_ result: BatchResult, verb: String, json: Bool) throws {
        if json {
            try Output.json(result)
            return
        }
        let parts = result.byEntity.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        var line = "\(verb) \(result.total) object\(result.total == 1 ? "" : "s")"
        if !parts.isEmpty { line += " (\(parts.joined(separator: ", ")))" }
        if verb.hasSuffix("delete") || verb.hasSuffix("deleted") {
            line += """
                ; \(result.referencesCleared) reference\(result.referencesCleared == 1 ? "" : "s") cleared, \
                \(result.joinRowsRemoved) join row\(result.joinRowsRemoved == 1 ? "" : "s") removed
                """
        }
        if result.dryRun { line += "; dry run, nothing was changed" }
        Output.out(line)
    }
}
