public import DataModel
import Foundation
public import MigrationPolicies
public import ModelMigration
public import SQLiteStore

/// A model written inline, its versions saved as `Models/<name>/<N>.yaml` in a
/// temporary folder (so that planners and the built `migrate` read the same files),
/// and one store created at a version of it: insert objects, plan, apply, read back.
public final class MigrationScenario {
    /// The folder holding `Models/`, `Migrations/` and the store.
    public let directory: TemporaryDirectory
    /// The model's name.
    public let name: String
    /// The store's path.
    public let storePath: String

    /// `--models`.
    public var modelsFolder: String { directory.file("Models") }
    /// `--migrations`.
    public var migrationsFolder: String { directory.file("Migrations") }

    /// Writes the versions (`versions[i]` is version i + 1 without its `model:` and
    /// `version:` lines) and creates an empty store at `storeVersion`.
    public init(_ name: String, versions: [String], storeVersion: Int = 1, storeName: String = "store.sqlite") throws {
        directory = try TemporaryDirectory(prefix: "mm-scenario")
        self.name = name
        storePath = directory.file(storeName)
        try writeVersions(versions)
        try FileManager.default.createDirectory(atPath: migrationsFolder, withIntermediateDirectories: true)
        let version = try unwrap(try model().version(storeVersion), "\(name) has no version \(storeVersion)")
        try Store.create(path: storePath, version: version).close()
    }

    /// Replaces the model's YAML files (as someone editing a shipped version would).
    public func writeVersions(_ versions: [String]) throws {
        try? FileManager.default.removeItem(atPath: modelsFolder + "/" + name)
        for (offset, text) in versions.enumerated() {
            try directory.write("Models/\(name)/\(offset + 1).yaml", "model: \(name)\nversion: \(offset + 1)\n" + text)
        }
    }

    /// Removes the folder.
    public func remove() { directory.remove() }

    /// The model as compiled from the files now.
    public func model() throws -> CompiledModel {
        try ModelLoader.loadModel(path: modelsFolder + "/" + name)
    }

    /// Runs `body` with read-write access to the store as the version it holds now.
    @discardableResult
    public func withObjects<T>(_ body: (ObjectAccess) throws -> T) throws -> T {
        let store = try Store.open(path: storePath, access: .readWrite)
        defer { try? store.close() }
        let version = try store.currentVersion(among: [try model()])
        let access = try ObjectAccess(store: store, version: version)
        return try store.connection.transaction { try body(access) }
    }

    /// Every object of an entity (with its subentities), read as the version the store holds.
    public func fetch(_ entity: String) throws -> [StoredObject] {
        try withObjects { try $0.fetch(entity) }
    }

    /// The version number the store holds (recognised by its hashes).
    public func storeVersion() throws -> Int {
        let store = try Store.open(path: storePath)
        defer { try? store.close() }
        return try store.currentVersion(among: [try model()]).version
    }

    /// Plans the migration of the store to `target` (default: the current version),
    /// along `path` (default: the planner's rule; `--path chain|direct`), with
    /// `--verify`'s steps when `verify`.
    public func plan(to target: Int? = nil, path: MigrationPath.Preference = .automatic, verify: Bool = false) throws
        -> MigrationPlan
    {
        try plan(PlanningOptions(target: target, path: path, verify: verify))
    }

    /// Plans the migration of the store with `options`.
    public func plan(_ options: PlanningOptions) throws -> MigrationPlan {
        let store = try Store.open(path: storePath)
        defer { try? store.close() }
        return try MigrationPlanner(models: [try model()], migrationsFolder: migrationsFolder, options: options).plan(
            store: store)
    }

    /// Plans and applies; returns the plan that was applied.
    @discardableResult
    public func migrate(
        to target: Int? = nil, path: MigrationPath.Preference = .automatic, verify: Bool = false,
        options: Migrator.Options = Migrator.Options()
    ) throws -> MigrationPlan {
        let plan = try plan(to: target, path: path, verify: verify)
        try Migrator().apply(plan, options: options)
        return plan
    }

    /// Writes a mapping file, `Migrations/<model>/<file>` (`"1-to-2.yaml"`).
    public func writeMapping(_ file: String, _ text: String) throws {
        _ = try directory.write("Migrations/\(name)/\(file)", text)
    }

    /// Plans and applies with a catalog's policies, as a deploy package's own
    /// `migrate` would (the policies a mapping file names, their declared inputs
    /// and the ones not written yet, checked when planning); `verify` checks the
    /// whole store afterwards. Returns the plan that was applied.
    @discardableResult
    public func migrate(to target: Int? = nil, policies catalog: PolicyCatalog, verify: Bool = true) throws
        -> MigrationPlan
    {
        let store = try Store.open(path: storePath)
        var planner = MigrationPlanner(
            models: [try model()], migrationsFolder: migrationsFolder, knownPolicies: Set(catalog.names),
            options: PlanningOptions(target: target, verify: verify))
        planner.policyInputs = catalog.declaredInputs
        planner.policyUnwritten = catalog.unwritten
        planner.policyFunctions = catalog.functions
        let plan: MigrationPlan
        do {
            plan = try planner.plan(store: store)
            try store.close()
        } catch {
            try? store.close()
            throw error
        }
        try Migrator(policyRunner: PolicyEngine(catalog: catalog)).apply(plan)
        return plan
    }

    /// The rows of a query, each as its values.
    package func rows(_ sql: String) throws -> [[DatabaseValue]] {
        let store = try Store.open(path: storePath)
        defer { try? store.close() }
        return try store.connection.prepare(sql).rows()
    }

    /// The column names of a table, in order.
    package func columns(_ table: String) throws -> [String] {
        let store = try Store.open(path: storePath)
        defer { try? store.close() }
        return try store.connection.columns(of: table).map(\.name)
    }

    /// `Z_PRIMARYKEY` as (number, name, parent, max key), by number.
    package func entityKeys() throws -> [EntityKeyRow] {
        let store = try Store.open(path: storePath)
        defer { try? store.close() }
        return try store.entityKeyRows()
    }
}

/// Unwraps `value` or throws (test support cannot use Swift Testing's `#require`).
func unwrap<T>(_ value: T?, _ what: @autoclosure () -> String) throws -> T {
    guard let value else { throw TestSupportError(description: what()) }
    return value
}
