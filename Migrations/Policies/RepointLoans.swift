import Mapping
public import MigrationPolicies

/// Library 1 → 2 (`Examples/Library`): each loan is copied, then, in the
/// relationship stage — after `MergeMembersByEmail` created every member — pointed
/// at the member that stands for its old one (itself, or the member it was merged
/// into).
public struct RepointLoans: EntityMigrationPolicy {
    public static var sourceProperties: [String] { ["member"] }

    public init() {}

    public mutating func createRelationships(for destination: DestinationObject, in manager: MigrationManager) throws {
        guard
            let source = try manager.sourceInstances(
                forEntityMappingName: manager.currentEntityMapping.name, destination: destination
            ).first,
            let oldMember = try source.object("member")
        else { return }
        let member = try manager.destinationInstances(
            forEntityMappingName: "MemberToMember", sourceInstances: [oldMember]
        ).first
        var loan = destination
        loan.setRelationship("member", toKey: member?.primaryKey)
        try manager.update(loan)
    }
}
