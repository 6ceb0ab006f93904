import Foundation
import TestSupport
import Testing

/// Messages a person can act on: the wrong models folder, a missing migrations
/// folder, the hop that needs a mapping file, a signal during apply.
@Suite struct MessageTests {
    /// `--models` pointing at a folder of other models: say what the store is.
    @Test func aStoreOfAnotherModelSaysWhichModelItIs() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        let contacts = TestModels.modelsFolder
        let result = try f.migrate(["status", "--models", contacts, store])
        #expect(result.status == 5)
        #expect(
            result.stderr == """
                error: stock.sqlite: this store is a Stock store, and the models given hold models: Contacts \
                (is --models the folder holding Stock/?)

                """)
    }

    /// A `--migrations` folder given on purpose that is not there is a usage error.
    @Test func aMissingMigrationsFolderIsAUsageError() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        let result = try f.migrate(["plan", "--migrations", "Migrashuns"] + f.models + [store])
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix(
                """
                Error: --migrations Migrashuns: no such folder (leave the option out when there are no mapping files)\n
                """
            ))
        // A file where the folder belongs says so.
        let file = try f.migrate(["plan", "--migrations", store] + f.models + [store])
        #expect(file.status == 64)
        #expect(
            file.stderr.hasPrefix(
                "Error: --migrations \(store): a file, not a folder (the folder that holds <Model>/<A>-to-<B>.yaml)\n"))
    }

    /// A refusal inside a run of fused hops names the one hop that needs a file, in
    /// the migrations folder actually in use.
    @Test func aRefusalNamesTheSingleHopAndTheFolderInUse() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        try FileManager.default.createDirectory(atPath: f.path("deploy/maps"), withIntermediateDirectories: true)
        // Version 3 makes Item.value a string (unrelated to double): refused; 1 → 2 is fine.
        try f.directory.write(
            "Models/Stock/3.yaml",
            StockStore.v2.replacingOccurrences(of: "version: 2", with: "version: 3")
                .replacingOccurrences(of: "      value: double\n", with: "      value: string\n"))
        let result = try f.migrate(["plan", "--migrations", "deploy/maps"] + f.models + [store])
        #expect(result.status == 4, "\(result)")
        #expect(result.stderr.contains("no lightweight mapping from Stock version 2 to 3"), "\(result.stderr)")
        #expect(
            result.stderr.contains("write deploy/maps/Stock/2-to-3.yaml with a policy for Item"), "\(result.stderr)")
    }

    /// SIGINT while apply runs: rolled back, exit 130, the store as it was. The
    /// signal arrives while apply waits for a reader, so it always comes mid-apply.
    @Test(.ownThread) func anInterruptRollsBack() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store(items: StockFixture.largeItems)
        let before = f.snapshot(store)
        let reader = try ReadLock(path: f.path(store), table: "ZITEM")
        let run = try BackgroundMigrate(["apply", "--timeout", "20"] + f.models + [store], in: f.directory.path)
        Thread.sleep(forTimeInterval: 0.5)
        kill(run.pid, SIGINT)
        Thread.sleep(forTimeInterval: 0.2)
        reader.release()
        let outcome = run.finish()
        #expect(outcome.status == 130, "\(outcome)")
        #expect(outcome.stderr.hasSuffix("error: interrupted: rolled back, the store is unchanged\n"), "\(outcome)")
        #expect(f.snapshot(store) == before)
    }
}
