import ModelMigration

/// The example application's entity migration policies, compiled into the shipped
/// `migrate`. A deploy package lists its own policies the same way.
///
/// The Contacts example's `SplitFullName` policy (v1 → v2) lands here with the
/// policy API; until then this list is empty and a mapping file naming a policy is
/// refused by name.
public enum ExamplePolicies {
    /// Policy names this target provides.
    public static let names: [String] = []
}
