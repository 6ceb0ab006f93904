/// The Swift stub of an `NSEntityMigrationPolicy` subclass that an exported mapping
/// model names: the app's side of a policy the mapping files name (the server's side is
/// the deploy package's `EntityMigrationPolicy`). `@objc(<Name>)` gives the class the
/// very name the mapping model records, so Core Data finds it whatever the app's module
/// is called (`NSEntityMapping.entityMigrationPolicyClassName` is looked up with
/// `NSClassFromString`); one method per selector the files call through `$entityPolicy`,
/// exposed under that selector.
package struct MigrationPolicyStub: Sendable, Hashable {
    /// One `FUNCTION($entityPolicy, 'selector', …)` selector.
    package struct Selector: Sendable, Hashable {
        package var selector: String
        /// Where it is called: `Books 1 to 2.xcmappingmodel: Book.title`.
        package var uses: [String]
    }

    /// The class name (the mapping file's `policy:`).
    package var name: String
    /// The entity mappings that name it: `Books 1 to 2.xcmappingmodel: BookToBook`.
    package var entityMappings: [String]
    /// The properties the policy's stages set (`prop: policy`): `Book.title`.
    package var stageProperties: [String]
    /// The selectors called on it.
    package var selectors: [Selector]

    /// The Swift source.
    package var swift: String {
        var lines = [
            "// Written by `migrate export`: the NSEntityMigrationPolicy subclass that these entity mappings name",
            "// (migrationpolicyclassname \(name)):",
        ]
        lines += entityMappings.map { "//   \($0)" }
        lines += [
            "//",
            "// Port the deploy package's policy \(name) into it. Core Data creates the destination objects with",
            "// createDestinationInstances(forSource:in:manager:) and sets relationships with",
            "// createRelationships(forDestination:in:manager:); the default implementations apply the",
            "// attribute and relationship mappings of the mapping model.",
        ]
        if !stageProperties.isEmpty {
            lines.append(
                "// Set by the policy (no attribute mapping in the mapping model): "
                    + stageProperties.joined(separator: ", ") + ".")
        }
        lines += ["import CoreData", "", "@objc(\(name))", "final class \(name): NSEntityMigrationPolicy {"]
        for selector in selectors {
            let parts = selector.selector.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            let count = parts.count - 1
            let parameters = (0..<count).map { "_ argument\($0 + 1): Any?" }.joined(separator: ", ")
            lines.append("")
            lines.append("    /// `FUNCTION($entityPolicy, '\(selector.selector)', …)` in:")
            lines += selector.uses.map { "    /// - \($0)" }
            lines += [
                "    @objc(\(selector.selector))",
                "    func \(PolicySkeleton.methodName(selector.selector))(\(parameters)) -> Any? {",
                // A warning at every build until it is ported, not a trap in the user's app.
                """
                        #warning(\"\(name).\(selector.selector) is not written yet: port it from the deploy package's \
                policy\")
                """,
                "        return nil",
                "    }",
            ]
        }
        lines += ["}", ""]
        return lines.joined(separator: "\n")
    }
}
