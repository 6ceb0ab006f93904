import ArgumentParser
import DataModel
import Foundation
import ModelMigration
import ScratchFiles

#if canImport(Glibc)
    import Glibc

    /// write(2), which `Output.write` hides by name inside `Output`.
    private let systemWrite = Glibc.write
#else
    import Darwin

    private let systemWrite = Darwin.write
#endif

/// Writing to stdout and stderr; human text and JSON never mix on stdout.
///
/// A write that fails (stdout closed, a full disk under `> file`) never traps, as
/// `FileHandle.write(_:)` does, after a command's work is done: the first failure is
/// kept, later output to that stream is dropped, and ``finish()`` reports it.
enum Output {
    /// The run writing, with its streams and what its writes have met so far.
    private static var run: Invocation { Invocation.current }

    /// Why standard output could not be written, once it could not.
    static var stdoutFailure: String? { run.outputState.withLock { $0.stdoutFailure } }
    /// Set by commands whose product is their output (`dump`, `fetch`): a lost
    /// write then fails the command instead of leaving a short file behind exit 0.
    static var outputIsTheProduct: Bool {
        get { run.outputState.withLock { $0.outputIsTheProduct } }
        set { run.outputState.withLock { $0.outputIsTheProduct = newValue } }
    }

    /// The two streams a run writes.
    private enum Stream {
        case output, errors
    }

    /// Keeps the first failure of stdout's writes (the later ones only repeat it).
    private static func failed(_ stream: Stream, _ reason: String, in run: Invocation) {
        run.outputState.withLock { state in
            if stream == .errors {
                state.stderrFailed = true
            } else if state.stdoutFailure == nil {
                state.stdoutFailure = reason
            }
        }
    }

    private static func emit(_ text: String, to stream: Stream) {
        let run = self.run
        guard run.outputState.withLock({ stream == .output ? $0.stdoutFailure == nil : !$0.stderrFailed }) else {
            return
        }
        let fd = stream == .output ? run.output : run.errors
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                failed(stream, String(cString: strerror(errno)), in: run)
                return
            }
            bytes = bytes.dropFirst(n)
        }
    }

    /// Writes a line (a newline added when missing): a report, a message, a JSON
    /// value. Its control characters other than line feeds and tabs are made visible
    /// (`\u001b`): whatever a model file, a store or the command line held, nothing the
    /// tool says drives the terminal (inside JSON strings the escape means the same).
    static func out(_ text: String) {
        emit(MessageText.visible(text.hasSuffix("\n") ? text : text + "\n", keepingLineBreaks: true), to: .output)
    }

    /// Writes text as it is (no newline added).
    static func write(_ text: String) {
        if !text.isEmpty { emit(text, to: .output) }
    }

    /// Writes bytes to stdout as they are, all of them (a pipe may take a part at a time).
    /// A failed write is kept as `emit`'s are (reported by ``finish()``).
    static func writeBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        let run = self.run
        guard run.outputState.withLock({ $0.stdoutFailure == nil }), var next = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = systemWrite(run.output, next, left)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                failed(.output, String(cString: strerror(errno)), in: run)
                return
            }
            next += n
            left -= n
        }
    }

    /// Redraws the progress line on a terminal's stderr: the line cleared, then `text`,
    /// its control characters made visible as ``out(_:)`` does; `nil` only clears it.
    static func progress(_ text: String?) {
        emit("\r\u{1B}[K" + (text.map { MessageText.visible($0) } ?? ""), to: .errors)
    }

    /// Writes a line to stderr, made visible as ``out(_:)`` does.
    static func err(_ text: String) {
        emit(MessageText.visible(text.hasSuffix("\n") ? text : text + "\n", keepingLineBreaks: true), to: .errors)
    }

    /// After a command that succeeded: a lost write to stdout is reported, and fails
    /// a command whose product is its output (exit 1; a command that wrote a store
    /// keeps its exit code, which speaks of the store).
    static func finish() -> Int32 {
        reportRemovedScratch()
        guard let stdoutFailure else { return 0 }
        if outputIsTheProduct {
            err("error: standard output could not be written (\(stdoutFailure)); what it received is incomplete")
            return 1
        }
        // The command's work (a migration committed, say) is done: its exit code says so.
        err(
            """
            warning: standard output could not be written (\(stdoutFailure)); what it received is incomplete, the \
            command finished
            """
        )
        return 0
    }

    /// Says on stderr which temporary files of killed runs this run removed
    /// (`ScratchFile`), once each. Called when the command ends, whatever its outcome.
    static func reportRemovedScratch() {
        for removed in ScratchFile.takeRemoved() {
            err("note: removed \(removed)")
        }
    }

    /// Encodes a value as pretty, key-sorted JSON on stdout.
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        out(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// True when stderr is a terminal (progress bars, colours).
    static var stderrIsTerminal: Bool { isatty(run.errors) != 0 }
}

/// Every failure of every command, rendered in one place: `error: …` on stderr,
/// or with `--json` one object on stdout, `{"error": {"message", "exitCode", "status"}}`
/// (with the model's diagnostics, and the SQL statement that failed, when there are some).
struct ErrorReport: Encodable {
    /// The `error` object of every JSON output: an ``Outcome``'s message, exit code
    /// and status word.
    struct Detail: Encodable {
        var message: String
        var exitCode: Int32
        var status: String
        var diagnostics: [Diagnostic]?
        /// The SQL statement that failed, when one did.
        var statement: String?

        init(_ outcome: Outcome) {
            message = outcome.message
            exitCode = outcome.exitCode
            status = outcome.word
            diagnostics = outcome.diagnostics.isEmpty ? nil : outcome.diagnostics
            statement = outcome.statement
        }
    }
    var error: Detail
}

extension Output {
    /// One JSON value on one line (JSON Lines events).
    static func jsonLine<T: Encodable>(_ value: T) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        out(String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self))
    }
}

extension GlobalOptions {
    /// A failure of `outcome`, to be said by the one renderer (``Output/render(_:)``):
    /// `error: …` on stderr (or `rendered`, the diagnostics with their lines), or
    /// with `--json` the error object on stdout. Commands throw it.
    func fail(_ outcome: Outcome, rendered: String? = nil) -> CommandEnding {
        CommandEnding(outcome, rendered: rendered, json: json, verbose: verbose)
    }

    /// A failure of `kind` saying `message` (the whole text after `error: `).
    func fail(_ message: String, _ kind: Outcome.Kind, diagnostics: [Diagnostic] = [], rendered: String? = nil)
        -> CommandEnding
    {
        fail(Outcome(kind, message, diagnostics: diagnostics), rendered: rendered)
    }

    /// Any error as a failure through its outcome (``Outcome/init(_:signal:)``); an
    /// ending already made stays as it is.
    func fail(_ error: any Error) -> CommandEnding {
        switch error {
        case let ending as CommandEnding: ending
        case let failure as PlanningFailure: fail(failure.outcome, rendered: failure.rendered)
        // `rendered:` names the outcome overload (an Outcome is an Error too).
        default: fail(Outcome(error), rendered: nil)
        }
    }

    /// An answer the command has said already, ending with `kind`'s exit code
    /// (`status`'s migration-needed, a fleet's heaviest outcome, a plan's refusal
    /// carried in its JSON report).
    func said(_ kind: Outcome.Kind) -> CommandEnding {
        CommandEnding(Outcome(kind, kind.meaning), form: .said, json: json, verbose: verbose)
    }
}
