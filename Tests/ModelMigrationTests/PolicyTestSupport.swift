import DataModel
import Foundation
import MigrationPolicies
import Migrations
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// The package's example model and mapping files, for policy tests: `Models/Contacts`
/// and `Migrations/Contacts` read from the package, so that the tests migrate what
/// `migrate` ships.
enum ContactsFiles {
    /// Versions 1 to 4 of `Models/Contacts` without their `model:` and `version:`
    /// lines (`MigrationScenario` writes those).
    static func versions() throws -> [String] {
        try (1...4).map { version in
            let text = try String(
                contentsOfFile: "\(TestModels.modelsFolder)/Contacts/\(version).yaml", encoding: .utf8)
            return text.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.hasPrefix("model:") && !$0.hasPrefix("version:") }
                .joined(separator: "\n")
        }
    }

    /// The text of `Migrations/Contacts/<name>`.
    static func mapping(_ name: String) throws -> String {
        try String(contentsOfFile: "\(TestModels.packageRoot)/Migrations/Contacts/\(name)", encoding: .utf8)
    }
}

/// The policies of these tests: the example's and the test policies below.
let testPolicies = PolicyCatalog([
    SplitFullName.self, MoveCityToEntity.self, Passthrough.self, FailOnSourceKey.self, FailInRelationshipPhase.self,
    FailAtEnd.self, InsertTwice.self, PhaseLog.self, PhaseLogWithoutRelationships.self, ManagerProbe.self,
    CloneEachPerson.self, PetFactory.self, StrayPetFactory.self, ProgressProbe.self, PostNavigator.self,
    PersonNavigator.self, SourceValueProbe.self, ReadsAMissingProperty.self, DeclaresAMissingProperty.self,
    NotWrittenYet.self,
])

extension MigrationScenario {
    /// A scenario of the package's Contacts model (versions 1 to 4), its store at
    /// `storeVersion`, with the named package mapping files copied to `Migrations/`.
    static func contacts(storeVersion: Int = 1, mappings: [String] = ["1-to-2.yaml", "3-to-4.yaml"]) throws
        -> MigrationScenario
    {
        let scenario = try MigrationScenario(
            "Contacts", versions: try ContactsFiles.versions(), storeVersion: storeVersion)
        for name in mappings {
            try scenario.writeMapping(name, try ContactsFiles.mapping(name))
        }
        return scenario
    }

    /// Writes `Migrations/<model>/<name>`.
    func writeMapping(_ name: String, _ text: String) throws {
        try directory.write("Migrations/\(self.name)/\(name)", text)
    }

    /// Plans with the names of `catalog` as the compiled-in policies.
    func planWithPolicies(_ catalog: PolicyCatalog = testPolicies, to target: Int? = nil, verify: Bool = false) throws
        -> MigrationPlan
    {
        let store = try Store.open(path: storePath)
        defer { try? store.close() }
        var planner = MigrationPlanner(
            models: [try model()], migrationsFolder: migrationsFolder, knownPolicies: Set(catalog.names),
            options: PlanningOptions(target: target, verify: verify))
        planner.policyFunctions = catalog.functions
        return try planner.plan(store: store)
    }

    /// Plans and applies with the policies of `catalog`.
    @discardableResult
    func migrateWithPolicies(
        _ catalog: PolicyCatalog = testPolicies, to target: Int? = nil, options: Migrator.Options = Migrator.Options(),
        progress: (MigrationEvent) -> Void = { _ in }
    ) throws -> MigrationPlan {
        let plan = try planWithPolicies(catalog, to: target)
        try Migrator(policyRunner: PolicyEngine(catalog: catalog)).apply(plan, options: options, progress: progress)
        return plan
    }

    /// Raw rows of a table in key order, each row's values as text (`NULL` for nil).
    func table(_ name: String) throws -> [String] {
        try rows("SELECT * FROM \(SQLText.q(name)) ORDER BY Z_PK").map { $0.map { "\($0)" }.joined(separator: " | ") }
    }
}

/// What the test policies saw, per test: policies are created by the engine, so
/// they report through a task-local log that each test binds around its apply
/// (tests run in parallel; each sees only its own log).
final class PolicyLog: Sendable {
    @TaskLocal static var current: PolicyLog?

    private let entries = Locked([String]())

    /// Everything recorded, in order.
    var lines: [String] { entries.current }

    /// Records a line in the log of the running test.
    static func record(_ line: String) {
        guard let log = current else { return }
        log.entries.withLock { $0.append(line) }
    }

    /// Runs `body` with a fresh log bound; returns the log.
    static func capture(_ body: () throws -> Void) throws -> [String] {
        let log = PolicyLog()
        try $current.withValue(log) { try body() }
        return log.lines
    }
}

/// `Contacts` version 1 rows: people with the names the split must handle, and
/// their posts. Keys follow insertion order.
enum ContactsData {
    /// (fullName, email, age, city) of the people inserted by `seed`.
    /// The last one's name is made nil after inserting (an old row written before
    /// the name was required).
    static let people: [(String, String, Int64, String?)] = [
        ("Ann Lee", "ann@example.com", 30, "Zürich"),
        ("Madonna", "madonna@example.com", 65, " zürich "),
        ("Ana María García", "ana@example.com", 41, "Bern"),
        ("  Joana \t da   Silva\n", "joana@example.com", 28, "ZÜRICH"),
        ("Zoë Ångström", "zoe@example.com", 52, ""),
        ("", "empty@example.com", 0, nil),
        ("nil", "nil@example.com", 7, "  new   york "),
    ]

    /// (firstName, lastName) of each person after the split.
    static let split: [(String, String)] = [
        ("Ann", "Lee"), ("Madonna", ""), ("Ana María", "García"), ("Joana", "da Silva"), ("Zoë", "Ångström"), ("", ""),
        ("", ""),
    ]

    /// Inserts the people (keys 1 to 7) and posts: Ann writes posts 1 and 3, Ana
    /// post 2, Zoë post 4.
    static func seed(_ scenario: MigrationScenario) throws {
        try scenario.withObjects { o in
            for (name, email, age, city) in people {
                var values: [String: AttributeValue?] = [
                    "fullName": .string(name), "email": .string(email), "age": .integer(age),
                ]
                if let city { values["city"] = .string(city) }
                try o.insert("Person", values: values)
            }
            try o.store.connection.execute("UPDATE ZPERSON SET ZFULLNAME = NULL WHERE Z_PK = 7")
            try o.insert(
                "Post", values: ["title": .string("Hello"), "body": .string("First post"), "rating": .double(4.5)],
                relationships: ["author": [1]])
            try o.insert("Post", values: ["title": .string("Hola")], relationships: ["author": [3]])
            try o.insert(
                "Post", values: ["title": .string("Again"), "publishedAt": .date(800_000_000)],
                relationships: ["author": [1]])
            try o.insert("Post", values: ["title": .string("Hej")], relationships: ["author": [5]])
        }
    }
}
