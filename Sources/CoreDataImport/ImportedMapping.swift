/// A mapping model converted to a mapping file, `<A>-to-<B>.yaml`.
package struct ImportedMapping: Sendable {
    /// The `.xcmappingmodel` folder it came from.
    package var mappingModel: String
    /// The source version (A).
    package var sourceVersion: Int
    /// The destination version (B); more than A + 1 for a mapping model that spans versions.
    package var destinationVersion: Int
    /// How the versions were found: `sourcemodelpath`, or the mapping model's name.
    package var pairedBy: String
    /// The file's name, `<A>-to-<B>.yaml`.
    package var fileName: String { "\(sourceVersion)-to-\(destinationVersion).yaml" }
    /// The YAML text of the mapping file.
    package var yaml: String
    /// Entity mappings in the mapping model.
    package var entityMappings: Int
    /// Policies the file names (their `PolicySkeleton`s are in `ImportedMappings.policies`).
    package var policies: [String]
    /// Archived `NSExpression`s decoded (value expressions and custom source fetches).
    package var decodedExpressions: Int
    /// What the file does, one line per entity it names.
    package var carried: [String]
    /// What could not be carried, each written in a form `migrate plan` refuses, or left as a comment,
    /// one line each naming the mapping model and the element: never dropped silently.
    package var notCarried: [String]
    /// Source entities feeding several destination entities, one line each: every one of
    /// their entity mappings is carried and makes its own objects (MappingFiles.md).
    package var splits: [String] = []
}

/// A mapping model that was found but not converted.
package struct SkippedMappingModel: Sendable {
    /// The `.xcmappingmodel` (or `.cdm`) path.
    package var path: String
    /// Why, in words.
    package var reason: String
    /// The versions its name suggests, when they could be found: the hop it was meant for.
    package var sourceVersion: Int?
    package var destinationVersion: Int?
}

/// Every mapping model of an import, converted.
package struct ImportedMappings: Sendable {
    /// The converted mapping models, by source version.
    package var mappings: [ImportedMapping]
    /// The policy skeletons, one per policy name, by name.
    package var policies: [PolicySkeleton]
    /// Mapping models not converted, with the reason.
    package var skipped: [SkippedMappingModel]
    /// Mapping models of another model bundle (`--mapping-models` found them beside this one).
    package var otherModels: [String]
    /// Mapping models whose recorded entity hashes are not those of the versions they
    /// name: Core Data never finds them for a store, so no mapping file is written and
    /// the hop is planned as Core Data plans it without them.
    package var stale: [StaleMappingModel] = []
}

/// A mapping model Core Data would not use: the entity version hashes it records (a
/// `.cdm`'s entity mappings, the models an `.xcmappingmodel` embeds) differ from the
/// hashes of the versions it names (a model changed after the mapping model was made).
package struct StaleMappingModel: Sendable {
    /// The `.xcmappingmodel` (or `.cdm`) path.
    package var path: String
    package var sourceVersion: Int
    package var destinationVersion: Int
    /// The entities whose recorded hashes differ, as `Entity (version N)`.
    package var entities: [String]

    package init(path: String, sourceVersion: Int, destinationVersion: Int, entities: [String]) {
        self.path = path
        self.sourceVersion = sourceVersion
        self.destinationVersion = destinationVersion
        self.entities = entities
    }
}
