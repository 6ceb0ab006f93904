import ArgumentParser
import Foundation
import ModelMigration
import SQLiteStore
import Testing

@testable import MigrateCommands

/// One error path: every error that reaches the tool's entry becomes one
/// ``CommandEnding``, and only the entry and the renderer know about exit codes.
@Suite struct CommandEndingTests {
    /// The parser's error for `arguments`.
    static func parseError(_ arguments: [String]) -> (any Error)? {
        do {
            _ = try Migrate.parseAsRoot(arguments)
            return nil
        } catch {
            return error
        }
    }

    /// A signal during `load`, `update` or `delete` is said as a clean rollback only
    /// when the guarded write proved the store unchanged; a write it could not prove
    /// (a journal it could not remove) keeps its own failure, as `apply` does.
    @Test func aSignalIsACleanRollbackOnlyOverAProvenStore() {
        #expect(GlobalOptions.leftUnproven(UnprovenWrite(kind: .unproven, message: "s.sqlite: not proven")))
        #expect(GlobalOptions.leftUnproven(UnprovenWrite(kind: .replaced, message: "s.sqlite: replaced")))
        var request = RequestError(.failed, "s.sqlite: not proven")
        #expect(!GlobalOptions.leftUnproven(request))
        request.isUnproven = true
        #expect(GlobalOptions.leftUnproven(request))
        #expect(!GlobalOptions.leftUnproven(MigrationError(kind: .interrupted, message: "interrupted")))
        #expect(!GlobalOptions.leftUnproven(StoreError(.interrupted, "interrupted")))
    }

    @Test func aUsageErrorIsTheUsageOutcomeWithArgumentParsersText() throws {
        let error = try #require(Self.parseError(["apply"]))
        let ending = try #require(CommandEnding.of(error, command: Migrate.self, json: true))
        #expect(ending.outcome.kind == .usage)
        #expect(ending.exitCode == 64)
        #expect(ending.outcome.message == "Missing expected argument '<store>'")
        #expect(ending.json)
        let rendered = try #require(ending.rendered)
        #expect(rendered.hasPrefix("Error: Missing expected argument '<store>'"))
        #expect(rendered.contains("Usage: "))
    }

    @Test func aFailedValidateIsAUsageOutcome() throws {
        let error = try #require(Self.parseError(["apply", "s.sqlite", "--keep", "2"]))
        let ending = try #require(CommandEnding.of(error, command: Migrate.self, json: false))
        #expect(ending.outcome.kind == .usage)
        #expect(ending.outcome.message == "--keep counts the backups in --backup-dir: give --backup-dir")
    }

    @Test func helpAndACleanExitAreLeftToArgumentParser() {
        #expect(CommandEnding.of(CleanExit.helpRequest(), command: Migrate.self, json: true) == nil)
        #expect(CommandEnding.of(CleanExit.message("done"), command: Migrate.self, json: false) == nil)
    }

    @Test func anOutcomeOrAPlanningFailureKeepsItsKindAndText() throws {
        let outcome = Outcome(.unknownVersion, "s.sqlite: hashes match no version")
        let fromOutcome = try #require(CommandEnding.of(outcome, command: Migrate.self, json: false))
        #expect(fromOutcome.exitCode == 5)
        #expect(fromOutcome.outcome.message == "s.sqlite: hashes match no version")
        let failure = PlanningFailure(outcome: Outcome(.failed, "two errors"), rendered: "error: a\nerror: b")
        let fromFailure = try #require(CommandEnding.of(failure, command: Migrate.self, json: false))
        #expect(fromFailure.exitCode == 1)
        #expect(fromFailure.rendered == "error: a\nerror: b")
    }

    @Test func anyOtherErrorFailsThroughItsOutcome() throws {
        struct Odd: Error, CustomStringConvertible { var description: String { "odd thing" } }
        let ending = try #require(CommandEnding.of(Odd(), command: Migrate.self, json: false))
        #expect(ending.outcome.kind == .failed)
        #expect(ending.outcome.message == "odd thing")
    }

    @Test func aCommandsFailureAndAnAnswerSaidAlreadyCarryTheirKind() throws {
        var global = try GlobalOptions.parse(["--json", "--verbose"])
        let failure = global.fail("s.sqlite: locked", .failed)
        #expect(failure.json && failure.verbose)
        #expect(failure.exitCode == 1)
        #expect(global.fail(failure).outcome.message == "s.sqlite: locked", "an ending passes through as it is")
        global.json = false
        let said = global.said(.migrationNeeded)
        #expect(said.exitCode == 3)
        guard case .said = said.form else {
            Issue.record("an answer said already is not said again: \(said.form)")
            return
        }
    }

    /// Commands never pick an exit code: only the entry (`MigrateTool.main`) and the
    /// ending itself name `ExitCode` or call `exit`.
    @Test func onlyTheEntryChoosesExitCodes() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/MigrateCommands")
        let files = try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 20)
        var offenders: [String] = []
        for file in files where !["CommandEnding.swift", "MigrateTool.swift"].contains(file) {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.split(separator: "//", maxSplits: 1).first.map(String.init) ?? ""
                if code.contains("ExitCode")
                    || code.range(of: #"(^|[^A-Za-z_.])exit\("#, options: .regularExpression) != nil
                {
                    offenders.append("\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }
}
