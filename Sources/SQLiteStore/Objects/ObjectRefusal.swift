/// One object the model refuses: which object of a batch, the property and what is wrong.
public struct ObjectRefusal: Sendable, Hashable, CustomStringConvertible {
    /// The caller's number for the object (a line number, for JSON Lines).
    public var source: Int
    /// `Entity.property` (`Entity.a, b` for a uniqueness constraint over several
    /// properties), `Entity` when the object as a whole is refused, or nil when the
    /// caller refused it before it reached the store.
    public var field: String?
    /// What is wrong, for people.
    public var message: String

    /// Creates a refusal.
    public init(source: Int, field: String?, message: String) {
        self.source = source
        self.field = field
        self.message = message
    }

    /// `field: message`.
    public var description: String {
        "\(field.map { "\($0): " } ?? "")\(message)"
    }
}

/// Why a batch of inserts wrote nothing: the objects the model refuses.
public struct ObjectRefusals: Error, Sendable, CustomStringConvertible {
    /// The first refusals by source (at most the limit the batch was given), in
    /// source order.
    public var refusals: [ObjectRefusal]
    /// How many refusals there were in all.
    public var count: Int

    /// Creates the error.
    public init(refusals: [ObjectRefusal], count: Int) {
        self.refusals = refusals
        self.count = count
    }

    /// One refusal a line, then `… and N more` when some were left out.
    public var description: String {
        (refusals.map(\.description) + (count > refusals.count ? ["… and \(count - refusals.count) more"] : []))
            .joined(separator: "\n")
    }
}
