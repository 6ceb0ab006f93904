/// A relationship as written in one model version file.
public struct RelationshipDescription: Sendable, Hashable, Codable {
    /// The relationship's name.
    public var name: String
    /// The destination entity's name.
    public var destination: String
    /// To-many when true, to-one otherwise.
    public var isToMany: Bool = false
    /// Keeps its order (an `NSOrderedSet` in Core Data). Xcode keeps the flag on a
    /// relationship changed from to-many to to-one, and Core Data hashes it there
    /// too; a to-one has no order column.
    public var isOrdered: Bool = false
    /// The name of the inverse relationship on the destination, if any.
    public var inverse: String?
    /// The delete rule (not hashed).
    public var deleteRule: DeleteRule = .nullify
    /// Whether the relationship may be empty. Relationships are optional unless
    /// `optional: false` is written, as in Xcode.
    public var isOptional: Bool = true
    /// Transient relationships are not stored.
    public var isTransient: Bool = false
    /// The minimum count, when written (Xcode writes none even for required relationships).
    public var minCount: UInt64?
    /// The maximum count, when written; to-one is always 1, to-many unbounded is 0.
    public var maxCount: UInt64?
    /// Core Data's `renamingIdentifier`.
    public var renamedFrom: String?
    /// Core Data's `versionHashModifier`.
    public var hashModifier: String?
    /// Declared one-directional on purpose (`noInverse: true`): validation does not
    /// warn that it has no inverse. Neither hashed nor part of the layout, so it may
    /// be added to a version already shipped.
    public var isOneWay = false
    /// What Xcode says of it that neither hash nor layout reads (user info, …).
    package var xcode = XcodeSettings()
    /// Where the relationship's name is written.
    public var location: SourceLocation

    // What only Xcode reads is not part of the encoded form (a store's model cache):
    // caches written before it existed stay readable, and it changes no compiled fact.
    enum CodingKeys: String, CodingKey {
        case name, destination, isToMany, isOrdered, inverse, deleteRule, isOptional, isTransient, minCount, maxCount
        case renamedFrom, hashModifier, location
    }

    /// Creates a relationship description.
    public init(name: String, destination: String, isToMany: Bool = false, location: SourceLocation) {
        self.name = name
        self.destination = destination
        self.isToMany = isToMany
        self.location = location
    }

    /// The maximum count as Core Data hashes it: 1 for to-one, the written value or 0
    /// (unbounded) for to-many, cut to 32 bits.
    public var hashedMaxCount: UInt32 {
        isToMany ? UInt32(truncatingIfNeeded: maxCount ?? 0) : 1
    }

    /// An ordered to-many: the store keeps an order column for it.
    public var keepsOrder: Bool { isToMany && isOrdered }

    /// The minimum count as Core Data hashes it, cut to 32 bits.
    public var hashedMinCount: UInt32 { UInt32(truncatingIfNeeded: minCount ?? 0) }
}
