import DataModel
import Foundation
import Mapping
import MigrationPolicies
import Migrations
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// Test policy functions over Contacts 1 → 2 (`Person`: fullName, email, age, city
/// → firstName, lastName, …; `age` is integer16 with min 0, max 200).
struct PersonFunctions: EntityMigrationPolicy {
    /// State the functions of one apply share.
    final class Counter { var value = 0 }

    static var functions: [PolicyFunction] {
        let counter = Counter()
        return [
            PolicyFunction("describe:age:") { arguments in
                let name = arguments.string(0) ?? "nobody"
                return .string(
                    """
                    \(name.trimmingCharacters(in: .whitespacesAndNewlines)) \
                    (\(arguments.integer(1).map(String.init) ?? "?"))
                    """
                )
            },
            PolicyFunction("initialOf:") { arguments in
                arguments.withUTF8(0) { bytes in bytes?.first.map { .string(String(UnicodeScalar($0))) } ?? .string("-")
                }
            },
            PolicyFunction("typed:") { arguments in
                // The argument as the checker typed it: age is an integer16 attribute.
                if case .integer(let age)? = arguments[0] { return .string("int \(age)") }
                return .string("other")
            },
            PolicyFunction("fivefold:") { arguments in arguments.integer(0).map { .integer($0 * 5) } },
            PolicyFunction("failOnThree:") { arguments in
                if arguments.sourceKey == 3 { throw PolicyError("no name for row three") }
                return .string("ok")
            },
            PolicyFunction("nothingFor:") { _ in nil },
            PolicyFunction("wrongType:") { _ in .integer(7) },
            PolicyFunction("constant") { _ in .string("same") },
            PolicyFunction("tick:", deterministic: false) { _ in
                counter.value += 1
                return .string(String(counter.value))
            },
            PolicyFunction("lastTick:", deterministic: false) { _ in .string(String(counter.value)) },
        ]
    }
}

let functionPolicies = PolicyCatalog([PersonFunctions.self, SplitFullName.self])

@Suite struct PolicyFunctionTests {
    /// Contacts 1 → 2 with the given Person properties of the mapping file.
    static func scenario(_ properties: String, policy: String = "PersonFunctions") throws -> MigrationScenario {
        let s = try MigrationScenario.contacts(mappings: ["3-to-4.yaml"])
        try s.writeMapping("1-to-2.yaml", "entities:\n  Person:\n    policy: \(policy)\n    properties:\n\(properties)")
        try ContactsData.seed(s)
        return s
    }

    func plan(_ s: MigrationScenario) throws -> MigrationPlan {
        let store = try Store.open(path: s.storePath)
        defer { try? store.close() }
        var planner = MigrationPlanner(
            models: [try s.model()], migrationsFolder: s.migrationsFolder, knownPolicies: Set(functionPolicies.names))
        planner.policyFunctions = functionPolicies.functions
        planner.options.target = 2
        return try planner.plan(store: store)
    }

    @Test func argumentsAreTheRowsValuesAndResultsAreStored() throws {
        let s = try Self.scenario(
            """
                  firstName: { value: "FUNCTION($entityPolicy, 'describe:age:', $source.fullName, $source.age + 1)" }
                  lastName: { value: "FUNCTION($entityPolicy, 'initialOf:', $source.email)" }
                  city: { value: "FUNCTION($entityPolicy, 'typed:', $source.age)" }
                  age: { value: "FUNCTION($entityPolicy, 'fivefold:', $source.age)" }
                  email: { value: "FUNCTION($entityPolicy, 'constant')" }

            """)
        defer { s.remove() }
        try s.withObjects {
            try $0.store.connection.execute("UPDATE ZPERSON SET ZEMAIL = 'x' || Z_PK || ZEMAIL, ZAGE = Z_PK * 5")
        }
        // Unique emails: 'constant' would break the uniqueness constraint, so it is checked on its own below.
        try s.writeMapping(
            "1-to-2.yaml",
            try String(contentsOfFile: "\(s.migrationsFolder)/Contacts/1-to-2.yaml", encoding: .utf8)
                .replacingOccurrences(of: "      email: { value: \"FUNCTION($entityPolicy, 'constant')\" }\n", with: "")
        )
        let plan = try plan(s)
        #expect(plan.allSteps.filter { $0.kind == .policy } == [])
        try Migrator(policyRunner: PolicyEngine(catalog: functionPolicies)).apply(plan)
        let people = try s.fetch("Person")
        #expect(
            people.map { $0.values["firstName"] }
                == [
                    "Ann Lee (6)", "Madonna (11)", "Ana María García (16)", "Joana \t da   Silva (21)",
                    "Zoë Ångström (26)", " (31)", "nobody (36)",
                ].map { .string($0) })
        #expect(people.map { $0.values["lastName"] } == Array(repeating: .string("x"), count: 7))
        #expect(people.map { $0.values["city"] } == (1...7).map { .string("int \($0 * 5)") })
        #expect(people.map { $0.values["age"] } == (1...7).map { .integer(Int64($0 * 25)) })
    }

    @Test func aConstantCallIsEvaluatedPerRowWithItsKey() throws {
        let s = try Self.scenario(
            """
                  firstName: { value: "FUNCTION($entityPolicy, 'constant')" }
                  lastName: { value: "FUNCTION($entityPolicy, 'failOnThree:', $source.fullName)" }

            """)
        defer { s.remove() }
        try s.withObjects { try $0.store.connection.execute("DELETE FROM ZPERSON WHERE Z_PK = 3") }
        try Migrator(policyRunner: PolicyEngine(catalog: functionPolicies)).apply(try plan(s))
        #expect(
            try s.fetch("Person").map { [$0.values["firstName"], $0.values["lastName"]] }
                == Array(repeating: [.string("same"), .string("ok")], count: 6))
    }

    /// A thrown error, nil for a required attribute, a value of another type and one
    /// outside the attribute's limits each fail the apply naming the row, and the
    /// store is left byte-identical.
    @Test func badResultsFailTheApplyNamingTheRow() throws {
        let cases: [(String, String)] = [
            (
                "lastName: { value: \"FUNCTION($entityPolicy, 'failOnThree:', $source.fullName)\" }",
                """
                Person.lastName: policy PersonFunctions's failOnThree: failed on source row Z_PK 3: no name for row \
                three
                """
            ),
            (
                "lastName: { value: \"FUNCTION($entityPolicy, 'nothingFor:', $source.fullName)\" }",
                """
                Person.lastName: policy PersonFunctions's nothingFor: returned nil for source row Z_PK 1, and \
                Person.lastName is required
                """
            ),
            (
                "lastName: { value: \"FUNCTION($entityPolicy, 'wrongType:', $source.fullName)\" }",
                """
                Person.lastName: policy PersonFunctions's wrongType: returned 7 for source row Z_PK 1: expected a \
                string value
                """
            ),
            (
                "age: { value: \"FUNCTION($entityPolicy, 'fivefold:', $source.age)\" }",
                """
                Person.age: policy PersonFunctions's fivefold: returned 325 for source row Z_PK 2: 325 is above the \
                maximum 200
                """
            ),
        ]
        for (property, message) in cases {
            let s = try Self.scenario("      \(property)\n")
            defer { s.remove() }
            let plan = try plan(s)
            let dump = try StoreDump.dump(s.storePath)
            let error = #expect(throws: MigrationError.self) {
                try Migrator(policyRunner: PolicyEngine(catalog: functionPolicies)).apply(plan)
            }
            #expect(error?.kind == .stepFailed)
            let prefix =
                "step 1 (rebuild ZPERSON from ZPERSON (SQLite's 12-step procedure)) failed: "
                + "SQLite error 1 (SQLITE_ERROR): "
            #expect(error?.message == prefix + message + "; nothing was changed")
            #expect(error?.statement?.hasPrefix("INSERT INTO \"MM_NEW_ZPERSON\"") == true)
            #expect(try StoreDump.dump(s.storePath) == dump)
        }
    }

    /// The functions of a policy are read once per step: closures that capture one
    /// object share it (tick: counts rows, lastTick: reads the same count).
    @Test func functionsOfOneStepShareTheirState() throws {
        let s = try Self.scenario(
            """
                  firstName: { value: "FUNCTION($entityPolicy, 'tick:', $source.fullName)" }
                  lastName: { value: "FUNCTION($entityPolicy, 'lastTick:', $source.fullName)" }

            """)
        defer { s.remove() }
        try Migrator(policyRunner: PolicyEngine(catalog: functionPolicies)).apply(try plan(s))
        #expect(
            try s.fetch("Person").map { [$0.values["firstName"], $0.values["lastName"]] }
                == (1...7).map { [.string("\($0)"), .string("\($0)")] })
    }

    /// A selector the policy does not declare is refused as what it is, code this
    /// migrate lacks (exit 4), not as a change inference cannot cover, at the value's
    /// line and column.
    @Test func anUnknownSelectorIsRefusedAtItsLine() throws {
        let s = try Self.scenario(
            "      firstName: { value: \"FUNCTION($entityPolicy, 'fullNameFrom:', $source.fullName)\" }\n",
            policy: "SplitFullName")
        defer { s.remove() }
        let error = #expect(throws: InferenceFailure.self) { try plan(s) }
        #expect(error?.refusals.map(\.kind) == [.missingPolicyFunction])
        #expect(
            error?.description == """
                Contacts version 1 to 2 needs policy code this migrate does not have (1 problem):
                  \(s.migrationsFolder)/Contacts/1-to-2.yaml:5:28: property 'Person.firstName': policy 'SplitFullName' \
                has no function 'fullNameFrom:' (declared: firstNameFrom:, lastNameFrom:)
                    remedy: add PolicyFunction("fullNameFrom:") { … } to SplitFullName.functions (Docs/Policies.md), \
                or call one it has
                """)
    }

    /// The checker's refusals, each at the expression's line and column.
    @Test func callsTheCheckerRefusesAreLocated() throws {
        let cases: [(String, String)] = [
            (
                "firstName: { value: \"FUNCTION($entityPolicy, 'describe:age:', $source.fullName)\" }",
                "5:28: property 'Person.firstName': value: 'describe:age:' takes 2 arguments (one per ':'), found 1"
            ),
            (
                "firstName: { value: \"FUNCTION($entityPolicy, 'initialOf:', $source)\" }",
                "5:66: property 'Person.firstName': value: $source is the whole source object; PersonFunctions's "
                    + "functions run inside the copy "
                    + "and take values (pass its keys, as in $source.name)"
            ),
            (
                "firstName: { value: \"lowercase:(FUNCTION($entityPolicy, 'initialOf:', $source.email))\" }\n"
                    + "      lastName: { value: \"FUNCTION($entityPolicy, 'initialOf:', $source.email)\" }",
                "5:39: property 'Person.firstName': value: FUNCTION($entityPolicy, 'initialOf:', …) must be the whole "
                    + "value: its result is "
                    + "the destination attribute's value (compute the rest in the policy function)"
            ),
            (
                """
                firstName: { value: \"FUNCTION($entityPolicy, 'initialOf:', $source.email)\" }\n      lastName: policy
                """,
                "5:7: property 'Person.firstName': value: the entity's objects come from policy PersonFunctions"
            ),
        ]
        for (properties, message) in cases {
            let s = try Self.scenario("      \(properties)\n")
            defer { s.remove() }
            let error = #expect(throws: DiagnosticsError.self) { try plan(s) }
            #expect(
                error?.diagnostics.map { "\($0.location.map { "\($0.line):\($0.column)" } ?? ""): \($0.message)" } == [
                    message
                ])
        }
        // Without a policy on the entity, $entityPolicy names nothing.
        let s = try MigrationScenario.contacts(mappings: ["3-to-4.yaml"])
        defer { s.remove() }
        try s.writeMapping(
            "1-to-2.yaml",
            "entities:\n  Person:\n    properties:\n"
                + "      firstName: { value: \"FUNCTION($entityPolicy, 'initialOf:', $source.email)\" }\n")
        let error = #expect(throws: DiagnosticsError.self) { try plan(s) }
        #expect(
            error?.diagnostics.map(\.message) == [
                """
                property 'Person.firstName': value: FUNCTION($entityPolicy, 'initialOf:', …) calls the entity \
                mapping's policy, and it names none (add `policy: <Name>` to the entity)
                """
            ])
    }

    /// A filter chooses the source objects before any value is computed (Core Data runs
    /// it as the source fetch's predicate, in the store's SQL): calling a policy
    /// function there is refused as such, at the call's column, with or without a
    /// policy on the entity.
    @Test func aFilterCannotCallPolicyFunctions() throws {
        for policy in ["    policy: PersonFunctions\n", ""] {
            let s = try MigrationScenario.contacts(mappings: ["3-to-4.yaml"])
            defer { s.remove() }
            try s.writeMapping(
                "1-to-2.yaml",
                """
                entities:
                  Person:
                \(policy)    filter: "age > 3 AND FUNCTION($entityPolicy, 'initialOf:', $source.email) == 'a'"
                    properties:
                      firstName: { value: "FUNCTION($entityPolicy, 'initialOf:', $source.email)" }

                """)
            let error = #expect(throws: DiagnosticsError.self) { try plan(s) }
            let line = policy.isEmpty ? 3 : 4
            let messages = error?.diagnostics.map {
                "\($0.location.map { "\($0.line):\($0.column)" } ?? ""): \($0.message)"
            }
            #expect(
                messages?.filter { $0.contains("filter:") } == [
                    """
                    \(line):26: entity 'Person': filter: a filter cannot call policy functions: \
                    FUNCTION($entityPolicy, 'initialOf:', …) computes an attribute's value inside the copy, and the \
                    filter chooses which source objects are copied before that (filter on the source object's own \
                    values, as in visits > 0)
                    """
                ])
        }
    }

    /// With `prop: policy` the stages own the objects: SplitFullName still splits there.
    @Test func theObjectGraphFormStillSplits() throws {
        let s = try Self.scenario("      firstName: policy\n      lastName: policy\n", policy: "SplitFullName")
        defer { s.remove() }
        let plan = try plan(s)
        #expect(plan.allSteps.filter { $0.kind == .policy }.map(\.summary) == ["policy SplitFullName: Person → Person"])
        try Migrator(policyRunner: PolicyEngine(catalog: functionPolicies)).apply(plan)
        #expect(
            try s.fetch("Person").map { [$0.values["firstName"], $0.values["lastName"]] }
                == ContactsData.split.map { [.string($0.0), .string($0.1)] })
    }
}
