import Foundation
import ModelMigration

/// Counts of a fleet run, and the stores that need a person's attention.
struct FleetTally: Encodable {
    var stores = 0
    var current = 0
    var migrationNeeded = 0
    var migrated = 0
    var wouldMigrate = 0
    var noPath = 0
    var unknownVersion = 0
    /// Stores whose plan loses data, refused by `--fail-on-destructive`.
    var destructive = 0
    var failed = 0
    /// Stores a signal stopped: their migration rolled back.
    var interrupted = 0
    /// Stores a stopped run never started (unchanged).
    var notStarted = 0
    /// Paths that reach a store listed before them (handled once, as that path).
    var duplicates = 0
    /// `fleet restore`: stores put back from their backups.
    var restored = 0
    /// Listed paths that name a backup copy or a store `restore` replaced: never migrated.
    var notAStore = 0
    var seconds = 0.0
    /// Every store that is not fine, with why (these are few, or the run is wrong),
    /// every duplicate path, with the path it duplicates, and every listed path that is
    /// not a store.
    var problems: [Problem] = []

    struct Problem: Encodable {
        var store: String
        var status: String
        var message: String
    }

    mutating func add(_ outcome: FleetStoreOutcome) {
        stores += 1
        switch outcome.status {
        case .current: current += 1
        case .migrationNeeded: migrationNeeded += 1
        case .migrated: migrated += 1
        case .wouldMigrate: wouldMigrate += 1
        case .noPath: noPath += 1
        case .unknownVersion: unknownVersion += 1
        case .destructive: destructive += 1
        case .interrupted where !outcome.started:
            notStarted += 1
            return
        case .interrupted: interrupted += 1
        case .failed, .usage: failed += 1
        case .duplicate: duplicates += 1
        case .restored: restored += 1
        case .notAStore: notAStore += 1
        }
        if outcome.status.isFailure || outcome.status == .duplicate || outcome.status == .notAStore {
            problems.append(Problem(store: outcome.path, status: outcome.status.word, message: outcome.message ?? ""))
        }
    }

    /// How the run ends: the weightiest outcome among the stores
    /// (``Outcome/Kind/weight``: a destructive plan refused, then a failure, an
    /// unknown version, no path); `migration-needed` counts only when the command
    /// answers that question (`fleet status`, exit 3); nil when every store's
    /// outcome exits 0.
    func ending(answeringStatus: Bool) -> Outcome.Kind? {
        let present: [(count: Int, kind: Outcome.Kind)] = [
            (destructive, .destructive), (failed, .failed), (unknownVersion, .unknownVersion),
            (noPath, .noPath), (answeringStatus ? migrationNeeded : 0, .migrationNeeded),
        ]
        return present.filter { $0.count > 0 }.map(\.kind).max { $0.weight < $1.weight }
    }

    /// `N of M stores have a destructive plan (--fail-on-destructive)`, for stderr.
    var destructiveSummary: String {
        """
        \(destructive) of \(stores) store\(stores == 1 ? "" : "s") \(destructive == 1 ? "has" : "have") a destructive \
        plan (--fail-on-destructive)
        """
    }

    /// The problems, grouped by status, for the closing text.
    func problemLines() -> [String] {
        var lines: [String] = []
        let groups: [(Outcome.Kind, String)] = [
            (.destructive, "destructive plans (--fail-on-destructive)"), (.failed, "failed"),
            (.interrupted(signal: SIGINT), "stopped by the signal, rolled back (unchanged)"),
            (.unknownVersion, "unknown version"), (.noPath, "no migration path"),
            (.duplicate, "reached again by another path, handled once"),
            (.notAStore, "listed, but a backup copy or a kept replaced store, never migrated"),
        ]
        for (kind, title) in groups {
            // By path, whatever order the jobs finished in: the same run reads the same.
            let some = problems.filter { $0.status == kind.word }.sorted { $0.store < $1.store }
            if some.isEmpty { continue }
            lines.append("\(title) (\(some.count)):")
            for problem in some {
                lines.append("  \(problem.store): " + problem.message.replacingOccurrences(of: "\n", with: "\n  "))
            }
        }
        return lines
    }
}
