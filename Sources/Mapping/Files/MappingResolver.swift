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
    /// - Throws: `DiagnosticsError` when the file does not fit the two versions;
    ///   `InferenceFailure` with every change neither inference nor the file covers.
    package static func resolve(_ model: CompiledModel, from: Int, to: Int, file: MappingFile?,
                               knownPolicies: Set<String>? = nil) throws -> MappingModel {
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
        return try resolve(chain: chain, file: file, knownPolicies: knownPolicies)
    }

    /// Resolves the mapping from the first to the last version of `chain` (every
    /// version in between, for chained renames), merging `file` over inference.
    package static func resolve(chain: [CompiledVersion], file: MappingFile?, knownPolicies: Set<String>? = nil) throws -> MappingModel {
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
        var merge = MappingFileMerge(source: source, destination: destination, file: file, knownPolicies: knownPolicies,
                                     mapping: mapping, refusals: refusals)
        merge.mergeEntities()
        (mapping, refusals) = (merge.mapping, merge.refusals)
        let diagnostics = merge.diagnostics
        if !diagnostics.isEmpty { throw DiagnosticsError(diagnostics) }
        if !refusals.isEmpty {
            throw InferenceFailure(model: model.name, sourceVersion: from, destinationVersion: to, refusals: refusals)
        }
        mapping.mappingFile = file.path
        mapping.fileOrder = file.entities.map(\.name)
        return mapping
    }

    /// Where the rule a value breaks is declared: the destination attribute.
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
    package static func load(folder: String, model: String) -> MappingFiles {
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
        for name in names.sorted() where name.hasSuffix(".yaml") || name.hasSuffix(".yml") {
            let path = directory + "/" + name
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
