public import DataModel
import Foundation
import Mapping
import MigrationPolicies
public import SQLiteStore

/// Why a store could not be opened for a model.
public struct StoreOpenError: Error, Sendable, CustomStringConvertible {
    /// The reason, from the one table of outcomes: `migrationNeeded` (automatic
    /// migration is off), `noPath` (a hop has no mapping file and inference is off,
    /// or inference refused it), `unknownVersion`, or `failed` (the store is unchanged).
    public var kind: Outcome.Kind
    /// What happened, for people.
    public var message: String

    /// Creates an error.
    public init(kind: Outcome.Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// Opens a store for a model, creating or migrating it as Core Data's
/// `NSPersistentContainer` does with `shouldMigrateStoreAutomatically` and
/// `shouldInferMappingModelAutomatically`.
///
/// ```swift
/// let model = try ModelLoader.loadModel(path: "Models", named: "Contacts")
/// let store = try StoreOpener(model: model, migrationsFolder: "Migrations").open(path: "contacts.sqlite")
/// let people = try ObjectAccess(store: store, version: model.current).fetch("Person")
/// ```
public struct StoreOpener {
    /// The application's model (every version).
    public var model: CompiledModel
    /// The folder of mapping files, if any.
    public var migrationsFolder: String?
    /// Runs the policies named by mapping files.
    public var policyRunner: (any PolicyRunning)?
    /// Policy names the runner provides (checked while planning).
    public var policyNames: Set<String>?
    /// Migrate when the store is at an older version (default true).
    public var shouldMigrateStoreAutomatically = true
    /// Infer mappings for hops without a mapping file (default true).
    public var shouldInferMappingModelAutomatically = true
    /// Seconds to wait for another process's lock.
    public var timeout: Double = 30

    /// Creates an opener for `model`.
    public init(
        model: CompiledModel, migrationsFolder: String? = nil, policyRunner: (any PolicyRunning)? = nil,
        policyNames: Set<String>? = nil
    ) {
        self.model = model
        self.migrationsFolder = migrationsFolder
        self.policyRunner = policyRunner
        self.policyNames = policyNames
    }

    /// Returns the store at `path`, ready for the model's current version: created
    /// when missing, migrated when older (when allowed), or an error saying why not.
    public func open(path: String) throws(StoreOpenError) -> Store {
        do {
            if !FileManager.default.fileExists(atPath: path) {
                return try Store.create(path: path, version: model.current)
            }
            let plan: MigrationPlan
            do {
                let reader = try Store.open(path: path, access: .readOnly, busyTimeout: timeout)
                defer { try? reader.close() }
                var planner = MigrationPlanner(
                    models: [model], migrationsFolder: migrationsFolder ?? "/nonexistent", knownPolicies: policyNames)
                if let engine = policyRunner as? PolicyEngine { planner.policyInputs = engine.catalog.declaredInputs }
                if let engine = policyRunner as? PolicyEngine {
                    planner.policyUnwritten = engine.catalog.unwritten
                    planner.policyFunctions = engine.catalog.functions
                }
                plan = try planner.plan(store: reader)
            }
            if !plan.isEmpty {
                guard shouldMigrateStoreAutomatically else {
                    throw StoreOpenError(
                        kind: .migrationNeeded,
                        message: """
                            \(path): the store is at version \(plan.sourceVersion) of \(model.name); \
                            version \(plan.targetVersion) needs a migration (automatic migration is off)
                            """)
                }
                if !shouldInferMappingModelAutomatically,
                    let hop = plan.hops.first(where: { $0.mapping.mappingFile == nil })
                {
                    throw StoreOpenError(
                        kind: .noPath,
                        message:
                            "\(path): hop \(hop.from) → \(hop.to) has no mapping file and inferring mappings is off")
                }
                try Migrator(policyRunner: policyRunner).apply(plan, options: Migrator.Options(timeout: timeout))
            }
            return try Store.open(path: path, access: .readWrite, busyTimeout: timeout)
        } catch let error as StoreOpenError {
            throw error
        } catch {
            let planning = PlanningError(classifying: error)
            // An unknown version's message names the store; other planning refusals are prefixed with it.
            let named = planning.kind == .unknownVersion || (planning.kind == .failed && planning.underlying != nil)
            throw StoreOpenError(
                kind: Outcome(planning).kind, message: named ? planning.message : "\(path): \(planning)")
        }
    }
}
