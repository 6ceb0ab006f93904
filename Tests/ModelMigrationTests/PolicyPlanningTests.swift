import Foundation
import Mapping
import MigrationPolicies
import Migrations
import ModelMigration
import TestSupport
import Testing

/// Planning with policies: a mapping file naming a policy the catalog lacks is
/// refused before anything runs.
@Suite struct PolicyPlanningTests {
    @Test func aPolicyMissingFromTheCatalogIsRefused() throws {
        let s = try MigrationScenario.contacts(mappings: ["3-to-4.yaml"])
        defer { s.remove() }
        let file = try s.directory.write(
            "Migrations/Contacts/1-to-2.yaml",
            """
            entities:\n  Person:\n    policy: SplitFullNames\n    properties:\n      firstName: policy\n      \
            lastName: policy\n
            """
        )
        let before = FileSnapshot(s.storePath)
        #expect {
            try s.planWithPolicies(examplePolicies)
        } throws: { error in
            guard let failure = error as? InferenceFailure else { return false }
            #expect(failure.model == "Contacts" && failure.sourceVersion == 1 && failure.destinationVersion == 2)
            #expect(failure.refusals.map(\.kind) == [.missingPolicy])
            #expect(
                failure.refusals.map(\.description) == [
                    "Person: \(file) names policy 'SplitFullNames', which is not compiled into this migrate\n"
                        + "    remedy: compiled-in policies: MergeMembersByEmail, MoveCityToEntity, RepointLoans, "
                        + "SplitFullName; "
                        + "did you mean 'SplitFullName'?; a policy of your own needs a migrate built with it "
                        + "(Docs/Migrations.md: \"Your own policies and your own migrate\")"
                ])
            #expect(failure.refusals.first?.property == nil)
            return true
        }
        #expect(FileSnapshot(s.storePath).fingerprint == before.fingerprint)
        // Named right, the file plans.
        try s.writeMapping("1-to-2.yaml", try ContactsFiles.mapping("1-to-2.yaml"))
        #expect(try s.planWithPolicies(examplePolicies).hops.map { [$0.from, $0.to] } == [[1, 2], [2, 3], [3, 4]])
    }

    /// A later hop's missing policy is refused too, before the first hop runs.
    @Test func aMissingPolicyInALaterHopIsRefused() throws {
        let s = try MigrationScenario.contacts(mappings: ["1-to-2.yaml", "3-to-4.yaml"])
        defer { s.remove() }
        #expect {
            try s.planWithPolicies(PolicyCatalog([SplitFullName.self]))
        } throws: { error in
            (error as? InferenceFailure)?.refusals.map { "\($0.kind) \($0.entity) \($0.remedy)" }
                == [
                    """
                    missingPolicy Person compiled-in policies: SplitFullName; a policy of your own needs a migrate \
                    built with it (Docs/Migrations.md: "Your own policies and your own migrate")
                    """
                ]
        }
        #expect(
            try s.planWithPolicies(PolicyCatalog([SplitFullName.self]), to: 3).hops.map { [$0.from, $0.to] } == [
                [1, 2], [2, 3],
            ])
    }
}
