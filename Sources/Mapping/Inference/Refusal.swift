import DataModel

/// One change inference cannot cover, with what to do instead.
public struct Refusal: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The broad reason.
    public enum Kind: String, Sendable, Hashable, Codable {
        case requiredWithoutDefault
        case typeChange
        case ambiguousRename
        case destinationChanged
        case mergedHierarchies
        case attributeRelationshipSwap
        case requiredRelationshipWithoutSource
        /// A mapping file names a policy that is not compiled into this `migrate`.
        case missingPolicy
    }

    /// The reason.
    public var kind: Kind
    /// The destination entity concerned.
    public var entity: String
    /// The property concerned, if any.
    public var property: String?
    /// What changed, for people.
    public var change: String
    /// What to write instead.
    public var remedy: String

    /// `Entity.property: change; remedy`.
    public var description: String {
        "\(entity)\(property.map { ".\($0)" } ?? ""): \(change)\n    remedy: \(remedy)"
    }
}

/// Inference refused the version pair; every refusal of the pair is listed.
public struct InferenceFailure: Error, Sendable, CustomStringConvertible {
    /// The model.
    public var model: String
    /// Source version.
    public var sourceVersion: Int
    /// Destination version.
    public var destinationVersion: Int
    /// Every refusal, in entity then property order.
    public var refusals: [Refusal]
    /// The other paths the planner tried and why they were not taken (a direct
    /// mapping refused too, a spanning file past the target), one line each.
    public var notTaken: [String] = []

    /// Creates a failure.
    public init(model: String, sourceVersion: Int, destinationVersion: Int, refusals: [Refusal]) {
        self.model = model
        self.sourceVersion = sourceVersion
        self.destinationVersion = destinationVersion
        self.refusals = refusals
    }

    public var description: String {
        "no lightweight mapping from \(model) version \(sourceVersion) to \(destinationVersion) "
            + "(\(refusals.count) change\(refusals.count == 1 ? "" : "s") inference cannot cover):\n"
            + refusals.map { "  " + $0.description }.joined(separator: "\n")
            + notTaken.map { "\nnot taken: " + $0 }.joined()
    }
}
