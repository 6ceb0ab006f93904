package import DataModel
import Foundation
import Predicates

/// The mapping of one hop or span: a mapping file merged over inference, or inference alone.
package enum MappingResolver {
    /// Resolves the mapping from `from` to `to`.
    ///
    /// - Parameters:
    ///   - file: the hop's mapping file, if there is one (it must be `from`-to-`to`).
    ///   - knownPolicies: the policy names compiled in; `nil` skips that check.
    ///   - policyFunctions: per compiled-in policy, the selectors of its functions
    ///     (`FUNCTION($entityPolicy, …)` values); `nil` skips that check.
    /// - Throws: `DiagnosticsError` when the file does not fit the two versions;
    ///   `InferenceFailure` with every change neither inference nor the file covers.
    package static func resolve(
        _ model: CompiledModel, from: Int, to: Int, file: MappingFile?,
        knownPolicies: Set<String>? = nil, policyFunctions: [String: Set<String>]? = nil
    ) throws -> MappingModel {
        guard let source = model.version(from), let destination = model.version(to) else {
            throw InferenceFailure(
                model: model.name, sourceVersion: from, destinationVersion: to,
                refusals: [
                    Refusal(
                        kind: .typeChange, entity: model.name, property: nil,
                        change: "model \(model.name) has no version \(model.version(from) == nil ? from : to)",
                        remedy: "use versions 1 to \(model.current.version)")
                ])
        }
        // A span's file maps its two versions: what it leaves out is inferred directly
        // between them (as Core Data infers a mapping model), not through the hops
        // in between, which may not even migrate.
        let spans = file.map { $0.destinationVersion - $0.sourceVersion > 1 } ?? false
        let chain =
            from <= to && !spans
            ? model.versions.filter { $0.version >= from && $0.version <= to } : [source, destination]
        return try resolve(chain: chain, file: file, knownPolicies: knownPolicies, policyFunctions: policyFunctions)
    }

    /// Resolves the mapping from the first to the last version of `chain` (every
    /// version in between, for chained renames), merging `file` over inference.
    ///
    /// `isEmpty`, when given, says whether the store holds no objects of a source
    /// entity itself (a subentity's are its own mapping's): a new required attribute without a default on
    /// such an entity is what Core Data's inferred mapping migrates (nil on no object
    /// fails no validation), so it becomes a requirement the data decides instead of
    /// a refusal. Without a store (`diff`, `import --report`) it stays refused.
    package static func resolve(
        chain: [CompiledVersion], file: MappingFile?, knownPolicies: Set<String>? = nil,
        policyFunctions: [String: Set<String>]? = nil, isEmpty: ((String) -> Bool)? = nil
    ) throws -> MappingModel {
        let source = chain[0], destination = chain[chain.count - 1]
        let model = (name: destination.model, current: destination)
        let from = source.version, to = destination.version
        var settled = Renames.Settled()
        for override in file?.entities ?? [] where override.destination == nil {
            if let source = override.source { settled.entities[override.name] = source }
            settled.properties[override.name] = Set(override.properties.keys)
            settled.setOtherwise[override.name] = Set(
                override.properties.filter { if case .copy = $0.value { false } else { true } }.keys)
        }
        var (inferred, refusals) = MappingInference.inferWithRefusals(
            from: source, to: destination, through: chain, settled: settled)
        if let isEmpty { relaxRequiredOnEmpty(&inferred, &refusals, isEmpty: isEmpty) }
        guard let file else {
            if !refusals.isEmpty {
                throw InferenceFailure(
                    model: model.name, sourceVersion: from, destinationVersion: to, refusals: refusals)
            }
            return inferred
        }
        var merge = MappingMerge(
            source: source, destination: destination, file: file, knownPolicies: knownPolicies,
            policyFunctions: policyFunctions, mapping: inferred, refusals: refusals)
        merge.chain = chain
        merge.settled = settled
        // The file's own names first, so that an entry may name another's mapping by them.
        for override in file.entities where override.destination == nil {
            guard let name = override.mappingName,
                let index = merge.mapping.entityMappings.firstIndex(where: { $0.destination == override.name })
            else { continue }
            merge.mapping.entityMappings[index].name = name
        }
        for override in file.entities { merge.merge(override) }
        merge.checkMappingNames()
        merge.checkEmptiedInverses()
        merge.checkFurtherSources()
        // An ambiguous rename the file does not settle leaves its claimants without a
        // source, so what the file says of them cannot fit: the rename is the cause.
        // Problems of other entities are the file's own.
        let ambiguous = merge.refusals.filter { $0.kind == .ambiguousRename }
        if !merge.diagnostics.isEmpty, !ambiguous.isEmpty,
            merge.troubled.isSubset(of: Renames.hop(from: source, to: destination, settled: settled).ambiguous)
        {
            throw InferenceFailure(model: model.name, sourceVersion: from, destinationVersion: to, refusals: ambiguous)
        }
        if !merge.diagnostics.isEmpty { throw DiagnosticsError(merge.diagnostics) }
        var mapping = merge.mapping
        let remaining = merge.refusals.filter {
            !copiesAcrossRenamedEntity($0, mapping: &mapping, source: source, destination: destination)
        }
        if !remaining.isEmpty {
            throw InferenceFailure(model: model.name, sourceVersion: from, destinationVersion: to, refusals: remaining)
        }
        fillSameObjectInverses(&mapping, destination: destination)
        mapping.mappingFile = file.path
        mapping.fileOrder = file.entities.map(\.name)
        return mapping
    }

    /// New required attributes without a default on entities the store holds no
    /// objects of: the property takes nil, and a `noObjects` requirement lets the
    /// data confirm it before the hop runs.
    static func relaxRequiredOnEmpty(
        _ mapping: inout MappingModel, _ refusals: inout [Refusal], isEmpty: (String) -> Bool
    ) {
        refusals.removeAll { refusal in
            guard refusal.kind == .requiredWithoutDefault, let property = refusal.property,
                let index = mapping.entityMappings.firstIndex(where: { $0.destination == refusal.entity }),
                let sourceEntity = mapping.entityMappings[index].source, isEmpty(sourceEntity),
                let p = mapping.entityMappings[index].properties.firstIndex(where: { $0.name == property })
            else { return false }
            mapping.entityMappings[index].properties[p].source = .defaultValue(nil)
            mapping.requirements =
                (mapping.requirements ?? []) + [
                    DataRequirement(
                        kind: .noObjects, entity: refusal.entity, property: property, sourceEntity: sourceEntity,
                        sourceProperty: "")
                ]
            return true
        }
    }

    /// Where the rule a value breaks is declared: the destination attribute.
    /// A relationship whose destination entity changed, where the file makes the new
    /// destination's objects from the old destination's (`PersistedDraft: source: Draft`,
    /// as a mapping model's entity mapping `DraftToPersistedDraft` does; held-out Olvid):
    /// the related objects are carried over with their keys, so the relationship is
    /// copied, as inference copies it across a `renamedFrom`. True when it was so.
    static func copiesAcrossRenamedEntity(
        _ refusal: Refusal, mapping: inout MappingModel, source: CompiledVersion,
        destination: CompiledVersion
    ) -> Bool {
        guard refusal.kind == .destinationChanged, let name = refusal.property,
            let index = mapping.entityMappings.firstIndex(where: { $0.destination == refusal.entity }),
            let sourceEntity = mapping.entityMappings[index].source.flatMap({ source.entity(named: $0) }),
            let new = destination.entity(named: refusal.entity)?.relationship(named: name),
            let old = sourceEntity.relationship(named: new.declaration.renamedFrom ?? name)
                ?? sourceEntity.relationship(named: name),
            old.declaration.isToMany == new.declaration.isToMany, old.isManyToMany == new.isManyToMany,
            mapping.entityMappings.contains(where: {
                $0.source == old.declaration.destination && $0.destination == new.declaration.destination
            }),
            let p = mapping.entityMappings[index].properties.firstIndex(where: { $0.name == name }),
            mapping.entityMappings[index].properties[p].source == .policy
        else { return false }
        mapping.entityMappings[index].properties[p].source = .copy(from: old.name)
        // Read now: not dropped (an override of the entity listed it before this pairing).
        mapping.entityMappings[index].droppedProperties.removeAll { $0 == old.name }
        return true
    }

    static func limitsHint(_ attribute: AttributeDescription, _ value: AttributeValue?) -> String? {
        guard value != nil else { return nil }
        return "'\(attribute.name)' is declared at \(attribute.location)"
    }

    /// The properties of `entity` an expression names (quoted text left out).
    static func reads(_ text: String, of entity: CompiledEntity) -> Set<String> {
        var words: [String] = []
        var word = ""
        var quote: Character?
        for character in text {
            if let open = quote {
                if character == open { quote = nil }
                continue
            }
            if character == "\"" || character == "'" {
                quote = character
                continue
            }
            if character.isLetter || character.isNumber || character == "_" {
                word.append(character)
            } else if !word.isEmpty {
                words.append(word)
                word = ""
            }
        }
        if !word.isEmpty { words.append(word) }
        let names = Set(entity.attributes.map(\.name) + entity.relationships.map(\.name))
        return Set(words.filter(names.contains))
    }

    static func mappingSourceName(_ source: PropertySource) -> String? {
        switch source {
        case .copy(let from), .convert(let from, _): from
        default: nil
        }
    }

    /// A mapping that pairs properties by name (used when a file picks the source entity).
    static func pairByName(_ entity: CompiledEntity, with sourceEntity: CompiledEntity) -> EntityMapping {
        var properties: [PropertyMapping] = []
        var used: Set<String> = []
        for attribute in entity.attributes where !attribute.declaration.isTransient {
            if let old = sourceEntity.attribute(named: attribute.name),
                old.declaration.type == attribute.declaration.type
            {
                properties.append(
                    PropertyMapping(name: attribute.name, source: .copy(from: old.name), isRelationship: false))
                used.insert(old.name)
            } else {
                properties.append(
                    PropertyMapping(
                        name: attribute.name, source: .defaultValue(attribute.declaration.defaultValue),
                        isRelationship: false))
            }
        }
        for relationship in entity.relationships where !relationship.declaration.isTransient {
            if let old = sourceEntity.relationship(named: relationship.name) {
                properties.append(
                    PropertyMapping(name: relationship.name, source: .copy(from: old.name), isRelationship: true))
                used.insert(old.name)
            } else {
                properties.append(
                    PropertyMapping(name: relationship.name, source: .defaultValue(nil), isRelationship: true))
            }
        }
        let dropped =
            (sourceEntity.attributes.filter { !$0.declaration.isTransient }.map(\.name)
            + sourceEntity.relationships.map(\.name))
            .filter { !used.contains($0) }.sorted()
        return EntityMapping(
            name: "\(sourceEntity.name)To\(entity.name)", kind: .transform, source: sourceEntity.name,
            destination: entity.name,
            properties: properties.sorted { $0.name < $1.name }, droppedProperties: dropped)
    }
}
