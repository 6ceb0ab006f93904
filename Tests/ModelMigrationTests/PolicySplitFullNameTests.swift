import Foundation
import Migrations
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// `SplitFullName` (Contacts 1 → 2, `Migrations/Contacts/1-to-2.yaml`) applied to a
/// store: every name split by the documented rules, every other value and every
/// relationship as inference would leave them.
@Suite struct PolicySplitFullNameTests {
    /// The objects of version 1 as they must read in version 2: `fullName` replaced
    /// by the split, posts gaining an empty `tags`.
    static func expected(people: [StoredObject], posts: [StoredObject]) -> ([StoredObject], [StoredObject]) {
        let split = Dictionary(
            uniqueKeysWithValues: ContactsData.split.enumerated().map { (Int64($0.offset + 1), $0.element) })
        let people = people.map { person in
            var person = person
            person.values["fullName"] = nil
            person.values["firstName"] = .string(split[person.primaryKey]!.0)
            person.values["lastName"] = .string(split[person.primaryKey]!.1)
            return person
        }
        let posts = posts.map { post in
            var post = post
            post.relationships["tags"] = []
            return post
        }
        return (people, posts)
    }

    @Test func everyNameIsSplitAndEverythingElseIsInferred() throws {
        let s = try MigrationScenario.contacts(mappings: ["1-to-2.yaml"])
        defer { s.remove() }
        try ContactsData.seed(s)
        let people = try s.fetch("Person"), posts = try s.fetch("Post")
        #expect(people.count == 7 && posts.count == 4)
        #expect(people[6].values["fullName"] == nil)
        #expect(people[3].values["fullName"] == .string("  Joana \t da   Silva\n"))

        let plan = try s.planWithPolicies(to: 2)
        #expect(plan.hops.map { [$0.from, $0.to] } == [[1, 2]])
        // The policy's functions run inside the set-based copy of Person: no policy step.
        #expect(plan.allSteps.filter { $0.kind == .policy } == [])
        let copy = plan.allSteps.first { $0.table == "ZPERSON" && $0.kind == .rebuildTable }
        #expect(
            copy?.sql.last == """
                INSERT INTO "MM_NEW_ZPERSON" ("Z_PK", "Z_ENT", "Z_OPT", "ZAGE", "ZCREATEDAT", "ZCITY", "ZEMAIL", \
                "ZFIRSTNAME", "ZLASTNAME") SELECT s.Z_PK, 1, s.Z_OPT, s."ZAGE", s."ZCREATEDAT", s."ZCITY", s."ZEMAIL", \
                "SplitFullName.firstNameFrom: → Person.firstName"(s.Z_PK, s."ZFULLNAME"), "SplitFullName.lastNameFrom: \
                → Person.lastName"(s.Z_PK, s."ZFULLNAME") FROM "ZPERSON" AS s WHERE s.Z_ENT = 1
                """)
        #expect(copy?.cost == .rewrite(rows: 7))
        #expect(
            copy?.policyFunctions == [
                PolicyFunctionCall(
                    policy: "SplitFullName", selector: "firstNameFrom:", entity: "Person", attribute: "firstName",
                    argumentTypes: [.string]),
                PolicyFunctionCall(
                    policy: "SplitFullName", selector: "lastNameFrom:", entity: "Person", attribute: "lastName",
                    argumentTypes: [.string]),
            ])
        try Migrator(policyRunner: PolicyEngine(catalog: testPolicies)).apply(plan)

        #expect(try s.storeVersion() == 2)
        let (expectedPeople, expectedPosts) = Self.expected(people: people, posts: posts)
        #expect(try s.fetch("Person") == expectedPeople)
        #expect(try s.fetch("Post") == expectedPosts)
        #expect(try s.fetch("Tag") == [])
        #expect(
            try s.fetch("Person").map { [$0.values["firstName"], $0.values["lastName"]] }
                == ContactsData.split.map { [.string($0.0), .string($0.1)] })
    }

    /// Person is rewritten by the policy, Post is inferred: Post.author must still
    /// point at the same person, also when the people's keys have gaps.
    @Test func postAuthorsStillPointAtTheRightPeople() throws {
        let s = try MigrationScenario.contacts(mappings: ["1-to-2.yaml"])
        defer { s.remove() }
        try ContactsData.seed(s)
        // Gaps: Madonna (2) and Joana (4) are gone; Zoë (5) wrote post 4.
        try s.withObjects { try $0.store.connection.execute("DELETE FROM ZPERSON WHERE Z_PK IN (2, 4)") }
        try s.migrateWithPolicies(to: 2)

        let people = try s.fetch("Person")
        #expect(people.map(\.primaryKey) == [1, 3, 5, 6, 7])
        #expect(
            people.map { $0.values["lastName"] } == [
                .string("Lee"), .string("García"), .string("Ångström"), .string(""), .string(""),
            ])
        #expect(people.map { $0.relationships["posts"] } == [[1, 3], [2], [4], [], []])
        let posts = try s.fetch("Post")
        #expect(posts.map { $0.relationships["author"] } == [[1], [3], [1], [5]])
        #expect(
            posts.map { $0.values["title"] } == [.string("Hello"), .string("Hola"), .string("Again"), .string("Hej")])

        // Keys go on from where they were: a new person gets 8, not a reused key.
        #expect(try s.keys().contains("1 Person super 0 max 7"))
        let key = try s.withObjects { try $0.insert("Person", values: ["email": .string("new@example.com")]) }
        #expect(key == 8)
    }

    /// Without the mapping file the hop is inferred (fullName dropped with a
    /// warning); with it, the policy's functions read fullName inside the copy and no
    /// data-loss warning is given.
    @Test func theMappingFileTurnsADestructiveInferenceIntoPolicyFunctions() throws {
        let s = try MigrationScenario.contacts(mappings: [])
        defer { s.remove() }
        try ContactsData.seed(s)
        let inferred = try s.planWithPolicies(to: 2)
        #expect(inferred.allSteps.contains { $0.kind == .policy } == false)
        #expect(inferred.warnings.map(\.message) == ["Person.fullName is dropped: 6 non-nil values will be lost"])

        try s.writeMapping("1-to-2.yaml", try ContactsFiles.mapping("1-to-2.yaml"))
        let withPolicy = try s.planWithPolicies(to: 2)
        #expect(
            withPolicy.allSteps.flatMap(\.policyFunctions).map(\.sqlName)
                == ["SplitFullName.firstNameFrom: → Person.firstName", "SplitFullName.lastNameFrom: → Person.lastName"])
        #expect(withPolicy.warnings == [])
    }
}
