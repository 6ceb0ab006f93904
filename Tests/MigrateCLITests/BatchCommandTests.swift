import Foundation
import TestSupport
import Testing

/// `migrate update` and `migrate delete` on the shop's rows (ShopModel.scenario()).
@Suite struct BatchCommandTests {
    func run(_ shop: MigrationScenario, _ command: String, _ arguments: [String]) throws -> CommandResult {
        try InProcess.migrate([command, shop.storePath] + arguments + ["--models", shop.modelsFolder])
    }

    func rows(_ shop: MigrationScenario, _ sql: String) throws -> String {
        try shop.rows(sql).map { $0.map { "\($0)" }.joined(separator: "|") }.joined(separator: "\n")
    }

    /// A change counter at Int64.max wraps to 1 and stays an INTEGER: SQLite's `+`
    /// made it the REAL 9.22337203685478e+18 (delete's cleared references use the
    /// same expression).
    @Test func theChangeCounterStaysAnInteger() throws {
        let shop = try ShopModel.scenario()
        defer { shop.remove() }
        try SQLiteFile.execute(shop.storePath, "UPDATE ZCUSTOMER SET Z_OPT = 9223372036854775807")
        let result = try run(shop, "update", ["Customer", "--set", "visits = 1", "--where", "city.name == 'Oslo'"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try rows(shop, "SELECT Z_PK, Z_OPT, typeof(Z_OPT) FROM ZCUSTOMER ORDER BY Z_PK") == """
                1|1|'integer'
                2|1|'integer'
                3|9223372036854775807|'integer'
                4|9223372036854775807|'integer'
                """)
    }

    @Test func updateSetsValuesAndBumpsZOPT() throws {
        let shop = try ShopModel.scenario()
        defer { shop.remove() }
        let before = try rows(shop, "SELECT Z_PK, Z_OPT FROM ZCUSTOMER ORDER BY Z_PK")
        let result = try run(
            shop, "update",
            [
                "Customer", "--set", "email = lowercase:(email)", "--set", "visits = visits + 1",
                "--where", "city.name == 'Oslo'",
            ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "updated 2 objects (2 Customer)\n")
        #expect(
            try rows(shop, "SELECT Z_PK, ZEMAIL, ZVISITS FROM ZCUSTOMER ORDER BY Z_PK") == """
                1|'ann@example.com'|13
                2|'bob@example.com'|4
                3|'celik@example.com'|40
                4|'dan@example.com'|0
                """)
        let opt = try shop.rows("SELECT Z_OPT FROM ZCUSTOMER ORDER BY Z_PK").map { $0[0].int64 ?? -1 }
        let old = before.split(separator: "\n").map { Int64($0.split(separator: "|")[1])! }
        #expect(opt == [old[0] + 1, old[1] + 1, old[2], old[3]])
        let json = try run(shop, "update", ["Product", "--set", "name = uppercase:(name)", "--json", "--dry-run"])
        #expect(
            json.stdout.contains("\"byEntity\" : {\n    \"FavoriteProduct\" : 1,\n    \"Product\" : 2\n  }"),
            "\(json.stdout)")
        #expect(try rows(shop, "SELECT ZNAME FROM ZPRODUCT ORDER BY Z_PK") == "'Book'\n'Pen'\n'Lamp'")
    }

    /// A string's `min`/`max` length counts UTF-16 units, as NSString.length does:
    /// two emoji are four, over a maximum of 3; one emoji is two, at a minimum of 2.
    @Test func updateCountsAStringsLengthInUTF16Units() throws {
        let f = try CLIFixture()
        defer { f.remove() }
        try f.directory.write(
            "Tags/Tags/1.yaml",
            "model: Tags\nversion: 1\nentities:\n  Tag:\n    attributes: { code: { type: string, min: 2, max: 3 } }\n")
        try f.directory.write("tags.jsonl", #"{"code": "ab"}"# + "\n")
        let models = ["--models", "Tags"]
        #expect(try f.migrate(["create", "tags.sqlite"] + models).status == 0)
        #expect(try f.migrate(["load", "tags.sqlite", "Tag", "tags.jsonl"] + models).status == 0)
        let over = try f.migrate(["update", "tags.sqlite", "Tag", "--set", "code = code + '😀'"] + models)
        #expect(over.status == 1)
        #expect(
            over.stderr == """
                error: 1 object would break the model; nothing was changed:
                  Tag 1: code: ab😀 is above max 3

                """)
        // A constant is held to the limits when the request is read.
        let constant = try f.migrate(["update", "tags.sqlite", "Tag", "--set", "code = '😀😀'"] + models)
        #expect(constant.status == 64)
        #expect(constant.stderr.contains("😀😀 is above max 3"), "\(constant)")
        let one = try f.migrate(["update", "tags.sqlite", "Tag", "--set", "code = '😀'"] + models)
        #expect(one.status == 0, "\(one)")
        let dump = try f.migrate(["dump", "tags.sqlite", "Tag"] + models)
        #expect(dump.stdout.contains(#""code":"😀""#), "\(dump)")
    }

    @Test func updateRefusesWhatTheModelRefuses() throws {
        let shop = try ShopModel.scenario()
        defer { shop.remove() }
        let snapshot = try StoreDump.dump(shop.storePath)
        let range = try run(shop, "update", ["Customer", "--set", "visits = visits * 1000"])
        #expect(range.status == 1)
        #expect(
            range.stderr == """
                error: 2 objects would break the model; nothing was changed:
                  Customer 1: visits: 12000 is above max 10000
                  Customer 3: visits: 40000 is above max 10000

                """)
        let unique = try run(shop, "update", ["Customer", "--set", "email = 'same@example.com'"])
        #expect(unique.status == 1)
        #expect(
            unique.stderr.hasPrefix(
                "error: Customer: the update breaks a uniqueness constraint ([email]): UNIQUE constraint failed"),
            "\(unique.stderr)")
        let required = try run(shop, "update", ["Customer", "--set", "name = note"])
        #expect(required.status == 1)
        #expect(
            required.stderr.hasPrefix(
                """
                error: 3 objects would break the model; nothing was changed:
                  Customer 1: name: the attribute is required; nil is not a value for it

                """))
        let literal = try run(shop, "update", ["Customer", "--set", "visits = -1"])
        #expect(literal.status == 64)
        #expect(literal.stderr == "error: --set visits: column 1: 'visits': -1 is below min 0\n  -1\n  ^\n")
        let hostile = try run(
            shop, "update",
            [
                "Customer", "--set", "name = 'x\"; DROP TABLE ZCUSTOMER; --'",
                "--where", "name == \"'; DELETE FROM ZORDER; --\"",
            ])
        #expect(hostile.status == 0)
        #expect(hostile.stdout == "updated 0 objects\n")
        let relationship = try run(shop, "update", ["Customer", "--set", "city = nil"])
        #expect(relationship.stderr == "error: --set city: 'city' is a relationship; batch updates set attributes\n")
        #expect(try StoreDump.dump(shop.storePath) == snapshot)
    }

    @Test func deleteFollowsDeleteRules() throws {
        let shop = try ShopModel.scenario()
        defer { shop.remove() }
        // Customer.orders cascades; Order.items and Customer.wishlist are join tables; City.customers is nullified.
        let result = try run(shop, "delete", ["Customer", "--where", "name == 'Ann'"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "deleted 3 objects (1 Customer, 2 Order); 0 references cleared, 4 join rows removed\n")
        #expect(try rows(shop, "SELECT Z_PK FROM ZCUSTOMER ORDER BY Z_PK") == "2\n3\n4")
        #expect(try rows(shop, "SELECT Z_PK FROM ZORDER ORDER BY Z_PK") == "3")
        #expect(try shop.rows("SELECT count(*) FROM Z_3ITEMS").first?.first?.int64 ?? -1 >= 0)
        // Deleting a product clears it from orders and wishlists (join rows), nothing else.
        let product = try run(shop, "delete", ["Product", "--where", "name == 'Book'", "--json"])
        #expect(product.stdout.contains("\"joinRowsRemoved\" : 2"), "\(product.stdout)")
        // Deny: a city with customers stays, and nothing is deleted.
        let snapshot = try StoreDump.dump(shop.storePath)
        let denied = try run(shop, "delete", ["City"])
        #expect(denied.status == 1)
        #expect(
            denied.stderr == """
                error: the delete is refused; nothing was deleted:
                  City.customers has delete rule deny, and City 1, 2 still have customers that would stay

                """)
        #expect(try StoreDump.dump(shop.storePath) == snapshot)
        // Nullify: deleting the customers of Bergen leaves the city, and a dry run changes nothing.
        let dry = try run(shop, "delete", ["Customer", "--where", "city.name == 'Oslo'", "--dry-run"])
        #expect(
            dry.stdout
                == """
                would delete 2 objects (1 Customer, 1 Order); 0 references cleared, 0 join rows removed; dry run, \
                nothing was changed\n
                """
        )
        #expect(try StoreDump.dump(shop.storePath) == snapshot)
        let everyone = try run(shop, "delete", ["Customer"])
        #expect(everyone.status == 0, "\(everyone.stderr)")
        let cities = try run(shop, "delete", ["City"])
        #expect(cities.stdout == "deleted 2 objects (2 City); 0 references cleared, 0 join rows removed\n")
    }

    @Test func deleteNullifiesReferencesThatStay() throws {
        let scenario = try MigrationScenario(
            "Towns",
            versions: [
                """
                entities:
                  Person:
                    attributes: { name: string }
                    relationships:
                      town: { destination: Town, inverse: residents }
                  Town:
                    attributes: { name: string }
                    relationships:
                      residents: { destination: Person, toMany: true, inverse: town, deleteRule: nullify }

                """
            ])
        defer { scenario.remove() }
        _ = try scenario.withObjects { access in
            try access.insert("Town", values: ["name": .string("Oslo")], primaryKey: 1)
            try access.insert("Person", values: ["name": .string("Ann")], relationships: ["town": [1]], primaryKey: 1)
            try access.insert("Person", values: ["name": .string("Bob")], relationships: ["town": [1]], primaryKey: 2)
        }
        let before = try scenario.rows("SELECT Z_OPT FROM ZPERSON ORDER BY Z_PK").map { $0[0].int64 ?? 0 }
        let result = try run(scenario, "delete", ["Town"])
        #expect(
            result.stdout == "deleted 1 object (1 Town); 2 references cleared, 0 join rows removed\n",
            "\(result.stderr)")
        #expect(try rows(scenario, "SELECT Z_PK, ZTOWN FROM ZPERSON ORDER BY Z_PK") == "1|NULL\n2|NULL")
        #expect(
            try scenario.rows("SELECT Z_OPT FROM ZPERSON ORDER BY Z_PK").map { $0[0].int64 ?? 0 }
                == before.map { $0 + 1 })
    }
    /// Core Data's save validation refuses a delete that leaves an object without a
    /// required to-one, a required to-many empty, or a to-many below its minCount;
    /// so does `delete`, naming the objects, and the store stays as it was.
    @Test func deleteRefusesToBreakRequiredRelationships() throws {
        let scenario = try MigrationScenario(
            "Teams",
            versions: [
                """
                entities:
                  Team:
                    attributes: { name: string }
                    relationships:
                      members: { destination: Player, toMany: true, inverse: team, minCount: 2, deleteRule: cascade }
                      coach: { destination: Coach, inverse: team, optional: false }
                  Player:
                    attributes: { name: string }
                    relationships:
                      team: { destination: Team, inverse: members }
                      badges: { destination: Badge, toMany: true, inverse: holders, optional: false, minCount: 1 }
                  Badge:
                    attributes: { name: string }
                    relationships:
                      holders: { destination: Player, toMany: true, inverse: badges }
                  Coach:
                    attributes: { name: string }
                    relationships:
                      team: { destination: Team, inverse: coach }

                """
            ])
        defer { scenario.remove() }
        _ = try scenario.withObjects { access in
            try access.insert("Coach", values: ["name": .string("Kim")], primaryKey: 1)
            try access.insert("Coach", values: ["name": .string("Lee")], primaryKey: 2)
            try access.insert("Badge", values: ["name": .string("gold")], primaryKey: 1)
            try access.insert("Badge", values: ["name": .string("silver")], primaryKey: 2)
            try access.insert("Team", values: ["name": .string("Reds")], relationships: ["coach": [1]], primaryKey: 1)
            try access.insert("Team", values: ["name": .string("Blues")], relationships: ["coach": [2]], primaryKey: 2)
            // Together, as Core Data saves them: one at a time, a team would have one member.
            try access.insertAll { batch in
                for (key, name, team, badges) in [
                    (1, "a", 1, [1]), (2, "b", 1, [1, 2]), (3, "c", 2, [2]), (4, "d", 2, [2]), (5, "e", 2, [1]),
                ] {
                    try batch.insert(
                        "Player", values: ["name": .string(name)],
                        relationships: ["team": [Int64(team)], "badges": badges.map(Int64.init)],
                        primaryKey: Int64(key), source: key)
                }
            }
        }
        let snapshot = try StoreDump.dump(scenario.storePath)
        let coach = try run(scenario, "delete", ["Coach", "--where", "name == 'Kim'"])
        #expect(coach.status == 1)
        #expect(
            coach.stderr == """
                error: the delete is refused: objects that stay would break the model; nothing was deleted:
                  Team.coach is required, and Team 1 would be left without it (their coach is among the objects \
                deleted; delete them too, or point them elsewhere first)

                """)
        let player = try run(scenario, "delete", ["Player", "--where", "name == 'a'"])
        #expect(player.status == 1)
        #expect(
            player.stderr == """
                error: the delete is refused: objects that stay would break the model; nothing was deleted:
                  Team.members needs none or at least 2 objects, and Team 1 (1 left) would have fewer

                """)
        let badge = try run(scenario, "delete", ["Badge", "--where", "name == 'silver'"])
        #expect(badge.status == 1)
        #expect(
            badge.stderr == """
                error: the delete is refused: objects that stay would break the model; nothing was deleted:
                  Player.badges needs at least 1 object, and Player 3 (0 left), 4 (0 left) would have fewer

                """)
        #expect(try StoreDump.dump(scenario.storePath) == snapshot)
        // Leaving a team with 2 of its 3 players, or deleting a team with its players (cascade) and its coach, is fine.
        let one = try run(scenario, "delete", ["Player", "--where", "name == 'e'"])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.stdout.hasPrefix("deleted 1 object (1 Player); 0 references cleared, 1 join row"), "\(one.stdout)")
        let team = try run(scenario, "delete", ["Team", "--where", "name == 'Reds'"])
        #expect(team.status == 0, "\(team.stderr)")
        #expect(try rows(scenario, "SELECT Z_PK FROM ZPLAYER ORDER BY Z_PK") == "3\n4")
    }
}
