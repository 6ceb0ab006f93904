public import DataModel
import Foundation
import SQLiteStore

/// One store's run, the one path from a store's path to its outcome: open → plan →
/// gate → apply → outcome. `migrate apply`, `plan` and `status` run it on one store and
/// ``FleetRunner`` on each store of a fleet, so that a store is planned, gated and
/// migrated by the same rules whichever command asks; the commands only render what
/// it returns (Docs/Architecture.md, "Following `migrate apply`").
public struct StoreRun: Sendable {
    /// The planner every store is planned with (models compiled once).
    public var planner: MigrationPlanner
    /// A policy runner for one store's migration (policies are not shared between
    /// stores migrating at the same time).
    public var makePolicyRunner: @Sendable () -> (any PolicyRunning)?
    /// `--fail-on-destructive`: a plan that loses data not accepted is refused
    /// (``MigrationPlan/destructiveRefusal``), and the store left as it is.
    public var refusesDestructivePlans = false
    /// The reviewed losses of a model (`--accept`, `accepted-losses.yaml`), read when
    /// a store of it is planned: the gate lets them through and the plan's warnings
    /// say they were accepted. An error thrown (a name that names nothing) is the run's
    /// outcome.
    package var acceptedLosses: @Sendable (CompiledModel) throws -> AcceptedLosses = { _ in AcceptedLosses() }
    /// The name the tool is run by, in the commands messages suggest (a deploy
    /// package's own `migrate` may have another).
    public var toolName = "migrate"

    /// A run with `planner`.
    public init(planner: MigrationPlanner, makePolicyRunner: @escaping @Sendable () -> (any PolicyRunning)? = { nil }) {
        self.planner = planner
        self.makePolicyRunner = makePolicyRunner
    }

    /// A store's plan as the gate leaves it: its accepted losses marked, and the gate's
    /// refusal when it refuses (nil when the gate is off or nothing unaccepted is lost).
    public struct Gated: Sendable {
        /// The plan.
        public var plan: MigrationPlan
        /// The compiled model the plan migrates a store of.
        public var model: CompiledModel
        /// The gate's refusal (exit 6).
        public var refusal: Outcome?
    }

    /// Plans the store at `path`, read-only, and gates the plan. `cancellation` stops
    /// the planning's own reads (a mapping file's filter counted over the store may
    /// run long). Throws what planning or the gate's reviewed losses threw.
    /// The failure is an ``Outcome``; a store newer than the models (a rollback of the
    /// code) is told how to put back the backup taken before it was migrated.
    public func plan(_ path: String, timeout: Double, cancellation: MigrationCancellation? = nil) throws(Outcome)
        -> Gated
    {
        do {
            if let reason = FleetStoreList.notAStoreReason(path) { throw Outcome(.failed, "\(path): \(reason)") }
            let store = try Store.open(path: path, access: .readOnly, busyTimeout: timeout)
            defer { try? store.close() }
            cancellation?.guardStatements(of: store)
            defer { cancellation?.release(store) }
            let plan = try planner.plan(store: store)
            guard let model = planner.models.first(where: { $0.name == plan.model }) else {
                throw Outcome(.failed, "\(path): no model \(plan.model)")
            }
            let marked = plan.accepting(try acceptedLosses(model))
            return Gated(plan: marked, model: model, refusal: refusesDestructivePlans ? marked.destructiveRefusal : nil)
        } catch {
            var outcome = Outcome(error)
            if outcome.kind == .unknownVersion {
                outcome.message += restoreHint(PlanningError(classifying: error), store: path)
            }
            throw outcome
        }
    }

    /// For a store newer than this deployment (a rollback of the code, not of the
    /// store): the command that puts back the backup taken before the newer release
    /// migrated it.
    private func restoreHint(_ planning: PlanningError, store: String) -> String {
        guard let unknown = planning.underlying as? UnknownVersionError, unknown.drift == nil,
            let recognition = unknown.recognition,
            let stamped = recognition.stampedVersion, let current = recognition.currentVersion, stamped > current
        else { return "" }
        return """

            to go back to version \(current): `\(toolName) restore \(ShellWord.quoted(store)) --backup-dir DIR \
            --version \(current)` puts back the backup `apply --backup-dir DIR` kept when it migrated the store from \
            version \(current) (changes made to the store since are lost; Docs/Deploying.md: "Rolling back")
            """
    }

    /// What a run of ``apply(_:options:interruptedBy:progress:)`` came to.
    public enum Ending: Sendable {
        /// The store is at its target and nothing was asked of it (no `--verify`).
        case current(MigrationPlan)
        /// `Migrator.apply` ran the plan (a migration, a dry run, or `--verify` of a
        /// store already current).
        case ran(MigrationPlan, MigrationResult)
        /// Another process migrated the store to the plan's target between the plan
        /// and the lock: nothing to do, and no backup kept by this run.
        case migratedByAnother(MigrationPlan)
        /// The gate refused the plan (`--fail-on-destructive`); the store is unchanged.
        case refused(MigrationPlan, Outcome)
        /// Planning failed (the store was only read): no plan.
        case notPlanned(Outcome)
        /// The migration failed and rolled back: the store is unchanged.
        case failed(MigrationPlan, Outcome)

        /// The outcome's kind: the exit code and status word of the run.
        public var kind: Outcome.Kind {
            switch self {
            case .current, .migratedByAnother: .current
            // `--verify` of a store already current leaves it current.
            case .ran(let plan, let result): plan.isEmpty ? .current : result.dryRun ? .wouldMigrate : .migrated
            case .refused(_, let outcome), .notPlanned(let outcome), .failed(_, let outcome): outcome.kind
            }
        }

        /// The plan, when there was one.
        public var plan: MigrationPlan? {
            switch self {
            case .current(let plan), .ran(let plan, _), .migratedByAnother(let plan), .refused(let plan, _),
                .failed(let plan, _):
                plan
            case .notPlanned: nil
            }
        }
    }

    /// Plans the store at `path`, gates the plan and, unless the store is current with
    /// nothing to verify, migrates it with `options` (their `cancellation` also stops
    /// the planning). `interruptedBy` names the signal that cancelled the run, if one
    /// did: a failure is then `interrupted`. `willMigrate` is told the plan the run
    /// migrates by, before it does (`apply` prints its warnings then).
    ///
    /// A store another process migrated to the plan's target after the plan (the
    /// migrator found it changed, or locked until it was) ends as
    /// ``Ending/migratedByAnother(_:)``, when the same store (its UUID) now has the
    /// target's hashes and layout.
    public func apply(
        _ path: String, options: Migrator.Options, interruptedBy: @Sendable () -> Int32? = { nil },
        willMigrate: (MigrationPlan) -> Void = { _ in }, progress: (MigrationEvent) -> Void = { _ in }
    ) -> Ending {
        let gated: Gated
        do {
            gated = try plan(path, timeout: options.timeout, cancellation: options.cancellation)
        } catch {
            if let signal = interruptedBy() {
                return .notPlanned(
                    Outcome(.interrupted(signal: signal), "interrupted: rolled back, the store is unchanged"))
            }
            return .notPlanned(Outcome(error))
        }
        let plan = gated.plan
        if plan.isEmpty && plan.verification.isEmpty { return .current(plan) }
        if let refusal = gated.refusal { return .refused(plan, refusal) }
        willMigrate(plan)
        do {
            let result = try Migrator(policyRunner: makePolicyRunner()).apply(
                plan, options: options, progress: progress)
            return .ran(plan, result)
        } catch {
            let signal = interruptedBy()
            if signal == nil, let error = error as? MigrationError,
                error.kind == .storeChanged || error.kind == .locked,
                Migrator.reachedTarget(plan, timeout: options.timeout)
            {
                return .migratedByAnother(plan)
            }
            return .failed(plan, Outcome(error, signal: signal))
        }
    }
}
