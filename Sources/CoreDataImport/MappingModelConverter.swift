package import DataModel
import Foundation
import Mapping
import Predicates
import PropertyList

/// Converts Xcode mapping models into mapping files, `Migrations/<Model>/<A>-to-<B>.yaml`.
///
/// The mapping file stays the one description of a hop: each element of the mapping
/// model that changes what is migrated becomes the override that does the same
/// (`source:`, `policy:`, `filter:`, `$source.other`, `{ default: … }`,
/// `{ value: "…" }`); what already is what inference does is left to inference and
/// noted in a comment. A mapping model spanning versions becomes a spanning file
/// `<A>-to-<B>.yaml`, planned like Core Data's (Docs/MappingFiles.md). What the format
/// cannot express yet (FUNCTION calls, a relationship filled through a longer key path,
/// a custom source fetch) is written in a form the loader refuses, naming it, and
/// listed in `notCarried`: `migrate plan` refuses the hop rather than inferring it
/// silently.
///
/// Pure: values in, values out; the caller reads and writes files.
package struct MappingModelConverter: Sendable {
    /// The imported model, compiled.
    package var model: CompiledModel
    /// The imported versions (their `.xcdatamodel` folders name them).
    package var versions: [ImportedVersion]
    /// The name of the `.xcdatamodeld` bundle read (`Delta`), to tell this bundle's mapping models from others'.
    package var bundleName: String
    /// Per mapping model (its path), the version whose hashes its embedded source and
    /// destination models have, each nil unless exactly one version has them: pairs a
    /// mapping model whose recorded paths name no version (Docs/MappingFiles.md,
    /// "Pairing by embedded models"). The caller compiles the embedded models
    /// (`XcodeMappingModel.yaml(ofEmbeddedModel:model:label:)`).
    package var versionsOfEmbeddedModels: [String: (source: Int?, destination: Int?)] = [:]
    /// Per mapping model (its path), the entity version hashes it records for its
    /// source and destination (a `.cdm`'s entity mappings, or the models an
    /// `.xcmappingmodel` embeds), each nil when it records none that can be read.
    /// Core Data uses a mapping model only where they are the store's and the
    /// destination model's: one whose hashes differ from the versions it names is
    /// stale (``ImportedMappings/stale``).
    package var recordedEntityHashes: [String: (source: [String: [UInt8]]?, destination: [String: [UInt8]]?)] = [:]

    /// Creates a converter for the versions of one import.
    package init(model: CompiledModel, versions: [ImportedVersion], bundleName: String) {
        self.model = model
        self.versions = versions
        self.bundleName = bundleName
    }

    /// Converts mapping models; `unread` are mapping models found without a readable
    /// `xcmapping.xml` (path and reason), reported with the hop their name suggests.
    package func convert(_ mappingModels: [XcodeMappingModel], unread: [(path: String, reason: String)] = [])
        -> ImportedMappings
    {
        var result = ImportedMappings(mappings: [], policies: [], skipped: [], otherModels: [])
        var skeletons: [String: PolicySkeleton] = [:]
        var taken: [String: String] = [:]
        for mappingModel in mappingModels.sorted(by: { $0.path < $1.path }) {
            let label = (mappingModel.path as NSString).lastPathComponent
            if let other = otherBundle(mappingModel) {
                result.otherModels.append("\(label) maps versions of \(other), not \(bundleName).xcdatamodeld")
                continue
            }
            let paired = pair(mappingModel)
            guard let (from, to, by) = paired.versions else {
                result.skipped.append(
                    SkippedMappingModel(
                        path: mappingModel.path, reason: paired.why, sourceVersion: nil, destinationVersion: nil))
                continue
            }
            guard to > from else {
                result.skipped.append(
                    SkippedMappingModel(
                        path: mappingModel.path,
                        reason: """
                            it maps version \(from) to version \(to) (\(by)): a migration goes to a later version, so \
                            no mapping file is written
                            """, sourceVersion: from, destinationVersion: to))
                continue
            }
            if let entities = staleEntities(mappingModel.path, from: from, to: to) {
                result.stale.append(
                    StaleMappingModel(
                        path: mappingModel.path, sourceVersion: from, destinationVersion: to, entities: entities))
                continue
            }
            if let first = taken["\(from)-to-\(to)"] {
                result.skipped.append(
                    SkippedMappingModel(
                        path: mappingModel.path,
                        reason: """
                            \(first) already maps version \(from) to \(to); one mapping file per hop, so this one is \
                            not written
                            """, sourceVersion: from, destinationVersion: to))
                continue
            }
            taken["\(from)-to-\(to)"] = label
            var mapping = convert(mappingModel, from: from, to: to, pairedBy: by, skeletons: &skeletons)
            mapping.mappingModel = label
            result.mappings.append(mapping)
        }
        for (path, reason) in unread {
            let hop = pairByName(((path as NSString).lastPathComponent as NSString).deletingPathExtension)
            result.skipped.append(
                SkippedMappingModel(path: path, reason: reason, sourceVersion: hop?.0, destinationVersion: hop?.1))
        }
        result.mappings.sort { ($0.sourceVersion, $0.destinationVersion) < ($1.sourceVersion, $1.destinationVersion) }
        result.policies = skeletons.values.sorted { $0.name < $1.name }
        return result
    }

    // MARK: - Pairing with versions

    /// The entities whose recorded hashes differ from those of versions `from` and
    /// `to` (nil when none differ, or nothing is recorded): an entity recorded with
    /// another hash, or missing from the version. Only the entities it records are
    /// compared (a `.cdm` records those it has entity mappings for).
    func staleEntities(_ path: String, from: Int, to: Int) -> [String]? {
        guard let recorded = recordedEntityHashes[path] else { return nil }
        var differing: [String] = []
        for (hashes, number) in [(recorded.source, from), (recorded.destination, to)] {
            guard let hashes, let version = model.version(number) else { continue }
            for name in hashes.keys.sorted() where hashes[name] != version.versionHashes[name]?.bytes {
                differing.append("\(name) (version \(number))")
            }
        }
        return differing.isEmpty ? nil : differing
    }

    /// The bundle a mapping model's recorded paths name, when it is not this one.
    private func otherBundle(_ mappingModel: XcodeMappingModel) -> String? {
        for recorded in [mappingModel.sourceModelPath, mappingModel.destinationModelPath].compactMap({ $0 }) {
            let parts = recorded.split(separator: "/").map(String.init)
            if let bundle = parts.dropLast().last, bundle.hasSuffix(".xcdatamodeld"),
                bundle != bundleName + ".xcdatamodeld"
            {
                return bundle
            }
        }
        return nil
    }

    /// The version an `.xcdatamodel` folder name is.
    private func version(folder: String) -> Int? {
        versions.first { $0.source == folder }?.number
    }

    private func pair(_ mappingModel: XcodeMappingModel) -> (versions: (Int, Int, String)?, why: String) {
        // The versions whose hashes the embedded models have, when each has exactly one.
        let hashed = versionsOfEmbeddedModels[mappingModel.path].flatMap { pair in
            pair.source.flatMap { a in pair.destination.map { (a, $0) } }
        }
        if let source = mappingModel.sourceModelPath, let destination = mappingModel.destinationModelPath {
            let a = version(folder: (source as NSString).lastPathComponent),
                b = version(folder: (destination as NSString).lastPathComponent)
            if let a, let b { return ((a, b, "sourcemodelpath and destinationmodelpath"), "") }
            if let (a, b) = hashed {
                return (
                    (a, b, "the version hashes of the models it embeds (the recorded paths name no version here)"), ""
                )
            }
            if let byName = pairByName(mappingModel.name) {
                return ((byName.0, byName.1, "its name (the recorded paths name no version here)"), "")
            }
            let missing = [a == nil ? source : nil, b == nil ? destination : nil].compactMap { $0 }
            let what = missing.count == 1 ? "is not a version" : "are not versions"
            return (nil, "it maps \(missing.joined(separator: " and ")), which \(what) of \(bundleName)")
        }
        if let (a, b) = hashed {
            let what =
                mappingModel.recordedHashes == nil
                ? "the version hashes of the models it embeds" : "the entity version hashes it records"
            return ((a, b, "\(what) (no model paths recorded)"), "")
        }
        if let byName = pairByName(mappingModel.name) {
            return ((byName.0, byName.1, "its name (no model paths recorded)"), "")
        }
        return (nil, "it records no model paths and its name names no two versions of \(bundleName)")
    }

    /// The hop a mapping model's name suggests: `DeltaToDelta2`, `Moody 2-Moody 3`,
    /// `WooCommerceModelV9toV10`, `1.1 to 1.2`; each side a version's name, or its number.
    func pairByName(_ name: String) -> (Int, Int)? {
        // `WordPress-61-62`: the model's name, then the two version numbers (WordPress-iOS
        // names all of its mapping models so; split on "-" it has three parts).
        let dashed = name.components(separatedBy: "-")
        if dashed.count >= 3, let a = dashed.dropLast().last, let b = dashed.last,
            !a.isEmpty, !b.isEmpty, a.allSatisfy(\.isNumber), b.allSatisfy(\.isNumber),
            let first = versionNamed(a), let second = versionNamed(b)
        {
            return (first, second)
        }
        let separators = [" to ", "To", "to", "-"]
        for separator in separators {
            let parts = name.components(separatedBy: separator)
            guard parts.count == 2, let a = versionNamed(parts[0]), let b = versionNamed(parts[1]) else { continue }
            return (a, b)
        }
        return nil
    }

    private func versionNamed(_ text: String) -> Int? {
        func normalized(_ s: String) -> String { s.lowercased().filter { !$0.isWhitespace } }
        // `MigrationAppDatabase_v54_to_v55` splits into `…_v54_` and `_v55`: the joining
        // underscores are not part of either side's name.
        let wanted = normalized(text).trimmingCharacters(in: CharacterSet.alphanumerics.inverted)
        guard !wanted.isEmpty else { return nil }
        let names = versions.map {
            (
                number: $0.number,
                name: normalized($0.source.hasSuffix(".xcdatamodel") ? String($0.source.dropLast(12)) : $0.source)
            )
        }
        let exact = names.filter { $0.name == wanted }
        if exact.count == 1 { return exact[0].number }
        let suffix = names.filter { $0.name.hasSuffix(wanted) || wanted.hasSuffix($0.name) }
        if suffix.count == 1 { return suffix[0].number }
        // The number a side ends in: the version whose name ends in it (the unnumbered one is 1).
        guard let digits = wanted.reversed().prefix(while: \.isNumber).reversed().nilIfEmpty,
            let n = Int(String(digits))
        else { return nil }
        let numbered = names.filter { name in
            let own = String(name.name.reversed().prefix(while: \.isNumber).reversed())
            return Int(own) == n
        }
        if numbered.count == 1 { return numbered[0].number }
        if n == 1, numbered.isEmpty {
            let unnumbered = names.filter { !($0.name.last?.isNumber ?? false) }
            if unnumbered.count == 1 { return unnumbered[0].number }
        }
        return nil
    }

    // MARK: - Conversion

    private func convert(
        _ mappingModel: XcodeMappingModel, from: Int, to: Int, pairedBy: String,
        skeletons: inout [String: PolicySkeleton]
    ) -> ImportedMapping {
        let label = (mappingModel.path as NSString).lastPathComponent
        var mapping = ImportedMapping(
            mappingModel: label, sourceVersion: from, destinationVersion: to, pairedBy: pairedBy, yaml: "",
            entityMappings: mappingModel.entityMappings.count, policies: [], decodedExpressions: 0,
            carried: [], notCarried: [])
        for line in mappingModel.unknown {
            mapping.notCarried.append("\(label): \(line): not read (an element this importer does not know)")
        }
        var body: [String] = []
        guard let source = model.version(from), let destination = model.version(to) else { return mapping }
        let mappedDestinations = Set(mappingModel.entityMappings.compactMap(\.destination))
        var written: Set<String> = []
        let mappingNames = Set(mappingModel.entityMappings.map(\.effectiveName))
        var asInferred: [(Int, [String])] = []
        for entityMapping in mappingModel.entityMappings {
            var lines = convert(
                entityMapping, in: mappingModel, source: source, destination: destination, mappingNames: mappingNames,
                mapping: &mapping, skeletons: &skeletons)
            guard let destinationName = entityMapping.destination, !lines.isEmpty else {
                body += lines
                continue
            }
            if !written.insert(destinationName).inserted {
                guard let further = Self.furtherMapping(lines, entityMapping, into: destinationName, &mapping) else {
                    continue
                }
                lines = further
            }
            // Entity mappings that change nothing are one comment each: listed after the others,
            // in the destination version's order, so that an export (which numbers the file's
            // entries first) imports back as the same file; the order of mappings that only
            // carry objects as inference does changes nothing in Core Data either.
            if lines.count == 1, lines[0].hasPrefix("  #") {
                let index =
                    entityMapping.destination.flatMap { name in destination.entities.firstIndex { $0.name == name } }
                    ?? Int.max
                asInferred.append((index, lines))
            } else {
                body += lines
            }
        }
        body += asInferred.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.flatMap(
            \.element.1)
        mapping.splits = Self.splits(of: mappingModel)
        // A destination entity no entity mapping fills: Core Data migrates none of its objects.
        // Where inference would carry objects into it: from a namesake, or the entity its
        // renaming identifier names (BookPlayer 4's Folder, renamed from PlaylistV3).
        let inferredSources = Renames.hop(from: source, to: destination).entities
        for entity in destination.entities where !mappedDestinations.contains(entity.name) && !entity.isAbstract {
            guard inferredSources[entity.name] != nil else { continue }
            body += [
                "  \(YAMLEmitter.key(entity.name)):",
                "    # \(label) has no entity mapping for \(entity.name): Core Data migrates none of its objects",
                "    filter: \"FALSEPREDICATE\"",
            ]
            mapping.carried.append("\(entity.name): no entity mapping, so no objects migrated (filter: FALSEPREDICATE)")
        }
        var lines = [
            "# Imported by `migrate import --mapping-models` from \(label)",
            "# (version \(from) → \(to), paired by \(pairedBy)).",
        ]
        lines +=
            mapping.notCarried.isEmpty
            ? []
            : ["# Not carried (plan refuses what is written for it below):"]
                + mapping.notCarried.map { "#   " + Self.withoutLines($0).replacingOccurrences(of: "\n", with: " ") }
        lines.append(body.isEmpty ? "entities: {}" : "entities:")
        mapping.yaml = (lines + body).joined(separator: "\n") + "\n"
        mapping.policies = Array(Set(mapping.policies)).sorted()
        return mapping
    }

    /// A further entity mapping into an entity another already fills (objects of two
    /// source entities merged): written under its Core Data name with `destination:`
    /// (MappingFiles.md, "Merges"). Nil for one with no source, which Core Data makes no
    /// objects for.
    private static func furtherMapping(
        _ lines: [String], _ entityMapping: XcodeMappingModel.EntityMapping, into destinationName: String,
        _ mapping: inout ImportedMapping
    ) -> [String]? {
        let name = entityMapping.effectiveName
        let at = "\(mapping.mappingModel): entity mapping \(name)\(entityMapping.lineText)"
        guard let sourceName = entityMapping.source else {
            // An Add mapping: Core Data fetches no source objects for it and makes none.
            mapping.carried.append(
                "\(at): a further mapping into \(destinationName) with no source: Core Data makes no objects for it")
            return nil
        }
        var lines = lines
        if lines[0].hasPrefix("  #") { lines = [lines[0]] }
        lines[0] = "  \(YAMLEmitter.key(name)):"
        lines.removeAll { $0.hasPrefix("    source: ") || $0.hasPrefix("    mappingName: ") }
        lines.insert(
            contentsOf: [
                "    destination: \(YAMLEmitter.key(destinationName))",
                "    source: \(YAMLEmitter.key(sourceName))",
            ], at: 1)
        mapping.carried.append(
            "\(at): a further mapping into \(destinationName), its objects made of \(sourceName) too (a merge)")
        return lines
    }

    /// A note as the mapping file keeps it: without the `(line N)` of the `xcmapping.xml`
    /// it was read from, nor the module of a policy class (`policy:` holds the class's
    /// own name): the file outlives that `xcmapping.xml`, and an export writes another.
    /// `--report` and `--json` keep both.
    static func withoutLines(_ note: String) -> String {
        note.replacingOccurrences(of: #" \(line [0-9]+\)"#, with: "", options: .regularExpression)
            .replacingOccurrences(
                of: #"policy class [A-Za-z_][A-Za-z0-9_]*\."#, with: "policy class ", options: .regularExpression)
    }

    /// What an attribute's value expression is read against.
    struct ValueContext {
        /// The source version.
        var source: CompiledVersion
        /// The entity mapping's source entity.
        var sourceEntity: CompiledEntity?
        /// The entity mapping's policy.
        var policy: String?
        /// Whether the policy runs set-based: some value calls `FUNCTION($entityPolicy, …)`.
        var setBased: Bool
        /// Destination property → the source property inference pairs it with (``EntityEntry/inferred``).
        var inferred: [String: String] = [:]
    }

    /// `FUNCTION($entityPolicy, 'selector:', …)` as the whole expression.
    static func isPolicyCall(_ expression: ArchivedExpression) -> Bool {
        if case .function(.variable("entityPolicy")?, _, _) = expression { return true }
        return false
    }

    /// The override for an attribute's value expression, or nil when it is what inference does.
    func overrideLine(
        for expression: ArchivedExpression, attribute: AttributeDescription, _ context: ValueContext,
        where place: String, mapping: inout ImportedMapping,
        skeletons: inout [String: PolicySkeleton], mappingName: String
    ) -> String? {
        let sourceEntity = context.sourceEntity, policy = context.policy
        switch expression {
        case .keyPath(.variable("source")?, let components) where components.count == 1:
            // Left to inference where it copies the same (not where the renaming identifier
            // pairs it with another, or with none).
            if components[0] == context.inferred[attribute.name], sourceEntity?.attribute(named: components[0]) != nil {
                return nil
            }
            return "$source.\(components[0])"
        case .constant(let constant) where Self.isAcceptable(constant, for: attribute.type):
            switch constant {
            case .string(let text): return "{ default: \(YAMLEmitter.quote(text)) }"
            // Core Data's booleans are NSNumbers: Olvid's mapping models set them with the
            // constants 0 and 1 (`isKeycloakManaged`, `isWiped`).
            case .integer(let n) where attribute.type == .boolean && (n == 0 || n == 1): return "{ default: \(n == 1) }"
            case .integer(let n): return "{ default: \(n) }"
            case .real(let d) where d.isFinite: return "{ default: \(d) }"
            case .decimal(let text): return "{ default: \(text) }"
            case .boolean(let b): return "{ default: \(b) }"
            case .null: return "{ default: null }"
            case .date(let seconds):
                return "{ default: \(YAMLEmitter.quote(AttributeValue.date(seconds).description)) }"
            case .real: break
            }
        default:
            break
        }
        let text = expression.format
        var reasons: [String] = []
        for call in expression.functionCalls {
            if call.operand == "$entityPolicy" {
                if let policy {
                    var skeleton = skeletons[policy]!
                    if let i = skeleton.selectors.firstIndex(where: { $0.selector == call.selector }) {
                        skeleton.selectors[i].uses.append(mappingName)
                    } else {
                        skeleton.selectors.append(
                            .init(selector: call.selector, arguments: call.arguments, uses: [mappingName]))
                    }
                    skeletons[policy] = skeleton
                } else {
                    reasons.append("$entityPolicy without a policy class on the entity mapping")
                }
            }
        }
        reasons += expression.unsupportedParts.map { "\($0) has no text in the format syntax" }
        if reasons.isEmpty, let sourceEntity {
            // What runs is what the one type checker accepts: the same check `migrate plan` makes.
            do {
                // A policy function (FUNCTION($entityPolicy, …)) is checked as the copy runs it.
                _ = try TypeChecker(
                    version: context.source, entity: sourceEntity.name, rowVariables: ["source"], entityPolicy: policy
                )
                .value(text, for: attribute)
            } catch {
                reasons.append(error.detail)
            }
        }
        if !reasons.isEmpty {
            mapping.notCarried.append(
                """
                \(place): \(text): cannot run here yet (\(reasons.joined(separator: "; "))); written as value:, which \
                plan refuses
                """
            )
        } else if policy != nil, !context.setBased {
            mapping.notCarried.append(
                "\(place): \(text): a computed value on an entity with a policy; written as value:, which plan refuses "
                    + "(compute it in the policy, or drop the policy if it only hosted this)")
        }
        return "{ value: \(YAMLEmitter.quote(text)) }"
    }

    /// Whether Core Data sets a constant of this class on an attribute of `type`: a
    /// string only on a string, a number (NSNumber) only on a number or a boolean, a
    /// date only on a date; anything on a transformable. Any other raises "Unacceptable
    /// type of value for attribute" in the migration, so the converter writes it as a
    /// `value:` that plan refuses, instead of coercing it ("12" into Integer 32).
    static func isAcceptable(_ constant: ArchivedExpression.Constant, for type: AttributeType) -> Bool {
        if type == .transformable { return true }
        switch constant {
        case .null: return true
        case .string: return type == .string
        case .integer, .real, .decimal, .boolean:
            return [.integer16, .integer32, .integer64, .decimal, .double, .float, .boolean].contains(type)
        case .date: return type == .date
        }
    }

    /// The source relationship a relationship expression copies, when it is the copy the
    /// mapping file writes as `$source.<name>`: the destination instances, through the entity
    /// mapping that carries the related entity over, of one source relationship.
    static func relationshipCopy(
        _ expression: ArchivedExpression, relationship: RelationshipDescription, sourceEntity: CompiledEntity?,
        source: CompiledVersion, in mappingModel: XcodeMappingModel, mappingNames: Set<String>
    ) -> String? {
        guard case .function(.variable("manager")?, let selector, let arguments) = expression, arguments.count == 2,
            case .constant(.string(let name)) = arguments[0],
            case .keyPath(.variable("source")?, let components) = arguments[1], components.count == 1,
            let sourceRelationship = sourceEntity?.relationship(named: components[0])
        else { return nil }
        switch selector {
        case "destinationInstancesForEntityMappingNamed:sourceInstances:":
            // The named mapping must be the one that makes destination objects of the related source entity.
            guard let through = mappingModel.entityMappings.first(where: { $0.effectiveName == name }),
                through.source == sourceRelationship.declaration.destination,
                through.destination == relationship.destination
            else { return nil }
            return components[0]
        case "destinationInstancesForSourceRelationshipNamed:sourceInstances:":
            return name == components[0] ? components[0] : nil
        default:
            return nil
        }
    }

    /// The entity mapping Xcode fills a relationship through when none is named: the one
    /// whose source is the related entity.
    func defaultMappingName(
        for components: [String], from sourceEntity: CompiledEntity?, source: CompiledVersion,
        in mappingModel: XcodeMappingModel
    ) -> String? {
        guard components.count == 1,
            let related = sourceEntity?.relationship(named: components[0])?.declaration.destination
        else { return nil }
        return mappingModel.entityMappings.first { $0.source == related && $0.destination != nil }?.effectiveName
    }

    /// The entity E a source fetch (the form below) fetches.
    static func defaultFetchEntity(_ expression: ArchivedExpression) -> String? {
        func request(_ e: ArchivedExpression) -> String? {
            guard
                case .function(
                    .variable("manager")?, "fetchRequestForSourceEntityNamed:predicateString:", let arguments) = e,
                arguments.count == 2, case .constant(.string(let entity)) = arguments[0]
            else { return nil }
            return entity
        }
        if let entity = request(expression) { return entity }
        if case .function(_, "FETCH", let arguments) = expression, let first = arguments.first { return request(first) }
        return nil
    }

    /// Core Data's default source fetch; its predicate string P:
    /// `FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", E, P),
    /// $manager.sourceContext, NO)`.
    static func defaultFetchPredicate(_ expression: ArchivedExpression) -> String? {
        func request(_ e: ArchivedExpression) -> String? {
            guard
                case .function(
                    .variable("manager")?, "fetchRequestForSourceEntityNamed:predicateString:", let arguments) = e,
                arguments.count == 2, case .constant(.string(let predicate)) = arguments[1]
            else { return nil }
            return predicate
        }
        if let predicate = request(expression) { return predicate }
        if case .function(_, "FETCH", let arguments) = expression, let first = arguments.first { return request(first) }
        return nil
    }

    /// An archived `NSDictionary` of user info as `key = value` lines.
    func userInfo(_ data: [UInt8]?) -> [String] {
        guard let data, let root = try? BinaryPropertyList.decodeArchive(data), let archive = try? KeyedArchive(root)
        else {
            return data == nil ? [] : ["(an archive this importer cannot read)"]
        }
        return archive.dictionary(archive.top).map { key, value in
            let shown: String
            switch archive.resolve(value) {
            case .string(let s)?: shown = YAMLEmitter.quote(s)
            case .integer(let n)?: shown = String(n)
            case .real(let d)?: shown = String(d)
            case .boolean(let b)?: shown = b ? "YES" : "NO"
            default: shown = "<\(archive.className(value) ?? "value")>"
            }
            return "\(key) = \(shown)"
        }.sorted()
    }

    /// An attribute value as a YAML scalar for `{ default: … }`.
    static func yamlValue(_ value: AttributeValue) -> String {
        switch value {
        case .integer, .double, .decimal, .boolean: value.description
        default: YAMLEmitter.quote(value.description)
        }
    }
}

private extension Collection {
    var nilIfEmpty: Self? { isEmpty ? nil : self }
}
