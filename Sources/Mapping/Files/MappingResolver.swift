import DataModel
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
    package static func resolve(_ model: CompiledModel, from: Int, to: Int, file: MappingFile?,
                               knownPolicies: Set<String>? = nil, policyFunctions: [String: Set<String>]? = nil) throws -> MappingModel {
        guard let source = model.version(from), let destination = model.version(to) else {
            throw InferenceFailure(model: model.name, sourceVersion: from, destinationVersion: to, refusals: [
                Refusal(kind: .typeChange, entity: model.name, property: nil,
                        change: "model \(model.name) has no version \(model.version(from) == nil ? from : to)",
                        remedy: "use versions 1 to \(model.current.version)")])
        }
        // A span's file maps its two versions: what it leaves out is inferred directly
        // between them (as Core Data infers a mapping model), not through the hops
        // in between, which may not even migrate.
        let spans = file.map { $0.destinationVersion - $0.sourceVersion > 1 } ?? false
        let chain = from <= to && !spans ? model.versions.filter { $0.version >= from && $0.version <= to } : [source, destination]
        return try resolve(chain: chain, file: file, knownPolicies: knownPolicies, policyFunctions: policyFunctions)
    }

    /// Resolves the mapping from the first to the last version of `chain` (every
    /// version in between, for chained renames), merging `file` over inference.
    package static func resolve(chain: [CompiledVersion], file: MappingFile?, knownPolicies: Set<String>? = nil,
                               policyFunctions: [String: Set<String>]? = nil) throws -> MappingModel {
        let source = chain[0], destination = chain[chain.count - 1]
        let model = (name: destination.model, current: destination)
        let from = source.version, to = destination.version
        var (mapping, refusals) = MappingInference.inferWithRefusals(from: source, to: destination, through: chain)
        guard let file else {
            if !refusals.isEmpty {
                throw InferenceFailure(model: model.name, sourceVersion: from, destinationVersion: to, refusals: refusals)
            }
            return mapping
        }
        var diagnostics: [Diagnostic] = []
        for override in file.entities {
            guard let entity = destination.entity(named: override.name) else {
                diagnostics.append(Diagnostic(.error, "entity '\(override.name)': not an entity of \(model.name) version \(to)", at: override.location,
                                              hint: Suggestions.hint(for: override.name, in: destination.entities.map(\.name))))
                continue
            }
            var index = mapping.entityMappings.firstIndex { $0.destination == entity.name }!
            if let sourceName = override.source {
                guard let sourceEntity = source.entity(named: sourceName) else {
                    diagnostics.append(Diagnostic(.error, "entity '\(override.name)': source '\(sourceName)' is not an entity of version \(from)",
                                                  at: override.location, hint: Suggestions.hint(for: sourceName, in: source.entities.map(\.name))))
                    continue
                }
                if mapping.entityMappings[index].source != sourceName {
                    let previous = mapping.entityMappings[index].source
                    // Re-pair by name with the chosen source entity.
                    mapping.entityMappings[index] = pairByName(entity, with: sourceEntity)
                    mapping.entityMappings.removeAll { $0.kind == .remove && $0.source == sourceName }
                    // The source entity inference had paired is now mapped by nothing: its rows are dropped.
                    if let previous, !mapping.entityMappings.contains(where: { $0.source == previous }), let old = source.entity(named: previous) {
                        mapping.entityMappings.append(EntityMapping(name: "\(previous)ToNothing", kind: .remove, source: previous, destination: nil,
                                                                    droppedProperties: Renames.storedProperties(of: old).map(\.name).sorted()))
                    }
                    index = mapping.entityMappings.firstIndex { $0.destination == entity.name }!
                }
            }
            if let policy = override.policy {
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
                // Only FUNCTION($entityPolicy, …) values and no property the policy's
                // stages set: the copy calls the policy's functions, set-based.
                mapping.entityMappings[index].kind = override.isSetBased ? .transform : .custom
                mapping.entityMappings[index].policy = policy
                if mapping.entityMappings[index].source == nil {
                    diagnostics.append(Diagnostic(.error, """
                                                  entity '\(entity.name)': a policy needs source rows; \
                                                  '\(entity.name)' has no source entity in version \(from)
                                                  """,
                                                  at: override.location, hint: "add `source: <Entity of version \(from)>`"))
                }
                if !override.isSetBased { refusals.removeAll { $0.entity == entity.name && !$0.kind.isPolicyCode } }
            }
            let sourceEntity = mapping.entityMappings[index].source.flatMap { source.entity(named: $0) }
            for (property, value) in override.properties.sorted(by: { $0.key < $1.key }) {
                let location = override.propertyLocations[property]
                let attribute = entity.attribute(named: property)
                let relationship = entity.relationship(named: property)
                guard attribute != nil || relationship != nil else {
                    diagnostics.append(Diagnostic(.error, "property '\(entity.name).\(property)': not a property of \(entity.name) in version \(to)",
                                                  at: location,
                                                  hint: Suggestions.hint(for: property, in: entity.attributes.map(\.name) + entity.relationships.map(\.name))))
                    continue
                }
                var newSource: PropertySource
                switch value {
                case .policy:
                    newSource = .policy
                    if override.policy == nil {
                        diagnostics.append(Diagnostic(.error, "property '\(entity.name).\(property)': set by a policy, but the entity names no policy",
                                                      at: location, hint: "add `policy: <Name>` to entity '\(entity.name)'"))
                    }
                case .copy(let from):
                    guard let sourceEntity, sourceEntity.attribute(named: from) != nil || sourceEntity.relationship(named: from) != nil else {
                        diagnostics.append(Diagnostic(.error, """
                                                      property '\(entity.name).\(property)': $source.\(from) is not a property of \
                                                      \(sourceEntity?.name ?? "the source") in version \(source.version)
                                                      """, at: location,
                                                      hint: sourceEntity.flatMap {
                                                          Suggestions.hint(for: from, in: $0.attributes.map(\.name) + $0.relationships.map(\.name))
                                                      }))
                        continue
                    }
                    if let attribute, let old = sourceEntity.attribute(named: from)?.declaration, old.type != attribute.declaration.type {
                        if MappingInference.isWidening(old.type, to: attribute.declaration.type) {
                            newSource = .convert(from: from, conversion: .widen)
                        } else {
                            diagnostics.append(Diagnostic(.error, """
                                                          property '\(entity.name).\(property)': $source.\(from) is \(old.type.rawValue), \
                                                          not convertible to \(attribute.declaration.type.rawValue)
                                                          """, at: location, hint: "set it in a policy instead (`\(property): policy`)"))
                            continue
                        }
                    } else {
                        newSource = .copy(from: from)
                    }
                case .expression(let text, let textLocation, let nilOnFailure):
                    guard let attribute else {
                        guard let relationship, let sourceEntity, override.policy == nil else {
                            let reason = override.policy != nil ? "the entity's objects come from policy \(override.policy!)"
                                                                 : "'\(entity.name)' has no source entity in version \(from)"
                            diagnostics.append(Diagnostic(.error, "property '\(entity.name).\(property)': value: \(reason)", at: location,
                                                          hint: "relationships are copied (`$source.<name>`) or set in a policy"))
                            continue
                        }
                        do {
                            switch try copiedRelationship(text, for: relationship, sourceEntity: sourceEntity, source: source,
                                                          destination: destination, mapping: mapping, file: file) {
                            case .copy(let name): newSource = .copy(from: name)
                            case .path(let keys): newSource = .expression(keys, nilOnFailure: false)
                            }
                        } catch {
                            diagnostics.append(Diagnostic(.error, "property '\(entity.name).\(property)': value: \(error.detail)",
                                                          at: textLocation.location(ofColumn: error.column),
                                                          hint: "a relationship's value is checked against \(sourceEntity.name) of version \(from)"))
                            continue
                        }
                        break
                    }
                    guard let sourceEntity else {
                        diagnostics.append(Diagnostic(.error, """
                                                      property '\(entity.name).\(property)': '\(entity.name)' has no source entity in version \(from), \
                                                      so there is no $source for its value
                                                      """,
                                                      at: location, hint: "add `source: <Entity of version \(from)>`"))
                        continue
                    }
                    if let policy = override.policy, !override.isSetBased {
                        diagnostics.append(Diagnostic(.error,
                                                      "property '\(entity.name).\(property)': value: the entity's objects come from policy \(policy)",
                                                      at: location, hint: MappingFile.isPolicyCall(text)
                                                          ? "FUNCTION($entityPolicy, …) values run in the set-based copy: write every `…: policy` "
                                                            + "property of '\(entity.name)' as a FUNCTION value too, or compute this one in the policy"
                                                          : "compute it in the policy (`\(property): policy`)"))
                        continue
                    }
                    if attribute.declaration.isTransient {
                        diagnostics.append(Diagnostic(.error, """
                                                      property '\(entity.name).\(property)': value: a transient attribute is not stored, \
                                                      so no value is migrated into it
                                                      """,
                                                      at: location, hint: "leave it out of the mapping file"))
                        continue
                    }
                    if nilOnFailure && !attribute.declaration.isOptional {
                        diagnostics.append(Diagnostic(.error, "property '\(entity.name).\(property)': onFailure: nil on a required attribute", at: location,
                                                      hint: """
                                                      make \(entity.name).\(property) optional, or leave onFailure out \
                                                      (a value that does not convert fails the migration, naming its row)
                                                      """))
                        continue
                    }
                    do {
                        let checker = TypeChecker(version: source, entity: sourceEntity.name, rowVariables: ["source"], entityPolicy: override.policy)
                        let checked = try checker.value(text, for: attribute.declaration)
                        if case .policyCall(let policy, let selector, _, _) = checked, let functions = policyFunctions?[policy],
                           !functions.contains(selector) {
                            // As a policy that is not compiled in: this migrate cannot run the hop (exit 4).
                            let known = functions.isEmpty ? "none" : functions.sorted().joined(separator: ", ")
                            refusals.append(Refusal(kind: .missingPolicyFunction, entity: entity.name, property: property,
                                                    change: """
                                                    \(textLocation.location(ofColumn: 1)): property '\(entity.name).\(property)': \
                                                    policy '\(policy)' has no function '\(selector)' (declared: \(known))
                                                    """,
                                                    remedy: "add PolicyFunction(\"\(selector)\") { … } to \(policy).functions (Docs/Policies.md), "
                                                        + "or call one it has"))
                            continue
                        }
                    } catch {
                        let at = textLocation.location(ofColumn: error.column)
                        diagnostics.append(Diagnostic(.error, "property '\(entity.name).\(property)': value: \(error.detail)", at: at,
                                                      hint: """
                                                      the expression is checked against \(sourceEntity.name) of version \(from) \
                                                      (`$source.<key>`; Docs/Predicates.md)
                                                      """))
                        continue
                    }
                    newSource = .expression(text, nilOnFailure: nilOnFailure)
                case .value(let raw):
                    guard let attribute else {
                        diagnostics.append(Diagnostic(.error, "property '\(entity.name).\(property)': a relationship cannot take a default", at: location))
                        continue
                    }
                    var parsed: AttributeValue?
                    if case .string(let text)? = raw {
                        switch DefaultValueParser.parse(text, as: attribute.declaration.type) {
                        case .success(let v): parsed = v
                        case .failure(let failure):
                            diagnostics.append(Diagnostic(.error, "property '\(entity.name).\(property)': \(failure.message)", at: location))
                            continue
                        }
                    }
                    // Every rule of the destination attribute (limits, optionality), as
                    // for a default in the model: the value is written to every row.
                    let problems = attribute.declaration.violations(of: parsed)
                    for problem in problems {
                        let detail = parsed == nil ? problem : "default \(problem)"
                        diagnostics.append(Diagnostic(.error, "property '\(entity.name).\(property)': \(detail)", at: location,
                                                      hint: Self.limitsHint(attribute.declaration, parsed)))
                    }
                    if !problems.isEmpty { continue }
                    newSource = .defaultValue(parsed)
                }
                if let p = mapping.entityMappings[index].properties.firstIndex(where: { $0.name == property }) {
                    mapping.entityMappings[index].properties[p].source = newSource
                } else {
                    mapping.entityMappings[index].properties.append(PropertyMapping(name: property, source: newSource, isRelationship: relationship != nil))
                    mapping.entityMappings[index].properties.sort { $0.name < $1.name }
                }
                if mapping.entityMappings[index].kind == .copy { mapping.entityMappings[index].kind = .transform }
                refusals.removeAll { $0.entity == entity.name && $0.property == property }
            }
            if let filter = override.filter {
                if override.policy != nil, !override.isSetBased {
                    diagnostics.append(Diagnostic(.error, "entity '\(entity.name)': filter: a policy chooses its own objects",
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
                        diagnostics.append(Diagnostic(.error, "entity '\(entity.name)': filter: \(error.detail)", at: at,
                                                      hint: "the filter is a predicate over \(sourceEntity.name) of version \(from) (Docs/Predicates.md)"))
                    }
                } else {
                    diagnostics.append(Diagnostic(.error, "entity '\(entity.name)': filter: '\(entity.name)' has no source entity in version \(from)",
                                                  at: override.filterLocation ?? override.location))
                }
            }
            var used = Set(mapping.entityMappings[index].properties.compactMap { mappingSourceName($0.source) })
            if let sourceEntity {
                // Source properties an expression or the filter reads are not dropped data.
                for property in mapping.entityMappings[index].properties {
                    if case .expression(let text, _) = property.source { used.formUnion(Self.reads(text, of: sourceEntity)) }
                }
                if let filter = mapping.entityMappings[index].filter { used.formUnion(Self.reads(filter, of: sourceEntity)) }
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
        if !diagnostics.isEmpty { throw DiagnosticsError(diagnostics) }
        refusals.removeAll { copiesAcrossRenamedEntity($0, mapping: &mapping, source: source, destination: destination) }
        if !refusals.isEmpty {
            throw InferenceFailure(model: model.name, sourceVersion: from, destinationVersion: to, refusals: refusals)
        }
        mapping.mappingFile = file.path
        mapping.fileOrder = file.entities.map(\.name)
        return mapping
    }

    /// A relationship whose destination entity changed, where the file makes the new
    /// destination's objects from the old destination's (`PersistedDraft: source: Draft`,
    /// as a mapping model's entity mapping `DraftToPersistedDraft` does; held-out Olvid):
    /// the related objects are carried over with their keys, so the relationship is
    /// copied, as inference copies it across a `renamedFrom`. True when it was so.
    static func copiesAcrossRenamedEntity(_ refusal: Refusal, mapping: inout MappingModel, source: CompiledVersion,
                                          destination: CompiledVersion) -> Bool {
        guard refusal.kind == .destinationChanged, let name = refusal.property,
              let index = mapping.entityMappings.firstIndex(where: { $0.destination == refusal.entity }),
              let sourceEntity = mapping.entityMappings[index].source.flatMap({ source.entity(named: $0) }),
              let new = destination.entity(named: refusal.entity)?.relationship(named: name),
              let old = sourceEntity.relationship(named: new.declaration.renamedFrom ?? name) ?? sourceEntity.relationship(named: name),
              old.declaration.isToMany == new.declaration.isToMany, old.isManyToMany == new.isManyToMany,
              mapping.entityMappings.contains(where: { $0.source == old.declaration.destination && $0.destination == new.declaration.destination }),
              let p = mapping.entityMappings[index].properties.firstIndex(where: { $0.name == name }),
              mapping.entityMappings[index].properties[p].source == .policy else { return false }
        mapping.entityMappings[index].properties[p].source = .copy(from: old.name)
        return true
    }

    /// Where the rule a value breaks is declared: the destination attribute.
    private static func limitsHint(_ attribute: AttributeDescription, _ value: AttributeValue?) -> String? {
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
            if character == "\"" || character == "'" { quote = character; continue }
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

    private static func mappingSourceName(_ source: PropertySource) -> String? {
        switch source {
        case .copy(let from), .convert(let from, _): from
        default: nil
        }
    }

    /// A mapping that pairs properties by name (used when a file picks the source entity).
    private static func pairByName(_ entity: CompiledEntity, with sourceEntity: CompiledEntity) -> EntityMapping {
        var properties: [PropertyMapping] = []
        var used: Set<String> = []
        for attribute in entity.attributes where !attribute.declaration.isTransient {
            if let old = sourceEntity.attribute(named: attribute.name), old.declaration.type == attribute.declaration.type {
                properties.append(PropertyMapping(name: attribute.name, source: .copy(from: old.name), isRelationship: false))
                used.insert(old.name)
            } else {
                properties.append(PropertyMapping(name: attribute.name, source: .defaultValue(attribute.declaration.defaultValue), isRelationship: false))
            }
        }
        for relationship in entity.relationships where !relationship.declaration.isTransient {
            if let old = sourceEntity.relationship(named: relationship.name) {
                properties.append(PropertyMapping(name: relationship.name, source: .copy(from: old.name), isRelationship: true))
                used.insert(old.name)
            } else {
                properties.append(PropertyMapping(name: relationship.name, source: .defaultValue(nil), isRelationship: true))
            }
        }
        let dropped = (sourceEntity.attributes.filter { !$0.declaration.isTransient }.map(\.name) + sourceEntity.relationships.map(\.name))
            .filter { !used.contains($0) }.sorted()
        return EntityMapping(name: "\(sourceEntity.name)To\(entity.name)", kind: .transform, source: sourceEntity.name, destination: entity.name,
                             properties: properties.sorted { $0.name < $1.name }, droppedProperties: dropped)
    }
}

/// The mapping files of a model: `Migrations/<Model>/<A>-to-<B>.yaml`.
package struct MappingFiles: Sendable {
    /// Files by (A, B).
    package var files: [MappingFile]
    /// Problems found while reading them.
    package var diagnostics: [Diagnostic]
    /// Source texts for rendering.
    package var sources: [String: String]

    /// Reads every mapping file of `model` under `folder`. A missing folder means
    /// none; a folder that exists but cannot be read to the end (permissions, no
    /// file descriptors left, an I/O error) is an error, never "none": reading it as
    /// empty would infer hops the user mapped.
    ///
    /// Nothing in the folder is ignored silently: a file not named
    /// `<A>-to-<B>.yaml`, one mapping a version onto itself or backwards, and (given
    /// the model's `versions`) one naming a version the model does not have is an
    /// error naming the file, so `validate`, `plan` and `apply` refuse it alike.
    /// Folders (`Policies/`, where `import` writes policy skeletons) and hidden files
    /// are not mapping files and are skipped.
    package static func load(folder: String, model: String, versions: [Int]? = nil) -> MappingFiles {
        var result = MappingFiles(files: [], diagnostics: [], sources: [:])
        let directory = folder.hasSuffix("/") ? folder + model : folder + "/" + model
        let names: [String]
        do {
            // The parent first: an unreadable `Migrations/` hides whether `<Model>` exists.
            guard try DirectoryListing.entries(folder) != nil, let listed = try DirectoryListing.entries(directory) else { return result }
            names = listed
        } catch {
            result.diagnostics.append(Diagnostic(.error, """
                \(error.description); its mapping files decide how stores are migrated, so nothing is planned without them \
                (make it readable by this user, or pass --migrations)
                """, at: nil))
            return result
        }
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = directory + "/" + name
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue { continue }
            guard name.hasSuffix(".yaml") || name.hasSuffix(".yml") else {
                // `1-to-2.yaml.orig`, `1to2.txt`, `notes.md`: read by nothing, so a
                // mapping written in it would silently not be used.
                result.diagnostics.append(Diagnostic(.error, """
                    \(path): not a mapping file: a model's mapping folder holds files named <A>-to-<B>.yaml \
                    (e.g. 1-to-2.yaml), and this one would be ignored (rename it, or move it out of \(directory))
                    """, at: nil))
                continue
            }
            let (file, diagnostics, text) = MappingFile.parse(path: path)
            if let text { result.sources[path] = text }
            result.diagnostics += diagnostics
            guard let file else { continue }
            // A file maps a version to a later one: one hop (`1-to-2.yaml`) or a span
            // (`1-to-5.yaml`, as apps ship Core Data mapping models from an old version
            // straight to a newer one). Downgrades and a version onto itself are refused.
            if file.destinationVersion <= file.sourceVersion {
                result.diagnostics.append(Diagnostic(.error, """
                    \(path): a mapping file maps a version to a later one, <A>-to-<B>.yaml with B > A \
                    (a hop, e.g. 1-to-2.yaml, or a span, e.g. 1-to-5.yaml)
                    """, at: nil))
                continue
            }
            // A version the model does not have (`2-to-9.yaml` with versions 1 to 5):
            // no store ever takes the path, so the file would be ignored.
            if let versions, let missing = [file.sourceVersion, file.destinationVersion].first(where: { !versions.contains($0) }) {
                let known = versions.isEmpty ? "none" : versions.count == (versions.max()! - versions.min()! + 1)
                    ? "\(versions.min()!) to \(versions.max()!)" : versions.map(String.init).joined(separator: ", ")
                result.diagnostics.append(Diagnostic(.error, """
                    \(path): maps version \(file.sourceVersion) to \(file.destinationVersion), but model \(model) has no version \(missing) \
                    (its versions: \(known)); no migration would ever use this file
                    """, at: nil))
                continue
            }
            // Two files for the same versions (`2-to-3.yaml` and `02-to-3.yaml`, or a
            // `.yml` beside a `.yaml`): using either would silently ignore the other.
            if let twin = result.files.first(where: { $0.sourceVersion == file.sourceVersion && $0.destinationVersion == file.destinationVersion }) {
                result.diagnostics.append(Diagnostic(.error, """
                    \(path): maps version \(file.sourceVersion) to \(file.destinationVersion), as \(twin.path) does; \
                    keep one file for these versions
                    """, at: nil))
                continue
            }
            result.files.append(file)
        }
        return result
    }

    /// The file for A → B (a hop or a span), if any.
    package func file(from a: Int, to b: Int) -> MappingFile? {
        files.first { $0.sourceVersion == a && $0.destinationVersion == b }
    }

    /// The files mapping version `a` to a later version, furthest first.
    public func files(from a: Int) -> [MappingFile] {
        files.filter { $0.sourceVersion == a }.sorted { $0.destinationVersion > $1.destinationVersion }
    }

    /// The spans: files mapping a version to one more than a hop later.
    public var spans: [MappingFile] { files.filter { $0.destinationVersion - $0.sourceVersion > 1 } }
}
