import ModelMigration

/// The example application's entity migration policies, compiled into the shipped
/// `migrate`. A deploy package lists its own policies the same way.
///
/// The policy API (`EntityMigrationPolicy`) lands with the policies issue; until then
/// the catalog is empty, and a mapping file naming a policy is refused by name
/// (`migrate diff`/`plan` exit 4).
public struct PolicyCatalog: Sendable {
    /// Policy names this catalog provides.
    public var names: [String]

    /// The example application's policies.
    public static let example = PolicyCatalog(names: [])
}
