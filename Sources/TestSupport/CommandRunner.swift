import Foundation
import ModelMigration

/// What a finished process printed and how it exited.
public struct CommandResult: Sendable {
    /// The exit status (or 128 + signal number when killed).
    public var status: Int32
    /// Everything written to stdout.
    public var stdout: String
    /// Everything written to stderr.
    public var stderr: String

    /// A result as a run printed and ended it (a run in process makes one).
    package init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }
}

/// Runs the built `migrate` binary the way a deploy script would.
public enum CommandRunner {
    /// The `migrate` executable next to the test bundle (SwiftPM puts products and
    /// test bundles in the same build folder).
    public static var migratePath: String {
        if let override = ProcessInfo.processInfo.environment["MIGRATE_BINARY"] { return override }
        var url = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = url.appendingPathComponent("migrate").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            url.deleteLastPathComponent()
        }
        // `swift test` runs from the package root with the build folder in .build/debug.
        return FileManager.default.currentDirectoryPath + "/.build/debug/migrate"
    }

    /// Runs `migrate` with arguments in `directory`, waiting for it to finish.
    public static func migrate(
        _ arguments: [String], in directory: String? = nil, stdin: String? = nil,
        environment: [String: String] = [:]
    ) throws -> CommandResult {
        try run(migratePath, arguments, in: directory, stdin: stdin, environment: environment)
    }

    /// Runs an executable, collecting stdout and stderr.
    /// `environment` is added to this process's environment.
    public static func run(
        _ executable: String, _ arguments: [String], in directory: String? = nil, stdin: String? = nil,
        environment: [String: String] = [:]
    ) throws -> CommandResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { try? input.fileHandleForWriting.write(contentsOf: Data(stdin.utf8)) }
        try? input.fileHandleForWriting.close()
        // Read both pipes concurrently so that a full pipe never blocks the child.
        let group = DispatchGroup()
        let errRead = Locked(Data())
        group.enter()
        DispatchQueue.global().async {
            let data = (try? err.fileHandleForReading.readToEnd()) ?? Data()
            errRead.withLock { $0 = data }
            group.leave()
        }
        let outData = (try? out.fileHandleForReading.readToEnd()) ?? Data()
        group.wait()
        let errData = errRead.withLock { $0 }
        process.waitUntilExit()
        let status =
            process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return CommandResult(
            status: status, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}
