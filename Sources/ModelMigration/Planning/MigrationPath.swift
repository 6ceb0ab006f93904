import DataModel
import Foundation
public import Mapping

/// The way a store goes from its version to the target, decided once by the planner
/// (`MigrationPath.choose`) and shown in the plan: mapping files (hops or spans),
/// runs of inferred hops, or the direct inferred mapping (Docs/MappingFiles.md,
/// "Which path a migration takes").
public struct MigrationPath: Sendable, Hashable, Codable {
    /// What a piece of the path executes.
    public enum Kind: String, Sendable, Hashable, Codable, CustomStringConvertible {
        /// A mapping file `<A>-to-<B>.yaml` (one hop or a span), merged over inference.
        case mappingFile
        /// Every hop inferred, adjacent hops fused (a hop that changes stored values
        /// ends a fused run): the data of migrating version by version.
        case inferredChain
        /// One mapping inferred directly between the two versions, as Core Data's
        /// lightweight migration infers it from the store's model to the current one.
        case directInferred

        public var description: String {
            switch self {
            case .mappingFile: "mapping file"
            case .inferredChain: "inferred chain"
            case .directInferred: "direct inferred"
            }
        }
    }

    /// Which path `plan` and `apply` take (`--path`).
    public enum Preference: String, Sendable, Hashable, Codable, CaseIterable {
        /// The rule: a mapping file from the version reached, else the chain of hops
        /// when every hop infers, else the direct inferred mapping.
        case automatic
        /// Every hop on its own: its mapping file `<A>-to-<A+1>.yaml`, else inferred;
        /// spans are not used.
        case chain
        /// One mapping from the store's version to the target: the mapping file
        /// `<s>-to-<t>.yaml` if there is one, else inferred directly.
        case direct
    }

    /// One piece of the path.
    public struct Piece: Sendable, Hashable, Codable, CustomStringConvertible {
        /// What it executes.
        public package(set) var kind: Kind
        /// The version it starts at.
        public package(set) var from: Int
        /// The version it ends at.
        public package(set) var to: Int
        /// The mapping file, for `.mappingFile`.
        public package(set) var mappingFile: String?
        /// Why this piece was taken.
        public package(set) var reason: String

        /// Creates a piece.
        public init(kind: Kind, from: Int, to: Int, mappingFile: String?, reason: String) {
            self.kind = kind
            self.from = from
            self.to = to
            self.mappingFile = mappingFile
            self.reason = reason
        }

        /// `mapping file 1-to-5.yaml 1 → 5`, `inferred chain 5 → 7`.
        public var description: String {
            let file = mappingFile.map { " " + ($0 as NSString).lastPathComponent } ?? ""
            return "\(kind)\(file) \(from) → \(to)"
        }
    }

    /// The preference the path was chosen under.
    public package(set) var preference: Preference
    /// The pieces, in order, from the store's version to the target.
    public package(set) var pieces: [Piece]
    /// Why each alternative was not taken.
    public package(set) var notTaken: [String]
    /// Where the chain of hops and the direct mapping between the store's version
    /// and the target give different data (empty for one hop).
    public package(set) var differences: [PathDifference]

    /// `mapping file 1-to-5.yaml 1 → 5, then inferred chain 5 → 7`.
    public var summary: String { pieces.map(\.description).joined(separator: ", then ") }

    /// The piece covering hop `from` → `from + 1` (or starting at `from`).
    public func piece(containing from: Int) -> Piece? {
        pieces.first { $0.from <= from && from < $0.to } ?? pieces.first { $0.from == from }
    }
}
