import Mapping

/// Why a plan cannot be made. Every error planning throws falls into one of its
/// kinds (`PlanningError(classifying:)`); the kinds are the planner's reasons, and
/// `Outcome(_:)` alone turns them into outcomes with their exit codes and words
/// (`storeMismatch` and `failed` are both the outcome `failed`).
public struct PlanningError: Error, Sendable, CustomStringConvertible {
    /// What kind of refusal it is.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// No migration path: inference refuses a hop and no mapping file covers it,
        /// a policy is missing, or the data decides against a hop (exit 4).
        case noPath
        /// The store's version is not among the models (exit 5).
        case unknownVersion
        /// The store does not match its own version (tables that cannot be bound,
        /// rows that disagree with its entity numbers): nothing can be planned
        /// until it is repaired (exit 1).
        case storeMismatch
        /// Anything else (exit 1).
        case failed
        /// The target asked for is not a version of the store's model (`--to 9`):
        /// a usage error (exit 64), as an unknown version is in every command.
        case unknownTarget
    }

    /// What kind of refusal it is.
    public var kind: Kind
    /// What is wrong.
    public var message: String
    /// The error it classifies, when it came from elsewhere (`UnknownVersionError`,
    /// `InferenceFailure`), for its details.
    public var underlying: (any Error & Sendable)?

    /// True when there is no migration path (exit 4).
    public var isNoPath: Bool { kind == .noPath }

    public var description: String { message }

    /// Creates a planning error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// Any error planning threw, by kind: `UnknownVersionError` is an unknown
    /// version, an `InferenceFailure` no path, a `PlanningError` itself.
    public init(classifying error: any Error) {
        switch error {
        case let error as PlanningError:
            self = error
        case let error as UnknownVersionError:
            self.init(.unknownVersion, error.description)
            underlying = error
        case let error as InferenceFailure:
            self.init(.noPath, error.description)
            underlying = error
        default:
            self.init(.failed, "\(error)")
            underlying = error
        }
    }
}
