/// A mapping model converted to a mapping file, `<A>-to-<B>.yaml`.
public struct ImportedMapping: Sendable {
    /// The `.xcmappingmodel` folder it came from.
    public var mappingModel: String
    /// The source version (A).
    public var sourceVersion: Int
    /// The destination version (B); more than A + 1 for a mapping model that spans versions.
    public var destinationVersion: Int
    /// How the versions were found: `sourcemodelpath`, or the mapping model's name.
    public var pairedBy: String
    /// The file's name, `<A>-to-<B>.yaml`.
    public var fileName: String { "\(sourceVersion)-to-\(destinationVersion).yaml" }
    /// The YAML text of the mapping file.
    public var yaml: String
    /// Entity mappings in the mapping model.
    public var entityMappings: Int
    /// Policies the file names (their `PolicySkeleton`s are in `ImportedMappings.policies`).
    public var policies: [String]
    /// Archived `NSExpression`s decoded (value expressions and custom source fetches).
    public var decodedExpressions: Int
    /// What the file does, one line per entity it names.
    public var carried: [String]
    /// What could not be carried, each written in a form `migrate plan` refuses, or left as a comment,
    /// one line each naming the mapping model and the element: never dropped silently.
    public var notCarried: [String]
}

/// A mapping model that was found but not converted.
public struct SkippedMappingModel: Sendable {
    /// The `.xcmappingmodel` (or `.cdm`) path.
    public var path: String
    /// Why, in words.
    public var reason: String
    /// The versions its name suggests, when they could be found: the hop it was meant for.
    public var sourceVersion: Int?
    public var destinationVersion: Int?
}

/// Every mapping model of an import, converted.
public struct ImportedMappings: Sendable {
    /// The converted mapping models, by source version.
    public var mappings: [ImportedMapping]
    /// The policy skeletons, one per policy name, by name.
    public var policies: [PolicySkeleton]
    /// Mapping models not converted, with the reason.
    public var skipped: [SkippedMappingModel]
    /// Mapping models of another model bundle (`--mapping-models` found them beside this one).
    public var otherModels: [String]
}
