import DataModel
import Mapping

/// User code for changes no inference can guess, as Core Data's
/// `NSEntityMigrationPolicy`: splitting `fullName` into `firstName` and
/// `lastName`, moving free text into a new entity, and so on.
///
/// A mapping file names the policy for a destination entity
/// (`Migrations/<Model>/<A>-to-<B>.yaml`, `policy: SplitFullName`). A hop runs its
/// policies in Core Data's stages (`NSMigrationManager`), each stage over every
/// custom entity mapping of the hop in the mapping file's order, streaming source
/// objects in primary-key order inside the apply transaction:
///
/// 1. instances — per mapping: `begin`, `createDestinationInstances(for:in:)` once
///    per source object, `endInstanceCreation`;
/// 2. relationships — per mapping: `createRelationships(for:in:)` once per
///    destination object it created, `endRelationshipCreation`;
/// 3. validation — per mapping: `performCustomValidation`;
/// 4. per mapping: `end`.
///
/// So when one mapping's relationship stage runs, every mapping of the hop has
/// created its objects, and the manager's lookups
/// (`destinationInstances(forEntityMappingName:sourceInstances:)`,
/// `sourceInstances(forEntityMappingName:destination:)`) reach all of them: the
/// source ↔ destination associations of every mapping last for the whole hop.
///
/// Every phase has a default that does what the inferred mapping does, so a policy
/// overrides only what it changes. Throwing from any phase rolls the whole apply
/// back; the error names the entity, the source primary key and the message.
public protocol EntityMigrationPolicy {
    /// The name mapping files use (default: the type's name).
    static var name: String { get }

    /// Whether the manager runs the relationship phase (`createRelationships`,
    /// once per destination object). Default true; a policy that sets everything in
    /// `createDestinationInstances` returns false to save a pass over its objects.
    static var usesRelationshipPhase: Bool { get }

    /// The properties of the source entity the policy reads. The planner refuses a
    /// hop whose source entity lacks one (a mapping file copied onto the wrong hop),
    /// before anything runs. Default: none declared; reading a property the source
    /// entity does not have still fails on the first object.
    static var sourceProperties: [String] { get }

    /// What is left to write before the policy can run, one line each. A skeleton
    /// `migrate import --mapping-models` writes lists the selectors and the Core Data
    /// code to port; the planner refuses every hop naming the policy until it is
    /// empty. Default: nothing.
    static var unwritten: [String] { get }

    /// The policy's functions, called by a mapping file's
    /// `FUNCTION($entityPolicy, 'selector:', …)` values inside the hop's set-based copy
    /// (``PolicyFunction``). An entity whose mapping has the policy, such values and
    /// no `prop: policy` runs set-based: the stages below are not called for it.
    /// Default: none.
    static var functions: [PolicyFunction] { get }

    /// Creates the policy; one instance serves one entity mapping of one apply.
    init()

    /// Called before the first source object.
    mutating func begin(_ manager: MigrationManager) throws

    /// Creates the destination object(s) for one source object. The default creates
    /// one destination object with the mapping's property values and the source's
    /// primary key (so relationships of other entities stay valid); an attribute
    /// whose type changed carries the source value, and one that does not fit its
    /// new type fails the apply, as Core Data's save validation would.
    mutating func createDestinationInstances(for source: SourceObject, in manager: MigrationManager) throws

    /// Called after the last source object.
    mutating func endInstanceCreation(_ manager: MigrationManager) throws

    /// Sets relationships of one destination object created in step 2. The default
    /// does nothing: relationships the mapping copies are already set.
    mutating func createRelationships(for destination: DestinationObject, in manager: MigrationManager) throws

    /// Called after the last destination object.
    mutating func endRelationshipCreation(_ manager: MigrationManager) throws
    /// The validation stage, after every mapping of the hop set its relationships:
    /// check what the destination objects must satisfy and throw to cancel.
    mutating func performCustomValidation(_ manager: MigrationManager) throws

    /// Called last.
    mutating func end(_ manager: MigrationManager) throws
}

extension EntityMigrationPolicy {
    public static var name: String { String(describing: Self.self) }
    public static var usesRelationshipPhase: Bool { true }
    public static var sourceProperties: [String] { [] }
    public static var unwritten: [String] { [] }
    public static var functions: [PolicyFunction] { [] }
    public mutating func begin(_ manager: MigrationManager) throws {}
    public mutating func createDestinationInstances(for source: SourceObject, in manager: MigrationManager) throws {
        let destination = try manager.createDestinationInstance(for: source)
        try manager.insert(destination)
    }
    public mutating func endInstanceCreation(_ manager: MigrationManager) throws {}
    public mutating func createRelationships(for destination: DestinationObject, in manager: MigrationManager) throws {}
    public mutating func endRelationshipCreation(_ manager: MigrationManager) throws {}
    public mutating func performCustomValidation(_ manager: MigrationManager) throws {}
    public mutating func end(_ manager: MigrationManager) throws {}
}
