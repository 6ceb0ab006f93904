import Foundation
import TestSupport
import Testing

@Suite struct LoadCommandTests {
    static let ann = #"{"fullName":"Ann Lee","email":"ann@example.com","age":41}"#
    static let bob = #"{"fullName":"Bob Ray","email":"bob@example.com","city":"Zürich"}"#

    /// A bad record anywhere refuses the whole file: the message names the line and
    /// the field, the exit status is 1, and the store keeps its exact bytes.
    @Test(arguments: [
        (
            "Person", [ann, bob, #"{"fullName":"Cy","email":"cy@example.com","age":"old"}"#],
            #"""
            error: input.jsonl:3: Person.age: expected an integer16 value, found the string "old" (nothing was loaded)
            """#
        ),
        (
            "Person", [ann, #"{"email":"cy@example.com"}"#],
            "error: input.jsonl:2: Person.fullName: a value is required (nothing was loaded)"
        ),
        (
            "Post", [#"{"title":"Hello","author":42}"#],
            "error: input.jsonl:1: Post.author: no Person with primary key 42 (nothing was loaded)"
        ),
        (
            "Person", [ann, #"{"fullName":"Cy","#],
            "error: input.jsonl:2: invalid JSON at byte 18: expected a quoted key (nothing was loaded)"
        ),
        (
            "Person", [ann, bob, #"{"fullName":"Cy","email":"cy@example.com","nickname":"C"}"#],
            """
            error: input.jsonl:3: Person.nickname: no such attribute or relationship \
            (Person has age, city, createdAt, email, fullName, posts) (nothing was loaded)
            """
        ),
        (
            "Person", ["", ann, "", #"{"fullName":"Cy","email":"cy@example.com","age":300}"#],
            "error: input.jsonl:4: Person.age: 300 is above the maximum 200 (nothing was loaded)"
        ),
    ])
    func aBadRecordLoadsNothing(entity: String, lines: [String], message: String) throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let store = try f.createContacts(version: 1)
        try f.directory.write("input.jsonl", lines.joined(separator: "\n") + "\n")
        let before = f.snapshot(store)
        let result = try f.migrate("load", store, entity, "input.jsonl")
        #expect(result.stderr == message + "\n")
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(f.snapshot(store) == before)
        #expect(f.snapshot(store).sideFiles == [])
        #expect(try f.directory.contents() == ["Models", "contacts.sqlite", "input.jsonl"])
    }

    /// The entity argument is checked before any line, as `fetch` checks it: a usage
    /// error (64) with a suggestion, nothing loaded.
    @Test(arguments: [
        ("Robot", "error: unknown entity 'Robot' (model Contacts version 1 has Person, Post) (nothing was loaded)\n"),
        (
            "Persons",
            """
            error: unknown entity 'Persons' (did you mean 'Person'?) (model Contacts version 1 has Person, Post) \
            (nothing was loaded)\n
            """
        ),
    ])
    func anUnknownEntityIsAUsageError(entity: String, message: String) throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let store = try f.createContacts(version: 1)
        try f.directory.write("input.jsonl", "\n" + Self.ann + "\n")
        let before = f.snapshot(store)
        let result = try f.migrate("load", store, entity, "input.jsonl")
        #expect(result.stderr == message)
        #expect(result.status == 64)
        #expect(f.snapshot(store) == before)
    }

    @Test func aUniquenessViolationLoadsNothing() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let store = try f.createContacts(version: 1)
        let before = f.snapshot(store)
        let result = try f.migrate(["load", store, "Person", "-"], stdin: Self.ann + "\n" + Self.ann + "\n")
        #expect(result.status == 1)
        #expect(
            result.stderr == """
                error: <stdin>:2: Person.email: "ann@example.com" is already used by Person 1 (line 1); the model \
                makes email unique (nothing was loaded)

                """)
        #expect(f.snapshot(store) == before)
    }

    /// The issue's case: two members given the same loan, a one-to-one relationship.
    /// `load` refuses the second line, naming the first, and every other refused
    /// line; the store keeps its exact bytes.
    @Test func aOneToOneDestinationHasOneOwner() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        try f.directory.write(
            "Models/Lending/1.yaml",
            """
            model: Lending
            version: 1
            entities:
              Loan:
                attributes:
                  title: string
                relationships:
                  member: { destination: Member, inverse: loan }
              Member:
                attributes:
                  name: string
                relationships:
                  loan: { destination: Loan, inverse: member }

            """)
        let created = try f.migrate(
            "create", "--models", "Models", "--model", "Lending", "--version", "1", "lending.sqlite")
        #expect(created.status == 0, "\(created.stderr)")
        let loans = try f.migrate(
            ["load", "lending.sqlite", "Loan", "-"],
            stdin: #"{"_pk":5,"title":"Dune"}"# + "\n" + #"{"_pk":6,"title":"Emma"}"# + "\n")
        #expect(loans.stdout == "loaded 2 Loan objects into lending.sqlite\n")
        let before = f.snapshot("lending.sqlite")
        try f.directory.write(
            "members.jsonl",
            """
            {"name":"Ann","loan":5}
            {"name":"Bob","loan":5}

            {"name":"Cy","loan":7}

            """)
        let result = try f.migrate("load", "lending.sqlite", "Member", "members.jsonl")
        #expect(
            result.stderr == """
                error: members.jsonl:2: Member.loan: Loan 5 is already the loan of Member 1 (line 1); a Loan has one \
                member (Loan.member is to-one)
                error: members.jsonl:4: Member.loan: no Loan with primary key 7 (nothing was loaded)

                """)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(f.snapshot("lending.sqlite") == before)

        try f.directory.write("ann.jsonl", #"{"name":"Ann","loan":5}"# + "\n")
        #expect(try f.migrate("load", "lending.sqlite", "Member", "ann.jsonl").status == 0)
        let again = try f.migrate("load", "lending.sqlite", "Member", "members.jsonl")
        #expect(
            again.stderr == """
                error: members.jsonl:1: Member.loan: Loan 5 is already the loan of Member 1; a Loan has one member \
                (Loan.member is to-one)
                error: members.jsonl:2: Member.loan: Loan 5 is already the loan of Member 1; a Loan has one member \
                (Loan.member is to-one)
                error: members.jsonl:4: Member.loan: no Loan with primary key 7 (nothing was loaded)

                """)
        #expect(again.status == 1)
        #expect(
            try f.migrate("dump", "lending.sqlite", "Loan").stdout == """
                {"_pk":5,"_entity":"Loan","member":1,"title":"Dune"}
                {"_pk":6,"_entity":"Loan","member":null,"title":"Emma"}

                """)
    }

    @Test func loadingThenDumping() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let store = try f.createContacts(version: 1)
        try f.directory.write("people.jsonl", Self.ann + "\n\n" + Self.bob + "\n")
        let people = try f.migrate("load", store, "Person", "people.jsonl")
        #expect(people.status == 0)
        #expect(people.stderr == "")
        #expect(people.stdout == "loaded 2 Person objects into contacts.sqlite\n")
        let posts = try f.migrate(
            ["load", "--json", store, "Post", "-"],
            stdin: """
                {"_pk":10,"title":"Hello","author":1,"publishedAt":"2026-03-01T12:00:00.5Z","rating":4.5}
                {"title":"Again","author":1,"body":"Line one\\nline two"}
                """)
        #expect(posts.status == 0)
        #expect(
            posts.stdout == "{\n  \"entity\" : \"Post\",\n  \"loaded\" : 2,\n  \"store\" : \"contacts.sqlite\"\n}\n")

        let dump = try f.migrate("dump", store, "Person")
        #expect(dump.status == 0)
        // Read at the store's own version, version 1 (the folder's models go to 3).
        #expect(
            dump.stderr == """
                note: contacts.sqlite is at version 1 of Contacts (the current version is 3); reading it at its own \
                version (`migrate apply contacts.sqlite` migrates it)

                """)
        #expect(
            dump.stdout == """
                {"_pk":1,"_entity":"Person","age":41,"city":null,"createdAt":"2026-01-01T00:00:00Z",\
                "email":"ann@example.com","fullName":"Ann \
                Lee"}
                {"_pk":2,"_entity":"Person","age":0,"city":"Zürich","createdAt":"2026-01-01T00:00:00Z",\
                "email":"bob@example.com","fullName":"Bob \
                Ray"}

                """)
        let postDump = try f.migrate("dump", "--limit", "1", store, "Post")
        #expect(
            postDump.stdout == #"""
                {"_pk":10,"_entity":"Post","author":1,"body":null,"publishedAt":"2026-03-01T12:00:00.5Z",\#
                "rating":4.5,"title":"Hello"}
                """# + "\n")
        let all = try f.migrate("dump", store, "Post")
        #expect(
            all.stdout.split(separator: "\n").last == #"""
                {"_pk":11,"_entity":"Post","author":1,"body":"Line one\nline \#
                two","publishedAt":null,"rating":null,"title":"Again"}
                """#)

        // The dump loads into a fresh store, entity by entity, and dumps the same
        // (a person's posts are written once, as each post's author).
        try f.directory.write("people.dump", dump.stdout)
        try f.directory.write("posts.dump", all.stdout)
        let copy = try f.createContacts("copy.sqlite", version: 1)
        #expect(try f.migrate("load", copy, "Person", "people.dump").status == 0)
        #expect(try f.migrate("load", copy, "Post", "posts.dump").status == 0)
        #expect(try f.migrate("dump", copy, "Person").stdout == dump.stdout)
        #expect(try f.migrate("dump", copy, "Post").stdout == all.stdout)
    }

    @Test func dumpRefusals() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        let store = try f.createContacts(version: 1)
        let before = f.snapshot(store)
        let unknown = try f.migrate("dump", store, "Robot")
        #expect(unknown.status == 64)
        #expect(unknown.stderr == "error: unknown entity 'Robot' (model Contacts version 1 has Person, Post)\n")
        let negative = try f.migrate("dump", "--limit=-1", store, "Person")
        #expect(negative.status == 64)
        #expect(negative.stderr.hasPrefix("Error: --limit must be 0 or more\n"))
        let missing = try f.migrate("load", store, "Person", "nothing.jsonl")
        #expect(missing.status == 1)
        #expect(
            missing.stderr
                == "error: nothing.jsonl: cannot read the file: No such file or directory (nothing was loaded)\n")
        #expect(f.snapshot(store) == before)
    }
}
