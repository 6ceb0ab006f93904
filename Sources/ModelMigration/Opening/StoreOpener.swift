import DataModel
import Foundation
import Mapping
import SQLiteStore

/// Why a store could not be opened for a model.
public struct StoreOpenError: Error, Sendable, CustomStringConvertible {
    /// The reason.
    public enum Kind: Sendable, Hashable {
        /// The store needs a migration and automatic migration is off.
        case migrationNeeded
        /// A hop has no mapping file and inference is off, or inference refused it.
        case noMigrationPath
        /// The store's hashes match no version of the model.
        case unknownVersion
        /// Opening or migrating failed; the store is unchanged.
        case failed
    }

    /// The reason.
    public var kind: Kind
    /// What happened, for people.
    public var message: String

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
    public init(model: CompiledModel, migrationsFolder: String? = nil, policyRunner: (any PolicyRunning)? = nil, policyNames: Set<String>? = nil) {
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
                var planner = MigrationPlanner(models: [model], migrationsFolder: migrationsFolder ?? "/nonexistent", knownPolicies: policyNames)
                if let engine = policyRunner as? PolicyEngine { planner.policyInputs = engine.catalog.declaredInputs }
                if let engine = policyRunner as? PolicyEngine {
                    planner.policyUnwritten = engine.catalog.unwritten
                    planner.policyFunctions = engine.catalog.functions
                }
                plan = try planner.plan(store: reader)
            }
            if !plan.isEmpty {
                guard shouldMigrateStoreAutomatically else {
                    throw StoreOpenError(kind: .migrationNeeded, message: """
                        \(path): the store is at version \(plan.sourceVersion) of \(model.name); \
                        version \(plan.targetVersion) needs a migration (automatic migration is off)
                        """)
                }
                if !shouldInferMappingModelAutomatically, let hop = plan.hops.first(where: { $0.mapping.mappingFile == nil }) {
                    throw StoreOpenError(kind: .noMigrationPath,
                                         message: "\(path): hop \(hop.from) → \(hop.to) has no mapping file and inferring mappings is off")
                }
                try Migrator(policyRunner: policyRunner).apply(plan, options: Migrator.Options(timeout: timeout))
            }
            return try Store.open(path: path, access: .readWrite, busyTimeout: timeout)
        } catch let error as StoreOpenError {
            throw error
        } catch {
            let planning = PlanningError(classifying: error)
            switch planning.kind {
            case .unknownVersion: throw StoreOpenError(kind: .unknownVersion, message: planning.message)
            case .noPath, .unknownTarget: throw StoreOpenError(kind: .noMigrationPath, message: "\(path): \(planning)")
            case .storeMismatch: throw StoreOpenError(kind: .failed, message: "\(path): \(planning)")
            case .failed: throw StoreOpenError(kind: .failed, message: planning.underlying == nil ? "\(path): \(planning)" : planning.message)
            }
        }
    }
}
