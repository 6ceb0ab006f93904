import Foundation
public import MigrationPolicies

/// Library 1 → 2 (`Examples/Library`): members become unique by email. The first
/// member of each email (in key order) stays; every later one is merged into it: it
/// gets no destination object of its own, and its source object is associated
/// with the one that stays, so that other mappings of the hop find the survivor
/// through `destinationInstances(forEntityMappingName: "MemberToMember", …)`.
///
/// Emails are compared trimmed and case-insensitively (`" Ann@Example.com"` and
/// `"ann@example.com"` are one member); the survivor keeps its own spelling.
public struct MergeMembersByEmail: EntityMigrationPolicy {
    public static var sourceProperties: [String] { ["email"] }
    /// Everything happens while creating instances.
    public static var usesRelationshipPhase: Bool { false }

    public init() {}

    static func key(_ email: String?) -> String {
        (email ?? "").trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    public mutating func createDestinationInstances(for source: SourceObject, in manager: MigrationManager) throws {
        let key = Self.key(source.string("email"))
        if let survivor = try manager.lookup(key, in: "Member.email") {
            try manager.associate(source: source.primaryKey, withEntity: "Member", primaryKey: survivor)
            return
        }
        let member = try manager.createDestinationInstance(for: source)
        try manager.insert(member)
        try manager.remember(key, value: member.primaryKey, in: "Member.email")
    }
}
