import DataModel
import Mapping

/// The policies a `migrate` knows, by name.
public struct PolicyCatalog: @unchecked Sendable {
    // `@unchecked`, and no lock: nothing here changes after `init`, and the
    // metatypes are immutable values, but `any EntityMigrationPolicy.Type` is not
    // `Sendable` to Swift 6.0 (a `SendableMetatype` bound needs 6.2).
    private let types: [String: any EntityMigrationPolicy.Type]

    /// A catalog of policy types.
    public init(_ policies: [any EntityMigrationPolicy.Type]) {
        types = Dictionary(policies.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Policy names, sorted.
    public var names: [String] { types.keys.sorted() }

    /// Per policy, the source properties it declares it reads.
    public var declaredInputs: [String: [String]] { types.mapValues { $0.sourceProperties } }
    /// Per policy that is not written yet, what is left (`EntityMigrationPolicy.unwritten`).
    public var unwritten: [String: [String]] { types.mapValues { $0.unwritten }.filter { !$0.value.isEmpty } }
    /// Per policy, the selectors of its functions (`EntityMigrationPolicy.functions`).
    public var functions: [String: Set<String>] { types.mapValues { Set($0.functions.map(\.selector)) } }
    /// A policy type by name.
    public func policy(named name: String) -> (any EntityMigrationPolicy.Type)? { types[name] }
}
