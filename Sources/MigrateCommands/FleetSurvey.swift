import ArgumentParser
import DataModel
import Foundation
import ModelMigration

/// What `fleet status` and `fleet plan` gather: counts per version, one plan per
/// chain (the first store's), and the problems. Called one outcome at a time, from
/// the runner's workers.
final class FleetSurvey: Sendable {
    let json: Bool
    let showSQL: Bool
    /// `fleet status`: the policies this `migrate` has; the policies stores' hops
    /// name beyond them are named (as `status` names them), never refused.
    let knownPolicies: Set<String>?
    private let gathered = Locked(Gathered())
    /// When the survey began: the summary's `tally.seconds` is the run's time.
    let started = Date()

    /// What the outcomes added so far say.
    struct Gathered {
        var tally = FleetTally()
        var versions: [VersionKey: Int] = [:]
        var chains: [ChainKey: (count: Int, plan: MigrationPlan)] = [:]
        var chainOrder: [ChainKey] = []
        /// The missing policies found, each once with the mapping file naming it.
        var missingPolicies: [(policy: String, mappingFile: String?)] = []

        mutating func add(_ outcome: FleetStoreOutcome, missing: [(policy: String, mappingFile: String?)]) {
            tally.add(outcome)
            for entry in missing where !missingPolicies.contains(where: { $0 == entry }) {
                missingPolicies.append(entry)
            }
            guard let model = outcome.model, let version = outcome.version, let target = outcome.target else { return }
            // A store that has no path (or failed its plan) gets a row of its own beside
            // the stores of its version that migrate.
            let blocked = [.noPath, .failed, .unknownVersion].contains(outcome.status) ? outcome.status.word : nil
            versions[VersionKey(model: model, version: version, target: target, blocked: blocked), default: 0] += 1
            if [.migrationNeeded, .destructive].contains(outcome.status), let plan = outcome.plan {
                let key = ChainKey(model: model, from: version, to: target)
                if let known = chains[key] {
                    chains[key] = (known.count + 1, known.plan)
                } else {
                    chains[key] = (1, plan)
                    chainOrder.append(key)
                }
            }
        }
    }

    struct VersionKey: Hashable, Comparable {
        var model: String, version: Int, target: Int
        /// The outcome's word when its stores cannot migrate (`noPath`, `failed`).
        var blocked: String?
        static func < (a: Self, b: Self) -> Bool {
            (a.model, a.version, a.target, a.blocked ?? "") < (b.model, b.version, b.target, b.blocked ?? "")
        }
    }

    struct ChainKey: Hashable {
        var model: String, from: Int, to: Int
    }

    init(json: Bool, showSQL: Bool = false, knownPolicies: Set<String>? = nil) {
        self.json = json
        self.showSQL = showSQL
        self.knownPolicies = knownPolicies
    }

    func add(_ outcome: FleetStoreOutcome) {
        let missing = knownPolicies.flatMap { known in outcome.plan?.missingPolicies(known: known) } ?? []
        gathered.withLock { $0.add(outcome, missing: missing) }
        if json { Output.jsonLine(FleetStoreRecord(outcome, missingPolicies: missing.map(\.policy))) }
    }

    /// Prints the closing report and returns how the run ends (nil: exit 0).
    func finish(command: String, shard: FleetShard?, showPlans: Bool, sharded: Bool) throws -> Outcome.Kind? {
        var gathered = self.gathered.withLock { $0 }
        gathered.tally.seconds = (Date().timeIntervalSince(started) * 1000).rounded() / 1000
        let tally = gathered.tally
        if tally.stores == 0 && !sharded {
            throw ValidationError("no stores found (folders are searched for --pattern, *.sqlite by default)")
        }
        let ending = tally.ending(answeringStatus: command == "status")
        if json {
            Output.jsonLine(
                summary(gathered, command: command, shard: shard, code: ending?.exitCode ?? 0, showPlans: showPlans))
            return ending
        }
        var lines = ["\(tally.stores) store\(tally.stores == 1 ? "" : "s")\(shard.map { " in shard \($0)" } ?? "")"]
        lines.append(contentsOf: versionLines(gathered))
        var counts: [String] = []
        if tally.current > 0 { counts.append("\(tally.current) current") }
        if tally.migrationNeeded > 0 { counts.append("\(tally.migrationNeeded) to migrate") }
        if tally.destructive > 0 { counts.append("\(tally.destructive) with a destructive plan") }
        if tally.noPath > 0 { counts.append("\(tally.noPath) without a migration path") }
        if tally.unknownVersion > 0 { counts.append("\(tally.unknownVersion) of an unknown version") }
        if tally.failed > 0 { counts.append("\(tally.failed) failed (unreadable, or not plannable)") }
        if tally.duplicates > 0 { counts.append("\(tally.duplicates) reached again by another path") }
        if !counts.isEmpty { lines.append(counts.joined(separator: ", ")) }
        if showPlans {
            for key in gathered.chainOrder {
                let (count, plan) = gathered.chains[key]!
                lines.append("")
                lines.append(
                    """
                    == \(key.model) \(key.from) → \(key.to): \(count) store\(count == 1 ? "" : "s") (plan of \
                    \(plan.storePath))
                    """
                )
                lines.append(contentsOf: PlanRenderer.hopLines(plan, showSQL: showSQL))
            }
        }
        let problems = tally.problemLines()
        if !problems.isEmpty {
            lines.append("")
            lines.append(contentsOf: problems)
        }
        Output.out(lines.joined(separator: "\n"))
        for (policy, file) in gathered.missingPolicies {
            Output.err(GlobalOptions.missingPolicyWarning(policy, file: file))
        }
        if tally.destructive > 0 {
            Output.err("error: " + tally.destructiveSummary)
        }
        return ending
    }

    /// The closing JSON Lines record.
    func summary(_ gathered: Gathered, command: String, shard: FleetShard?, code: Int32, showPlans: Bool)
        -> FleetSummaryRecord
    {
        let chainRecords =
            showPlans
            ? gathered.chainOrder.map { key -> FleetSummaryRecord.ChainRecord in
                let (count, plan) = gathered.chains[key]!
                return .init(
                    model: key.model, from: key.from, to: key.to, stores: count, example: plan.storePath,
                    steps: plan.allSteps.map(\.summary), warnings: plan.warnings.map(\.description))
            } : nil
        let versionRecords = gathered.versions.sorted { $0.key < $1.key }.map { entry in
            FleetSummaryRecord.VersionCount(
                model: entry.key.model, version: entry.key.version, target: entry.key.target, stores: entry.value,
                status: entry.key.blocked
                    ?? (entry.key.version == entry.key.target ? Outcome.Kind.current : .migrationNeeded).word)
        }
        return FleetSummaryRecord(
            command: command, shard: shard?.description, exitCode: code, tally: gathered.tally,
            versions: versionRecords,
            chains: chainRecords)
    }

    /// The table of stores per model and version.
    func versionLines(_ gathered: Gathered) -> [String] {
        guard !gathered.versions.isEmpty else { return [] }
        let rows = gathered.versions.sorted { $0.key < $1.key }.map { entry -> [String] in
            let key = entry.key
            let current =
                key.version == key.target
                && gathered.chains[ChainKey(model: key.model, from: key.version, to: key.target)] == nil
            let status =
                switch key.blocked {
                case Outcome.Kind.noPath.word?: "no migration path to \(key.target)"
                case .some: "could not be planned"
                case nil: current ? "current" : "migration to \(key.target) needed"
                }
            return [key.model, String(key.version), String(entry.value), status]
        }
        return TextTable.render(header: ["model", "version", "stores", "status"], rows: rows).map { "  " + $0 }
    }
}
