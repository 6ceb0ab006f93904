import Dispatch
import Foundation
import ModelMigration

/// `load`'s progress. On a terminal (without `--json`): a line on stderr, redrawn as
/// lines are read, with the rate and the time left from the bytes of a regular file.
/// Off a terminal: a line on stderr every ``interval`` seconds, and with `--json` a
/// `progress` event on stdout as often (`{"event":"progress","phase":"reading",…}`),
/// so that a long load in a log or a pipeline shows what it is doing — reading, then
/// checking the model's rules and committing — from a thread of its own.
final class LoadProgress {
    /// What the last report said.
    struct State: Sendable {
        var lines = 0
        var bytes: Int64 = 0
        /// Every line was read: the batch's checks and the commit are running.
        var finishedReading = false
    }

    /// Seconds between two lines off a terminal (the promise is at least one every 2 s).
    static let interval = 1.5

    let drawsOnTerminal: Bool
    let ticks: Bool
    let json: Bool
    let bytesInAll: Int64?
    let started = Date()
    private var lastDraw = Date()
    private let state = Locked(State())
    private let stop = DispatchSemaphore(value: 0)
    private var ticker: OSThread?

    /// `quiet`: `--no-progress`.
    init(json: Bool, quiet: Bool, bytesInAll: Int64?) {
        let terminal = Output.stderrIsTerminal
        drawsOnTerminal = !quiet && !json && terminal
        ticks = !quiet && (json || !terminal)
        self.json = json
        self.bytesInAll = bytesInAll
    }

    /// Starts the periodic lines off a terminal (a thread that cannot start leaves them out).
    func start() {
        guard ticks, ticker == nil else { return }
        let (state, stop, json, total, started) = (state, stop, json, bytesInAll, started)
        ticker = try? OSThread.start(stackSize: 256 << 10) {
            while stop.wait(timeout: .now() + Self.interval) == .timedOut {
                Self.emit(state.current, json: json, total: total, elapsed: Date().timeIntervalSince(started))
            }
        }
    }

    /// The loader's report: lines and bytes read so far; `finished` after the last line.
    func report(lines: Int, bytes: Int64, finished: Bool) {
        // Called after every line: an uncontended lock, or a clock read on a terminal.
        if ticks { state.withLock { $0 = State(lines: lines, bytes: bytes, finishedReading: finished) } }
        guard drawsOnTerminal else { return }
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.1 || finished else { return }
        lastDraw = now
        Output.progress(
            Self.text(
                State(lines: lines, bytes: bytes, finishedReading: finished), total: bytesInAll,
                elapsed: now.timeIntervalSince(started)))
    }

    /// Stops the periodic lines and clears the terminal's line.
    func finish() {
        if let ticker {
            stop.signal()
            ticker.join()
            self.ticker = nil
        }
        if drawsOnTerminal { Output.progress(nil) }
    }

    private static func emit(_ state: State, json: Bool, total: Int64?, elapsed: Double) {
        if json {
            Output.jsonLine(
                Event(
                    phase: state.finishedReading ? "checking" : "reading", lines: state.lines, bytes: state.bytes,
                    bytesTotal: total,
                    seconds: (elapsed * 10).rounded() / 10))
        } else {
            Output.err("load: " + text(state, total: total, elapsed: elapsed))
        }
    }

    /// `400000 lines, 210000 lines/s (38% of the file), ETA 3 s`; after the last line,
    /// `1000000 lines read; checking the model's rules and committing (5 s)`.
    static func text(_ state: State, total: Int64?, elapsed: Double) -> String {
        if state.finishedReading {
            return "\(state.lines) lines read; checking the model's rules and committing (\(Int(elapsed)) s)"
        }
        var line = ProgressEstimate(done: Int64(state.lines), total: nil, elapsed: elapsed).text(unit: "lines")
        if let total, total > 0 {
            line += String(format: " (%.0f%% of the file)", Double(state.bytes) / Double(total) * 100)
        }
        if let left = ProgressEstimate(done: state.bytes, total: total, elapsed: elapsed).secondsLeft {
            line += ", ETA \(left) s"
        }
        return line
    }

    /// `load --json`'s progress event.
    struct Event: Encodable {
        var event = "progress"
        var phase: String
        var lines: Int
        var bytes: Int64
        var bytesTotal: Int64?
        var seconds: Double
    }
}
