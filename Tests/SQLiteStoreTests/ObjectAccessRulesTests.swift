import DataModel
import Foundation
import TestSupport
import Testing

@testable import SQLiteStore

/// Members with a one-to-one loan, a required card (to-one without an inverse),
/// shelves (to-many without an inverse) and a unique email; shelves unique by room
/// and label together; publishers and their books (one-to-many).
private let lendingModel = """
    entities:
      Book:
        attributes:
          title: string
        relationships:
          publisher: { destination: Publisher, inverse: books }
      Card:
        attributes:
          number: integer32
      Loan:
        attributes:
          title: string
        relationships:
          member: { destination: Member, inverse: loan }
      Member:
        attributes:
          name: string
          email: string?
        relationships:
          card: { destination: Card, optional: false }
          loan: { destination: Loan, inverse: member }
          shelves: { destination: Shelf, toMany: true }
        uniqueness: [[email]]
      Publisher:
        attributes:
          name: string
        relationships:
          books: { destination: Book, toMany: true, inverse: publisher }
      Shelf:
        attributes:
          label: string
          room: string?
        uniqueness: [[room, label]]
    """

/// A required to-one whose inverse is on the same entity: another employee's
/// `reports` can set it.
private let staffModel = """
    entities:
      Employee:
        attributes:
          name: string
        relationships:
          manager: { destination: Employee, inverse: reports, optional: false }
          reports: { destination: Employee, toMany: true, inverse: manager }
    """

/// Counts on both sides of a one-to-many and of a many-to-many.
private let clubModel = """
    entities:
      Badge:
        attributes:
          name: string
        relationships:
          holders: { destination: Person, toMany: true, inverse: badges, maxCount: 1 }
      Club:
        attributes:
          name: string
        relationships:
          members: { destination: Person, toMany: true, inverse: club, optional: false, minCount: 2, maxCount: 3 }
      Person:
        attributes:
          name: string
        relationships:
          badges: { destination: Badge, toMany: true, inverse: holders }
          club: { destination: Club, inverse: members }
    """

/// Attribute limits: values for numbers and dates, lengths for strings and data.
private let readingModel = """
    entities:
      Reading:
        attributes:
          level: { type: integer16, optional: true, min: 1, max: 5 }
          ratio: { type: double, optional: true, min: 0, max: 1.5 }
          takenAt: { type: date, optional: true, min: 2001-01-01, max: "2001-01-02T00:00:00Z" }
          code: { type: string, optional: true, min: 2, max: 4 }
          blob: { type: binary, optional: true, min: 1, max: 3 }
    """

/// A relationship to a subentity, whose siblings share its table.
private let garageModel = """
    entities:
      Car: { parent: Vehicle }
      Garage:
        attributes:
          name: string
        relationships:
          car: { destination: Car }
      Truck: { parent: Vehicle }
      Vehicle:
        attributes:
          plate: string
    """

/// The model's rules, checked by `insert` one object at a time and by `insertAll`
/// for a batch (what `migrate load` uses): each refusal names the property and what
/// is wrong, and a refused object or batch leaves the store as it was.
extension ObjectAccessTests {
    // MARK: One owner per destination

    @Test func aOneToOneDestinationHasOneOwner() throws {
        let f = try Fixture("Lending", yaml: lendingModel)
        defer { f.remove() }
        let card = try f.access.insert("Card", values: ["number": .integer(1)])
        try f.access.insert("Loan", values: ["title": .string("Dune")])
        try f.access.insert("Loan", values: ["title": .string("Emma")])
        try f.access.insert("Member", values: ["name": .string("Ann")], relationships: ["card": [card], "loan": [1]])
        let bob = try #require(throws: StoreError.self) {
            try f.access.insert(
                "Member", values: ["name": .string("Bob")], relationships: ["card": [card], "loan": [1]])
        }
        #expect(bob.kind == .invalidObject)
        #expect(
            bob.message
                == "Member.loan: Loan 1 is already the loan of Member 1; a Loan has one member (Loan.member is to-one)")
        // From the other side.
        let loan = try #require(throws: StoreError.self) {
            try f.access.insert("Loan", values: ["title": .string("Ivanhoe")], relationships: ["member": [1]])
        }
        #expect(
            loan.message
                == """
                Loan.member: Member 1 is already the member of Loan 1; a Member has one loan (Member.loan is to-one)
                """
        )
        // Within a batch: the second claim names the object that came first.
        let refused = try #require(throws: ObjectRefusals.self) {
            try f.access.insertAll(describingSources: { "line \($0)" }) { batch in
                try batch.insert(
                    "Member", values: ["name": .string("Cy")], relationships: ["card": [card], "loan": [2]], source: 1)
                try batch.insert(
                    "Member", values: ["name": .string("Dee")], relationships: ["card": [card], "loan": [2]], source: 2)
            }
        }
        #expect(
            refused.refusals == [
                ObjectRefusal(
                    source: 2, field: "Member.loan",
                    message:
                        "Loan 2 is already the loan of Member 2 (line 1); a Loan has one member (Loan.member is to-one)"
                )
            ])
        #expect(refused.count == 1)
        #expect(try f.rows("SELECT Z_PK, ZLOAN FROM ZMEMBER") == [[.integer(1), .integer(1)]])
        #expect(
            try f.rows("SELECT Z_PK, ZMEMBER FROM ZLOAN ORDER BY Z_PK") == [
                [.integer(1), .integer(1)], [.integer(2), .null],
            ])
        #expect(try f.rows("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Member'") == [[.integer(1)]])
    }

    /// Core Data keeps a to-many relationship without an inverse as the owner's key on
    /// the destination row (`ZSHELF.Z4SHELVES`); a one-to-many as the inverse's
    /// column. Either way a destination has one owner.
    @Test func aToManyDestinationHasOneOwnerWhereTheStoreKeepsOne() throws {
        let f = try Fixture("Lending", yaml: lendingModel)
        defer { f.remove() }
        let card = try f.access.insert("Card", values: ["number": .integer(1)])
        try f.access.insert("Shelf", values: ["label": .string("A")])
        try f.access.insert("Shelf", values: ["label": .string("B")])
        try f.access.insert(
            "Member", values: ["name": .string("Ann")], relationships: ["card": [card], "shelves": [1]])
        let shelves = try #require(throws: StoreError.self) {
            try f.access.insert(
                "Member", values: ["name": .string("Bob")], relationships: ["card": [card], "shelves": [2, 1]])
        }
        #expect(
            shelves.message == """
                Member.shelves: Shelf 1 is already among the shelves of Member 1; a to-many relationship without an \
                inverse keeps one owner per object (Core Data stores the owner's key on the Shelf row)
                """)
        #expect(
            try f.rows("SELECT Z_PK, Z4SHELVES FROM ZSHELF ORDER BY Z_PK") == [
                [.integer(1), .integer(1)], [.integer(2), .null],
            ])

        try f.access.insert("Book", values: ["title": .string("Dune")])
        try f.access.insert("Publisher", values: ["name": .string("Acme")], relationships: ["books": [1]])
        let books = try #require(throws: StoreError.self) {
            try f.access.insert("Publisher", values: ["name": .string("Zenith")], relationships: ["books": [1]])
        }
        #expect(
            books.message
                == """
                Publisher.books: Book 1 is already among the books of Publisher 1; a Book has one publisher \
                (Book.publisher is to-one)
                """
        )
        #expect(try f.rows("SELECT Z_PK, ZPUBLISHER FROM ZBOOK") == [[.integer(1), .integer(1)]])
        #expect(try f.access.count("Publisher") == 1)
    }

    // MARK: Required relationships and counts

    @Test func aRequiredToOneNeedsAValueGivenOrStored() throws {
        let f = try Fixture("Staff", yaml: staffModel)
        defer { f.remove() }
        let alone = try #require(throws: StoreError.self) {
            try f.access.insert("Employee", values: ["name": .string("Ann")])
        }
        #expect(alone.message == "Employee.manager: the relationship is required")
        // Ann has no manager when she is inserted; Bob's reports give her one.
        #expect(
            try f.access.insertAll { batch in
                try batch.insert("Employee", values: ["name": .string("Ann")], source: 1)
                try batch.insert(
                    "Employee", values: ["name": .string("Bob")], relationships: ["manager": [1], "reports": [1]],
                    source: 2)
            } == 2)
        #expect(
            try f.rows("SELECT Z_PK, ZMANAGER FROM ZEMPLOYEE ORDER BY Z_PK") == [
                [.integer(1), .integer(2)], [.integer(2), .integer(1)],
            ])
        // Nobody gives Cy one.
        let refused = try #require(throws: ObjectRefusals.self) {
            try f.access.insertAll { batch in
                try batch.insert("Employee", values: ["name": .string("Cy")], source: 1)
                try batch.insert(
                    "Employee", values: ["name": .string("Dee")], relationships: ["manager": [1]], source: 2)
            }
        }
        #expect(
            refused.refusals == [
                ObjectRefusal(source: 1, field: "Employee.manager", message: "the relationship is required")
            ])
        #expect(try f.access.count("Employee") == 2)
    }

    @Test func toManyCountsStayWithinMinAndMaxOnBothSides() throws {
        let f = try Fixture("Club", yaml: clubModel)
        defer { f.remove() }
        for name in ["Ann", "Bob", "Cy", "Dee", "Eve"] {
            try f.access.insert("Person", values: ["name": .string(name)])
        }
        let cases: [([Int64], String)] = [
            ([], "Club.members: needs at least 2 objects, found 0"),
            ([1], "Club.members: needs at least 2 objects, found 1"),
            ([1, 2, 3, 4], "Club.members: allows at most 3 objects, found 4"),
        ]
        for (members, message) in cases {
            let error = try #require(throws: StoreError.self) {
                try f.access.insert("Club", values: ["name": .string("Chess")], relationships: ["members": members])
            }
            #expect(error.message == message)
        }
        let chess = try f.access.insert(
            "Club", values: ["name": .string("Chess")], relationships: ["members": [1, 2, 3]])
        // The inverse side: a fourth member would pass Club.members' maximum.
        let fourth = try #require(throws: StoreError.self) {
            try f.access.insert("Person", values: ["name": .string("Fay")], relationships: ["club": [chess]])
        }
        #expect(fourth.message == "Person.club: Club 1 already has the most members Club.members allows (3)")
        // A minimum reached by a later object of the batch.
        try f.access.insertAll { batch in
            let go = try batch.insert(
                "Club", values: ["name": .string("Go")], relationships: ["members": [4]], source: 1)
            try batch.insert(
                "Person", values: ["name": .string("Gil")], relationships: ["club": [try #require(go)]], source: 2)
        }
        #expect(
            try f.rows("SELECT Z_PK, ZCLUB FROM ZPERSON ORDER BY Z_PK").map(\.last)
                == [.integer(1), .integer(1), .integer(1), .integer(2), .null, .integer(2)])
        // Many-to-many: a badge held by one person at most.
        let badge = try f.access.insert("Badge", values: ["name": .string("Gold")])
        try f.access.insert("Person", values: ["name": .string("Hal")], relationships: ["badges": [badge]])
        let second = try #require(throws: StoreError.self) {
            try f.access.insert("Person", values: ["name": .string("Ida")], relationships: ["badges": [badge]])
        }
        #expect(second.message == "Person.badges: Badge 1 already has the most holders Badge.holders allows (1)")
        #expect(try f.access.count("Person") == 7)
    }

    /// Within one batch, an inverse side's count is kept as objects join it (a load of
    /// a million members costs no `count(*)` each): the fourth member of a club of at
    /// most 3 is refused, whether the club's first members were given whole in the
    /// batch (Chess) or joined it one by one (Go); a refused member is not counted.
    @Test func anInverseMaximumHoldsWithinOneBatch() throws {
        let f = try Fixture("Club", yaml: clubModel)
        defer { f.remove() }
        for name in ["Ann", "Bob"] { try f.access.insert("Person", values: ["name": .string(name)]) }
        let refused = try #require(throws: ObjectRefusals.self) {
            try f.access.insertAll { batch in
                let chess = try #require(
                    try batch.insert(
                        "Club", values: ["name": .string("Chess")], relationships: ["members": [1, 2]], source: 1))
                for (index, name) in ["Cy", "Dee"].enumerated() {
                    try batch.insert(
                        "Person", values: ["name": .string(name)], relationships: ["club": [chess]], source: 2 + index)
                }
                let go = try #require(
                    try batch.insert("Club", values: ["name": .string("Go")], relationships: ["members": []], source: 4)
                )
                for (index, name) in ["Eve", "Fay", "Gil", "Hal", "Ida"].enumerated() {
                    try batch.insert(
                        "Person", values: ["name": .string(name)], relationships: ["club": [go]], source: 5 + index)
                }
            }
        }
        #expect(refused.refusals.map(\.source) == [3, 8, 9])
        #expect(
            refused.refusals.map(\.description) == [
                "Person.club: Club 1 (object 1) already has the most members Club.members allows (3)",
                "Person.club: Club 2 (object 4) already has the most members Club.members allows (3)",
                "Person.club: Club 2 (object 4) already has the most members Club.members allows (3)",
            ])
        #expect(try f.access.count("Person") == 2)
    }

    /// An optional to-many with a minimum holds none or at least the minimum, also
    /// when the objects that fill it come from the inverse side into a stored object:
    /// one Player naming an empty Team left it with one (the batch checked only the
    /// objects it wrote).
    @Test func aStoredObjectsMinimumHoldsWhenTheInverseSideFillsIt() throws {
        let f = try Fixture(
            "Teams",
            yaml: """
                entities:
                  Team:
                    attributes: { name: string }
                    relationships:
                      players: { destination: Player, toMany: true, inverse: team, minCount: 2 }
                  Player:
                    attributes: { name: string }
                    relationships:
                      team: { destination: Team, inverse: players }
                """)
        defer { f.remove() }
        let team = try f.access.insert("Team", values: ["name": .string("Reds")])
        let refused = try #require(throws: ObjectRefusals.self) {
            try f.access.insertAll(describingSources: { "line \($0)" }) { batch in
                try batch.insert("Player", values: ["name": .string("Ann")], relationships: ["team": [team]], source: 1)
            }
        }
        #expect(
            refused.refusals == [
                ObjectRefusal(source: 1, field: "Team.players", message: "Team 1 needs at least 2 objects, found 1")
            ])
        #expect(try f.access.count("Player") == 0)
        try f.access.insertAll { batch in
            for name in ["Ann", "Bob"] {
                try batch.insert("Player", values: ["name": .string(name)], relationships: ["team": [team]], source: 1)
            }
        }
        #expect(try f.access.count("Player") == 2)
    }

    // MARK: Uniqueness constraints

    @Test func uniquenessConstraintsHoldAgainstStoredObjectsAndWithinABatch() throws {
        let f = try Fixture("Lending", yaml: lendingModel)
        defer { f.remove() }
        let card = try f.access.insert("Card", values: ["number": .integer(1)])
        try f.access.insert(
            "Member", values: ["name": .string("Ann"), "email": .string("ann@example.com")],
            relationships: ["card": [card]])
        let stored = try #require(throws: StoreError.self) {
            try f.access.insert(
                "Member", values: ["name": .string("Bob"), "email": .string("ann@example.com")],
                relationships: ["card": [card]])
        }
        #expect(
            stored.message
                == #"Member.email: "ann@example.com" is already used by Member 1; the model makes email unique"#)
        // nil never conflicts, as in SQLite's unique indexes.
        try f.access.insert("Member", values: ["name": .string("Cy")], relationships: ["card": [card]])
        try f.access.insert("Member", values: ["name": .string("Dee")], relationships: ["card": [card]])
        let refused = try #require(throws: ObjectRefusals.self) {
            try f.access.insertAll(describingSources: { "line \($0)" }) { batch in
                try batch.insert(
                    "Member", values: ["name": .string("Eve"), "email": .string("eve@example.com")],
                    relationships: ["card": [card]], source: 1)
                try batch.insert(
                    "Member", values: ["name": .string("Fay"), "email": .string("eve@example.com")],
                    relationships: ["card": [card]], source: 2)
                try batch.insert("Shelf", values: ["label": .string("A"), "room": .string("Hall")], source: 3)
                try batch.insert("Shelf", values: ["label": .string("A"), "room": .string("Hall")], source: 4)
                try batch.insert("Shelf", values: ["label": .string("A")], source: 5)
                try batch.insert("Shelf", values: ["label": .string("A")], source: 6)
            }
        }
        #expect(
            refused.refusals == [
                ObjectRefusal(
                    source: 2, field: "Member.email",
                    message: #""eve@example.com" is already used by Member 4 (line 1); the model makes email unique"#),
                ObjectRefusal(
                    source: 4, field: "Shelf.room, label",
                    message:
                        #"""
                        "Hall", "A" are already used by Shelf 1 (line 3); the model makes room, label unique together
                        """#
                ),
            ])
        #expect(try f.access.count("Member") == 3)
        #expect(try f.access.count("Shelf") == 0)
    }

    // MARK: Attribute values

    @Test(arguments: [
        ("level", AttributeValue.integer(0), "Reading.level: 0 is below the minimum 1"),
        ("level", .integer(6), "Reading.level: 6 is above the maximum 5"),
        ("level", .string("3"), "Reading.level: expected an integer16 value"),
        ("ratio", .double(1.75), "Reading.ratio: 1.75 is above the maximum 1.5"),
        ("ratio", .double(-0.5), "Reading.ratio: -0.5 is below the minimum 0.0"),
        ("ratio", .double(.nan), "Reading.ratio: NaN cannot be stored (SQLite stores it as NULL)"),
        ("takenAt", .date(-1), "Reading.takenAt: 2000-12-31T23:59:59Z is below the minimum 2001-01-01T00:00:00Z"),
        ("takenAt", .date(86_401), "Reading.takenAt: 2001-01-02T00:00:01Z is above the maximum 2001-01-02T00:00:00Z"),
        ("takenAt", .date(.nan), "Reading.takenAt: NaN cannot be stored (SQLite stores it as NULL)"),
        ("code", .string("a"), "Reading.code: length 1 is below the minimum 2"),
        ("code", .string("abcde"), "Reading.code: length 5 is above the maximum 4"),
        // UTF-16 units, as NSString.length counts (three characters, six units).
        ("code", .string("😀😀😀"), "Reading.code: length 6 is above the maximum 4"),
        ("code", .string("é"), "Reading.code: length 1 is below the minimum 2"),
        ("blob", .binary([]), "Reading.blob: length 0 is below the minimum 1"),
        ("blob", .binary([1, 2, 3, 4]), "Reading.blob: length 4 is above the maximum 3"),
    ])
    func attributeValuesOutsideTheirLimitsAreRefused(attribute: String, value: AttributeValue, message: String) throws {
        let f = try Fixture("Reading", yaml: readingModel)
        defer { f.remove() }
        let error = try #require(throws: StoreError.self) { try f.access.insert("Reading", values: [attribute: value]) }
        #expect(error.kind == .invalidObject)
        #expect(error.message == message)
        #expect(try f.access.count("Reading") == 0)
        // At the limits, values are stored.
        try f.access.insert(
            "Reading",
            values: [
                "level": .integer(5), "ratio": .double(1.5), "takenAt": .date(86_400),
                "code": .string("ab"), "blob": .binary([1, 2, 3]),
            ])
        // One emoji is two UTF-16 units: at the minimum.
        try f.access.insert("Reading", values: ["code": .string("😀"), "level": .integer(1)])
        #expect(try f.access.count("Reading") == 2)
    }

    // MARK: Relationship targets

    @Test func targetsExistAndAreOfTheDestinationEntity() throws {
        let f = try Fixture("Garage", yaml: garageModel)
        defer { f.remove() }
        try f.access.insert("Truck", values: ["plate": .string("T-1")])
        let car = try f.access.insert("Car", values: ["plate": .string("C-1")])
        let truck = try #require(throws: StoreError.self) {
            try f.access.insert("Garage", values: ["name": .string("North")], relationships: ["car": [1]])
        }
        #expect(truck.message == "Garage.car: Truck 1 is not a Car")
        let missing = try #require(throws: StoreError.self) {
            try f.access.insert("Garage", values: ["name": .string("North")], relationships: ["car": [7]])
        }
        #expect(missing.message == "Garage.car: no Car with primary key 7")
        try f.access.insert("Garage", values: ["name": .string("North")], relationships: ["car": [car]])
        #expect(try f.access.fetch("Garage").map(\.relationships) == [["car": [2]]])
    }

    // MARK: Batches

    /// Every refusal is found; the first ones by source are reported, the others
    /// counted; nothing is written; inside an open transaction the batch is a
    /// savepoint, and what came before it stays.
    @Test func aRefusedBatchWritesNothingAndReportsEveryRefusal() throws {
        let f = try Fixture("Lending", yaml: lendingModel)
        defer { f.remove() }
        let card = try f.access.insert("Card", values: ["number": .integer(1)])
        try f.store.connection.transaction {
            try f.access.insert("Shelf", values: ["label": .string("A")])
            let refused = try #require(throws: ObjectRefusals.self) {
                try f.access.insertAll(describingSources: { "line \($0)" }, keeping: 3) { batch in
                    try batch.insert(
                        "Member", values: ["name": .string("Ann")], relationships: ["card": [card]], source: 1)
                    try batch.insert("Member", values: ["name": .string("Bob")], source: 2)
                    batch.refuse(source: 3, field: nil, message: "invalid JSON at byte 1: expected a value")
                    try batch.insert("Member", values: [:], relationships: ["card": [card]], source: 4)
                    try batch.insert(
                        "Member", values: ["name": .string("Cy")], relationships: ["card": [card], "shelves": [1, 1]],
                        source: 5)
                }
            }
            #expect(refused.count == 4)
            #expect(
                refused.description == """
                    Member.card: the relationship is required
                    invalid JSON at byte 1: expected a value
                    Member.name: a value is required
                    … and 1 more
                    """)
            #expect(refused.refusals.map(\.source) == [2, 3, 4])
            #expect(f.store.connection.isInTransaction)
            #expect(try f.access.count("Member") == 0)
            #expect(try f.access.count("Shelf") == 1)
        }
        #expect(try f.access.count("Shelf") == 1)
        #expect(
            try f.rows("SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT") == [
                [.text("Book"), .integer(0)], [.text("Card"), .integer(1)], [.text("Loan"), .integer(0)],
                [.text("Member"), .integer(0)], [.text("Publisher"), .integer(0)], [.text("Shelf"), .integer(1)],
            ])
    }
}
