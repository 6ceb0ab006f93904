import Foundation
import ModelMigration
import TestSupport
import Testing

/// A working folder with `Models/Stock` (TestSupport's `StockStore`) and stores of it
/// with many rows, copied from one template per size made once per test run.
struct StockFixture {
    let directory: TemporaryDirectory

    /// Items in a large store: enough that `apply` runs for a while.
    static let largeItems = 20_000
    /// Items in a small store.
    static let smallItems = 300

    init() throws {
        directory = try TemporaryDirectory(prefix: "MigrateCLITests-stock")
        try StockStore.writeModels(in: directory)
    }

    func remove() { directory.remove() }

    /// `--models` for the folder's model.
    var models: [String] { ["--models", "Models"] }

    /// Runs `migrate` in the folder, in process.
    func migrate(_ arguments: [String]) throws -> CommandResult {
        try InProcess.migrate(arguments, in: directory.path)
    }

    /// Runs the built `migrate` in the folder: for what a run in process cannot show
    /// (another process holding the store, signals).
    func binary(_ arguments: [String]) throws -> CommandResult {
        try CommandRunner.migrate(arguments, in: directory.path)
    }

    /// A version 1 store with `items` items, by name.
    @discardableResult
    func store(_ name: String = "stock.sqlite", items: Int = StockFixture.smallItems) throws -> String {
        try directory.write(name, bytes: try StockTemplates.shared.bytes(items: items))
        return name
    }

    func path(_ name: String) -> String { directory.file(name) }

    func snapshot(_ name: String) -> FileSnapshot { FileSnapshot(directory.file(name)) }

    /// The store's summary (version, counts, checksum).
    func summary(_ name: String) throws -> StockStore.Summary { try StockStore.summary(path: path(name)) }

    /// The JSON object `migrate … --json` printed.
    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }
}

/// Version 1 Stock stores, made once per size and shared by tests running in parallel.
final class StockTemplates: Sendable {
    static let shared = StockTemplates()
    private let templates = Locked([Int: [UInt8]]())

    func bytes(items: Int) throws -> [UInt8] {
        // One maker at a time: the large template takes a while, and two tests
        // asking for it at once should not both make it.
        try templates.withLock { templates in
            if let bytes = templates[items] { return bytes }
            let directory = try TemporaryDirectory(prefix: "MigrateCLITests-stock-template")
            defer { directory.remove() }
            try StockStore.create(path: directory.file("template.sqlite"), items: items)
            let bytes = try #require(
                FileManager.default.contents(atPath: directory.file("template.sqlite")).map { [UInt8]($0) })
            templates[items] = bytes
            return bytes
        }
    }
}
