import Foundation
import TestSupport
import Testing

/// Faults and hostile inputs, through the built `migrate`: a full disk, paths that
/// are not plain store files, a corrupt store that is already current, a mapping
/// file copied onto the wrong hop. Each leaves the store exactly as it was and
/// says so only when it checked.
@Suite struct FaultTests {
    /// Runs `migrate` under `ulimit -f` (in KiB) with SIGXFSZ ignored, so that a
    /// write past the limit fails with EFBIG as on a full disk.
    func migrateWithFileLimit(_ f: StockFixture, kib: Int, _ arguments: [String]) throws -> CommandResult {
        let quoted = ([CommandRunner.migratePath] + arguments).map { "'\($0)'" }.joined(separator: " ")
        return try CommandRunner.run(
            "/bin/bash", ["-c", "ulimit -f \(kib); trap '' XFSZ; exec \(quoted)"], in: f.directory.path)
    }

    /// The store can grow only a little: the rebuild fails half-way, `apply` rolls
    /// back, proves the file's bytes are those it had, and leaves no journal.
    @Test func aFullDiskLeavesTheStoreAsItWas() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store(items: StockFixture.largeItems)
        let before = f.snapshot(store)
        let size = try #require(before.bytes?.count)
        let result = try migrateWithFileLimit(f, kib: size / 1024 + 64, ["apply"] + f.models + [store])
        #expect(result.status == 1, "\(result)")
        #expect(
            result.stderr.contains(
                """
                the system could not read or write the store: the disk may be full, a file-size limit reached, or the \
                device failing
                """
            )
                || result.stderr.contains("the disk is full"), "\(result.stderr)")
        #expect(result.stderr.hasSuffix("; nothing was changed\n"), "\(result.stderr)")
        // The statement that failed (a rebuild's INSERT … SELECT runs long) is not in
        // the message; --verbose prints it on a line of its own, --json carries it.
        #expect(!result.stderr.contains("— in `"), "\(result.stderr)")
        let verbose = try migrateWithFileLimit(f, kib: size / 1024 + 64, ["apply", "--verbose"] + f.models + [store])
        #expect(verbose.status == 1)
        let lines = verbose.stderr.split(separator: "\n")
        #expect(lines.count >= 2 && lines[lines.count - 2].hasSuffix("; nothing was changed"), "\(verbose.stderr)")
        #expect(lines.last?.hasPrefix("  in: ") == true, "\(verbose.stderr)")
        let json = try migrateWithFileLimit(f, kib: size / 1024 + 64, ["apply", "--json"] + f.models + [store])
        let error = try #require(
            JSONOutputTests.objects(json.stdout).last?["error"] as? [String: Any], "\(json.stdout)")
        #expect(error["statement"] as? String == lines.last.map { String($0.dropFirst(6)) })
        #expect((error["message"] as? String)?.contains("— in `") == false)
        #expect(f.snapshot(store) == before)
        #expect(try f.summary(store) == StockStore.expected(version: 1, items: StockFixture.largeItems))
        // With room again, the same command migrates.
        #expect(try f.migrate(["apply"] + f.models + [store]).status == 0)
        #expect(try f.summary(store) == StockStore.expected(version: 2, items: StockFixture.largeItems))
    }

    /// The backup does not fit: no file is left at the backup path, nor a partial
    /// one or its journal beside it, and the store is untouched.
    @Test func aBackupThatDoesNotFitLeavesNothingBehind() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store(items: StockFixture.largeItems)
        let before = f.snapshot(store)
        let size = try #require(before.bytes?.count)
        let result = try migrateWithFileLimit(
            f, kib: size / 2048, ["apply", "--backup", "backup.sqlite"] + f.models + [store])
        #expect(result.status == 1, "\(result)")
        #expect(
            result.stderr.contains(
                "\nerror: \(f.directory.path): cannot write the backup there: the file-size limit was reached "
                    + "(the copy needs "
            ),
            "\(result.stderr)")
        #expect(
            result.stderr.hasSuffix(
                """
                ); raise the file-size limit (ulimit -f), or choose a backup path in another folder; \
                nothing was changed, so this run kept no backup at backup.sqlite

                """), "\(result.stderr)")
        #expect(f.snapshot(store) == before)
        #expect(try f.directory.contents() == ["Models", "stock.sqlite"])
        // A backup that succeeds is complete at its path, with nothing beside it.
        #expect(try f.migrate(["apply", "--backup", "backup.sqlite"] + f.models + [store]).status == 0)
        #expect(try f.directory.contents() == ["Models", "backup.sqlite", "stock.sqlite"])
        #expect(
            try StockStore.summary(path: f.path("backup.sqlite"))
                == StockStore.expected(version: 1, items: StockFixture.largeItems))
    }

    /// A named pipe is refused at once (opening it would block), a symbolic link to
    /// a store is followed, a missing target is named as such.
    @Test func pathsThatAreNotPlainStoreFiles() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        #expect(mkfifo(f.path("pipe.sqlite"), 0o600) == 0)
        let pipe = try f.migrate(["status"] + f.models + ["pipe.sqlite"])
        #expect(pipe.status == 1)
        #expect(pipe.stderr == "error: pipe.sqlite: is a named pipe (FIFO), not a store file\n")

        try FileManager.default.createSymbolicLink(atPath: f.path("link.sqlite"), withDestinationPath: f.path(store))
        let link = try f.migrate(["status"] + f.models + ["link.sqlite"])
        #expect(link.status == 3, "\(link)")
        #expect(try f.migrate(["apply"] + f.models + ["link.sqlite"]).status == 0)
        #expect(try f.summary(store) == StockStore.expected(version: 2, items: StockFixture.smallItems))
        #expect(try f.directory.contents() == ["Models", "link.sqlite", "pipe.sqlite", "stock.sqlite"])

        try FileManager.default.createSymbolicLink(
            atPath: f.path("dangling.sqlite"), withDestinationPath: f.path("gone.sqlite"))
        let dangling = try f.migrate(["status"] + f.models + ["dangling.sqlite"])
        #expect(dangling.status == 1)
        #expect(dangling.stderr == "error: dangling.sqlite: a symbolic link to a file that does not exist\n")
    }

    /// `apply --verify` on a store that needs no migration still verifies it.
    @Test func verifyOnACurrentStoreVerifies() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store(items: StockFixture.largeItems)
        #expect(try f.migrate(["apply"] + f.models + [store]).status == 0)
        let clean = try f.migrate(["apply", "--verify"] + f.models + [store])
        #expect(clean.status == 0, "\(clean)")
        #expect(
            clean.stdout.hasPrefix("stock.sqlite: Stock version 2 is current; nothing to do; --verify: "),
            "\(clean.stdout)")

        // Damage the root page of the item table (planning never reads it).
        let root = try StockStore.rootPage(path: f.path(store), table: "ZITEM")
        let handle = try #require(FileHandle(forUpdatingAtPath: f.path(store)))
        try handle.seek(toOffset: UInt64(root - 1) * 4096 + 8)
        try handle.write(contentsOf: Data(repeating: 0x5A, count: 2048))
        try handle.close()
        let corrupt = try f.migrate(["apply", "--verify"] + f.models + [store])
        #expect(corrupt.status == 1, "\(corrupt)")
        #expect(corrupt.stderr.contains("error: "), "\(corrupt.stderr)")
    }
}
