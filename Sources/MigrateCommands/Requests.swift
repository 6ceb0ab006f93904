import ArgumentParser
import DataModel
import Foundation
import ModelMigration
import SQLiteStore

extension GlobalOptions {
    /// Opens a store for a fetch, batch update or batch delete: the store must hold
    /// the current version of its model (exit 3, with the hint to migrate, when it
    /// is older; 5 when its version is unknown), as Core Data requires of a store
    /// before any request runs.
    func openCurrentStore(_ path: String, access: Store.Access, timeout: Double = 5) throws -> ObjectAccess {
        let options: PlanOptions
        // After `--`, so that a path starting with a dash is a path, as every command takes it.
        do { options = try PlanOptions.parse(["--", path]) } catch { throw fail("\(path): not a store path", .usage) }
        // Whether the store is current needs no policy: one this migrate lacks must not
        // hide the answer (exit 3, migrate first) behind exit 4.
        let plan: MigrationPlan
        do {
            let planning = try PlanningFlags.parse([]).options(target: options.to)
            plan = try storeRun(planning, checkingPolicies: false).plan(path, timeout: timeout).plan
        } catch {
            throw fail((error as? PlanningFailure) ?? Self.planningFailure(Outcome(error)))
        }
        if !plan.isEmpty {
            throw fail(
                """
                \(path): the store is at version \(plan.sourceVersion) of \(plan.model), and the current version is \
                \(plan.targetVersion); migrate it first (`\(Migrate.toolName) apply \(path)`)
                """,
                .migrationNeeded)
        }
        do {
            let store = try Store.open(path: path, access: access, busyTimeout: timeout)
            let version = try store.currentVersion(among: try loadModels())
            return try ObjectAccess(store: store, version: version)
        } catch let error as UnknownVersionError {
            throw fail(error)
        } catch let error as StoreError {
            throw fail(error)
        }
    }

    /// Opens a store for reading (`fetch`, `dump`) at the version it holds, which
    /// need not be the current one: the models hold that version, or the store's own
    /// copy of its compiled model does. An older store is read as it is and stderr
    /// says so; nothing is planned, so mapping files and policies play no part.
    /// Exit 5 when its version is unknown, 1 when it cannot be read, 64 when the
    /// version has no entity `entity` (checked first, before the note).
    func openStoreForReading(
        _ path: String, models: [CompiledModel], entity: String?, access: Store.Access = .readOnly, timeout: Double = 5
    ) throws -> ObjectAccess {
        do {
            let store = try Store.open(path: path, access: access, busyTimeout: timeout)
            let version = try store.currentVersion(among: models)
            if let entity { try requireEntity(entity, in: version) }
            if let model = models.first(where: { $0.name == version.model }), version.version < model.current.version {
                Output.err(
                    """
                    note: \(path) is at version \(version.version) of \(version.model) (the current version is \
                    \(model.current.version)); reading it at its own version (`\(Migrate.toolName) apply \(path)` \
                    migrates it)
                    """)
            }
            return try ObjectAccess(store: store, version: version)
        } catch let error as UnknownVersionError {
            throw fail(error)
        } catch let error as StoreError {
            throw fail(error)
        }
    }

    /// Opens a store for `update` or `delete`: at the current version, or, for a
    /// `--dry-run`, which changes nothing (its transaction is rolled back), at the
    /// version the store holds, as `fetch` reads it.
    func openStoreForRequest(_ options: BatchOptions) throws -> ObjectAccess {
        guard options.dryRun else {
            return try openCurrentStore(options.store, access: .readWrite, timeout: options.timeout)
        }
        return try openStoreForReading(
            options.store, models: try loadModels(), entity: options.entity, access: .readWrite,
            timeout: options.timeout)
    }

    /// The entity of a command's argument; an unknown one is a usage error (64)
    /// with a suggestion, as `fetch`, `update` and `delete` report it.
    func requireEntity(_ name: String, in version: CompiledVersion, suffix: String = "") throws {
        guard version.entity(named: name) == nil else { return }
        let hint = Suggestions.hint(for: name, in: version.entities.map(\.name)).map { " (\($0))" } ?? ""
        throw fail(
            """
            unknown entity '\(name)'\(hint) (model \(version.model) version \(version.version) \
            has \(version.entities.map(\.name).joined(separator: ", ")))\(suffix)
            """, .usage)
    }

}

extension GlobalOptions {
    /// Runs a writing command's transaction on `store` so that SIGINT and SIGTERM
    /// roll it back and exit 128 + the signal's number with a message, as `apply`
    /// does, instead of killing the process with a hot journal beside the store.
    func rollingBackOnSignals<T>(_ store: Store, _ body: () throws -> T) throws -> T {
        try rollingBackOnSignals(store) { (_: MigrationCancellation) in try body() }
    }

    /// ``rollingBackOnSignals(_:_:)`` handing `body` the cancellation, for work that
    /// waits outside SQLite (reading standard input) and must stop on a signal too.
    func rollingBackOnSignals<T>(_ store: Store, _ body: (MigrationCancellation) throws -> T) throws -> T {
        let interruption: SignalCancellation
        do { interruption = try SignalCancellation() } catch { throw fail("\(store.path): \(error)", .failed) }
        defer { interruption.stop() }
        interruption.cancellation.guardStatements(of: store)
        defer { interruption.cancellation.release(store) }
        do {
            return try body(interruption.cancellation)
        } catch {
            // A store the guarded write could not prove unchanged (a journal it could
            // not remove) is said as such, as apply says it, not as a clean rollback.
            guard let signal = interruption.signal, !Self.leftUnproven(error) else { throw error }
            throw fail("interrupted: rolled back, the store is unchanged", .interrupted(signal: signal))
        }
    }

    /// Whether `error` says a failed write could not be proven to have left the store
    /// unchanged (`load`'s guarded write, or a request's).
    static func leftUnproven(_ error: any Error) -> Bool {
        error is UnprovenWrite || (error as? RequestError)?.isUnproven == true
    }
}
