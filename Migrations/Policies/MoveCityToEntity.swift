import DataModel
import Mapping
public import MigrationPolicies

/// Contacts 3 → 4: moves the free-text `Person.city` into a `City` entity, one
/// per distinct name, and points `Person.livesIn` at it (named by
/// `Migrations/Contacts/3-to-4.yaml`).
///
/// Names are trimmed and compared case-insensitively, so `"Zürich"`, `" zürich "`
/// and `"ZÜRICH"` become one City (named as first seen). Empty and missing cities
/// leave `livesIn` empty. The name → City key map lives in the manager's keyed
/// lookup (a temporary table), not in memory, so any number of people and cities
/// migrate in bounded memory.
public struct MoveCityToEntity: EntityMigrationPolicy {
    /// The source property it reads (checked against each hop it is named for).
    public static var sourceProperties: [String] { ["city"] }

    public init() {}

    /// The lookup key of a city name.
    static func key(_ name: String) -> String { name.lowercased() }

    public mutating func createDestinationInstances(for source: SourceObject, in manager: MigrationManager) throws {
        try manager.insert(try manager.createDestinationInstance(for: source))
        guard let name = Self.cityName(of: source), try manager.lookup(Self.key(name), in: "City") == nil else {
            return
        }
        var city = try manager.createDestinationInstance(entity: "City")
        city["name"] = .string(name)
        try manager.insert(city)
        try manager.remember(Self.key(name), value: city.primaryKey, in: "City")
    }

    public mutating func createRelationships(for destination: DestinationObject, in manager: MigrationManager) throws {
        guard destination.entity == "Person" else { return }
        guard
            let source = try manager.sourceInstances(
                forEntityMappingName: manager.currentEntityMapping.name, destination: destination
            ).first,
            let name = Self.cityName(of: source), let city = try manager.lookup(Self.key(name), in: "City")
        else { return }
        var person = destination
        person.setRelationship("livesIn", toKey: city)
        try manager.update(person)
    }

    static func cityName(of source: SourceObject) -> String? {
        let name = source.string("city")?.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ") ?? ""
        return name.isEmpty ? nil : name
    }
}
