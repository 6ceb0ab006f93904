import Foundation

/// Models whose join-table names follow Core Data's hash order (Docs/StoreNaming.md).
package enum NamingFixtures {
    /// A self-referential many-to-many pair, `Account.blocks`/`blockedBy`, with four
    /// attributes: its join table is named after `blockedBy`.
    package static let accounts = """
        entities:
          Account:
            attributes: { color: string?, label: string?, note: string?, rank: string? }
            relationships:
              blocks: { destination: Account, toMany: true, inverse: blockedBy }
              blockedBy: { destination: Account, toMany: true, inverse: blocks }
        """

    /// `accounts` with a fifth attribute, `model`: the pair's join table moves to
    /// `blocks`, though the relationships are the same.
    package static let accountsWithModel = accounts.replacingOccurrences(
        of: "rank: string? }", with: "rank: string?, model: string? }")
}
