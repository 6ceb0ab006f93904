// swift-tools-version: 6.0
import PackageDescription

// The module graph (Docs/Architecture.md). Dependencies point one way:
// DataModel (YAML → compiled model) and Mapping (inference) never see SQLite;
// only SQLiteStore touches the C API; ModelMigration ties them together; the CLI
// parses, calls and renders.
let package = Package(
    name: "ModelMigration",
    platforms: [.macOS(.v13)],
    products: [
        // What an application or a deploy package imports: `ModelMigration` (policies,
        // planning, migrating, opening stores) and the modules its declarations use
        // (`DataModel`: compiled models and attribute values; `Mapping`: mapping models;
        // `Predicates`: Core Data predicates; `SQLiteStore`: the store handle, its
        // metadata and objects). SQLite itself stays behind `package` access
        // (Docs/PublicAPI.md).
        .library(
            name: "ModelMigration",
            targets: ["ModelMigration", "MigrationPolicies", "DataModel", "Mapping", "Predicates", "SQLiteStore"]),
        // The policy API alone, for a deploy package's policy target: what a policy
        // author writes against, and the model and mapping values it reads.
        .library(name: "MigrationPolicies", targets: ["MigrationPolicies", "DataModel", "Mapping"]),
        .library(name: "MigrateCommands", targets: ["MigrateCommands"]),
        // For policy authors' tests in a deploy package: temporary models, stores
        // and mapping files, a migration with their own policies, the built CLI.
        .library(name: "TestSupport", targets: ["TestSupport"]),
        .executable(name: "migrate", targets: ["MigrateCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"]), .brew(["libyaml"])]
        ),
        // SHA-256 and SHA-512 for the version hashes are in tree (Compilation/SHA2.swift).
        .target(name: "DataModel", dependencies: ["CYAML"]),
        // Core Data's predicate and expression language: parsing and type checking
        // against a compiled version; no SQLite.
        .target(name: "Predicates", dependencies: ["DataModel"]),
        .target(name: "Mapping", dependencies: ["DataModel", "Predicates"]),
        // Xcode `.xcdatamodeld` → YAML model versions (`migrate import`).
        .target(
            name: "CoreDataImport",
            dependencies: ["DataModel", "Mapping", "Predicates", "PropertyList", "ScratchFiles"]),
        // Binary property lists: store metadata (SQLiteStore) and Xcode 3 models
        // (CoreDataImport). No dependencies.
        .target(name: "PropertyList"),
        // Temporary files named after their owner process, so that a later run removes
        // what a killed one left (Docs/Safety.md "Temporary files"). No dependencies.
        .target(name: "ScratchFiles"),
        .target(name: "SQLiteStore", dependencies: ["CSQLite", "DataModel", "PropertyList", "ScratchFiles"]),
        // The policy API: what a policy author imports (`EntityMigrationPolicy`,
        // `MigrationManager`, source and destination objects, policy functions) and
        // nothing else; below ModelMigration, so policies build beside it.
        .target(name: "MigrationPolicies", dependencies: ["DataModel", "Mapping", "SQLiteStore"]),
        .target(
            name: "ModelMigration",
            dependencies: [
                "DataModel", "Mapping", "MigrationPolicies", "Predicates", "PropertyList", "SQLiteStore",
                "ScratchFiles",
            ]),
        // Objects as JSON Lines, for `migrate load`, `dump` and `fetch`: the CLI's, not
        // the library's; beside ModelMigration in the graph, so the two build at once.
        .target(name: "JSONLines", dependencies: ["DataModel", "SQLiteStore"]),
        .target(
            name: "Migrations",
            dependencies: ["MigrationPolicies", "DataModel", "Mapping"],
            path: "Migrations",
            exclude: ["Contacts"],
            sources: ["Policies"]
        ),
        // SIGINT and SIGTERM as bytes on a pipe (an async-signal-safe handler), so
        // that writing commands roll back without libdispatch's signal sources.
        .target(name: "CSignalPipe"),
        // The commands of `migrate`, as a library so that a deploy package can build
        // its own `migrate` with its own policies (Examples/DeployPackage).
        .target(
            name: "MigrateCommands",
            dependencies: [
                "ModelMigration",
                "MigrationPolicies",
                "DataModel",
                "Mapping",
                "SQLiteStore",
                "CoreDataImport",
                "JSONLines",
                "CSignalPipe",
                "ScratchFiles",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The shipped `migrate`: the commands with the example's policies.
        .executableTarget(name: "MigrateCLI", dependencies: ["MigrateCommands", "Migrations"]),
        // `make bench`: migration speed and memory against the raw-SQL bound.
        .executableTarget(
            name: "Benchmarks", dependencies: ["ModelMigration", "DataModel", "SQLiteStore"], path: "Benchmarks/Sources"
        ),
        // Generates the example's sample data for `make demo`.
        .executableTarget(name: "DemoData", path: "Sources/DemoData"),
        .target(
            name: "TestSupport",
            dependencies: [
                "ModelMigration", "MigrationPolicies", "DataModel", "PropertyList", "SQLiteStore", "ScratchFiles",
            ]),
        .testTarget(name: "DataModelTests", dependencies: ["DataModel", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(
            name: "SQLiteStoreTests",
            dependencies: ["SQLiteStore", "DataModel", "PropertyList", "ScratchFiles", "TestSupport"]),
        .testTarget(name: "PredicatesTests", dependencies: ["Predicates", "DataModel", "TestSupport"]),
        .testTarget(name: "MappingTests", dependencies: ["Mapping", "DataModel", "TestSupport"]),
        .testTarget(
            name: "ModelMigrationTests",
            dependencies: [
                "ModelMigration", "DataModel", "Mapping", "Predicates", "PropertyList", "SQLiteStore", "Migrations",
                "TestSupport",
            ]),
        .testTarget(
            name: "JSONLinesTests",
            dependencies: ["JSONLines", "ModelMigration", "DataModel", "SQLiteStore", "TestSupport"]),
        .testTarget(
            name: "MigrateCLITests",
            dependencies: [
                "MigrateCommands", "Migrations", "ModelMigration", "CoreDataImport", "JSONLines", "TestSupport",
            ]),
        .testTarget(
            name: "CoreDataImportTests",
            dependencies: ["CoreDataImport", "DataModel", "Mapping", "PropertyList", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// Imports are internal unless a file says `public import` (its public declarations
// show the imported module's types), and a member is visible only where its module is
// imported: the compiler checks what each module exposes and uses (Docs/PublicAPI.md).
for target in package.targets where target.type == .regular || target.type == .executable {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("InternalImportsByDefault"), .enableUpcomingFeature("MemberImportVisibility"),
        ]
}
