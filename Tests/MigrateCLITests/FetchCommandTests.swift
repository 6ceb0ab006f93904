import Foundation
import TestSupport
import Testing

/// `migrate fetch` on the shop's rows (ShopModel.scenario()).
@Suite struct FetchCommandTests {
    func fetch(_ shop: MigrationScenario, _ arguments: [String]) throws -> CommandResult {
        try InProcess.migrate(["fetch", shop.storePath] + arguments + ["--models", shop.modelsFolder])
    }

    /// The text table shows a value's control characters as JSON escapes: one row a
    /// line, nothing for the terminal to act on; `--json` keeps the exact text.
    @Test func theTableShowsControlCharactersAsEscapes() throws {
        let shop = try ShopModel.scenario()
        defer { shop.remove() }
        try shop.withObjects {
            try $0.store.connection.execute(
                "UPDATE ZPRODUCT SET ZNAME = 'Pen' || char(27) || ']0;x' || char(7, 10) || 'next' WHERE Z_PK = 2")
        }
        let table = try fetch(shop, ["Product", "--where", "price < 2", "--properties", "name"])
        #expect(
            table.stdout == "Z_PK  entity   name\n2     Product  Pen\\u001b]0;x\\u0007\\nnext\n(1 object)\n",
            "\(table)")
        // A cell cut at the column's 40 characters keeps whole escapes: six `\u0001` and
        // the ellipsis, not a seventh cut to `\u`.
        try shop.withObjects {
            try $0.store.connection.execute(
                "UPDATE ZPRODUCT SET ZNAME = 'x' || char(1, 1, 1, 1, 1, 1, 1, 1) WHERE Z_PK = 1")
        }
        let cut = try fetch(shop, ["Product", "--where", "price > 10 AND price < 20", "--properties", "name"])
        #expect(cut.stdout.contains("x" + String(repeating: "\\u0001", count: 6) + "…\n"), "\(cut)")
        let json = try fetch(shop, ["Product", "--json", "--where", "price < 2", "--properties", "name"])
        #expect(json.stdout == #"{"_pk":2,"_entity":"Product","name":"Pen\u001b]0;x\u0007\nnext"}"# + "\n")
    }

    @Test func jsonLinesWithSubentitiesLabelled() throws {
        let shop = try ShopModel.scenario()
        defer { shop.remove() }
        let result = try fetch(
            shop, ["Product", "--json", "--sort", "-price", "--properties", "name,price,orders.@count"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                {"_pk":3,"_entity":"FavoriteProduct","name":"Lamp","price":"30.00","orders.@count":1}
                {"_pk":1,"_entity":"Product","name":"Book","price":"12.50","orders.@count":2}
                {"_pk":2,"_entity":"Product","name":"Pen","price":"1.20","orders.@count":1}

                """)
        let own = try fetch(shop, ["Product", "--json", "--no-subentities", "--properties", "name"])
        #expect(
            own.stdout
                == """
                {\"_pk\":1,\"_entity\":\"Product\",\"name\":\"Book\"}\n{\"_pk\":2,\"_entity\":\"Product\",\
                \"name\":\"Pen\"}\n
                """
        )
        // Default properties: the subentity's own attribute only on its rows.
        let all = try fetch(shop, ["Product", "--json", "--where", "name == 'Lamp' OR name == 'Pen'"])
        #expect(
            all.stdout == """
                {"_pk":2,"_entity":"Product","name":"Pen","pages":null,"price":"1.20"}
                {"_pk":3,"_entity":"FavoriteProduct","name":"Lamp","pages":"n/a","price":"30.00",\
                "addedAt":"2001-01-01T00:08:20Z"}

                """)
    }

    @Test func tableSortLimitOffsetCount() throws {
        let shop = try ShopModel.scenario()
        defer { shop.remove() }
        let table = try fetch(
            shop,
            [
                "Customer", "--where", "visits > 0", "--sort", "city.name,-visits", "--properties",
                "name,visits,city.name",
                "--limit", "2", "--offset", "1",
            ])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(
            table.stdout == """
                Z_PK  name  visits  city.name
                1     Ann   12      Oslo
                2     Bob   3       Oslo
                (2 objects)

                """)
        let count = try fetch(shop, ["Customer", "--where", "ANY orders.total > 50 OR city == nil", "--count"])
        #expect(count.stdout == "2\n")
        #expect(try fetch(shop, ["Customer", "--count", "--json"]).stdout == "{\"count\":4}\n")
        // NSFetchRequest's fetchLimit 0 is no limit.
        #expect(try fetch(shop, ["Customer", "--count", "--limit", "0"]).stdout == "4\n")
    }

    @Test func readOnlyAndRefusals() throws {
        let shop = try ShopModel.scenario()
        defer { shop.remove() }
        let before = try Data(contentsOf: URL(fileURLWithPath: shop.storePath))
        let bad = try fetch(shop, ["Customer", "--where", "visits >> 3"])
        #expect(bad.status == 64)
        #expect(
            bad.stderr == "error: --where: column 9: expected an expression, found '>'\n  visits >> 3\n          ^\n")
        let hostile = try fetch(shop, ["Customer", "--where", "name == \"x'); DELETE FROM ZCUSTOMER; --\""])
        #expect(hostile.status == 0)
        #expect(hostile.stdout == "Z_PK  code  email  joinedAt  name  note  vip  visits  city\n(0 objects)\n")
        let unknownKey = try fetch(shop, ["Customer", "--where", "cty.name == 'Oslo'", "--json"])
        #expect(unknownKey.status == 64)
        #expect(unknownKey.stdout.contains("Customer has no attribute or relationship 'cty' (did you mean 'city'?)"))
        let unknownEntity = try fetch(shop, ["Custome"])
        #expect(unknownEntity.status == 64)
        #expect(unknownEntity.stderr.hasPrefix("error: unknown entity 'Custome' (did you mean 'Customer'?)"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: shop.storePath)) == before)
        for suffix in ["-wal", "-shm", "-journal"] {
            #expect(!FileManager.default.fileExists(atPath: shop.storePath + suffix))
        }
    }

    /// A store at an older version is read at its own version (stderr says so), by
    /// dry runs too; the writing commands still ask for a migration first (exit 3).
    @Test func readsAnOlderStoreAtItsOwnVersionAndWritersRefuseIt() throws {
        let shop = try MigrationScenario(
            "Shop",
            versions: [
                ShopModel.yaml,
                ShopModel.yaml.replacingOccurrences(of: "note: string?", with: "note: string?\n      phone: string?"),
            ])
        defer { shop.remove() }
        let before = try Data(contentsOf: URL(fileURLWithPath: shop.storePath))
        let result = try fetch(shop, ["Customer", "--count"])
        #expect(result.status == 0)
        #expect(result.stdout == "0\n")
        #expect(
            result.stderr == """
                note: \(shop.storePath) is at version 1 of Shop (the current version is 2); reading it at its own \
                version (`migrate apply \(shop.storePath)` migrates it)

                """)
        let update = try InProcess.migrate([
            "update", shop.storePath, "Customer", "--set", "visits = 1", "--models", shop.modelsFolder,
        ])
        #expect(update.status == 3)
        #expect(
            update.stderr == """
                error: \(shop.storePath): the store is at version 1 of Shop, and the current version is 2; \
                migrate it first (`migrate apply \(shop.storePath)`)

                """)
        // A dry run changes nothing, so it reads the store at its own version too.
        for command in [["update", "--set", "visits = 1"], ["delete"]] {
            let dryRun = try InProcess.migrate(
                [command[0], shop.storePath, "Customer"] + command.dropFirst() + [
                    "--dry-run", "--models", shop.modelsFolder,
                ])
            #expect(dryRun.status == 0)
            let counts =
                command[0] == "update"
                ? "update 0 objects" : "delete 0 objects; 0 references cleared, 0 join rows removed"
            #expect(dryRun.stdout == "would \(counts); dry run, nothing was changed\n")
            #expect(dryRun.stderr == result.stderr)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: shop.storePath)) == before)
    }
}
