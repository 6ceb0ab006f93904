import Foundation

/// The Swift skeleton of a policy a mapping model names: a type conforming to
/// `EntityMigrationPolicy` with one method per selector the mapping models call
/// through `$entityPolicy`, and `unwritten` listing what is left to port, so that
/// `migrate plan` refuses the hops that name it until the list is empty.
package struct PolicySkeleton: Sendable {
    /// One selector called as `FUNCTION($entityPolicy, "selector", …)`.
    package struct Selector: Sendable, Hashable {
        /// The Objective-C selector, `migrateSaveStateType:`.
        package var selector: String
        /// The number of arguments.
        package var arguments: Int
        /// Where it is called: `DeltaToDelta2.xcmappingmodel: SaveStateToSaveState.type`.
        package var uses: [String]
    }

    /// The policy's name in mapping files (the class name without its module).
    package var name: String
    /// The Core Data classes it stands for (`Delta.SaveStateMigrationPolicy`).
    package var coreDataClasses: [String]
    /// Entity mappings that name it: `DeltaToDelta2.xcmappingmodel: SaveStateToSaveState`.
    package var entityMappings: [String]
    /// The selectors called on it.
    package var selectors: [Selector]
    /// User info of the entity mappings naming it, `mapping: key = value`.
    package var userInfo: [String]

    /// The Swift method name of a selector: `migrateSaveStateType:` → `migrateSaveStateType`,
    /// `defaultIsActiveForBundleID:team:` → `defaultIsActiveForBundleID`.
    static func methodName(_ selector: String) -> String {
        let first = selector.split(separator: ":", omittingEmptySubsequences: false).first.map(String.init) ?? selector
        let cleaned = String(
            first.unicodeScalars.filter { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" })
        let name = cleaned.isEmpty || cleaned.first!.isNumber ? "_" + cleaned : cleaned
        return swiftKeywords.contains(name) ? "`\(name)`" : name
    }

    private static let swiftKeywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "func", "import", "init", "inout", "let", "operator",
        "protocol",
        "static", "struct", "subscript", "typealias", "var", "break", "case", "continue", "default", "defer", "do",
        "else",
        "fallthrough", "for", "guard", "if", "in", "repeat", "return", "switch", "where", "while", "as", "catch",
        "false", "is",
        "nil", "rethrows", "super", "self", "Self", "throw", "throws", "true", "try", "Any", "some", "any",
    ]

    /// The Swift source of the skeleton.
    package var swift: String {
        func literal(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        var unwritten: [String] = []
        for selector in selectors {
            unwritten.append(
                "\(Self.methodName(selector.selector).replacingOccurrences(of: "`", with: ""))"
                    + "(_:) for FUNCTION($entityPolicy, '\(selector.selector)', …)")
        }
        unwritten.append(
            "what \(coreDataClasses.joined(separator: ", ")) does in Objective-C or Swift "
                + "(createDestinationInstances, createRelationships, …): port it, or confirm it does nothing more")
        var lines = [
            "// Written by `migrate import --mapping-models` for the mapping models that name",
            "// \(coreDataClasses.joined(separator: ", ")) (an NSEntityMigrationPolicy subclass):",
        ]
        lines += entityMappings.map { "//   \($0)" }
        if !userInfo.isEmpty {
            lines.append(
                "// User info of those entity mappings (Core Data hands it to the policy as entityMapping.userInfo):")
            lines += userInfo.map { "//   \($0)" }
        }
        lines += [
            "//",
            "// Port what the Core Data class does, then empty `unwritten`: until it is empty,",
            "// `migrate plan` refuses every hop whose mapping file names this policy, listing it.",
            "import DataModel        // AttributeValue",
            "import MigrationPolicies",
            "",
            "public struct \(name): EntityMigrationPolicy {",
            "    /// What is left to write; `migrate plan` refuses the hops naming this policy until it is empty.",
            "    public static var unwritten: [String] {",
            "        [",
        ]
        lines += unwritten.map { "            \(literal($0))," }
        lines += ["        ]", "    }"]
        if !selectors.isEmpty {
            lines += [
                "",
                "    /// The functions the mapping files call through $entityPolicy: each runs inside the",
                "    /// hop's set-based copy, once per source object (Docs/Policies.md, \"Policy functions\").",
                "    public static var functions: [PolicyFunction] {",
                "        [",
            ]
            lines += selectors.map {
                "            PolicyFunction(\(literal($0.selector))) { try \(Self.methodName($0.selector))($0) },"
            }
            lines += ["        ]", "    }"]
        }
        lines += ["", "    public init() {}"]
        for selector in selectors {
            let bare = Self.methodName(selector.selector).replacingOccurrences(of: "`", with: "")
            let arguments =
                selector.arguments == 0
                ? "no arguments" : (0..<selector.arguments).map { "`arguments[\($0)]`" }.joined(separator: ", ")
            lines += [""]
            lines += [
                """
                    /// `\(selector.selector)`, called with \(arguments) by FUNCTION($entityPolicy, \
                '\(selector.selector)', …) in:
                """
            ]
            lines += selector.uses.map { "    /// - \($0)" }
            lines += [
                """
                    static func \(Self.methodName(selector.selector))(_ arguments: PolicyArguments) throws -> \
                AttributeValue? {
                """,
                "        throw PolicyError(\(literal("\(name).\(bare) is not written yet")))",
                "    }",
            ]
        }
        lines += ["}", ""]
        return lines.joined(separator: "\n")
    }
}
