import DataModel
import Foundation
import Predicates

/// A mapping file merged over inference, one entity override at a time, in the
/// file's order: the mapping so far, the refusals no override has answered yet, and
/// every problem the file has (all of them collected, none thrown at the first).
struct MappingMerge {
    let source: CompiledVersion
    let destination: CompiledVersion
    let file: MappingFile
    let knownPolicies: Set<String>?
    let policyFunctions: [String: Set<String>]?
    var mapping: MappingModel
    var refusals: [Refusal]
    var diagnostics: [Diagnostic] = []
    /// The destination entities whose overrides have problems.
    var troubled: Set<String> = []
    /// The versions inference went through, and what the file settles: a further
    /// mapping into an entity is inferred as the entity's own is.
    var chain: [CompiledVersion] = []
    var settled = Renames.Settled()

    var from: Int { source.version }
    var to: Int { destination.version }

    /// One destination entity's override: its source entity, its policy, each
    /// property, its filter, then the source properties it leaves dropped.
    mutating func merge(_ override: MappingFile.EntityOverride) {
        let problems = diagnostics.count
        defer { if diagnostics.count > problems { troubled.insert(override.name) } }
        if override.destination != nil {
            mergeFurther(override)
            return
        }
        guard let entity = destination.entity(named: override.name) else {
            diagnostics.append(
                Diagnostic(
                    .error, "entity '\(override.name)': not an entity of \(destination.model) version \(to)",
                    at: override.location,
                    hint: Suggestions.hint(for: override.name, in: destination.entities.map(\.name))))
            return
        }
        guard let index = pairSource(of: override, entity) else { return }
        if let name = override.mappingName { mapping.entityMappings[index].name = name }
        if let policy = override.policy { applyPolicy(policy, of: override, entity, at: index) }
        applyOverrides(override, entity, at: index)
    }

    /// The override's properties and filter over the entity mapping at `index`, then
    /// the source properties it leaves dropped.
    mutating func applyOverrides(_ override: MappingFile.EntityOverride, _ entity: CompiledEntity, at index: Int) {
        let sourceEntity = mapping.entityMappings[index].source.flatMap { source.entity(named: $0) }
        for (property, value) in override.properties.sorted(by: { $0.key < $1.key }) {
            applyProperty(property, value, of: override, entity, sourceEntity, at: index)
        }
        if let filter = override.filter { applyFilter(filter, of: override, entity, sourceEntity, at: index) }
        updateDropped(at: index, sourceEntity)
    }

    /// The index of `entity`'s mapping, re-paired by name with the source entity the
    /// override names; nil when that source is not an entity of the source version.
    private mutating func pairSource(of override: MappingFile.EntityOverride, _ entity: CompiledEntity) -> Int? {
        let index = mapping.entityMappings.firstIndex { $0.destination == entity.name }!
        guard let sourceName = override.source else { return index }
        guard let sourceEntity = source.entity(named: sourceName) else {
            diagnostics.append(
                Diagnostic(
                    .error, "entity '\(override.name)': source '\(sourceName)' is not an entity of version \(from)",
                    at: override.location, hint: Suggestions.hint(for: sourceName, in: source.entities.map(\.name))))
            return nil
        }
        guard mapping.entityMappings[index].source != sourceName else { return index }
        let previous = mapping.entityMappings[index].source
        // Re-pair by name with the chosen source entity.
        mapping.entityMappings[index] = MappingResolver.pairByName(entity, with: sourceEntity)
        mapping.entityMappings.removeAll { $0.kind == .remove && $0.source == sourceName }
        // The source entity inference had paired is now mapped by nothing: its rows are dropped.
        if let previous, !mapping.entityMappings.contains(where: { $0.source == previous }),
            let old = source.entity(named: previous)
        {
            mapping.entityMappings.append(
                EntityMapping(
                    name: "\(previous)ToNothing", kind: .remove, source: previous, destination: nil,
                    droppedProperties: Renames.storedProperties(of: old).map(\.name).sorted()))
        }
        return mapping.entityMappings.firstIndex { $0.destination == entity.name }!
    }

    private mutating func applyPolicy(
        _ policy: String, of override: MappingFile.EntityOverride, _ entity: CompiledEntity, at index: Int
    ) {
        if let knownPolicies, !knownPolicies.contains(policy) {
            refusals.append(
                Refusal(
                    kind: .missingPolicy, entity: entity.name, property: nil,
                    change: "\(file.path) names policy '\(policy)', which is not compiled into this migrate",
                    remedy: (knownPolicies.isEmpty
                        ? "add the policy to your deploy package's policy list"
                        : "compiled-in policies: \(knownPolicies.sorted().joined(separator: ", "))"
                            + (Suggestions.hint(for: policy, in: knownPolicies).map { "; \($0)" } ?? ""))
                        + "; a policy of your own needs a migrate built with it"
                        + " (Docs/Migrations.md: \"Your own policies and your own migrate\")"))
        }
        // Only FUNCTION($entityPolicy, …) values and no property the policy's
        // stages set: the copy calls the policy's functions, set-based.
        mapping.entityMappings[index].kind = override.isSetBased ? .transform : .custom
        mapping.entityMappings[index].policy = policy
        if mapping.entityMappings[index].source == nil {
            diagnostics.append(
                Diagnostic(
                    .error,
                    """
                    entity '\(entity.name)': a policy needs source rows; \
                    '\(entity.name)' has no source entity in version \(from)
                    """,
                    at: override.location, hint: "add `source: <Entity of version \(from)>`"))
        }
        // A policy answers what inference could not map, not which entity an ambiguous rename continues.
        if !override.isSetBased {
            refusals.removeAll { $0.entity == entity.name && !$0.kind.isPolicyCode && $0.kind != .ambiguousRename }
        }
    }

    /// One property override: where its value comes from, replacing the inferred one.
    private mutating func applyProperty(
        _ property: String, _ value: MappingFile.Override, of override: MappingFile.EntityOverride,
        _ entity: CompiledEntity, _ sourceEntity: CompiledEntity?, at index: Int
    ) {
        let target = PropertyTarget(override: override, entity: entity, property: property, sourceEntity: sourceEntity)
        let relationship = entity.relationship(named: property)
        guard target.attribute != nil || relationship != nil else {
            diagnostics.append(
                Diagnostic(
                    .error, "\(target.subject): not a property of \(entity.name) in version \(to)",
                    at: target.location,
                    hint: Suggestions.hint(
                        for: property, in: entity.attributes.map(\.name) + entity.relationships.map(\.name))))
            return
        }
        let newSource: PropertySource?
        switch value {
        case .policy:
            if override.policy == nil {
                diagnostics.append(
                    Diagnostic(
                        .error,
                        "property '\(entity.name).\(property)': set by a policy, but the entity names no policy",
                        at: target.location, hint: "add `policy: <Name>` to entity '\(entity.name)'"))
            }
            newSource = .policy
        case .copy(let from): newSource = copySource(from, target)
        case .expression(let text, let textLocation, let nilOnFailure):
            if let relationship, target.attribute == nil {
                newSource = relationshipSource(text, textLocation, relationship, target)
            } else {
                newSource = expressionSource(text, textLocation, nilOnFailure: nilOnFailure, target)
            }
        case .value(let raw): newSource = valueSource(raw, target)
        }
        guard let newSource else { return }
        if let p = mapping.entityMappings[index].properties.firstIndex(where: { $0.name == property }) {
            mapping.entityMappings[index].properties[p].source = newSource
        } else {
            mapping.entityMappings[index].properties.append(
                PropertyMapping(name: property, source: newSource, isRelationship: relationship != nil))
            mapping.entityMappings[index].properties.sort { $0.name < $1.name }
        }
        if mapping.entityMappings[index].kind == .copy { mapping.entityMappings[index].kind = .transform }
        // A further mapping's refusals are filed under its own name (`mergeFurther`).
        let subject = override.destination == nil ? entity.name : override.name
        refusals.removeAll { $0.entity == subject && $0.property == property }
    }

    /// The destination property an override sets, and where.
    struct PropertyTarget {
        let override: MappingFile.EntityOverride
        let entity: CompiledEntity
        let property: String
        let sourceEntity: CompiledEntity?
        var location: SourceLocation? { override.propertyLocations[property] }
        var attribute: CompiledAttribute? { entity.attribute(named: property) }
        /// `property 'Entity.name'`, as every message about it starts.
        /// (A further mapping's properties are named by the mapping: `'LockedToOpen.x'`.)
        var subject: String { "property '\(override.destination == nil ? entity.name : override.name).\(property)'" }
    }

    /// `$source.name`: a copy, or a widening conversion; nil (with the problem noted)
    /// when the source has no such property or its type does not convert.
    private mutating func copySource(_ from: String, _ target: PropertyTarget) -> PropertySource? {
        guard let sourceEntity = target.sourceEntity,
            sourceEntity.attribute(named: from) != nil || sourceEntity.relationship(named: from) != nil
        else {
            diagnostics.append(
                Diagnostic(
                    .error,
                    """
                    \(target.subject): $source.\(from) is not a property of \
                    \(target.sourceEntity?.name ?? "the source") in version \(source.version)
                    """, at: target.location,
                    hint: target.sourceEntity.flatMap {
                        Suggestions.hint(for: from, in: $0.attributes.map(\.name) + $0.relationships.map(\.name))
                    }))
            return nil
        }
        guard let attribute = target.attribute, let old = sourceEntity.attribute(named: from)?.declaration,
            old.type != attribute.declaration.type
        else {
            return .copy(from: from)
        }
        if MappingInference.isWidening(old.type, to: attribute.declaration.type) {
            // A widened copy into a required attribute with a default is where
            // inference fills nils with the default; a mapping file's `$source.x` is
            // an NSExpression whose nil is set as it is (validation then refuses it),
            // so it runs as the expression it is.
            if old.isOptional, !attribute.declaration.isOptional, attribute.declaration.defaultValue != nil {
                return .expression("$source.\(from)", nilOnFailure: false)
            }
            return .convert(from: from, conversion: .widen)
        }
        diagnostics.append(
            Diagnostic(
                .error,
                """
                \(target.subject): $source.\(from) is \(old.type.rawValue), \
                not convertible to \(attribute.declaration.type.rawValue)
                """, at: target.location, hint: "set it in a policy instead (`\(target.property): policy`)"))
        return nil
    }

    /// A relationship's `value:`: a source relationship copied, or a key path to follow.
    private mutating func relationshipSource(
        _ text: String, _ textLocation: ScalarPositions, _ relationship: CompiledRelationship,
        _ target: PropertyTarget
    ) -> PropertySource? {
        let override = target.override
        guard let sourceEntity = target.sourceEntity, override.policy == nil else {
            let reason =
                override.policy != nil
                ? "the entity's objects come from policy \(override.policy!)"
                : "'\(target.entity.name)' has no source entity in version \(from)"
            diagnostics.append(
                Diagnostic(
                    .error, "\(target.subject): value: \(reason)", at: target.location,
                    hint: "relationships are copied (`$source.<name>`) or set in a policy"))
            return nil
        }
        do {
            switch try MappingResolver.copiedRelationship(
                text, for: relationship, in: target.entity.name, sourceEntity: sourceEntity, source: source,
                destination: destination, mapping: mapping, file: file)
            {
            case .copy(let name): return .copy(from: name)
            case .path(let keys): return .expression(keys, nilOnFailure: false)
            }
        } catch {
            diagnostics.append(
                Diagnostic(
                    .error, "\(target.subject): value: \(error.detail)",
                    at: textLocation.location(ofColumn: error.column),
                    hint: "a relationship's value is checked against \(sourceEntity.name) of version \(from)"))
            return nil
        }
    }

    /// An attribute's `value:` expression, checked against the source entity.
    private mutating func expressionSource(
        _ text: String, _ textLocation: ScalarPositions, nilOnFailure: Bool,
        _ target: PropertyTarget
    ) -> PropertySource? {
        guard let attribute = target.attribute,
            let sourceEntity = expressionSourceEntity(text, nilOnFailure: nilOnFailure, target)
        else {
            return nil
        }
        do {
            let checker = TypeChecker(
                version: source, entity: sourceEntity.name, rowVariables: ["source"],
                entityPolicy: target.override.policy)
            let checked = try checker.value(text, for: attribute.declaration)
            if case .policyCall(let policy, let selector, _, _) = checked, let functions = policyFunctions?[policy],
                !functions.contains(selector)
            {
                // As a policy that is not compiled in: this migrate cannot run the hop (exit 4).
                let known = functions.isEmpty ? "none" : functions.sorted().joined(separator: ", ")
                refusals.append(
                    Refusal(
                        kind: .missingPolicyFunction, entity: target.entity.name, property: target.property,
                        change: """
                            \(textLocation.location(ofColumn: 1)): \(target.subject): \
                            policy '\(policy)' has no function '\(selector)' (declared: \(known))
                            """,
                        remedy: "add PolicyFunction(\"\(selector)\") { … } to \(policy).functions (Docs/Policies.md), "
                            + "or call one it has"))
                return nil
            }
        } catch {
            let at = textLocation.location(ofColumn: error.column)
            diagnostics.append(
                Diagnostic(
                    .error, "\(target.subject): value: \(error.detail)", at: at,
                    hint: """
                        the expression is checked against \(sourceEntity.name) of version \(from) \
                        (`$source.<key>`; Docs/Predicates.md)
                        """))
            return nil
        }
        return .expression(text, nilOnFailure: nilOnFailure)
    }

    /// The source entity an attribute's expression reads, when the attribute can take
    /// one: nil (with the problem noted) without a source entity, under an
    /// object-graph policy, for a transient attribute, or `onFailure: nil` on a
    /// required one.
    private mutating func expressionSourceEntity(_ text: String, nilOnFailure: Bool, _ target: PropertyTarget)
        -> CompiledEntity?
    {
        let entity = target.entity, property = target.property, location = target.location
        guard let attribute = target.attribute else { return nil }
        guard let sourceEntity = target.sourceEntity else {
            diagnostics.append(
                Diagnostic(
                    .error,
                    """
                    \(target.subject): '\(entity.name)' has no source entity in version \(from), \
                    so there is no $source for its value
                    """,
                    at: location, hint: "add `source: <Entity of version \(from)>`"))
            return nil
        }
        if let policy = target.override.policy, !target.override.isSetBased {
            diagnostics.append(
                Diagnostic(
                    .error,
                    "\(target.subject): value: the entity's objects come from policy \(policy)",
                    at: location,
                    hint: MappingFile.isPolicyCall(text)
                        ? "FUNCTION($entityPolicy, …) values run in the set-based copy: write every `…: policy` "
                            + "property of '\(entity.name)' as a FUNCTION value too, or compute this one in the policy"
                        : "compute it in the policy (`\(property): policy`)"))
            return nil
        }
        if attribute.declaration.isTransient {
            diagnostics.append(
                Diagnostic(
                    .error,
                    """
                    \(target.subject): value: a transient attribute is not stored, \
                    so no value is migrated into it
                    """,
                    at: location, hint: "leave it out of the mapping file"))
            return nil
        }
        if nilOnFailure && !attribute.declaration.isOptional {
            diagnostics.append(
                Diagnostic(
                    .error, "\(target.subject): onFailure: nil on a required attribute", at: location,
                    hint: """
                        make \(entity.name).\(property) optional, or leave onFailure out \
                        (a value that does not convert fails the migration, naming its row)
                        """))
            return nil
        }
        return sourceEntity
    }

    /// `{ default: … }`: a constant, parsed as the attribute's type and checked
    /// against every rule of the attribute, as a default in the model is.
    private mutating func valueSource(_ raw: AttributeValue?, _ target: PropertyTarget) -> PropertySource? {
        guard let attribute = target.attribute else {
            // `{ default: null }`: the relationship starts empty, as Core Data leaves a
            // relationship its entity mapping does not map.
            if raw == nil {
                // Empty is a value only where the relationship allows none.
                if let relationship = target.entity.relationship(named: target.property)?.declaration,
                    relationship.isToMany ? (relationship.minCount ?? 0) > 0 : !relationship.isOptional
                {
                    diagnostics.append(
                        Diagnostic(
                            .error,
                            "\(target.subject): left empty, but the relationship is required (it must hold an object)",
                            at: target.location))
                    return nil
                }
                return .defaultValue(nil)
            }
            diagnostics.append(
                Diagnostic(
                    .error, "\(target.subject): a relationship takes no default but null (it starts empty)",
                    at: target.location))
            return nil
        }
        var parsed: AttributeValue?
        if case .string(let text)? = raw {
            switch DefaultValueParser.parse(text, as: attribute.declaration.type) {
            case .success(let v): parsed = v
            case .failure(let failure):
                diagnostics.append(Diagnostic(.error, "\(target.subject): \(failure.message)", at: target.location))
                return nil
            }
        }
        // Every rule of the destination attribute (limits, optionality), as
        // for a default in the model: the value is written to every row.
        let problems = attribute.declaration.violations(of: parsed)
        for problem in problems {
            let detail = parsed == nil ? problem : "default \(problem)"
            diagnostics.append(
                Diagnostic(
                    .error, "\(target.subject): \(detail)", at: target.location,
                    hint: MappingResolver.limitsHint(attribute.declaration, parsed)))
        }
        return problems.isEmpty ? .defaultValue(parsed) : nil
    }

    private mutating func applyFilter(
        _ filter: String, of override: MappingFile.EntityOverride, _ entity: CompiledEntity,
        _ sourceEntity: CompiledEntity?, at index: Int
    ) {
        if override.policy != nil, !override.isSetBased {
            diagnostics.append(
                Diagnostic(
                    .error, "entity '\(entity.name)': filter: a policy chooses its own objects",
                    at: override.filterLocation ?? override.location,
                    hint: "leave the filter out, or skip the objects in the policy"))
        } else if let sourceEntity {
            do {
                var checker = TypeChecker(version: source, entity: sourceEntity.name, rowVariables: ["source"])
                checker.isMappingFilter = true
                _ = try checker.predicate(filter)
                mapping.entityMappings[index].filter = filter
                if mapping.entityMappings[index].kind == .copy { mapping.entityMappings[index].kind = .transform }
            } catch {
                let at = override.filterPositions?.location(ofColumn: error.column) ?? override.location
                diagnostics.append(
                    Diagnostic(
                        .error, "\(override.subject): filter: \(error.detail)", at: at,
                        hint:
                            """
                            the filter is a predicate over \(sourceEntity.name) of version \(from) (Docs/Predicates.md)
                            """
                    ))
            }
        } else {
            diagnostics.append(
                Diagnostic(
                    .error, "entity '\(entity.name)': filter: '\(entity.name)' has no source entity in version \(from)",
                    at: override.filterLocation ?? override.location))
        }
    }

    /// The source properties the entity's mapping leaves unread after the override.
    private mutating func updateDropped(at index: Int, _ sourceEntity: CompiledEntity?) {
        var used = Set(
            mapping.entityMappings[index].properties.compactMap { MappingResolver.mappingSourceName($0.source) })
        if let sourceEntity {
            // Source properties an expression or the filter reads are not dropped data.
            for property in mapping.entityMappings[index].properties {
                if case .expression(let text, _) = property.source {
                    used.formUnion(MappingResolver.reads(text, of: sourceEntity))
                }
            }
            if let filter = mapping.entityMappings[index].filter {
                used.formUnion(MappingResolver.reads(filter, of: sourceEntity))
            }
        }
        if mapping.entityMappings[index].kind != .custom, let sourceEntity {
            // Every value is now copied or given: a source property none reads is dropped
            // (also one an override stopped reading).
            mapping.entityMappings[index].droppedProperties = Renames.storedProperties(of: sourceEntity).map(\.name)
                .filter { !used.contains($0) }.sorted()
        } else {
            // Source properties now used by an override are no longer dropped.
            mapping.entityMappings[index].droppedProperties.removeAll { used.contains($0) }
        }
    }
}
