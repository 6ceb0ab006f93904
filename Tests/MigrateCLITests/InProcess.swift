import Foundation
import MigrateCommands
import Migrations
import ModelMigration
import TestSupport

/// Runs `migrate`'s commands in this process, as the shipped binary would run them
/// (the example's policies), each run with streams of its own and its own working
/// folder: no process to start, so a test pays only for the command's work.
///
/// What a run in process cannot show goes through ``CommandRunner`` and the built
/// binary instead: signals, process-wide locks held against another process, a
/// closed or full stdout, resource limits, the tool's start-up.
enum InProcess {
    /// Runs `migrate arguments` in `directory` (the process's own when nil), with
    /// `stdin` as standard input and `environment` added to the process's.
    static func migrate(
        _ arguments: [String], in directory: String? = nil, stdin: String? = nil,
        environment: [String: String] = [:]
    ) throws -> CommandResult {
        let output = try Capture()
        let errors = try Capture()
        let input = try Feed(stdin ?? "")
        defer { input.close() }
        let invocation = Invocation(
            input: input.readEnd, output: output.descriptor, errors: errors.descriptor,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, columns: 80,
            name: "migrate", policies: examplePolicies)
        let status = Locked(Int32(-1))
        let failure = Locked(String?.none)
        // A thread of its own, whose working folder is its own (`unshare(CLONE_FS)`),
        // and which every thread the run starts shares.
        let thread = try OSThread.start(stackSize: 8 << 20) {
            if let directory {
                if let reason = WorkingFolder.enter(directory) {
                    failure.withLock { $0 = reason }
                    return
                }
            }
            let code = MigrateTool.run(arguments, in: invocation)
            status.withLock { $0 = code }
        }
        thread.join()
        if let reason = failure.withLock({ $0 }) { throw CaptureError(reason: reason) }
        return CommandResult(status: status.withLock { $0 }, stdout: try output.text(), stderr: try errors.text())
    }

    struct CaptureError: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    /// An unnamed temporary file a run writes to, read back once it is done.
    private final class Capture {
        let descriptor: Int32

        init() throws {
            var template = Array("\(NSTemporaryDirectory())/mm-inprocess-XXXXXX".utf8CString)
            descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard descriptor >= 0 else { throw CaptureError(reason: "mkstemp: \(String(cString: strerror(errno)))") }
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        }

        func text() throws -> String {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            var offset: off_t = 0
            while true {
                let n = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
                if n < 0 && errno == EINTR { continue }
                guard n >= 0 else { throw CaptureError(reason: "pread: \(String(cString: strerror(errno)))") }
                if n == 0 { break }
                bytes += chunk[0..<n]
                offset += off_t(n)
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        deinit { close(descriptor) }
    }

    /// Standard input: a pipe, fed by a thread of its own and closed at its end, as
    /// `CommandRunner` feeds the binary (so `load -` reads a pipe, not a file).
    private final class Feed {
        let readEnd: Int32
        private let writer: OSThread

        init(_ text: String) throws {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { throw CaptureError(reason: "pipe: \(String(cString: strerror(errno)))") }
            readEnd = ends[0]
            let writeEnd = ends[1]
            let bytes = Array(text.utf8)
            writer = try OSThread.start(stackSize: 256 << 10) {
                // A run that stops reading makes the write EPIPE; SIGPIPE, which goes to the
                // writing thread, stays pending on this one instead of ending the tests.
                var blocked = sigset_t()
                sigemptyset(&blocked)
                sigaddset(&blocked, SIGPIPE)
                pthread_sigmask(SIG_BLOCK, &blocked, nil)
                var offset = 0
                while offset < bytes.count {
                    let n = bytes[offset...].withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
                    if n < 0 && errno == EINTR { continue }
                    // The run closed its end, or stopped reading: what is left is not read.
                    guard n > 0 else { break }
                    offset += n
                }
                Glibc.close(writeEnd)
            }
        }

        /// Closes the read end (a writer still blocked gets EPIPE) and waits for the writer.
        func close() {
            _ = Glibc.close(readEnd)
            writer.join()
        }
    }
}

/// A thread's own working folder: Linux's `unshare(CLONE_FS)` gives the calling thread
/// a copy of the process's folder, umask and root, which `chdir` then changes for it
/// (and the threads it starts) alone.
enum WorkingFolder {
    /// `unshare(2)`, looked up at run time: Swift's Glibc module does not import it.
    private typealias Unshare = @convention(c) (Int32) -> Int32
    private static let unshare: Unshare? = dlsym(dlopen(nil, RTLD_NOW), "unshare")
        .map { unsafeBitCast($0, to: Unshare.self) }
    private static let cloneFS: Int32 = 0x0000_0200

    /// Makes `directory` this thread's working folder; the reason when it cannot.
    static func enter(_ directory: String) -> String? {
        guard let unshare else { return "unshare(2) is not available" }
        guard unshare(cloneFS) == 0 else { return "unshare(CLONE_FS): \(String(cString: strerror(errno)))" }
        guard chdir(directory) == 0 else { return "chdir \(directory): \(String(cString: strerror(errno)))" }
        return nil
    }
}
