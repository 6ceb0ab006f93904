public import MigrationPolicies

/// The example application's entity migration policies, compiled into the shipped
/// `migrate`. A deploy package lists its own policies the same way
/// (see `Examples/DeployPackage`).
public let examplePolicies = PolicyCatalog([
    SplitFullName.self, MoveCityToEntity.self, MergeMembersByEmail.self, RepointLoans.self,
])
