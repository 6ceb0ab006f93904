import Foundation
import TestSupport
import Testing

/// `migrate status`: its exit codes are what deploy scripts branch on — 0 current,
/// 3 migration needed and possible, 4 no migration path, 5 unknown version.
@Suite struct StatusCommandTests {
    @Test func migrationNeededThenCurrent() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        let before = f.snapshot(store)

        let needed = try f.migrate(["status"] + f.models + [store])
        #expect(needed.status == 3)
        #expect(needed.stdout == "stock.sqlite: Stock version 1, migration to 2 needed (5 steps)\n")
        #expect(needed.stderr == "")
        let json = try f.migrate(["status", "--json"] + f.models + [store])
        #expect(json.status == 3)
        let report = try StockFixture.object(json.stdout)
        #expect(report["status"] as? String == "migration-needed")
        #expect(report["exitCode"] as? Int == 3)
        #expect(report["version"] as? Int == 1)
        #expect(report["target"] as? Int == 2)
        #expect(report["model"] as? String == "Stock")
        #expect(f.snapshot(store).fingerprint == before.fingerprint)

        #expect(try f.migrate(["apply"] + f.models + [store]).status == 0)
        let current = try f.migrate(["status"] + f.models + [store])
        #expect(current.status == 0)
        #expect(current.stdout == "stock.sqlite: Stock version 2, current\n")
        #expect(current.stderr == "")
        let currentJSON = try StockFixture.object(try f.migrate(["status", "--json"] + f.models + [store]).stdout)
        #expect(currentJSON["status"] as? String == "current")
        #expect(currentJSON["exitCode"] as? Int == 0)
    }

    /// string → integer16 is no widening, and no mapping file covers it.
    @Test func aRefusedChangeIsNoMigrationPath() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        try f.directory.write(
            "Models/Stock/2.yaml",
            StockStore.v1.replacingOccurrences(of: "version: 1", with: "version: 2")
                .replacingOccurrences(of: "      note: string?\n", with: "      note: integer16?\n"))
        let before = f.snapshot(store)
        let result = try f.migrate(["status"] + f.models + [store])
        #expect(result.status == 4)
        #expect(result.stdout == "")
        let lines = result.stderr.components(separatedBy: "\n")
        #expect(
            lines.first == "error: no lightweight mapping from Stock version 1 to 2 (1 change inference cannot cover):")
        #expect(
            lines.count > 1 && lines[1] == "  Item.note: type change string → integer16 is unrelated, not a widening")

        let json = try f.migrate(["status", "--json"] + f.models + [store])
        #expect(json.status == 4)
        let report = try StockFixture.object(json.stdout)
        #expect(report["status"] as? String == "no-path")
        #expect(report["exitCode"] as? Int == 4)
        #expect((report["message"] as? String)?.hasPrefix("no lightweight mapping from Stock version 1 to 2") == true)
        #expect((report["error"] as? [String: Any])?["exitCode"] as? Int == 4)
        #expect(f.snapshot(store).fingerprint == before.fingerprint)
    }

    /// A shipped version edited after the store was made, and a store without the
    /// model cache (as one from elsewhere): no hash set matches; exit 5 names the
    /// closest version and the entity that differs.
    @Test func anEditedVersionWithoutTheModelCacheIsUnknown() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let store = try f.createContacts(version: 1)
        try SQLiteFile.execute(f.path(store), "DROP TABLE MM_MODELCACHE")
        try editContactsVersion1(f)
        let before = f.snapshot(store)

        let result = try f.migrate(["status"] + f.models + [store])
        #expect(result.status == 5)
        #expect(result.stdout == "")
        let lines = result.stderr.components(separatedBy: "\n")
        #expect(lines.count == 4)
        #expect(
            lines.first
                == """
                error: contacts.sqlite: the store's entity hashes match no version of model Contacts (closest is \
                version 1)
                """
        )
        #expect(
            lines.count > 1 && lines[1].hasPrefix("  Person: hash ") && lines[1].hasSuffix(" (no version has its hash)")
        )
        #expect(
            lines.count > 2
                && lines[2]
                    == """
                    a shipped version was edited, the store comes from elsewhere, or it is newer than this deployment
                    """
        )

        let json = try StockFixture.object(try f.migrate(["status", "--json"] + f.models + [store]).stdout)
        #expect(json["status"] as? String == "unknown-version")
        #expect(json["exitCode"] as? Int == 5)
        // plan and apply refuse the same way, changing nothing.
        #expect(try f.migrate(["plan"] + f.models + [store]).status == 5)
        #expect(try f.migrate(["apply"] + f.models + [store]).status == 5)
        #expect(f.snapshot(store).fingerprint == before.fingerprint)
    }

    /// The same edit on a store of ours: the store's own compiled model (MM_MODELCACHE)
    /// says what version 1 was when the store was made, and version 1's YAML now
    /// says otherwise: a shipped version was edited (drift). status, plan and apply
    /// exit 5 naming every difference and the remedy, changing nothing.
    @Test func anEditedShippedVersionIsDrift() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let store = try f.createContacts(version: 1)
        try editContactsVersion1(f)
        let before = f.snapshot(store)
        let status = try f.migrate(["status"] + f.models + [store])
        #expect(status.status == 5, "\(status)")
        #expect(
            status.stderr == """
                error: contacts.sqlite: version 1 of model Contacts was edited after this store was made with it \
                (Models/Contacts/1.yaml no longer has the hashes the store recorded for version 1):
                  Person: hashModifier none in the store's version, edited in the YAML
                a shipped version never changes: restore Models/Contacts/1.yaml as it shipped, and put the change in a \
                new version

                """)
        for command in ["plan", "apply"] {
            let result = try f.migrate([command] + f.models + [store])
            #expect(result.status == 5, "\(command): \(result)")
            #expect(result.stderr == status.stderr, "\(command)")
        }
        let json = try StockFixture.object(try f.migrate(["status", "--json"] + f.models + [store]).stdout)
        #expect(json["status"] as? String == "unknown-version")
        #expect(f.snapshot(store).fingerprint == before.fingerprint)
    }

    /// A store migrated by a newer deployment (version 2) read by one that only
    /// ships version 1. The README lists this under exit 5.
    @Test func aStoreNewerThanTheDeployment() throws {
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        #expect(try f.migrate(["apply"] + f.models + [store]).status == 0)
        try FileManager.default.removeItem(atPath: f.path("Models/Stock/2.yaml"))
        let result = try f.migrate(["status"] + f.models + [store])
        // A store newer than this deployment is an unknown version (exit 5).
        #expect(result.status == 5)
        #expect(
            result.stderr.contains("the store says version 2: newer than this deployment, whose current version is 1"))
    }

    /// Gives Person a hash modifier in the fixture's copy of Contacts version 1.
    func editContactsVersion1(_ f: CLIFixture) throws {
        let path = f.path("Models/Contacts/1.yaml")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("  Person:\n    attributes:\n"))
        try text.replacingOccurrences(
            of: "  Person:\n    attributes:\n", with: "  Person:\n    hashModifier: edited\n    attributes:\n"
        )
        .write(toFile: path, atomically: true, encoding: .utf8)
    }
}
