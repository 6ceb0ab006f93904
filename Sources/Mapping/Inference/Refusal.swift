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
        /// A mapping file calls `FUNCTION($entityPolicy, 'selector:', …)` and the
        /// policy compiled into this `migrate` declares no function for the selector.
        case missingPolicyFunction

        /// Whether the refusal is about the code this `migrate` is built with, not
        /// a change inference cannot cover.
        public var isPolicyCode: Bool { self == .missingPolicy || self == .missingPolicyFunction }
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

    /// `Entity.property: change; remedy` (a missing policy function's change names
    /// its file, line, column and property itself).
    public var description: String {
        let subject = kind == .missingPolicyFunction ? "" : "\(entity)\(property.map { ".\($0)" } ?? ""): "
        return "\(subject)\(change)\n    remedy: \(remedy)"
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

    /// What inference cannot cover, then what this `migrate` lacks of the policies
    /// the mapping file names (not a change inference refuses), then the paths not taken.
    public var description: String {
        let inferred = refusals.filter { !$0.kind.isPolicyCode }, code = refusals.filter(\.kind.isPolicyCode)
        var sections: [String] = []
        if !inferred.isEmpty || code.isEmpty {
            sections.append(
                "no lightweight mapping from \(model) version \(sourceVersion) to \(destinationVersion) "
                    + "(\(inferred.count) change\(inferred.count == 1 ? "" : "s") inference cannot cover):\n"
                    + inferred.map { "  " + $0.description }.joined(separator: "\n"))
        }
        if !code.isEmpty {
            sections.append(
                "\(model) version \(sourceVersion) to \(destinationVersion) needs policy code this migrate does not "
                    + "have "
                    + "(\(code.count) problem\(code.count == 1 ? "" : "s")):\n"
                    + code.map { "  " + $0.description }.joined(separator: "\n"))
        }
        return sections.joined(separator: "\n") + notTaken.map { "\nnot taken: " + $0 }.joined()
    }
}
