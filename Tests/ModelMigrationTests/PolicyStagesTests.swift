import Foundation
import MigrationPolicies
import Migrations
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// Logs each phase with the mapping's destination entity.
struct StageLog: EntityMigrationPolicy {
    mutating func begin(_ manager: MigrationManager) throws { PolicyLog.record("begin \(entity(manager))") }
    mutating func createDestinationInstances(for source: SourceObject, in manager: MigrationManager) throws {
        PolicyLog.record("create \(source.entity) \(source.primaryKey)")
        try manager.insert(try manager.createDestinationInstance(for: source))
    }
    mutating func endInstanceCreation(_ manager: MigrationManager) throws {
        PolicyLog.record("endInstanceCreation \(entity(manager))")
    }
    mutating func createRelationships(for destination: DestinationObject, in manager: MigrationManager) throws {
        PolicyLog.record("relationships \(destination.entity) \(destination.primaryKey)")
    }
    mutating func endRelationshipCreation(_ manager: MigrationManager) throws {
        PolicyLog.record("endRelationshipCreation \(entity(manager))")
    }
    mutating func performCustomValidation(_ manager: MigrationManager) throws {
        PolicyLog.record("validate \(entity(manager))")
    }
    mutating func end(_ manager: MigrationManager) throws { PolicyLog.record("end \(entity(manager))") }
    func entity(_ manager: MigrationManager) -> String { manager.currentEntityMapping.destination ?? "?" }
}

/// Refuses, in the validation stage, a hop that left any loan without a member.
struct EveryLoanHasAMember: EntityMigrationPolicy {
    mutating func createRelationships(for destination: DestinationObject, in manager: MigrationManager) throws {
        guard
            let source = try manager.sourceInstances(
                forEntityMappingName: manager.currentEntityMapping.name, destination: destination
            ).first,
            let oldMember = try source.object("member")
        else { return }
        // Points each loan at the first member whose destination exists (no merge
        // logic): the duplicates' loans are left without one.
        let member = try manager.destinationInstances(
            forEntityMappingName: "MemberToMember", sourceInstances: [oldMember]
        )
        .first { $0.primaryKey == oldMember.primaryKey }
        var loan = destination
        loan.setRelationship("member", toKey: member?.primaryKey)
        try manager.update(loan)
    }
    mutating func performCustomValidation(_ manager: MigrationManager) throws {
        throw PolicyError("a loan lost its member")
    }
}

/// Asks the manager for each loan's member by the Member mapping's own name, `People`.
struct LoansByMappingName: EntityMigrationPolicy {
    mutating func begin(_ manager: MigrationManager) throws {
        PolicyLog.record("begin \(manager.currentEntityMapping.name)")
    }
    mutating func createRelationships(for destination: DestinationObject, in manager: MigrationManager) throws {
        guard
            let source = try manager.sourceInstances(
                forEntityMappingName: manager.currentEntityMapping.name, destination: destination
            ).first,
            let oldMember = try source.object("member")
        else { return }
        let members = try manager.destinationInstances(forEntityMappingName: "People", sourceInstances: [oldMember])
        PolicyLog.record("loan \(destination.primaryKey): member \(members.map(\.primaryKey))")
    }
}

/// Policy stages across the mappings of a hop (Core Data's `NSMigrationManager`):
/// instances of every mapping, then relationships of every mapping, then
/// validation; associations that last for the hop; properties left to a policy
/// that it emptied.
@Suite struct PolicyStagesTests {
    static let catalog = PolicyCatalog([
        MergeMembersByEmail.self, RepointLoans.self, StageLog.self, EveryLoanHasAMember.self, Passthrough.self,
        LoansByMappingName.self,
    ])

    /// The example's Library model (Examples/Library) with a store at version 1:
    /// Ann and Bob, Ann again (member 3, another spelling of her email), Cy; loans
    /// 1 and 4 of Ann's duplicate, 2 of Ann, 3 of Bob.
    static func library(mapping: String? = nil) throws -> MigrationScenario {
        let folder = TestModels.packageRoot + "/Examples/Library"
        let versions = try (1...2).map { version in
            try String(contentsOfFile: "\(folder)/Models/Library/\(version).yaml", encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.hasPrefix("model:") && !$0.hasPrefix("version:") }.joined(separator: "\n")
        }
        let s = try MigrationScenario("Library", versions: versions)
        try s.writeMapping(
            "1-to-2.yaml",
            try mapping ?? String(contentsOfFile: "\(folder)/Migrations/Library/1-to-2.yaml", encoding: .utf8))
        try s.withObjects { o in
            try o.insert("Member", values: ["name": .string("Ann"), "email": .string("ann@example.com")])
            try o.insert("Member", values: ["name": .string("Bob"), "email": .string("bob@example.com")])
            try o.insert("Member", values: ["name": .string("Ann L."), "email": .string(" Ann@Example.com")])
            try o.insert("Member", values: ["name": .string("Cy"), "email": .string("cy@example.com")])
            for (title, member) in [("Dune", 3), ("Emma", 1), ("Ulysses", 2), ("Kim", 3)] {
                try o.insert("Loan", values: ["title": .string(title)], relationships: ["member": [Int64(member)]])
            }
        }
        return s
    }

    func apply(_ s: MigrationScenario, verify: Bool = false, options: Migrator.Options = Migrator.Options()) throws
        -> MigrationResult
    {
        let store = try Store.open(path: s.storePath)
        var planner = MigrationPlanner(
            models: [try s.model()], migrationsFolder: s.migrationsFolder, knownPolicies: Set(Self.catalog.names),
            options: PlanningOptions(verify: verify))
        planner.policyInputs = Self.catalog.declaredInputs
        let plan = try planner.plan(store: store)
        try store.close()
        return try Migrator(policyRunner: PolicyEngine(catalog: Self.catalog)).apply(plan, options: options)
    }

    /// Members merged by email, loans re-pointed to the member that stays: the
    /// relationship stage of Loan sees the associations Member's instance stage made.
    @Test func mergeDuplicateMembersAndRepointTheirLoans() throws {
        let s = try Self.library()
        defer { s.remove() }
        let result = try apply(s, verify: true)
        #expect(result.warnings == [])
        #expect(try s.storeVersion() == 2)
        #expect(
            try s.rows("SELECT Z_PK || ' ' || ZNAME || ' ' || ZEMAIL FROM ZMEMBER ORDER BY Z_PK").map { $0[0].string }
                == [
                    "1 Ann ann@example.com", "2 Bob bob@example.com", "4 Cy cy@example.com",
                ])
        #expect(
            try s.rows("SELECT Z_PK, ZMEMBER FROM ZLOAN ORDER BY Z_PK").map { $0.map(\.int64) } == [
                [1, 1], [2, 1], [3, 2], [4, 1],
            ])
    }

    /// An entity mapping named with `mappingName:` (as Xcode lets a mapping model name
    /// it: olvid's `ContactGroupToContactGroupAndMore`) is the name the manager answers to.
    @Test func aPolicyAsksForAMappingByItsOwnName() throws {
        let s = try Self.library(
            mapping: "entities:\n  Loan:\n    policy: LoansByMappingName\n  Member:\n    mappingName: People\n")
        defer { s.remove() }
        let log = try PolicyLog.capture { _ = try apply(s) }
        #expect(
            log == [
                "begin LoanToLoan", "loan 1: member [3]", "loan 2: member [1]", "loan 3: member [2]",
                "loan 4: member [3]",
            ])
    }

    /// Each stage runs over every mapping, in the mapping file's order, before the
    /// next stage starts.
    @Test func stagesSpanEveryMappingOfTheHop() throws {
        let s = try Self.library(mapping: "entities:\n  Loan:\n    policy: StageLog\n  Member:\n    policy: StageLog\n")
        defer { s.remove() }
        let log = try PolicyLog.capture { _ = try? apply(s) }
        #expect(
            log == [
                "begin Loan", "create Loan 1", "create Loan 2", "create Loan 3", "create Loan 4",
                "endInstanceCreation Loan",
                "begin Member", "create Member 1", "create Member 2", "create Member 3", "create Member 4",
                "endInstanceCreation Member",
                "relationships Loan 1", "relationships Loan 2", "relationships Loan 3", "relationships Loan 4",
                "endRelationshipCreation Loan",
                "relationships Member 1", "relationships Member 2", "relationships Member 3", "relationships Member 4",
                "endRelationshipCreation Member",
                "validate Loan", "validate Member", "end Loan", "end Member",
            ])
    }

    /// A policy can refuse the hop in the validation stage; nothing is changed.
    @Test func theValidationStageCanRefuse() throws {
        let s = try Self.library(
            mapping: """
                entities:
                  Member:
                    policy: MergeMembersByEmail
                  Loan:
                    policy: EveryLoanHasAMember
                    properties:
                      member: policy

                """)
        defer { s.remove() }
        let before = FileSnapshot(s.storePath)
        #expect {
            try apply(s)
        } throws: { error in
            "\(error)"
                == """
                policy EveryLoanHasAMember failed on Loan in performCustomValidation: a loan lost its member; nothing \
                was changed
                """
        }
        #expect(FileSnapshot(s.storePath).fingerprint == before.fingerprint)
    }

    /// `city: policy` with a policy that never sets it: the values are lost, and
    /// the result says so per property; `--verify` refuses.
    @Test func aPropertyLeftToAPolicyThatEmptiesItIsReported() throws {
        let mapping =
            """
            entities:\n  Person:\n    policy: Passthrough\n    properties:\n      firstName: policy\n      lastName: \
            policy\n      city: policy\n
            """
        let s = try MigrationScenario.contacts(mappings: ["3-to-4.yaml"])
        defer { s.remove() }
        try s.writeMapping("1-to-2.yaml", mapping)
        try ContactsData.seed(s)
        let before = FileSnapshot(s.storePath)
        let plan = try s.planWithPolicies(Self.catalog, to: 2, verify: true)
        #expect {
            try Migrator(policyRunner: PolicyEngine(catalog: Self.catalog)).apply(plan)
        } throws: { error in
            (error as? MigrationError)?.kind == .verifyFailed
                && "\(error)" == """
                    --verify: Person.city is left to policy Passthrough, which left it nil on 6 objects whose source \
                    had a value: that data is lost; nothing was changed
                    """
        }
        #expect(FileSnapshot(s.storePath).fingerprint == before.fingerprint)
        let result = try Migrator(policyRunner: PolicyEngine(catalog: Self.catalog)).apply(
            try s.planWithPolicies(Self.catalog, to: 2))
        #expect(
            result.warnings == [
                """
                Person.city is left to policy Passthrough, which left it nil on 6 objects whose source had a value: \
                that data is lost
                """
            ])
    }
}

extension PolicyStagesTests {
    /// Members merged by a policy while Loan is inferred: Core Data's inferred Loan
    /// mapping sets `member` through the association of the Member mapping
    /// (`destinationInstancesForEntityMappingNamed:sourceInstances:`), so the loans of
    /// a merged member follow it to the member that stays; none keeps a key that no
    /// longer exists.
    @Test func inferredReferencesFollowAPolicysMerge() throws {
        let s = try Self.library(mapping: "entities:\n  Member:\n    policy: MergeMembersByEmail\n")
        defer { s.remove() }
        _ = try apply(s)
        #expect(try s.rows("SELECT Z_PK FROM ZMEMBER ORDER BY Z_PK").map { $0[0].int64 } == [1, 2, 4])
        #expect(
            try s.rows("SELECT Z_PK, ZMEMBER FROM ZLOAN ORDER BY Z_PK").map { $0.map(\.int64) } == [
                [1, 1], [2, 1], [3, 2], [4, 1],
            ])
    }
}

extension PolicyStagesTests {
    /// Columns on a policy's table that belong to other entities' to-many
    /// relationships (the key of `Club.fans`, which has no inverse; a position in an
    /// ordered list) are carried from the source rows: the policy never writes them.
    @Test func aPolicysTableKeepsOtherEntitiesKeysAndPositions() throws {
        let fans =
            """
            Member: {attributes: {email: string?}}, Club: {attributes: {name: string}, relationships: {fans: \
            {destination: Member, toMany: true}}}
            """
        let ordered = """
            Member: {attributes: {email: string?}, relationships: {club: {destination: Club, inverse: members}}}, \
            Club: {attributes: {name: string}, relationships: {members: {destination: Member, toMany: true, ordered: \
            true, inverse: club}}}
            """
        for (entities, relationship) in [(fans, "fans"), (ordered, "members")] {
            let s = try MigrationScenario("Lib", versions: ["entities: {\(entities)}", "entities: {\(entities)}"])
            defer { s.remove() }
            try s.withObjects { o in
                try o.insert("Member", values: ["email": .string("a@x")])
                try o.insert("Member", values: ["email": .string("b@x")])
                try o.insert("Member", values: ["email": .string("c@x")])
                try o.insert("Club", values: ["name": .string("c1")], relationships: [relationship: [3, 1, 2]])
            }
            try s.writeMapping("1-to-2.yaml", "entities:\n  Member:\n    policy: MergeMembersByEmail\n")
            try s.migrate(policies: Self.catalog)
            let club = try #require(try s.fetch("Club").first)
            let members = club.relationships[relationship] ?? []
            #expect(
                relationship == "members" ? members == [3, 1, 2] : Set(members) == [1, 2, 3],
                "\(relationship): \(members)")
        }
    }
}
