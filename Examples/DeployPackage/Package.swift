// swift-tools-version: 6.0
// A deploy package: the team's own policies and its own `migrate`, built on
// ModelMigration. Copy this folder into your deploy repository and point the
// dependency at ModelMigration's repository instead of the relative path.
import PackageDescription

let package = Package(
    name: "DeployPackage",
    platforms: [.macOS(.v13)],
    products: [.executable(name: "deploy-migrate", targets: ["deploy-migrate"])],
    dependencies: [.package(name: "ModelMigration", path: "../..")],
    targets: [
        // The policies need only the policy API, so they build beside the library.
        .target(name: "DeployPolicies", dependencies: [.product(name: "MigrationPolicies", package: "ModelMigration")]),
        .executableTarget(
            name: "deploy-migrate",
            dependencies: [
                "DeployPolicies",
                .product(name: "MigrateCommands", package: "ModelMigration"),
            ]),
        // The policies' tests: ModelMigration's TestSupport makes the stores.
        .testTarget(
            name: "DeployPoliciesTests",
            dependencies: [
                "DeployPolicies",
                .product(name: "ModelMigration", package: "ModelMigration"),
                .product(name: "TestSupport", package: "ModelMigration"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
