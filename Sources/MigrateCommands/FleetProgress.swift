import Foundation
import ModelMigration

/// Progress of a fleet run on stderr, when it is a terminal.
final class FleetProgress: Sendable {
    let total: Int?
    let started = Date()
    let terminal = Output.stderrIsTerminal
    private let lastDraw = Locked(Date.distantPast)

    init(total: Int?) { self.total = total }

    func update(_ tally: FleetTally) {
        guard terminal else { return }
        let now = Date()
        let due = lastDraw.withLock { last -> Bool in
            guard now.timeIntervalSince(last) > 0.1 || tally.stores == total else { return false }
            last = now
            return true
        }
        guard due else { return }
        let estimate = ProgressEstimate(
            done: Int64(tally.stores), total: total.map(Int64.init), elapsed: now.timeIntervalSince(started))
        var line = "\(tally.stores)\(total.map { "/\($0)" } ?? "") stores"
        let bad = tally.failed + tally.noPath + tally.unknownVersion
        if bad > 0 { line += ", \(bad) failed" }
        // Stores finish unevenly: a tenth of a store a second is still a rate.
        if let rate = estimate.rate { line += String(format: ", %.1f stores/s", rate) }
        if let left = estimate.secondsLeft { line += ", ETA \(left) s" }
        Output.progress(line)
    }

    func finish() { if terminal { Output.progress(nil) } }
}
