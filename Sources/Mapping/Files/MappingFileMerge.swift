import DataModel
import Foundation
import Predicates

/// A mapping file merged over the inferred mapping of its two versions, one entity
/// override at a time: what each override changes, the diagnostics of what does
/// not fit the versions, and the refusals inference had that the file settles.
struct MappingFileMerge {
    let source: CompiledVersion
    let destination: CompiledVersion
    let file: MappingFile
    let knownPolicies: Set<String>?
    var mapping: MappingModel
    var refusals: [Refusal]
    var diagnostics: [Diagnostic] = []

    private var from: Int { source.version }
    private var to: Int { destination.version }

    /// Merges every entity override of the file, in the file's order.
    mutating func mergeEntities() {
        for override in file.entities {
            guard let entity = destination.entity(named: override.name) else {
                diagnostics.append(Diagnostic(.error, "entity '\(override.name)': not an entity of \(destination.model) version \(to)", at: override.location,
                                              hint: Suggestions.hint(for: override.name, in: destination.entities.map(\.name))))
                continue
            }
            guard let index = pairSource(of: override, entity) else { continue }
            if let policy = override.policy { applyPolicy(policy, of: override, entity, at: index) }
            let sourceEntity = mapping.entityMappings[index].source.flatMap { source.entity(named: $0) }
            for (property, value) in override.properties.sorted(by: { $0.key < $1.key }) {
                applyProperty(property, value, of: override, entity, sourceEntity, at: index)
            }
            if let filter = override.filter { applyFilter(filter, of: override, entity, sourceEntity, at: index) }
            settleDroppedProperties(at: index, sourceEntity)
        }
    }

    /// The index of the entity's mapping, re-paired with the source entity the
    /// override names; nil when that is not an entity of the source version.
    private mutating func pairSource(of override: MappingFile.EntityOverride, _ entity: CompiledEntity) -> Int? {
        var index = mapping.entityMappings.firstIndex { $0.destination == entity.name }!
        guard let sourceName = override.source else { return index }
        guard let sourceEntity = source.entity(named: sourceName) else {
            diagnostics.append(Diagnostic(.error, "entity '\(override.name)': source '\(sourceName)' is not an entity of version \(from)",
                                          at: override.location, hint: Suggestions.hint(for: sourceName, in: source.entities.map(\.name))))
            return nil
        }
        if mapping.entityMappings[index].source != sourceName {
            let previous = mapping.entityMappings[index].source
            // Re-pair by name with the chosen source entity.
            mapping.entityMappings[index] = MappingResolver.pairByName(entity, with: sourceEntity)
            mapping.entityMappings.removeAll { $0.kind == .remove && $0.source == sourceName }
            // The source entity inference had paired is now mapped by nothing: its rows are dropped.
            if let previous, !mapping.entityMappings.contains(where: { $0.source == previous }), let old = source.entity(named: previous) {
                mapping.entityMappings.append(EntityMapping(name: "\(previous)ToNothing", kind: .remove, source: previous, destination: nil,
                                                            droppedProperties: Renames.storedProperties(of: old).map(\.name).sorted()))
            }
            index = mapping.entityMappings.firstIndex { $0.destination == entity.name }!
        }
        return index
    }

    /// The entity's objects come from a policy compiled into this migrate.
    private mutating func applyPolicy(_ policy: String, of override: MappingFile.EntityOverride, _ entity: CompiledEntity, at index: Int) {
        if let knownPolicies, !knownPolicies.contains(policy) {
            refusals.append(Refusal(kind: .missingPolicy, entity: entity.name, property: nil,
                                    change: "\(file.path) names policy '\(policy)', which is not compiled into this migrate",
                                    remedy: (knownPolicies.isEmpty
                                                ? "add the policy to your deploy package's policy list"
                                                : "compiled-in policies: \(knownPolicies.sorted().joined(separator: ", "))"
                                        + (Suggestions.hint(for: policy, in: knownPolicies).map { "; \($0)" } ?? ""))
                                        + "; a policy of your own needs a migrate built with it"
                                        + " (Docs/Migrations.md: \"Your own policies and your own migrate\")"))
        }
        mapping.entityMappings[index].kind = .custom
        mapping.entityMappings[index].policy = policy
        if mapping.entityMappings[index].source == nil {
            diagnostics.append(Diagnostic(.error, """
                                          entity '\(entity.name)': a policy needs source rows; \
                                          '\(entity.name)' has no source entity in version \(from)
                                          """,
                                          at: override.location, hint: "add `source: <Entity of version \(from)>`"))
        }
        refusals.removeAll { $0.entity == entity.name && $0.kind != .missingPolicy }
    }

    /// One property's override: where its value comes from now, or a diagnostic.
    private mutating func applyProperty(_ property: String, _ value: MappingFile.Override, of override: MappingFile.EntityOverride,
                                        _ entity: CompiledEntity, _ sourceEntity: CompiledEntity?, at index: Int) {
        let location = override.propertyLocations[property]
        let attribute = entity.attribute(named: property)
        let relationship = entity.relationship(named: property)
        guard attribute != nil || relationship != nil else {
            diagnostics.append(Diagnostic(.error, "property '\(entity.name).\(property)': not a property of \(entity.name) in version \(to)",
                                          at: location,
                                          hint: Suggestions.hint(for: property, in: entity.attributes.map(\.name) + entity.relationships.map(\.name))))
            return
        }
        let subject = "property '\(entity.name).\(property)'"
        let newSource: PropertySource?
        switch value {
        case .policy:
            newSource = .policy
            if override.policy == nil {
                diagnostics.append(Diagnostic(.error, "\(subject): set by a policy, but the entity names no policy",
                                              at: location, hint: "add `policy: <Name>` to entity '\(entity.name)'"))
            }
        case .copy(let from):
            newSource = copySource(from, into: attribute, property, subject: subject, sourceEntity, at: location)
        case .expression(let text, let textLocation, let nilOnFailure):
            newSource = expressionSource(text, at: textLocation, nilOnFailure: nilOnFailure, into: attribute, property,
                                         of: override, entity, sourceEntity, location: location)
        case .value(let raw):
            newSource = defaultSource(raw, into: attribute, subject: subject, at: location)
        }
        guard let newSource else { return }
        if let p = mapping.entityMappings[index].properties.firstIndex(where: { $0.name == property }) {
            mapping.entityMappings[index].properties[p].source = newSource
        } else {
            mapping.entityMappings[index].properties.append(PropertyMapping(name: property, source: newSource, isRelationship: relationship != nil))
            mapping.entityMappings[index].properties.sort { $0.name < $1.name }
        }
        if mapping.entityMappings[index].kind == .copy { mapping.entityMappings[index].kind = .transform }
        refusals.removeAll { $0.entity == entity.name && $0.property == property }
    }

    /// `$source.<name>`: a copy, or a widening conversion between attribute types.
    private mutating func copySource(_ from: String, into attribute: CompiledAttribute?, _ property: String, subject: String,
                                     _ sourceEntity: CompiledEntity?, at location: SourceLocation?) -> PropertySource? {
        guard let sourceEntity, sourceEntity.attribute(named: from) != nil || sourceEntity.relationship(named: from) != nil else {
            diagnostics.append(Diagnostic(.error, """
                                          \(subject): $source.\(from) is not a property of \
                                          \(sourceEntity?.name ?? "the source") in version \(source.version)
                                          """, at: location,
                                          hint: sourceEntity.flatMap {
                                              Suggestions.hint(for: from, in: $0.attributes.map(\.name) + $0.relationships.map(\.name))
                                          }))
            return nil
        }
        guard let attribute, let old = sourceEntity.attribute(named: from)?.declaration, old.type != attribute.declaration.type else {
            return .copy(from: from)
        }
        if MappingInference.isWidening(old.type, to: attribute.declaration.type) {
            return .convert(from: from, conversion: .widen)
        }
        diagnostics.append(Diagnostic(.error, """
                                      \(subject): $source.\(from) is \(old.type.rawValue), \
                                      not convertible to \(attribute.declaration.type.rawValue)
                                      """, at: location, hint: "set it in a policy instead (`\(property): policy`)"))
        return nil
    }

    /// `value:` an expression over the source row, type-checked against the source entity.
    private mutating func expressionSource(_ text: String, at textLocation: ScalarPositions, nilOnFailure: Bool,
                                           into attribute: CompiledAttribute?, _ property: String, of override: MappingFile.EntityOverride,
                                           _ entity: CompiledEntity, _ sourceEntity: CompiledEntity?, location: SourceLocation?) -> PropertySource? {
        let subject = "property '\(entity.name).\(property)'"
        guard let attribute else {
            diagnostics.append(Diagnostic(.error, "\(subject): a relationship cannot take a value expression",
                                          at: location, hint: "relationships are copied (`$source.<name>`) or set in a policy"))
            return nil
        }
        guard let sourceEntity else {
            diagnostics.append(Diagnostic(.error, """
                                          \(subject): '\(entity.name)' has no source entity in version \(from), \
                                          so there is no $source for its value
                                          """,
                                          at: location, hint: "add `source: <Entity of version \(from)>`"))
            return nil
        }
        if let policy = override.policy {
            diagnostics.append(Diagnostic(.error, "\(subject): value: the entity's objects come from policy \(policy)",
                                          at: location, hint: "compute it in the policy (`\(property): policy`)"))
            return nil
        }
        if attribute.declaration.isTransient {
            diagnostics.append(Diagnostic(.error, """
                                          \(subject): value: a transient attribute is not stored, \
                                          so no value is migrated into it
                                          """,
                                          at: location, hint: "leave it out of the mapping file"))
            return nil
        }
        if nilOnFailure && !attribute.declaration.isOptional {
            diagnostics.append(Diagnostic(.error, "\(subject): onFailure: nil on a required attribute", at: location,
                                          hint: """
                                          make \(entity.name).\(property) optional, or leave onFailure out \
                                          (a value that does not convert fails the migration, naming its row)
                                          """))
            return nil
        }
        do {
            _ = try TypeChecker(version: source, entity: sourceEntity.name, rowVariables: ["source"]).value(text, for: attribute.declaration)
        } catch {
            let at = textLocation.location(ofColumn: error.column)
            diagnostics.append(Diagnostic(.error, "\(subject): value: \(error.detail)", at: at,
                                          hint: """
                                          the expression is checked against \(sourceEntity.name) of version \(from) \
                                          (`$source.<key>`; Docs/Predicates.md)
                                          """))
            return nil
        }
        return .expression(text, nilOnFailure: nilOnFailure)
    }

    /// A constant written to every row, held to every rule of the destination attribute.
    private mutating func defaultSource(_ raw: AttributeValue?, into attribute: CompiledAttribute?, subject: String,
                                        at location: SourceLocation?) -> PropertySource? {
        guard let attribute else {
            diagnostics.append(Diagnostic(.error, "\(subject): a relationship cannot take a default", at: location))
            return nil
        }
        var parsed: AttributeValue?
        if case .string(let text)? = raw {
            switch DefaultValueParser.parse(text, as: attribute.declaration.type) {
            case .success(let v): parsed = v
            case .failure(let failure):
                diagnostics.append(Diagnostic(.error, "\(subject): \(failure.message)", at: location))
                return nil
            }
        }
        // Every rule of the destination attribute (limits, optionality), as
        // for a default in the model: the value is written to every row.
        let problems = attribute.declaration.violations(of: parsed)
        for problem in problems {
            let detail = parsed == nil ? problem : "default \(problem)"
            diagnostics.append(Diagnostic(.error, "\(subject): \(detail)", at: location,
                                          hint: MappingResolver.limitsHint(attribute.declaration, parsed)))
        }
        return problems.isEmpty ? .defaultValue(parsed) : nil
    }

    /// `filter:` a predicate over the source rows (not with a policy, which chooses its own).
    private mutating func applyFilter(_ filter: String, of override: MappingFile.EntityOverride, _ entity: CompiledEntity,
                                      _ sourceEntity: CompiledEntity?, at index: Int) {
        if override.policy != nil {
            diagnostics.append(Diagnostic(.error, "entity '\(entity.name)': filter: a policy chooses its own objects",
                                          at: override.filterLocation ?? override.location,
                                          hint: "leave the filter out, or skip the objects in the policy"))
        } else if let sourceEntity {
            do {
                _ = try TypeChecker(version: source, entity: sourceEntity.name, rowVariables: ["source"]).predicate(filter)
                mapping.entityMappings[index].filter = filter
                if mapping.entityMappings[index].kind == .copy { mapping.entityMappings[index].kind = .transform }
            } catch {
                let at = override.filterPositions?.location(ofColumn: error.column) ?? override.location
                diagnostics.append(Diagnostic(.error, "entity '\(entity.name)': filter: \(error.detail)", at: at,
                                              hint: "the filter is a predicate over \(sourceEntity.name) of version \(from) (Docs/Predicates.md)"))
            }
        } else {
            diagnostics.append(Diagnostic(.error, "entity '\(entity.name)': filter: '\(entity.name)' has no source entity in version \(from)",
                                          at: override.filterLocation ?? override.location))
        }
    }

    /// The source properties nothing reads any more are dropped data; those an
    /// override, an expression or the filter reads are not.
    private mutating func settleDroppedProperties(at index: Int, _ sourceEntity: CompiledEntity?) {
        var used = Set(mapping.entityMappings[index].properties.compactMap { MappingResolver.mappingSourceName($0.source) })
        if let sourceEntity {
            // Source properties an expression or the filter reads are not dropped data.
            for property in mapping.entityMappings[index].properties {
                if case .expression(let text, _) = property.source { used.formUnion(MappingResolver.reads(text, of: sourceEntity)) }
            }
            if let filter = mapping.entityMappings[index].filter { used.formUnion(MappingResolver.reads(filter, of: sourceEntity)) }
        }
        if mapping.entityMappings[index].kind != .custom, let sourceEntity {
            // Every value is now copied or given: a source property none reads is dropped
            // (also one an override stopped reading).
            mapping.entityMappings[index].droppedProperties = Renames.storedProperties(of: sourceEntity).map(\.name).filter { !used.contains($0) }.sorted()
        } else {
            // Source properties now used by an override are no longer dropped.
            mapping.entityMappings[index].droppedProperties.removeAll { used.contains($0) }
        }
    }
}
