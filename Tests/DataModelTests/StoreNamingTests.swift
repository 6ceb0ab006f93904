import TestSupport
import Testing

@testable import DataModel

/// CoreFoundation's string hash and hash-table order, which decide the side of a
/// many-to-many pair inside one table (`Docs/StoreNaming.md`).
@Suite struct CoreDataHashOrderTests {
    /// `CFStringHash`: the length, the UTF-16 units four at a time, the rest one at a
    /// time, then `result + (result << (length & 31))` in 64 bits.
    @Test func stringHashIsCoreFoundations() {
        #expect(CoreDataHashOrder.stringHash("") == 0)
        #expect(CoreDataHashOrder.stringHash("a") == 1062)  // (1 * 257 + 97) * 3
        #expect(CoreDataHashOrder.stringHash("ZNAME") == 15_862_841_191_296)
        #expect(CoreDataHashOrder.stringHash("trustedClients") == 5_468_976_250_665_702_379)
        // Over 96 units only the first, middle and last 32 count.
        #expect(
            CoreDataHashOrder.stringHash(
                String(repeating: "x", count: 40) + String(repeating: "y", count: 40)
                    + String(repeating: "z", count: 40)) == 15_290_781_397_349_858_776)
    }

    /// CoreFoundation's prime table sizes: 41 buckets hold 32 keys, the 33rd needs 71.
    @Test func bucketCountsFollowCoreFoundationsCapacities() {
        #expect(
            [0, 1, 3, 4, 6, 7, 19, 20, 32, 33, 52, 53].map(CoreDataHashOrder.bucketCount(holding:))
                == [0, 3, 3, 7, 7, 13, 23, 41, 41, 71, 71, 127])
    }

    /// Keys go to `hash % buckets` or the next free bucket, wrapping around; the
    /// order is the buckets' order, so it depends on the table size.
    @Test func iterationFollowsBucketsWithLinearProbing() {
        // Three buckets: ZNAME and ZTRUSTS both hash to bucket 0; ZTRUSTS takes 1.
        #expect(
            CoreDataHashOrder.iterationOrder(of: ["ZNAME", "ZTRUSTEDBY", "ZTRUSTS"]) == [
                "ZNAME", "ZTRUSTS", "ZTRUSTEDBY",
            ])
        // Seven buckets: ZNAME 1, ZTRUSTEDBY 2, ZTRUSTS 2 → 3, ZTITLE 6.
        #expect(
            CoreDataHashOrder.iterationOrder(of: ["ZNAME", "ZTITLE", "ZTRUSTEDBY", "ZTRUSTS"])
                == ["ZNAME", "ZTRUSTEDBY", "ZTRUSTS", "ZTITLE"])
    }
}

/// Join-table names and sides as Core Data computes them for a version, with
/// fixtures of this suite's own and with facts from Wire's stores.
@Suite struct StoreNamingTests {
    /// The attributes Wire's `UserClient` gained between 2.4 and 2.95.0.
    static let later =
        "modifiedKeys: binary?, discoveryDate: date?, needsToBeUpdatedFromBackend: boolean, "
        + "needsToNotifyOtherUserAboutSessionReset: boolean, needsToUpdateCapabilities: boolean?, pushToken: binary?"

    private func joinTables(_ text: [String], version: Int) throws -> [String] {
        let model = try TestModels.compile("Naming", versions: text)
        let layout = model.versions[version - 1].layout
        return layout.tables.filter { $0.joinRelationship != nil }
            .map { "\($0.name)(\($0.columns.map(\.name).joined(separator: ",")))" }
    }

    /// A self-referential pair with identical relationships in both versions: the
    /// attribute `model` makes the table 7 names, 13 buckets instead of 7, and
    /// `blocks` now comes first in its order (bucket 8 before 11; before, bucket 4
    /// of `blockedBy` came before 6).
    @Test func aSelfReferentialPairChangesSidesWhenAnAttributeIsAdded() throws {
        let versions = [NamingFixtures.accounts, NamingFixtures.accountsWithModel]
        #expect(try joinTables(versions, version: 1) == ["Z_1BLOCKEDBY(Z_1BLOCKS,Z_1BLOCKEDBY)"])
        #expect(try joinTables(versions, version: 2) == ["Z_1BLOCKS(Z_1BLOCKEDBY,Z_1BLOCKS)"])
    }

    /// Two join tables whose destination-key columns would both be `Z_3USERS`: the
    /// pair of the owner whose name sorts first keeps the name, the other takes `1`
    /// (Wire's `Z_19USERS (Z_19REACTIONS, Z_23USERS)`, `Z_15USERS (Z_15SYSTEMMESSAGES,
    /// Z_23USERS1)`), whichever version first had which pair.
    @Test func aDestinationColumnNameTakenByAnEarlierJoinTableGetsASuffix() throws {
        let v1 = """
            entities:
              SystemMessage:
                relationships:
                  users: { destination: User, toMany: true, inverse: systemMessages }
              User:
                relationships:
                  systemMessages: { destination: SystemMessage, toMany: true, inverse: users }
            """
        let v2 = """
            entities:
              Reaction:
                relationships:
                  users: { destination: User, toMany: true, inverse: reactions }
              SystemMessage:
                relationships:
                  users: { destination: User, toMany: true, inverse: systemMessages }
              User:
                relationships:
                  reactions: { destination: Reaction, toMany: true, inverse: users }
                  systemMessages: { destination: SystemMessage, toMany: true, inverse: users }
            """
        #expect(try joinTables([v1, v2], version: 1) == ["Z_1USERS(Z_1SYSTEMMESSAGES,Z_2USERS)"])
        #expect(
            try joinTables([v1, v2], version: 2) == [
                "Z_1USERS(Z_1REACTIONS,Z_3USERS)", "Z_2USERS(Z_2SYSTEMMESSAGES,Z_3USERS1)",
            ])
    }

    /// Wire's `UserClient` (its stored properties' names as its stores' `ZUSERCLIENT`
    /// columns show them, at three versions of its history) and the join tables Core
    /// Data gave its two self-referential pairs: on the `…Clients` side with 26 and 32
    /// stored properties, `Z_…TRUSTEDBYCLIENTS` from 33 on (where CoreFoundation's
    /// table grows from 41 to 71 buckets) while `Z_…IGNOREDCLIENTS` stays.
    @Test(arguments: [
        // 2.4 (version 5 of the history): 26 stored properties.
        (
            attributes: "modifiedDataFields: integer64?", discovered: false,
            trusted: "Z_3TRUSTEDCLIENTS(Z_3TRUSTEDBYCLIENTS,Z_3TRUSTEDCLIENTS)"
        ),
        // 2.95.0 (version 84): 32.
        (
            attributes: StoreNamingTests.later, discovered: true,
            trusted: "Z_3TRUSTEDCLIENTS(Z_3TRUSTEDBYCLIENTS,Z_3TRUSTEDCLIENTS)"
        ),
        // 2.96.0 (version 85): 33, with `needsSessionMigration`.
        (
            attributes: StoreNamingTests.later + ", needsSessionMigration: boolean", discovered: true,
            trusted: "Z_3TRUSTEDBYCLIENTS(Z_3TRUSTEDCLIENTS,Z_3TRUSTEDBYCLIENTS)"
        ),
    ])
    func wiresUserClient(attributes: String, discovered: Bool, trusted: String) throws {
        let discoveredBy =
            discovered
            ? "\n      discoveredByMessage: { destination: Message, optional: true, inverse: discoveredClients }" : ""
        let discoveredClients =
            discovered
            ? "\n      discoveredClients: { destination: UserClient, toMany: true, inverse: discoveredByMessage }" : ""
        let text = """
            entities:
              Message:
                relationships:
                  clients: { destination: UserClient, toMany: true, inverse: addedOrRemovedInSystemMessages \
            }\(discoveredClients)
                  missingRecipients: { destination: UserClient, toMany: true, inverse: messagesMissingRecipient, \
            transient: true }
              User:
                relationships:
                  clients: { destination: UserClient, toMany: true, inverse: user }
              UserClient:
                attributes: { activationAddress: string?, activationDate: date?, activationLocationLatitude: double?,
                  activationLocationLongitude: double?, apsDecryptionKey: binary?, apsVerificationKey: binary?, \
            deviceClass: string?,
                  fingerprint: binary?, label: string?, markedToDelete: boolean, model: string?,
                  needsToNotifyUser: boolean, needsToUploadSignalingKeys: boolean?, numberOfKeysRemaining: integer32?,
                  preKeysRangeMax: integer64, remoteIdentifier: string?, type: string, \(attributes) }
                relationships:
                  addedOrRemovedInSystemMessages: { destination: Message, toMany: true, inverse: clients }
                  ignoredByClients: { destination: UserClient, toMany: true, inverse: ignoredClients }
                  ignoredClients: { destination: UserClient, toMany: true, inverse: ignoredByClients }
                  messagesMissingRecipient: { destination: Message, toMany: true, inverse: missingRecipients, \
            transient: true }
                  missedByClient: { destination: UserClient, optional: true, inverse: missingClients }
                  missingClients: { destination: UserClient, toMany: true, inverse: missedByClient }
                  trustedByClients: { destination: UserClient, toMany: true, inverse: trustedClients }
                  trustedClients: { destination: UserClient, toMany: true, inverse: trustedByClients }
                  user: { destination: User, optional: true, inverse: clients }\(discoveredBy)
            """
        let tables = try joinTables([text], version: 1)
        #expect(tables.contains(trusted))
        #expect(tables.contains("Z_3IGNOREDCLIENTS(Z_3IGNOREDBYCLIENTS,Z_3IGNOREDCLIENTS)"))
    }
}
