import Foundation
import TestSupport
import Testing

/// `migrate apply`: one transaction, all or nothing; `--json` events, `--dry-run`,
/// `--backup`, `--timeout`, and two deploys racing on the same store.
@Suite struct ApplyCommandTests {
    @Test func applyJSONEmitsJSONLinesEndingInDone() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        let result = try f.migrate(["apply", "--json"] + f.models + [store])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let events = try lines.map { try StockFixture.object($0) }
        #expect(
            events.map { $0["event"] as? String } == [
                "step", "stepDone", "step", "stepDone", "step", "stepDone", "step", "stepDone", "step", "stepDone",
                "checks", "done",
            ])
        #expect(events[0]["index"] as? Int == 1)
        #expect(events[0]["of"] as? Int == 5)
        #expect(events[0]["summary"] as? String == "rebuild ZITEM from ZITEM (SQLite's 12-step procedure)")
        #expect(events[0]["cost"] as? String == "rewrite of 300 rows")
        // The rebuild's 300 rows, as the plan's cost says; rows written count no bookkeeping.
        #expect(events[1]["rows"] as? Int == 300)
        #expect(events[10]["count"] as? Int == 3)
        let done = try #require(events.last)
        #expect(done["from"] as? Int == 1)
        #expect(done["to"] as? Int == 2)
        #expect(done["checksPassed"] as? Int == 3)
        #expect(done["dryRun"] as? Bool == false)
        #expect(done["rowsTouched"] as? Int == 300)
        #expect(try f.summary(store) == StockStore.expected(version: 2, items: StockFixture.smallItems))

        // Applying again: nothing to do, one "done" line.
        let again = try f.migrate(["apply", "--json"] + f.models + [store])
        #expect(again.status == 0)
        #expect(
            again.stdout == #"""
                {"backup":null,"checksPassed":0,"danglingReferences":[],"dryRun":false,"event":"done","from":2,\#
                "rowsTouched":0,"seconds":0,\#
                "to":2,"warnings":[]}
                """# + "\n")
    }

    /// A table rebuild over many rows reports rows done of the total as it goes.
    @Test func aLongRebuildReportsRows() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store(items: StockFixture.largeItems)
        let result = try f.migrate(["apply", "--json"] + f.models + [store])
        #expect(result.status == 0, "\(result)")
        let events = try result.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let rebuild = try #require(events.firstIndex { ($0["summary"] as? String)?.hasPrefix("rebuild ZITEM") == true })
        let rows = events[(rebuild + 1)...].prefix { $0["event"] as? String == "rows" }
        #expect(!rows.isEmpty)
        #expect(rows.allSatisfy { $0["total"] as? Int == StockFixture.largeItems })
        #expect(rows.last?["done"] as? Int == StockFixture.largeItems)
        let done = rows.compactMap { $0["done"] as? Int }
        #expect(done == done.sorted())
    }

    @Test func aDryRunLeavesTheFileByteIdenticalAndReportsCounts() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        let before = f.snapshot(store)
        let result = try f.migrate(["apply", "--dry-run"] + f.models + [store])
        #expect(result.status == 0)
        #expect(
            result.stdout.hasPrefix(
                "dry run: would migrate stock.sqlite from version 1 to 2: 300 rows written, 3 checks passed, "))
        #expect(result.stdout.hasSuffix(" s (rolled back; the store is unchanged)\n"))
        #expect(result.stderr == "warning: destructive: Item.note is dropped: 200 non-nil values will be lost\n")
        #expect(f.snapshot(store).fingerprint == before.fingerprint)
        #expect(f.snapshot(store).sideFiles == [])

        let json = try f.migrate(["apply", "--dry-run", "--json"] + f.models + [store])
        let done = try StockFixture.object(try #require(json.stdout.split(separator: "\n").last.map(String.init)))
        #expect(done["event"] as? String == "done")
        #expect(done["dryRun"] as? Bool == true)
        #expect(done["rowsTouched"] as? Int == 300)
        #expect(f.snapshot(store).fingerprint == before.fingerprint)
        #expect(try f.summary(store) == StockStore.expected(version: 1, items: StockFixture.smallItems))
    }

    @Test func aBackupRefusesAnExistingPathAndIsAConsistentCopy() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        let original = try StoreDump.dump(f.path(store))
        try f.directory.write("taken.sqlite", "not a backup")
        let before = f.snapshot(store)

        let refused = try f.migrate(["apply", "--backup", "taken.sqlite"] + f.models + [store])
        #expect(refused.status == 1)
        #expect(refused.stderr.hasSuffix("error: taken.sqlite: the backup file already exists; choose a new path\n"))
        #expect(f.snapshot(store).fingerprint == before.fingerprint)
        #expect(try String(contentsOfFile: f.path("taken.sqlite"), encoding: .utf8) == "not a backup")

        let result = try f.migrate(["apply", "--backup", "backup.sqlite"] + f.models + [store])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("migrated stock.sqlite from version 1 to 2: "))
        #expect(
            result.stdout.hasSuffix(
                """
                ; backup at backup.sqlite
                to restore the backup, with nothing using the store: cp backup.sqlite stock.sqlite && rm -f \
                stock.sqlite-wal stock.sqlite-shm

                """), "\(result.stdout)")
        #expect(try StoreDump.dump(f.path("backup.sqlite")) == original)
        #expect(try f.summary("backup.sqlite") == StockStore.expected(version: 1, items: StockFixture.smallItems))
        #expect(try f.summary(store) == StockStore.expected(version: 2, items: StockFixture.smallItems))
    }

    /// Another connection holds the write lock (`BEGIN IMMEDIATE`): status still reads,
    /// apply waits `--timeout` and exits 1 with the store unchanged.
    @Test(.ownThread) func aLockedStoreTimesOut() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        let lock = try WriteLock(path: f.path(store))
        let status = try f.migrate(["status"] + f.models + [store])
        #expect(status.status == 3)
        let started = Date()
        // The binary: the lock is another process's only for a run of its own.
        let result = try f.binary(["apply", "--timeout", "0.2"] + f.models + [store])
        let waited = Date().timeIntervalSince(started)
        try lock.release()
        #expect(result.status == 1)
        #expect(result.stdout == "")
        // The message names the process in the way (read from /proc/locks).
        #expect(
            result.stderr.contains(
                "error: stock.sqlite: another migration, writer or reader holds the store (held by process "),
            "\(result.stderr)")
        #expect(
            result.stderr.hasSuffix(" (writing or migrating)); waited 0.2 s (--timeout); nothing was changed\n"),
            "\(result.stderr)")
        #expect(waited >= 0.2)
        #expect(try f.summary(store) == StockStore.expected(version: 1, items: StockFixture.smallItems))
        #expect(f.snapshot(store).sideFiles == [])

        #expect(try f.migrate(["apply", "--timeout", "0.2"] + f.models + [store]).status == 0)
    }

    /// A reader keeps a transaction open: `apply --timeout` gives up after the
    /// timeout (not when the reader ends), naming the reader, store unchanged.
    @Test(.ownThread) func aReaderHoldingTheStoreDoesNotOutlastTheTimeout() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store(items: StockFixture.largeItems)
        let before = f.snapshot(store)
        let reader = try ReadLock(path: f.path(store), table: "ZITEM")
        // Released after 6 s whatever happens, so that a migrator waiting for the
        // reader (the bug) finishes and fails the timing expectation.
        DispatchQueue.global().asyncAfter(deadline: .now() + 6) { reader.release() }
        let started = Date()
        let result = try f.binary(["apply", "--timeout", "0.5"] + f.models + [store])
        let waited = Date().timeIntervalSince(started)
        reader.release()
        #expect(result.status == 1, "\(result)")
        #expect(waited < 4, "waited \(waited) s")
        #expect(
            result.stderr.contains(
                """
                another migration, writer or reader holds the store (held by process \(getpid()) (reading)); \
                waited 0.5 s (--timeout); nothing was changed
                """), "\(result.stderr)")
        #expect(f.snapshot(store) == before)
        #expect(try f.migrate(["apply"] + f.models + [store]).status == 0)
    }

    /// Two deploys start `apply` on the same store at once: exactly one migrates; the
    /// other finds nothing to do (also when it planned before the winner committed:
    /// the store is then at the target of its plan), or exits 1 because it is locked.
    @Test(.ownThread) func twoConcurrentAppliesMigrateOnce() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store(items: StockFixture.largeItems)
        let runs = try (0..<2).map { _ in try BackgroundMigrate(["apply"] + f.models + [store], in: f.directory.path) }
        let results = runs.map { $0.finish() }

        let migrated = results.filter {
            $0.status == 0 && $0.stdout.hasPrefix("migrated stock.sqlite from version 1 to 2: ")
        }
        #expect(migrated.count == 1, "\(results)")
        let other = try #require(results.first { !($0.status == 0 && $0.stdout.hasPrefix("migrated ")) })
        let nothingToDo =
            other.status == 0
            && [
                "stock.sqlite: Stock version 2 is current; nothing to do\n",
                """
                stock.sqlite: Stock version 2 is current (another process migrated it from version 1 while this run \
                waited); nothing to do\n
                """,
            ].contains(other.stdout)
        let refused =
            other.status == 1 && other.stdout == ""
            && other.stderr.contains("another migration, writer or reader holds the store")
        #expect(nothingToDo || refused, "\(other)")
        #expect(try StockStore.history(path: f.path(store)) == [[1, 2]])
        #expect(try f.summary(store) == StockStore.expected(version: 2, items: StockFixture.largeItems))
    }
}

/// A `migrate` child process running while the test does something else; its output
/// goes to files, so that a full pipe can never block it.
final class BackgroundMigrate {
    let process = Process()
    let directory: TemporaryDirectory

    /// `stdin`: a pipe the test writes to (and may keep open); else the null device.
    /// `ignoring`: a signal the process starts with ignored, as under `nohup` (a shell
    /// ignores it, then becomes `migrate`).
    init(_ arguments: [String], in workingDirectory: String, stdin: Pipe? = nil, ignoring ignored: String? = nil) throws
    {
        directory = try TemporaryDirectory(prefix: "migrate-output")
        _ = FileManager.default.createFile(atPath: directory.file("stdout"), contents: nil)
        _ = FileManager.default.createFile(atPath: directory.file("stderr"), contents: nil)
        if let ignored {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "trap '' \(ignored); exec \"$0\" \"$@\"", CommandRunner.migratePath] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: CommandRunner.migratePath)
            process.arguments = arguments
        }
        process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory)
        process.standardInput = stdin ?? FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.file("stdout")))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.file("stderr")))
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }

    /// Waits (up to `timeout` seconds) until the process has `path` open, then a
    /// little more: a writing command installs its signal handlers right after
    /// opening the store, and a signal sent before that (a loaded machine starts
    /// processes slowly) would test the runner's signal mask, not the command.
    func waitUntilItOpens(_ path: String, timeout: Double = 20) {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let deadline = Date().addingTimeInterval(timeout)
        let fds = "/proc/\(pid)/fd"
        while Date() < deadline, process.isRunning {
            let open = ((try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? []).contains { fd in
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fds)/\(fd)")) == target
            }
            if open { break }
            usleep(20_000)
        }
        Thread.sleep(forTimeInterval: 0.3)
    }

    /// Waits until the process has spent `seconds` of CPU time (user + system, from
    /// `/proc/PID/stat`), or `timeout` seconds have passed: a busy child is known to be
    /// inside its work without a fixed sleep that burns CPU on a quiet machine and may
    /// be too short on a busy one.
    func waitUntilItHasWorked(cpuSeconds seconds: Double, timeout: Double = 20) {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, process.isRunning {
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            // The fields after the command name, which is in parentheses and may hold spaces.
            let fields = stat.split(separator: ")").last.map { $0.split(separator: " ") } ?? []
            // utime and stime are fields 14 and 15, the 12th and 13th after the name.
            if fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]),
                (user + system) / ticks >= seconds
            {
                return
            }
            usleep(20_000)
        }
    }

    /// What a finished child printed and how it ended.
    struct Outcome: CustomStringConvertible {
        /// The exit status, or 128 + the signal number when killed.
        var status: Int32
        var stdout: String
        var stderr: String
        var description: String {
            "exit \(status), stdout \(stdout.debugDescription), stderr \(stderr.debugDescription)"
        }
    }

    /// Waits for the process and returns what it printed and how it ended.
    func finish() -> Outcome {
        process.waitUntilExit()
        defer { directory.remove() }
        let status =
            process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return Outcome(
            status: status,
            stdout: (try? String(contentsOfFile: directory.file("stdout"), encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: directory.file("stderr"), encoding: .utf8)) ?? "")
    }
}
