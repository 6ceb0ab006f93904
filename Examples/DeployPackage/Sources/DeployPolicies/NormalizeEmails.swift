import DataModel
import Foundation
import MigrationPolicies

/// An example policy of a deploy package: lower-cases and trims e-mail addresses
/// while copying people, and refuses (rolling the whole migration back) when two
/// people would end up with the same address.
public struct NormalizeEmails: EntityMigrationPolicy {
    public init() {}

    public mutating func createDestinationInstances(for source: SourceObject, in manager: MigrationManager) throws {
        var person = try manager.createDestinationInstance(for: source)
        if let email = source.string("email") {
            let normalized = email.trimmingCharacters(in: .whitespaces).lowercased()
            if let other = try manager.lookup(normalized, in: "email") {
                throw PolicyError("e-mail \(normalized) is also used by person \(other)")
            }
            try manager.remember(normalized, value: source.primaryKey, in: "email")
            person["email"] = .string(normalized)
        }
        try manager.insert(person)
    }
}

/// Every policy this deploy package provides.
public let deployPolicies = PolicyCatalog([NormalizeEmails.self])
