import Foundation
import ModelMigration

/// Progress of a fleet run on stderr, when it is a terminal.
///
/// `@unchecked Sendable`: updated only under `FleetRunner`'s reporting lock.
final class FleetProgress: @unchecked Sendable {
    let total: Int?
    let started = Date()
    let terminal = Output.stderrIsTerminal
    private var lastDraw = Date.distantPast

    init(total: Int?) { self.total = total }

    func update(_ tally: FleetTally) {
        guard terminal else { return }
        let now = Date()
        guard now.timeIntervalSince(lastDraw) > 0.1 || tally.stores == total else { return }
        lastDraw = now
        let estimate = ProgressEstimate(done: Int64(tally.stores), total: total.map(Int64.init), elapsed: now.timeIntervalSince(started))
        var line = "\r\u{1B}[K\(tally.stores)\(total.map { "/\($0)" } ?? "") stores"
        let bad = tally.failed + tally.noPath + tally.unknownVersion
        if bad > 0 { line += ", \(bad) failed" }
        // Stores finish unevenly: a tenth of a store a second is still a rate.
        if let rate = estimate.rate { line += String(format: ", %.1f stores/s", rate) }
        if let left = estimate.secondsLeft { line += ", ETA \(left) s" }
        Output.errRaw(line)
    }

    func finish() { if terminal { Output.errRaw("\r\u{1B}[K") } }
}
