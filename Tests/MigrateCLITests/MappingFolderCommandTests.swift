import Foundation
import MigrationPolicies
import TestSupport
import Testing

/// Issue 27: what a model's mapping folder holds that no migration could use is
/// reported by `validate` (exit 1, naming each file) and refused alike by `plan` and
/// `apply`, never ignored; a selector the policy does not declare is refused as code
/// this migrate lacks (exit 4), at its file:line:column.
@Suite struct MappingFolderCommandTests {
    static let onto =
        """
        a mapping file maps a version to a later one, <A>-to-<B>.yaml with B > A (a hop, e.g. 1-to-2.yaml, or a span, \
        e.g. 1-to-5.yaml)
        """

    /// Contacts 1 to 3 with the example's mapping file and the unusable ones.
    static func fixture() throws -> CLIFixture {
        let f = try CLIFixture()
        let example = try String(
            contentsOfFile: "\(TestModels.packageRoot)/Migrations/Contacts/1-to-2.yaml", encoding: .utf8)
        try f.directory.write("Migrations/Contacts/1-to-2.yaml", example)
        for name in ["2-to-9.yaml", "3-to-3.yaml", "3-to-2.yaml", "2-to-3.yaml.bak"] {
            try f.directory.write("Migrations/Contacts/" + name, "entities: {}\n")
        }
        return f
    }

    static let errors = """
        error: Migrations/Contacts/2-to-3.yaml.bak: not a mapping file: a model's mapping folder holds files named \
        <A>-to-<B>.yaml (e.g. 1-to-2.yaml), and this one would be ignored (rename it, or move it out of \
        Migrations/Contacts)
        error: Migrations/Contacts/2-to-9.yaml: maps version 2 to 9, but model Contacts has no version 9 (its \
        versions: 1 to 3); no migration would ever use this file
        error: Migrations/Contacts/3-to-2.yaml: \(onto)
        error: Migrations/Contacts/3-to-3.yaml: \(onto)
        """

    @Test func validateReportsEveryUnusableFile() throws {
        let f = try Self.fixture()
        defer { f.remove() }
        let result = try f.migrate(["validate", "--migrations", "Migrations"] + f.models)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr == Self.errors + "\n4 errors, 0 warnings\n")
        let json = try f.migrate(["validate", "--json", "--migrations", "Migrations"] + f.models)
        #expect(json.status == 1)
        let report = try CLIFixture.object(json.stdout)
        #expect(report["valid"] as? Bool == false)
        #expect((report["models"] as? [[String: Any]])?.first?["valid"] as? Bool == false)
        #expect((report["diagnostics"] as? [[String: Any]])?.count == 4)
    }

    @Test func planAndApplyRefuseThemTheSameWay() throws {
        let f = try Self.fixture()
        defer { f.remove() }
        try f.createContacts(version: 1)
        let before = f.snapshot("contacts.sqlite")
        for command in ["plan", "apply"] {
            let result = try f.migrate([command, "--migrations", "Migrations"] + f.models + ["contacts.sqlite"])
            #expect(result.status == 1, "\(command)")
            #expect(result.stderr.hasPrefix(Self.errors), "\(command): \(result.stderr)")
        }
        #expect(f.snapshot("contacts.sqlite") == before)
        // The folder cleaned up, validate checks each file against its two versions.
        for name in ["2-to-9.yaml", "3-to-3.yaml", "3-to-2.yaml", "2-to-3.yaml.bak"] {
            try FileManager.default.removeItem(atPath: f.path("Migrations/Contacts/" + name))
        }
        try f.directory.write("Migrations/Contacts/2-to-3.yaml", "entities:\n  Persn: {}\n")
        let result = try f.migrate(["validate", "--migrations", "Migrations"] + f.models)
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix(
                "Migrations/Contacts/2-to-3.yaml:2:3: error: entity 'Persn': not an entity of Contacts version 3"),
            "\(result.stderr)")
        try f.directory.write("Migrations/Contacts/2-to-3.yaml", "entities: {}\n")
        let valid = try f.migrate(["validate", "--migrations", "Migrations"] + f.models)
        #expect(valid.status == 0)
        #expect(valid.stdout == "Models/Contacts: 3 versions valid\n")
    }

    /// Item 3: a selector SplitFullName does not declare.
    @Test func anUndeclaredSelectorIsWordedAsWhatItIs() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        try f.createContacts(version: 1)
        try f.directory.write(
            "Migrations/Contacts/1-to-2.yaml",
            """
            entities:
              Person:
                policy: SplitFullName
                properties:
                  firstName: { value: "FUNCTION($entityPolicy, 'givenNameFrom:', $source.fullName)" }

            """)
        let before = f.snapshot("contacts.sqlite")
        let result = try f.migrate(["plan", "--migrations", "Migrations"] + f.models + ["contacts.sqlite"])
        #expect(result.status == 4)
        #expect(
            result.stderr == """
                error: Contacts version 1 to 2 needs policy code this migrate does not have (1 problem):
                  Migrations/Contacts/1-to-2.yaml:5:28: property 'Person.firstName': policy 'SplitFullName' has no \
                function 'givenNameFrom:' (declared: firstNameFrom:, lastNameFrom:)
                    remedy: add PolicyFunction("givenNameFrom:") { … } to SplitFullName.functions (Docs/Policies.md), \
                or call one it has

                """)
        #expect(f.snapshot("contacts.sqlite") == before)
    }

    /// Folders where mapping files would hide: inside a model's folder (a folder named
    /// like a mapping file, a subfolder), a folder named after the model in another
    /// case (read on macOS, not here), a folder named after no model.
    @Test func foldersHidingMappingFilesAreReported() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        for path in [
            "Contacts/1-to-2.yaml/x.yaml", "Contacts/sub/2-to-3.yaml", "contacts/1-to-2.yaml", "Contact/1-to-2.yaml",
        ] {
            try f.directory.write("Migrations/" + path, "entities: {}\n")
        }
        try f.directory.write("Migrations/Policies/Skeleton.swift", "// written by import\n")
        let result = try f.migrate(["validate", "--migrations", "Migrations"] + f.models)
        #expect(result.status == 1)
        #expect(
            result.stderr == """
                error: Migrations/contacts: the mapping folder of model Contacts is named Contacts exactly (names are \
                case-sensitive here); nothing in this one would be read
                error: Migrations/Contacts/1-to-2.yaml: a folder in a model's mapping folder: it holds mapping files \
                (<A>-to-<B>.yaml) and a Policies folder only, and nothing in this one would be read (move its files \
                up, or out of Migrations/Contacts)
                error: Migrations/Contacts/sub: a folder in a model's mapping folder: it holds mapping files \
                (<A>-to-<B>.yaml) and a Policies folder only, and nothing in this one would be read (move its files \
                up, or out of Migrations/Contacts)
                error: Migrations/Contact: holds YAML files but is the mapping folder of no model (models: Contacts); \
                nothing in it would be read (name it after its model, or move it out of Migrations)
                4 errors, 0 warnings

                """, "\(result.stderr)")
    }
}

/// `status` names a missing policy of either form — one whose functions a set-based
/// copy calls (`FUNCTION($entityPolicy, …)`) as well as one running the stages —
/// beside its answer, as `apply` would then refuse it (issue 38).
@Suite struct MissingFunctionPolicyStatusTests {
    @Test func statusNamesAMissingFunctionStylePolicy() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        try f.createContacts(version: 1)
        try f.directory.write(
            "Migrations/Contacts/1-to-2.yaml",
            """
            entities:
              Person:
                policy: NotCompiledIn
                properties:
                  firstName: { value: "FUNCTION($entityPolicy, 'givenNameFrom:', $source.fullName)" }

            """)
        let status = try f.migrate(["status", "--json", "--migrations", "Migrations"] + f.models + ["contacts.sqlite"])
        #expect(status.status == 3, "\(status.stderr)")
        let report = try CLIFixture.object(status.stdout)
        #expect(report["missingPolicies"] as? [String] == ["NotCompiledIn"])
        let plan = try f.migrate(["plan", "--migrations", "Migrations"] + f.models + ["contacts.sqlite"])
        #expect(plan.status == 4)
    }
}
