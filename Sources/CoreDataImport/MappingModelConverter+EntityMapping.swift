import DataModel
import Foundation
import Mapping

/// One entity mapping of an Xcode mapping model → its entry in a mapping file.
extension MappingModelConverter {
    /// One entity mapping being converted: where it is, what it maps, and the entry
    /// written so far (the lines under its key, the comments above them, its property
    /// lines, and what it overrides, for `carried`).
    struct EntityEntry {
        /// The mapping model's file name.
        let label: String
        /// The entity mapping's name.
        let name: String
        /// `label: entity mapping name (line n)`, as every note about it starts.
        let at: String
        let entity: CompiledEntity
        let source: CompiledVersion
        let destination: CompiledVersion
        var sourceEntity: CompiledEntity?
        var lines: [String] = []
        var comments: [String] = []
        var overrides: [String] = []
        var properties: [String] = []
        /// Destination property → the source property inference pairs it with, the source
        /// entity given: by renaming identifier, not by name (BookPlayer 3's `Playlist.books`,
        /// renamed from `relationBookV3`, which version 2 does not have, pairs with none, so
        /// inference leaves it empty where the mapping model's `$source.books` copies it). A
        /// copy inference would not make is written out; one it makes is left to it.
        var inferred: [String: String] = [:]
        /// Attributes the policy sets (`p: policy`), written after the others in the entity's order.
        var policySet: Set<String> = []

        var destinationName: String { entity.name }
    }

    /// The lines of one entity mapping's entry (none for a remove mapping or one the
    /// file cannot hold); what is not carried is noted in `mapping`.
    func convert(
        _ entityMapping: XcodeMappingModel.EntityMapping, in mappingModel: XcodeMappingModel,
        source: CompiledVersion, destination: CompiledVersion, mappingNames: Set<String>,
        mapping: inout ImportedMapping, skeletons: inout [String: PolicySkeleton]
    ) -> [String] {
        let label = (mappingModel.path as NSString).lastPathComponent
        let name = entityMapping.effectiveName
        let at = "\(label): entity mapping \(name)\(entityMapping.lineText)"
        for key in entityMapping.unknown {
            mapping.notCarried.append("\(at): attribute '\(key)' not read (unknown to this importer)")
        }
        guard let destinationName = entityMapping.destination else {
            // A remove mapping: the source objects are not migrated, as inference does for an entity that is gone.
            if let sourceName = entityMapping.source, destination.entity(named: sourceName) != nil {
                mapping.notCarried.append(
                    """
                    \(at): removes \(sourceName)'s objects although version \(destination.version) still has \
                    \(sourceName)
                    """
                )
            }
            return []
        }
        guard let entity = destination.entity(named: destinationName) else {
            mapping.notCarried.append(
                """
                \(at): \(destinationName) is not an entity of version \(destination.version); the mapping is not written
                """
            )
            return []
        }
        var entry = EntityEntry(
            label: label, name: name, at: at, entity: entity, source: source, destination: destination)
        // A custom source fetch of another entity (`fetchRequestForSourceEntityNamed:"Book"`
        // on AuthorToAuthor): Core Data makes the destination objects from the fetched
        // ones, and every `$source` of the mapping is one of them.
        var entityMapping = entityMapping
        if !entityMapping.autogeneratesSource, let data = entityMapping.sourceExpression,
            let fetched = (try? ArchivedExpression.decode(data)).flatMap(Self.defaultFetchEntity),
            fetched != entityMapping.source
        {
            entry.comments.append(
                "a custom source fetch of \(fetched) objects: Core Data makes \(destinationName) objects from them")
            entityMapping.source = fetched
        }
        guard sourceObjects(of: entityMapping, &entry, mapping: &mapping) else { return [] }
        if let sourceEntity = entry.sourceEntity {
            var settled = Renames.Settled()
            settled.entities[destinationName] = sourceEntity.name
            entry.inferred =
                Renames.hop(from: source, to: destination, settled: settled).properties[destinationName] ?? [:]
        }
        let policy = entityMapping.policyClass.map {
            policyClass($0, of: entityMapping, &entry, mapping: &mapping, skeletons: &skeletons)
        }
        filter(of: entityMapping, &entry, mapping: &mapping)
        for info in userInfo(entityMapping.userInfo) where policy == nil {
            entry.comments.append("user info (read by no policy): \(info)")
        }
        let setBased = convertProperties(
            of: entityMapping, in: mappingModel, policy: policy, mappingNames: mappingNames, &entry,
            mapping: &mapping, skeletons: &skeletons)
        unmappedAttributes(of: entityMapping, entity, label: label, policySets: policy != nil && !setBased, &entry)
        if entry.sourceEntity != nil {
            leaveUnsetRelationships(
                of: entityMapping, in: mappingModel, policySets: policy != nil && !setBased, &entry, mapping: &mapping)
        }
        return finish(entityMapping, entry, mapping: &mapping)
    }

    /// Destination attributes the entity mapping leaves out: Core Data leaves them at
    /// their default, or with a policy that sets values, to the policy. Then what the
    /// policy sets, in the entity's order, whether Xcode left an empty attribute mapping
    /// or none (an export writes one where the source lacks the attribute, none where it
    /// has one), so that the order is the same either way.
    func unmappedAttributes(
        of entityMapping: XcodeMappingModel.EntityMapping, _ entity: CompiledEntity, label: String, policySets: Bool,
        _ entry: inout EntityEntry
    ) {
        let mapped = Set(entityMapping.attributes.map(\.name) + entityMapping.relationships.map(\.name))
        if entry.sourceEntity != nil {
            for attribute in entity.attributes
            where !attribute.declaration.isTransient && !mapped.contains(attribute.name) {
                // One the source lacks (none that inference would copy) is the policy's to set,
                // as with an empty attribute mapping.
                guard entry.inferred[attribute.name] != nil || policySets else { continue }
                if policySets {
                    entry.policySet.insert(attribute.name)
                } else {
                    let key = YAMLEmitter.key(attribute.name)
                    let value = attribute.declaration.defaultValue.map(Self.yamlValue) ?? "null"
                    entry.properties.append("      \(key): { default: \(value) }   # no attribute mapping in \(label)")
                }
            }
        }
        for attribute in entity.attributes where entry.policySet.contains(attribute.name) {
            entry.properties.append(Self.policyLine(attribute.name))
        }
    }

    /// `name: policy`, for a property of an entity mapping with a policy that nothing in
    /// the mapping model sets.
    static func policyLine(_ name: String) -> String {
        """
              \(YAMLEmitter.key(name)): policy   # nothing in the mapping model sets it: the policy's code or the \
        default
        """
    }

    /// The entry's source entity (`source:` when it differs) and the comments on the
    /// mapping's kind and name; false when the source is not an entity of the version.
    private func sourceObjects(
        of entityMapping: XcodeMappingModel.EntityMapping, _ entry: inout EntityEntry,
        mapping: inout ImportedMapping
    ) -> Bool {
        let destinationName = entry.destinationName
        if let sourceName = entityMapping.source {
            entry.sourceEntity = entry.source.entity(named: sourceName)
            if entry.sourceEntity == nil {
                mapping.notCarried.append(
                    """
                    \(entry.at): \(sourceName) is not an entity of version \(entry.source.version); the mapping is not \
                    written
                    """
                )
                return false
            }
            // Also when the names agree but the destination's renaming identifier names
            // another entity (olvid-ios 45's PersistedGroupDiscussion, renamed from
            // "contactGroup"): inference would not pair the two, the mapping model does.
            if sourceName != destinationName || (entry.entity.renamedFrom.map { $0 != sourceName } ?? false) {
                entry.lines.append("    source: \(YAMLEmitter.key(sourceName))")
                entry.overrides.append("objects from \(sourceName)")
            }
        } else {
            // Into an entity the source does not have, an Add mapping says nothing inference
            // does not (no objects either way): not written, as an export does not need it.
            if entry.source.entity(named: destinationName) != nil {
                entry.comments.append("an Add mapping: Core Data creates no \(destinationName) objects from the source")
            }
            // Inference would carry the objects of a source entity of that name: none go.
            if entry.source.entity(named: destinationName) != nil {
                entry.lines.append("    filter: \"FALSEPREDICATE\"")
                entry.overrides.append("no objects (an Add mapping)")
            }
        }
        if let type = entityMapping.mappingType, type != "Undefined" { entry.comments.append("mapping type \(type)") }
        // A name of its own: a policy asks the manager for objects by it (a further mapping
        // into the same entity is written under its name instead, MappingModelConverter.convert).
        if let name = entityMapping.name, name != "\(entityMapping.source ?? "")To\(destinationName)" {
            if entityMapping.source != nil, MappingFile.isMappingName(name) {
                entry.lines.append("    mappingName: \(YAMLEmitter.quote(name))")
            } else {
                entry.comments.append("Core Data names this entity mapping \(name)")
            }
        }
        return true
    }

    /// `policy:` for the entity mapping's policy class, with a skeleton to port the
    /// class into; returns the policy's name.
    private func policyClass(
        _ className: String, of entityMapping: XcodeMappingModel.EntityMapping, _ entry: inout EntityEntry,
        mapping: inout ImportedMapping, skeletons: inout [String: PolicySkeleton]
    ) -> String {
        let policyName = Self.typeName(className.split(separator: ".").last.map(String.init) ?? className)
        entry.lines.append("    policy: \(YAMLEmitter.key(policyName))")
        entry.overrides.append("policy \(policyName) (Core Data class \(className))")
        mapping.policies.append(policyName)
        var skeleton =
            skeletons[policyName]
            ?? PolicySkeleton(name: policyName, coreDataClasses: [], entityMappings: [], selectors: [], userInfo: [])
        if !skeleton.coreDataClasses.contains(className) { skeleton.coreDataClasses.append(className) }
        skeleton.entityMappings.append("\(entry.label): \(entry.name)")
        skeleton.userInfo += userInfo(entityMapping.userInfo).map { "\(entry.name): \($0)" }
        skeletons[policyName] = skeleton
        mapping.notCarried.append(
            "\(entry.at): policy class \(className) is code (Objective-C or Swift); "
                + "written as policy \(policyName) with a skeleton to port it into")
        return policyName
    }

    /// A Swift type name for a policy class's own name: other characters become `_`, a
    /// leading digit or a keyword gets a `_` (it also names the skeleton's file, so no
    /// path can hide in it: a hostile `/../x` is `____x`).
    static func typeName(_ name: String) -> String {
        guard !MappingFile.isTypeName(name) else { return name }
        let allowed = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_".unicodeScalars
        var result = String(String.UnicodeScalarView(name.unicodeScalars.map { allowed.contains($0) ? $0 : "_" }))
        if !MappingFile.isTypeName(result) { result = "_" + result }
        return result
    }

    /// Which source objects: the default fetch narrowed by a predicate (`filter:`), or
    /// a custom fetch (`sourceExpression:`, which the loader refuses).
    private func filter(
        of entityMapping: XcodeMappingModel.EntityMapping, _ entry: inout EntityEntry, mapping: inout ImportedMapping
    ) {
        if let predicate = entityMapping.filterPredicate, predicate != "TRUEPREDICATE" {
            entry.lines.append("    filter: \(YAMLEmitter.quote(predicate))")
            entry.overrides.append("filter \(predicate)")
        }
        guard !entityMapping.autogeneratesSource, let data = entityMapping.sourceExpression else { return }
        mapping.decodedExpressions += 1
        switch (try? ArchivedExpression.decode(data)).map(Self.defaultFetchPredicate) {
        case .some(.some(let predicate)):
            if predicate != "TRUEPREDICATE", entityMapping.filterPredicate == nil {
                entry.lines.append("    filter: \(YAMLEmitter.quote(predicate))")
                entry.overrides.append("filter \(predicate)")
            }
        default:
            let text = (try? ArchivedExpression.decode(data))?.format ?? "<an archive this importer cannot read>"
            entry.lines.append("    sourceExpression: \(YAMLEmitter.quote(text))")
            mapping.notCarried.append(
                "\(entry.at): a custom source fetch (\(text)); written as sourceExpression:, which the loader refuses")
        }
    }

    /// The attribute and relationship mappings' lines; returns whether the policy
    /// runs set-based (some value is `FUNCTION($entityPolicy, …)`).
    private func convertProperties(
        of entityMapping: XcodeMappingModel.EntityMapping, in mappingModel: XcodeMappingModel, policy: String?,
        mappingNames: Set<String>, _ entry: inout EntityEntry,
        mapping: inout ImportedMapping, skeletons: inout [String: PolicySkeleton]
    ) -> Bool {
        // Property mappings: an Add mapping makes no objects from the source, so it has none to fill.
        let attributeMappings = entry.sourceEntity == nil ? [] : entityMapping.attributes
        let relationshipMappings = entry.sourceEntity == nil ? [] : entityMapping.relationships
        // FUNCTION($entityPolicy, …) values: the policy's functions run inside the set-based copy.
        let setBased =
            policy != nil
            && attributeMappings.contains { attributeMapping in
                attributeMapping.valueExpression.flatMap { try? ArchivedExpression.decode($0) }.map(Self.isPolicyCall)
                    ?? false
            }
        let context = ValueContext(
            source: entry.source, sourceEntity: entry.sourceEntity, policy: policy, setBased: setBased,
            inferred: entry.inferred)
        for attributeMapping in attributeMappings {
            convertAttribute(attributeMapping, context, &entry, mapping: &mapping, skeletons: &skeletons)
        }
        for relationshipMapping in relationshipMappings {
            convertRelationship(
                relationshipMapping, in: mappingModel, mappingNames: mappingNames, &entry, mapping: &mapping)
        }
        return setBased
    }

    private func convertAttribute(
        _ attributeMapping: XcodeMappingModel.PropertyMapping, _ context: ValueContext, _ entry: inout EntityEntry,
        mapping: inout ImportedMapping, skeletons: inout [String: PolicySkeleton]
    ) {
        let destinationName = entry.destinationName
        let place = "\(entry.at): attribute mapping \(destinationName).\(attributeMapping.name)"
        guard let attribute = entry.entity.attribute(named: attributeMapping.name) else {
            mapping.notCarried.append(
                "\(place): \(attributeMapping.name) is not an attribute of \(destinationName) in version "
                    + "\(entry.destination.version); left out")
            return
        }
        for info in userInfo(attributeMapping.userInfo) {
            entry.properties.append("      # \(YAMLEmitter.key(attributeMapping.name)) user info: \(info)")
        }
        guard let data = attributeMapping.valueExpression else {
            // `$source.<name>`: Core Data sets the source's value, nil included, and its
            // validation refuses a nil in a required attribute; inference would give the
            // nil the default, so the copy is written out (a mapping file's value is set
            // as computed).
            let a = attribute.declaration
            guard let old = context.sourceEntity?.attribute(named: attribute.name)?.declaration else {
                // A new attribute that nothing in the mapping model sets: on an entity mapping
                // with a policy, the policy's code sets it or it keeps its default (BookPlayer
                // 10 → 11's UUIDMigrationPolicy sets the new, required `uuid`); else it keeps
                // its default, which is written where inference would copy another source
                // attribute into it (its renaming identifier's).
                if context.policy != nil, !context.setBased {
                    entry.policySet.insert(attribute.name)
                } else if entry.inferred[attribute.name] != nil {
                    let value = a.defaultValue.map(Self.yamlValue) ?? "null"
                    entry.properties.append(
                        """
                              \(YAMLEmitter.key(attribute.name)): { default: \(value) }   # the source has no \
                        \(attribute.name): Core Data sets none
                        """
                    )
                }
                return
            }
            if entry.inferred[attribute.name] != attribute.name {
                entry.properties.append(
                    """
                          \(YAMLEmitter.key(attribute.name)): $source.\(attribute.name)   # inference would pair it by \
                    its renaming identifier
                    """
                )
            } else if old.isOptional, !a.isOptional, a.defaultValue != nil {
                entry.properties.append(
                    """
                          \(YAMLEmitter.key(attribute.name)): $source.\(attribute.name)   # as Core Data sets it: a \
                    nil is refused, not defaulted
                    """
                )
            }
            return
        }
        mapping.decodedExpressions += 1
        let expression: ArchivedExpression
        do { expression = try ArchivedExpression.decode(data) } catch {
            entry.properties.append(
                "      \(YAMLEmitter.key(attribute.name)): { value: \(YAMLEmitter.quote("<unreadable archive>")) }")
            mapping.notCarried.append("\(place): the value expression archive cannot be read (\(error.message))")
            return
        }
        if let line = overrideLine(
            for: expression, attribute: attribute.declaration, context, where: place, mapping: &mapping,
            skeletons: &skeletons, mappingName: "\(entry.label): \(entry.name).\(attribute.name)")
        {
            entry.properties.append("      \(YAMLEmitter.key(attribute.name)): \(line)")
        }
    }

    private func convertRelationship(
        _ relationshipMapping: XcodeMappingModel.PropertyMapping, in mappingModel: XcodeMappingModel,
        mappingNames: Set<String>, _ entry: inout EntityEntry, mapping: inout ImportedMapping
    ) {
        let destinationName = entry.destinationName
        let place = "\(entry.at): relationship mapping \(destinationName).\(relationshipMapping.name)"
        guard let relationship = entry.entity.relationship(named: relationshipMapping.name) else {
            mapping.notCarried.append(
                "\(place): \(relationshipMapping.name) is not a relationship of \(destinationName) in version "
                    + "\(entry.destination.version); left out")
            return
        }
        for info in userInfo(relationshipMapping.userInfo) {
            entry.properties.append("      # \(YAMLEmitter.key(relationshipMapping.name)) user info: \(info)")
        }
        let expression: ArchivedExpression
        if let data = relationshipMapping.valueExpression {
            mapping.decodedExpressions += 1
            guard let decoded = try? ArchivedExpression.decode(data) else {
                mapping.notCarried.append("\(place): the value expression archive cannot be read")
                entry.properties.append(
                    """
                          \(YAMLEmitter.key(relationship.name)): { value: \(YAMLEmitter.quote("<unreadable archive>")) }
                    """
                )
                return
            }
            expression = decoded
        } else if relationshipMapping.autogenerates {
            guard let generated = autogenerated(relationshipMapping, relationship, in: mappingModel, &entry) else {
                if let hint = entry.comments.last, hint.hasPrefix("\(relationship.name): no source relationship") {
                    mapping.carried.append("\(place): \(hint)")
                }
                return
            }
            expression = generated
        } else {
            // No expression: nothing sets it (``leaveUnsetRelationships``).
            return
        }
        if let copied = Self.relationshipCopy(
            expression, relationship: relationship.declaration, sourceEntity: entry.sourceEntity,
            source: entry.source, in: mappingModel, mappingNames: mappingNames)
        {
            if copied != entry.inferred[relationship.name] {
                entry.properties.append("      \(YAMLEmitter.key(relationship.name)): $source.\(copied)")
            }
            return
        }
        entry.properties.append(
            "      \(YAMLEmitter.key(relationship.name)): { value: \(YAMLEmitter.quote(expression.format)) }")
        // Carried when plan accepts the shape (it says which it refuses, naming them):
        // not listed as refused, which it may well not be.
        mapping.carried.append(
            "\(place): \(expression.format): a relationship filled through a key path, written as value:; "
                + "plan runs it set-based for a to-one through to-ones, or a to-many whose to-one inverse "
                + "takes the reverse path, and refuses other shapes")
    }

    /// The expression Xcode means by an autogenerated relationship mapping, or nil when
    /// there is none to write (no source relationship, or a plain copy, written here).
    private func autogenerated(
        _ relationshipMapping: XcodeMappingModel.PropertyMapping, _ relationship: CompiledRelationship,
        in mappingModel: XcodeMappingModel, _ entry: inout EntityEntry
    ) -> ArchivedExpression? {
        // With no source relationship at the key path's start, Core Data writes no expression: the
        // relationship starts empty (a policy may fill it), as inference leaves a new relationship.
        let start =
            (relationshipMapping.sourceKeyPath ?? relationshipMapping.name).replacingOccurrences(
                of: "$source.", with: ""
            )
            .split(separator: ".").first.map(String.init) ?? ""
        guard entry.sourceEntity?.relationship(named: start) != nil else {
            // A hint where nothing sets its inverse either (Core Data sets one side when the
            // other is set: BookPlayer 7 → 8's BookToBook sets `bookmarks`, so `Bookmark.item`).
            let inverseSet =
                if let inverse = relationship.declaration.inverse, let inverseEntity = relationship.inverseEntity {
                    Self.sets(
                        inverse, of: Set(entry.destination.subtree(of: inverseEntity)), in: mappingModel,
                        source: entry.source)
                } else { false }
            if !inverseSet, let moved = Self.movedRelationship(relationship, entry) {
                let key = YAMLEmitter.key(relationship.name)
                entry.comments.append(
                    "\(relationship.name): no source relationship of that name, so Core Data leaves it empty; "
                        + "did you mean `\(key): $source.\(moved)`?")
            }
            return nil
        }
        // Xcode writes
        // FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", M, $source.<path>).
        let path = (relationshipMapping.sourceKeyPath ?? relationshipMapping.name)
        let components = (path.hasPrefix("$source.") ? String(path.dropFirst(8)) : path).split(separator: ".").map(
            String.init)
        if components.count == 1, relationshipMapping.sourceMappingName == nil {
            // Xcode fills it through whichever mapping carries the related objects over (subentities'
            // mappings included): the objects keep their keys, so this is the relationship copied.
            if components[0] != entry.inferred[relationship.name] {
                entry.properties.append("      \(YAMLEmitter.key(relationship.name)): $source.\(components[0])")
            }
            return nil
        }
        let through =
            relationshipMapping.sourceMappingName
            ?? defaultMappingName(for: components, from: entry.sourceEntity, source: entry.source, in: mappingModel)
        return .function(
            operand: .variable("manager"), selector: "destinationInstancesForEntityMappingNamed:sourceInstances:",
            arguments: [.constant(.string(through ?? "")), .keyPath(base: .variable("source"), components: components)])
    }

    /// The one source relationship a relationship with no source of its name most
    /// likely continues (BookPlayer 7 → 8: `Bookmark.book`, to `Book`, became
    /// `Bookmark.item`, to its parent `LibraryItem`): of the same cardinality, gone from
    /// the destination entity, and pointing at an entity that is, in the destination
    /// version, the relationship's destination or one of its subentities. Nil unless
    /// exactly one fits.
    static func movedRelationship(_ relationship: CompiledRelationship, _ entry: EntityEntry) -> String? {
        guard let sourceEntity = entry.sourceEntity else { return nil }
        let reached = Set(entry.destination.subtree(of: relationship.declaration.destination))
        let kept = Set(entry.entity.relationships.flatMap { [$0.name, $0.declaration.renamedFrom ?? $0.name] })
        let candidates = sourceEntity.relationships.filter { old in
            !old.declaration.isTransient && !kept.contains(old.name)
                && old.declaration.isToMany == relationship.declaration.isToMany
                && reached.contains(old.declaration.destination)
        }
        return candidates.count == 1 ? candidates[0].name : nil
    }

    /// The entry's lines: under the destination entity's key, or one comment when
    /// nothing differs from inference.
    private func finish(
        _ entityMapping: XcodeMappingModel.EntityMapping, _ entry: EntityEntry, mapping: inout ImportedMapping
    ) -> [String] {
        var entry = entry
        if !entry.properties.isEmpty { entry.lines += ["    properties:"] + entry.properties }
        let written = entry.properties.filter { !$0.hasPrefix("      #") }.count
        if written > 0 { entry.overrides.append("\(written) propert\(written == 1 ? "y" : "ies")") }
        let destinationName = entry.destinationName
        if entry.lines.isEmpty, entityMapping.source == nil, entry.comments.isEmpty {
            return []
        }
        if entry.lines.isEmpty {
            // Nothing differs from inference: name the mapping in a comment, so the file lists every one.
            let from = entityMapping.source.map { "\($0) → " } ?? ""
            return [
                "  # \(entry.name): \(from)\(destinationName), every property as inferred"
                    + (entry.comments.isEmpty ? "" : "; " + entry.comments.joined(separator: "; "))
            ]
        }
        mapping.carried.append("\(destinationName): " + entry.overrides.joined(separator: ", "))
        return ["  \(YAMLEmitter.key(destinationName)):"] + entry.comments.map { "    # \($0)" } + entry.lines
    }
}
