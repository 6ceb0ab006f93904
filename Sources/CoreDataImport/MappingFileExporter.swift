package import DataModel
import Foundation
package import Mapping
import Predicates

/// Writes a mapping file (`Migrations/<Model>/<A>-to-<B>.yaml`) as an Xcode mapping
/// model, the mirror of ``MappingModelConverter``: one entity mapping per destination
/// entity of the hop, each with the attribute and relationship mappings that make
/// what the toolkit migrates (the file's overrides, and what inference pairs where the
/// file says nothing), so that Core Data in the app migrates as `migrate` does on a
/// server, and importing the export gives the file back.
///
/// Pure: the loaded file, its resolved mapping and the two versions in; the mapping
/// model value and what it cannot hold out. The caller writes it (``xml``).
package struct MappingFileExporter: Sendable {
    /// One mapping file, ready to write.
    package struct Exported: Sendable {
        /// The mapping model (its `path` is the `.xcmappingmodel` folder's name).
        package var mappingModel: XcodeMappingModel
        /// The policy classes it names, in order of first use.
        package var policies: [String]
        /// What Xcode's format has no place for, one line each (never dropped silently).
        package var omissions: [String]
    }

    /// The mapping file.
    package var file: MappingFile
    /// The file merged over inference (`MappingResolver.resolve`); nil when that is
    /// refused, and then only what the file says (with same-named pairs) is written.
    package var resolved: MappingModel?
    /// The source version.
    package var source: CompiledVersion
    /// The destination version.
    package var destination: CompiledVersion
    /// `sourcemodelpath`, `destinationmodelpath`: the versions' `.xcdatamodel` folders as
    /// Xcode records them (`<Model>.xcdatamodeld/<Folder>.xcdatamodel`).
    package var modelPaths: (source: String, destination: String)

    package init(
        file: MappingFile, resolved: MappingModel?, source: CompiledVersion, destination: CompiledVersion,
        modelPaths: (source: String, destination: String)
    ) {
        self.file = file
        self.resolved = resolved
        self.source = source
        self.destination = destination
        self.modelPaths = modelPaths
    }

    /// The `.xcmappingmodel` folder name for the hop: `<Model> <A> to <B>.xcmappingmodel`.
    package static func folderName(model: String, from: Int, to: Int) -> String {
        "\(model) \(from) to \(to).xcmappingmodel"
    }

    /// The mapping model: the file's entities in its order, then the other destination
    /// entities in the version's order, then the source entities nothing maps (Remove).
    package func export(named name: String) -> Exported {
        var omissions: [String] = []
        var policies: [String] = []
        var entityMappings: [XcodeMappingModel.EntityMapping] = []
        let label = (file.path as NSString).lastPathComponent
        let listed = file.entities.map(\.name)
        let others = destination.entities.filter { !listed.contains($0.name) && !$0.isAbstract }.map(\.name)
        var unmigrated: Set<String> = []
        for entityName in Self.ownMappingsFirst(listed + others, file: file) {
            let override = file.entities.first { $0.name == entityName }
            // An entry that migrates no objects and says nothing else has no entity mapping,
            // as import writes one for an entity the mapping model has none for (Core Data
            // migrates none of its objects either way), nor a Remove mapping for its source.
            if let override, Self.migratesNothing(override), destination.entity(named: entityName) != nil {
                unmigrated.insert(resolvedMapping(entityName)?.source ?? entityName)
                continue
            }
            var mapping: XcodeMappingModel.EntityMapping
            if let entity = destination.entity(named: entityName) {
                mapping = entityMapping(
                    entity, override: override, resolved: resolvedMapping(entity.name), label: label,
                    omissions: &omissions)
            } else if let override, let second = secondMapping(override, label: label, omissions: &omissions) {
                mapping = second
            } else {
                omissions.append(
                    "\(label): \(entityName) is not an entity of version \(destination.version); not written")
                continue
            }
            mapping.number = entityMappings.count + 1
            if let policy = mapping.policyClass, !policies.contains(policy) { policies.append(policy) }
            entityMappings.append(mapping)
        }
        let mappedSources = Set(entityMappings.compactMap(\.source))
        for entity in source.entities
        where !entity.isAbstract && !mappedSources.contains(entity.name) && !unmigrated.contains(entity.name) {
            entityMappings.append(
                XcodeMappingModel.EntityMapping(
                    name: nil, source: entity.name, destination: nil, mappingType: "Undefined",
                    number: entityMappings.count + 1,
                    policyClass: nil, autogeneratesSource: true, filterPredicate: nil, sourceExpression: nil,
                    userInfo: nil,
                    attributes: [], relationships: [], unknown: [], line: 0))
        }
        let model = XcodeMappingModel(
            path: name, sourceModelPath: modelPaths.source, destinationModelPath: modelPaths.destination,
            embedsModels: false,
            entityMappings: entityMappings, unknown: [])
        return Exported(mappingModel: model, policies: policies, omissions: omissions)
    }

    /// `E: { filter: "FALSEPREDICATE" }` and nothing else.
    static func migratesNothing(_ override: MappingFile.EntityOverride) -> Bool {
        override.filter?.trimmingCharacters(in: .whitespaces) == "FALSEPREDICATE" && override.source == nil
            && override.policy == nil
            && override.properties.isEmpty && override.destination == nil
    }

    /// The entries in the order of their entity mappings, each further mapping (a merge)
    /// after its entity's own: import takes the first mapping into an entity for the
    /// entity's own (its objects keep their keys), so a further one listed first in the
    /// file must not come first in the mapping model.
    static func ownMappingsFirst(_ names: [String], file: MappingFile) -> [String] {
        var result = names
        for further in file.entities where further.destination != nil {
            guard let destination = further.destination, let at = result.firstIndex(of: further.name),
                let own = result.firstIndex(of: destination), own > at
            else { continue }
            result.remove(at: at)
            let after = result.lastIndex { name in
                name == destination || file.entities.contains { $0.name == name && $0.destination == destination }
            }
            result.insert(further.name, at: (after ?? result.count - 1) + 1)
        }
        return result
    }

    /// The resolved mapping into `entity`, when there is one.
    private func resolvedMapping(_ entity: String) -> EntityMapping? { resolved?.mapping(forDestination: entity) }

    /// A further entity mapping into one destination entity (objects of two source
    /// entities merged): an entry under the mapping's name with `destination:` and
    /// `source:` (MappingFiles.md, "Merges"), written as a second entity mapping of that
    /// name into the entity.
    private func secondMapping(
        _ override: MappingFile.EntityOverride, label: String, omissions: inout [String]
    ) -> XcodeMappingModel.EntityMapping? {
        guard override.source != nil, let name = override.destination, let entity = destination.entity(named: name)
        else { return nil }
        let resolvedFurther = resolved?.entityMappings.first { $0.name == override.name }
        var mapping = entityMapping(
            entity, override: override, resolved: resolvedFurther, label: label, omissions: &omissions)
        mapping.name = override.name
        return mapping
    }

    private func entityMapping(
        _ entity: CompiledEntity, override: MappingFile.EntityOverride?, resolved resolvedEntity: EntityMapping?,
        label: String,
        omissions: inout [String]
    ) -> XcodeMappingModel.EntityMapping {
        // The source: the file's, else inference's; without a resolved mapping, the same name.
        let sourceName: String?
        if let given = override?.source {
            sourceName = given
        } else if let resolvedEntity {
            sourceName = resolvedEntity.source
        } else {
            sourceName = source.entity(named: entity.name)?.name
        }
        var mapping = XcodeMappingModel.EntityMapping(
            name: override?.destination == nil ? override?.mappingName : nil, source: sourceName,
            destination: entity.name,
            mappingType: "Undefined", number: 0,
            policyClass: override?.policy ?? resolvedEntity?.policy, autogeneratesSource: true,
            filterPredicate: override?.filter ?? resolvedEntity?.filter, sourceExpression: nil, userInfo: nil,
            attributes: [], relationships: [], unknown: [], line: 0)
        let listed = (override?.properties.keys).map { Array($0).sorted() } ?? []
        guard let sourceName, let sourceEntity = source.entity(named: sourceName) else {
            // No source objects (an Add mapping): nothing for a property mapping to fill.
            if !listed.isEmpty {
                omissions.append(
                    "\(label): \(entity.name): no source entity, so \(listed.joined(separator: ", ")) not written")
            }
            return mapping
        }
        let stored = Set(entity.attributes.filter { !$0.declaration.isTransient }.map(\.name))
            .union(entity.relationships.filter { !$0.declaration.isTransient }.map(\.name))
        for name in listed where !stored.contains(name) {
            omissions.append(
                """
                \(label): \(entity.name).\(name): not a stored property of \(entity.name) in version \
                \(destination.version); not written
                """
            )
        }
        var settled = Renames.Settled()
        settled.entities[entity.name] = sourceEntity.name
        let context = PropertyContext(
            entity: entity, sourceEntity: sourceEntity, override: override, resolved: resolvedEntity,
            place: "\(label): \(entity.name)",
            inferred: Renames.hop(from: source, to: destination, settled: settled).properties[entity.name] ?? [:])
        // The file's properties in its order, then the entity's others in the version's order.
        let fileOrder = (override?.propertyLocations ?? [:]).sorted {
            ($0.value.line, $0.value.column) < ($1.value.line, $1.value.column)
        }.map(\.key)
        for attribute in ordered(entity.attributes.map(\.name), fileOrder) {
            guard let compiled = entity.attribute(named: attribute), !compiled.declaration.isTransient else { continue }
            if let property = attributeMapping(compiled, context, omissions: &omissions) {
                mapping.attributes.append(property)
            }
        }
        for relationship in ordered(entity.relationships.map(\.name), fileOrder) {
            guard let compiled = entity.relationship(named: relationship), !compiled.declaration.isTransient else {
                continue
            }
            if let property = relationshipMapping(compiled, context, omissions: &omissions) {
                mapping.relationships.append(property)
            }
        }
        return mapping
    }

    /// `names` with those `first` lists first, in its order.
    private func ordered(_ names: [String], _ first: [String]) -> [String] {
        first.filter(names.contains) + names.filter { !first.contains($0) }
    }

    /// What a property mapping of one entity is made from.
    struct PropertyContext {
        var entity: CompiledEntity
        var sourceEntity: CompiledEntity
        var override: MappingFile.EntityOverride?
        var resolved: EntityMapping?
        /// `1-to-2.yaml: Entity`, as omissions start.
        var place: String
        /// Destination property → the source property inference pairs it with, as import
        /// decides what it leaves to inference (`MappingModelConverter.EntityEntry.inferred`).
        var inferred: [String: String]

        /// Whether the entity's policy only hosts functions of its set-based copy: an
        /// attribute's whole value is `FUNCTION($entityPolicy, …)`, as import decides it.
        var policyRunsSetBased: Bool {
            guard override?.policy != nil else { return false }
            return entity.attributes.contains { attribute in
                guard case .expression(let text, _, _)? = override?.properties[attribute.name],
                    let syntax = try? PredicateParser.expression(text)
                else { return false }
                return MappingModelConverter.isPolicyCall(ArchivedExpression(syntax))
            }
        }

        /// Where the property's value comes from: the resolved mapping's, else the
        /// file's, else the same-named source property (or the default).
        /// The file's own words first (its expression as written, not as resolved), a
        /// default typed by the resolved mapping.
        func source(of name: String, isRelationship: Bool) -> PropertySource {
            switch override?.properties[name] {
            case .policy?: return .policy
            case .copy(let from)?: return .copy(from: from)
            case .expression(let text, _, let nilOnFailure)?: return .expression(text, nilOnFailure: nilOnFailure)
            default: break
            }
            if let resolved = resolved?.property(name)?.source { return resolved }
            switch override?.properties[name] {
            case .policy?, .copy?, .expression?: return .policy  // answered above
            case .value(nil)?: return .defaultValue(nil)
            case .value(.string(let text))?: return .defaultValue(.string(text))
            case .value(let value)?: return .defaultValue(value)
            case nil:
                let present =
                    isRelationship
                    ? sourceEntity.relationship(named: name) != nil : sourceEntity.attribute(named: name) != nil
                return present
                    ? .copy(from: name) : .defaultValue(entity.attribute(named: name)?.declaration.defaultValue)
            }
        }

        /// The text the file writes a default in (`{ default: 5 }`), when it does.
        func defaultText(of name: String) -> String? {
            if case .value(.string(let text))? = override?.properties[name] { return text }
            return nil
        }
    }
}
