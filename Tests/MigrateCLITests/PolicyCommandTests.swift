import Foundation
import TestSupport
import Testing

/// Policies through the shipped `migrate`, whose catalog holds the example's
/// `SplitFullName` and `MoveCityToEntity`: a mapping file naming another policy
/// stops `plan` and `apply` with exit 4, read-only commands only name it; the
/// example's own file migrates.
@Suite struct PolicyCommandTests {
    /// A Contacts 1 store with `Migrations/Contacts/1-to-2.yaml` naming `policy`.
    static func fixture(policy: String) throws -> CLIFixture {
        let f = try CLIFixture()
        try f.createContacts(version: 1)
        try f.directory.write(
            "Migrations/Contacts/1-to-2.yaml",
            """
            entities:\n  Person:\n    policy: \(policy)\n    properties:\n      firstName: policy\n      lastName: \
            policy\n
            """
        )
        return f
    }

    static let missing = """
        error: Contacts version 1 to 2 needs policy code this migrate does not have (1 problem):
          Person: Migrations/Contacts/1-to-2.yaml names policy 'SplitNames', which is not compiled into this migrate
            remedy: compiled-in policies: MergeMembersByEmail, MoveCityToEntity, RepointLoans, SplitFullName; a policy \
        of your own needs a migrate built with it (Docs/Migrations.md: "Your own policies and your own migrate")

        """

    @Test func planExits4NamingTheMissingPolicy() throws {
        let f = try Self.fixture(policy: "SplitNames")
        defer { f.remove() }
        let before = f.snapshot("contacts.sqlite")
        let result = try f.migrate(["plan", "--migrations", "Migrations"] + f.models + ["contacts.sqlite"])
        #expect(result.status == 4)
        #expect(result.stdout == "")
        #expect(result.stderr == Self.missing)
        #expect(f.snapshot("contacts.sqlite") == before)
    }

    @Test func applyExits4TooAndTheStoreIsUnchanged() throws {
        let f = try Self.fixture(policy: "SplitNames")
        defer { f.remove() }
        let before = f.snapshot("contacts.sqlite")
        let result = try f.migrate(["apply", "--migrations", "Migrations"] + f.models + ["contacts.sqlite"])
        #expect(result.status == 4)
        #expect(result.stderr == Self.missing)
        #expect(f.snapshot("contacts.sqlite") == before)
    }

    static let warning = """
        warning: Migrations/Contacts/1-to-2.yaml names policy 'SplitNames', which is not compiled into this migrate: \
        `plan` and `apply` of that hop need a migrate built with it (Docs/Migrations.md: "Your own policies and your \
        own migrate")

        """

    /// Read-only commands never need a policy: status still answers "migration
    /// needed" (3) and names the policy; diff and diagram show the mapping; fetch,
    /// dump and inspect read the store at its own version.
    @Test func readOnlyCommandsWorkWhateverTheMappingFilesName() throws {
        let f = try Self.fixture(policy: "SplitNames")
        defer { f.remove() }
        try f.directory.write("people.jsonl", "{\"fullName\":\"Ann Lee\",\"email\":\"ann@example.com\",\"age\":30}\n")
        #expect(try f.migrate(["load"] + f.models + ["contacts.sqlite", "Person", "people.jsonl"]).status == 0)
        let before = f.snapshot("contacts.sqlite")
        let options = ["--migrations", "Migrations"] + f.models
        let status = try f.migrate(["status"] + options + ["contacts.sqlite"])
        #expect(status.status == 3)
        #expect(status.stdout.hasPrefix("contacts.sqlite: Contacts version 1, migration to 3 needed ("))
        #expect(status.stderr == Self.warning)
        let json = try f.migrate(["status", "--json"] + options + ["contacts.sqlite"])
        #expect(json.status == 3)
        let report = try CLIFixture.object(json.stdout)
        #expect(report["status"] as? String == "migration-needed")
        #expect(report["missingPolicies"] as? [String] == ["SplitNames"])

        let diff = try f.migrate(["diff"] + options + ["1", "2"])
        #expect(diff.status == 0)
        #expect(diff.stdout.contains("Person (policy SplitNames)"))
        #expect(diff.stderr == Self.warning)
        let diagram = try f.migrate(["diagram"] + options + ["1", "2"])
        #expect(diagram.status == 0)
        #expect(diagram.stdout.contains("\"Person (policy SplitNames)\" {"))
        #expect(diagram.stderr == Self.warning)

        let note = """
            note: contacts.sqlite is at version 1 of Contacts (the current version is 3); reading it at its own \
            version (`migrate apply contacts.sqlite` migrates it)

            """
        let fetch = try f.migrate(
            ["fetch"] + options + ["contacts.sqlite", "Person", "--properties", "fullName", "--json"])
        #expect(fetch.status == 0)
        #expect(fetch.stdout == "{\"_pk\":1,\"_entity\":\"Person\",\"fullName\":\"Ann Lee\"}\n")
        #expect(fetch.stderr == note)
        let dump = try f.migrate(["dump"] + options + ["contacts.sqlite", "Person"])
        #expect(dump.status == 0)
        #expect(dump.stdout.contains("\"fullName\":\"Ann Lee\""))
        #expect(dump.stderr == note)
        let inspect = try f.migrate(["inspect"] + options + ["contacts.sqlite"])
        #expect(inspect.status == 0)
        #expect(inspect.stderr == "")
        // Writers still want the current version first (exit 3), whatever the policies.
        let update = try f.migrate(["update"] + options + ["contacts.sqlite", "Person", "--set", "age = 31"])
        #expect(update.status == 3)
        #expect(update.stderr.hasSuffix("migrate it first (`migrate apply contacts.sqlite`)\n"))
        #expect(f.snapshot("contacts.sqlite") == before)
    }

    /// A near miss gets a suggestion.
    @Test func aMisspelledPolicyGetsASuggestion() throws {
        let f = try Self.fixture(policy: "SplitFullNames")
        defer { f.remove() }
        let result = try f.migrate(["plan", "--migrations", "Migrations"] + f.models + ["contacts.sqlite"])
        #expect(result.status == 4)
        #expect(
            result.stderr.contains(
                """
                    remedy: compiled-in policies: MergeMembersByEmail, MoveCityToEntity, RepointLoans, SplitFullName; \
                did you mean 'SplitFullName'?; a policy of your own needs a migrate built with it (Docs/Migrations.md: \
                "Your own policies and your own migrate")

                """))
    }

    /// The example's mapping file: the shipped `migrate` plans the copy of Person
    /// that calls SplitFullName's functions and splits the names while applying
    /// (1 → 3: the hop with the policy functions, then an inferred one).
    @Test func theShippedMigrateRunsSplitFullName() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        try f.createContacts(version: 1)
        try f.directory.write(
            "Migrations/Contacts/1-to-2.yaml",
            try String(contentsOfFile: TestModels.packageRoot + "/Migrations/Contacts/1-to-2.yaml", encoding: .utf8))
        try f.directory.write(
            "people.jsonl",
            """
            {"fullName":"Ann Lee","email":"ann@example.com","age":30}
            {"fullName":"  Joana \\t da   Silva ","email":"joana@example.com"}
            {"fullName":"Madonna","email":"m@example.com"}
            {"fullName":"","email":"e@example.com"}

            """)
        try f.directory.write("posts.jsonl", "{\"title\":\"Hello\",\"author\":1}\n{\"title\":\"Hej\",\"author\":3}\n")
        #expect(try f.migrate(["load"] + f.models + ["contacts.sqlite", "Person", "people.jsonl"]).status == 0)
        #expect(try f.migrate(["load"] + f.models + ["contacts.sqlite", "Post", "posts.jsonl"]).status == 0)

        let plan = try f.migrate(["plan", "--migrations", "Migrations"] + f.models + ["contacts.sqlite"])
        #expect(plan.status == 0, "\(plan.stderr)")
        let lines = plan.stdout.components(separatedBy: "\n")
        #expect(
            lines.prefix(6) == [
                "contacts.sqlite: Contacts version 1 → 3, 2 hops",
                "path: mapping file 1-to-2.yaml 1 → 2, then inferred chain 2 → 3",
                "  1 → 2: mapping file: a mapping file from version 1",
                "  2 → 3: inferred chain: inference accepts the hop",
                "", "hop 1 → 2: mapping file Migrations/Contacts/1-to-2.yaml",
            ])
        #expect(lines.contains("    1. rebuild ZPERSON from ZPERSON (SQLite's 12-step procedure)  [rewrite of 4 rows]"))
        #expect(!plan.stdout.contains("policy SplitFullName"))
        let sql = try f.migrate(["plan", "--migrations", "Migrations", "--json"] + f.models + ["contacts.sqlite"])
        #expect(
            sql.stdout.contains(#"SplitFullName.firstNameFrom: → Person.firstName\"(s.Z_PK, s.\"ZFULLNAME\")"#),
            "\(sql.stdout)")
        #expect(lines.contains("hop 2 → 3: inferred"))

        let apply = try f.migrate(["apply", "--migrations", "Migrations"] + f.models + ["contacts.sqlite"])
        #expect(apply.status == 0, "\(apply.stderr)")
        let people = try f.migrate(["dump"] + f.models + ["contacts.sqlite", "Person"])
        let names = try people.stdout.split(separator: "\n").map { line in
            let object = try CLIFixture.object(String(line))
            return
                """
                \(object["_pk"] as? Int ?? 0) \
                \(object["firstName"] as? String ?? "?")|\(object["lastName"] as? String ?? "?")
                """
        }
        #expect(names == ["1 Ann|Lee", "2 Joana|da Silva", "3 Madonna|", "4 |"])
        let posts = try f.migrate(["dump"] + f.models + ["contacts.sqlite", "Post"])
        #expect(
            try posts.stdout.split(separator: "\n").map { try CLIFixture.object(String($0))["author"] as? Int } == [
                1, 3,
            ])
    }
}
