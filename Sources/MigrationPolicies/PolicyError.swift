import DataModel
import Mapping

/// Thrown by a policy to cancel the migration with a message.
public struct PolicyError: Error, Sendable, CustomStringConvertible {
    /// Why the policy cancelled.
    public var message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
