package import DataModel
import Foundation
import Predicates

/// A user-written mapping for one hop, `Migrations/<Model>/<A>-to-<B>.yaml`: names a
/// policy per entity and may override property mappings. Everything it does not
/// mention stays inferred.
///
/// ```yaml
/// entities:
///   Person:                      # a destination entity
///     policy: SplitFullName      # rows produced by this policy
///     source: Person             # optional: the source entity (default: inferred)
///     properties:
///       firstName: policy        # set by the policy
///       nickname: $source.handle # copied from another source property
///       score: { default: 0 }    # a constant
/// ```
package struct MappingFile: Sendable, Hashable {
    /// A property override.
    package enum Override: Sendable, Hashable {
        case policy
        case copy(from: String)
        case value(AttributeValue?)
        /// `{ value: "expression", onFailure: nil }`: the expression, where each of
        /// its characters is in the file, and whether a failed conversion gives nil.
        case expression(String, at: ScalarPositions, nilOnFailure: Bool)
    }

    /// Whether a value expression is a call of the entity's policy,
    /// `FUNCTION($entityPolicy, 'selector:', …)`.
    public static func isPolicyCall(_ text: String) -> Bool {
        if case .invoke(.keyPath("entityPolicy", [], _), _, _, _)? = try? PredicateParser.expression(text) {
            return true
        }
        return false
    }

    /// What the file says about one destination entity.
    package struct EntityOverride: Sendable, Hashable {
        /// The destination entity; for a second mapping into an entity (`destination:`
        /// given), the entity mapping's name (Core Data's `<Source>To<Destination>`).
        package var name: String
        /// `destination: Entity`: this entry is a further entity mapping into that
        /// destination entity, beside the one under the entity's own name (a merge:
        /// objects of two source entities become objects of one).
        package var destination: String? = nil
        /// The policy producing its rows.
        package var policy: String?
        /// The source entity, when given.
        package var source: String?
        /// Property overrides with their locations.
        package var properties: [String: Override]
        /// Where the entity is named.
        package var location: SourceLocation
        /// Where each property override is written.
        package var propertyLocations: [String: SourceLocation]
        /// `filter: "predicate"`: which source objects become destination objects.
        package var filter: String? = nil
        /// Where the filter's text starts.
        package var filterLocation: SourceLocation? { filterPositions?.start }
        /// Where each character of the filter's text is in the file.
        package var filterPositions: ScalarPositions? = nil
        /// `mappingName: Name`: the entity's own mapping's name, where it is not Core Data's
        /// `<Source>To<Destination>` (an Xcode mapping model may name it anything; a policy
        /// asks the manager for objects by it). A further mapping's name is its key.
        package var mappingName: String? = nil

        /// How messages name the entry: `entity 'Open'`, or for a further mapping
        /// `entity mapping 'LockedToOpen'`.
        package var subject: String { destination == nil ? "entity '\(name)'" : "entity mapping '\(name)'" }

        /// Whether the policy runs set-based: the entity has a policy, at least one
        /// `FUNCTION($entityPolicy, …)` value and no property set by the policy's
        /// stages (`prop: policy`). The copy then calls the policy's functions; its
        /// object-graph stages do not run.
        package var isSetBased: Bool {
            guard policy != nil else { return false }
            var calls = false
            for value in properties.values {
                switch value {
                case .policy: return false
                case .expression(let text, _, _): calls = calls || MappingFile.isPolicyCall(text)
                default: continue
                }
            }
            return calls
        }
    }

    /// The file's path.
    package var path: String
    /// The source version (A).
    package var sourceVersion: Int
    /// The destination version (B).
    package var destinationVersion: Int
    /// Entity overrides, in file order.
    package var entities: [EntityOverride]
    /// SHA-256 of the file's bytes (hex): recorded in the migration history.
    package var digest: String

    /// Swift keywords a type cannot be named without backquotes.
    private static let keywords: Set<String> = [
        "Any", "Self", "Type", "as", "associatedtype", "break", "case", "catch", "class", "continue", "default",
        "defer",
        "deinit", "do", "else", "enum", "extension", "fallthrough", "false", "fileprivate", "for", "func", "guard",
        "if",
        "import", "in", "init", "inout", "internal", "is", "let", "nil", "open", "operator", "private", "protocol",
        "public", "repeat", "rethrows", "return", "self", "static", "struct", "subscript", "super", "switch", "throw",
        "throws", "true", "try", "typealias", "var", "where", "while",
    ]

    /// Whether `name` can name a policy's class: an identifier of ASCII letters, digits
    /// and `_`, not starting with a digit, and no keyword. It also names the policy's
    /// Swift file, so no path can hide in it.
    package static func isTypeName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !keywords.contains(name) else { return false }
        let letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
        return letters.unicodeScalars.contains(first)
            && name.unicodeScalars.allSatisfy { letters.unicodeScalars.contains($0) || ("0"..."9").contains($0) }
    }

    /// Whether `name` can name an entity mapping: any text Xcode keeps (it allows spaces),
    /// not empty, without control characters or surrounding spaces.
    package static func isMappingName(_ name: String) -> Bool {
        !name.isEmpty && name.trimmingCharacters(in: .whitespaces) == name
            && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// `A-to-B.yaml` → (A, B).
    package static func versions(ofFile path: String) -> (Int, Int)? {
        let name = (path as NSString).lastPathComponent
        let stem =
            name.hasSuffix(".yaml") ? name.dropLast(5) : name.hasSuffix(".yml") ? name.dropLast(4) : Substring(name)
        let parts = stem.components(separatedBy: "-to-")
        guard parts.count == 2, let a = Int(parts[0]), let b = Int(parts[1]), a >= 1, b >= 1 else { return nil }
        return (a, b)
    }

    /// Parses a mapping file; problems come back as diagnostics with file:line:column.
    package static func parse(path: String) -> (MappingFile?, [Diagnostic], String?) {
        guard let (a, b) = versions(ofFile: path) else {
            return (
                nil,
                [Diagnostic(.error, "\(path): a mapping file is named <A>-to-<B>.yaml (e.g. 1-to-2.yaml)", at: nil)],
                nil
            )
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            return (nil, [Diagnostic(.error, "\(path): cannot read the file", at: nil)], nil)
        }
        let bytes = [UInt8](data)
        let text = String(decoding: bytes, as: UTF8.self)
        let root: YAMLNode
        do {
            root = try YAMLLoader.load(bytes: bytes, file: path)
        } catch {
            return (
                nil,
                [
                    Diagnostic(
                        .error, error.message, at: error.location ?? SourceLocation(file: path, line: 1, column: 1))
                ], text
            )
        }
        var reader = NodeReader(file: path)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var entities: [EntityOverride] = []
        for (key, _, value) in reader.mapping(root, subject: "mapping file", allowed: ["entities"]) ?? []
        where key == "entities" {
            for (name, keyNode, body) in reader.mapping(value, subject: "entities", allowed: []) ?? [] {
                entities.append(parseEntity(name, keyNode: keyNode, body: body, reader: &reader, lines: lines))
            }
        }
        if !(root.mappingPairs ?? []).contains(where: { $0.key.scalarText == "entities" }) {
            reader.error("mapping file: missing required key 'entities'", at: root)
        }
        let file = MappingFile(
            path: path, sourceVersion: a, destinationVersion: b, entities: entities,
            digest: VersionHasher.sha256Hex(bytes))
        return (reader.diagnostics.contains { $0.severity == .error } ? nil : file, reader.diagnostics, text)
    }

    /// One entry under `entities:`.
    private static func parseEntity(
        _ name: String, keyNode: YAMLNode, body: YAMLNode, reader: inout NodeReader, lines: [Substring]
    ) -> EntityOverride {
        let subject = "entity '\(name)'"
        var entity = EntityOverride(
            name: name, policy: nil, source: nil, properties: [:], location: keyNode.location,
            propertyLocations: [:])
        let allowed = ["policy", "source", "destination", "properties", "filter", "mappingName"]
        for (entityKey, _, entityValue) in reader.mapping(body, subject: subject, allowed: allowed) ?? [] {
            switch entityKey {
            case "mappingName":
                entity.mappingName = reader.string(entityValue, subject: "\(subject): mappingName")
                if let name = entity.mappingName, !Self.isMappingName(name) {
                    reader.error(
                        """
                        \(subject): mappingName '\(name)' is empty, has surrounding spaces or a control character
                        """,
                        at: entityValue,
                        hint: "Core Data's name is `<Source>To<Destination>`; leave the key out for it")
                    entity.mappingName = nil
                }
            case "destination":
                entity.destination = reader.string(entityValue, subject: "\(subject): destination")
            case "policy":
                entity.policy = reader.string(entityValue, subject: "\(subject): policy")
                if let name = entity.policy, !Self.isTypeName(name) {
                    reader.error(
                        "\(subject): policy '\(name)' is not a Swift type name", at: entityValue,
                        hint:
                            """
                            letters, digits and _, not starting with a digit, and no Swift keyword (it names the \
                            policy's class)
                            """
                    )
                    entity.policy = nil
                }
            case "filter":
                entity.filter = reader.string(entityValue, subject: "\(subject): filter")
                entity.filterPositions = positions(entityValue, lines: lines)
            case "source": entity.source = reader.string(entityValue, subject: "\(subject): source")
            case "properties":
                for (property, propertyKey, node) in reader.mapping(
                    entityValue, subject: "\(subject): properties", allowed: []) ?? []
                {
                    entity.propertyLocations[property] = propertyKey.location
                    if let override = parseOverride(
                        node, subject: "property '\(name).\(property)'", reader: &reader, lines: lines)
                    {
                        entity.properties[property] = override
                    }
                }
            default: break
            }
        }
        return entity
    }

    /// Where a scalar's text starts: one column after its opening quote; for a
    /// block scalar (`|`, `>`), the first content line at its indentation.
    private static func textStart(_ node: YAMLNode, lines: [Substring]) -> SourceLocation {
        var location = node.location
        guard case .scalar(_, let style) = node.content else { return location }
        switch style {
        case .singleQuoted, .doubleQuoted:
            location.column += 1
        case .literal, .folded:
            // The indicator's line is node.location.line; content starts below it.
            var line = location.line
            while line < lines.count, lines[line].allSatisfy({ $0 == " " }) { line += 1 }
            guard line < lines.count else { return location }
            location.line = line + 1
            location.column = lines[line].prefix(while: { $0 == " " }).count + 1
        case .plain:
            break
        }
        return location
    }

    /// Where each character of a scalar's text is in the file.
    private static func positions(_ node: YAMLNode, lines: [Substring]) -> ScalarPositions {
        let start = textStart(node, lines: lines)
        guard case .scalar(let text, let style) = node.content else { return ScalarPositions(start: start) }
        return ScalarPositions(value: text, style: style, start: start, lines: lines)
    }

    private static func parseOverride(_ node: YAMLNode, subject: String, reader: inout NodeReader, lines: [Substring])
        -> Override?
    {
        if case .scalar(let text, _) = node.content, !node.isNull {
            if text == "policy" { return .policy }
            if text.hasPrefix("$source.") { return .copy(from: String(text.dropFirst(8))) }
            reader.error(
                """
                \(subject): expected `policy`, `$source.<name>`, `{ default: value }` or `{ value: \"expression\" }`, \
                found '\(text)'
                """,
                at: node)
            return nil
        }
        guard let pairs = reader.mapping(node, subject: subject, allowed: ["default", "value", "onFailure"]) else {
            return nil
        }
        if let expression = pairs.first(where: { $0.key == "value" })?.value {
            if pairs.contains(where: { $0.key == "default" }) {
                reader.error("\(subject): give `value:` or `default:`, not both", at: node)
                return nil
            }
            var nilOnFailure = false
            if let failure = pairs.first(where: { $0.key == "onFailure" })?.value {
                switch failure.isNull ? "nil" : failure.scalarText {
                case "nil"?: nilOnFailure = true
                case "fail"?: nilOnFailure = false
                default:
                    reader.error(
                        "\(subject): onFailure: expected `nil` (a value that does not convert becomes nil) "
                            + "or `fail` (the migration fails, the default)", at: failure)
                    return nil
                }
            }
            guard let text = reader.string(expression, subject: "\(subject): value") else { return nil }
            return .expression(text, at: positions(expression, lines: lines), nilOnFailure: nilOnFailure)
        }
        if pairs.contains(where: { $0.key == "onFailure" }) {
            reader.error("\(subject): onFailure goes with `value:`", at: node)
            return nil
        }
        guard let value = pairs.first(where: { $0.key == "default" })?.value else {
            reader.error("\(subject): expected `{ default: value }` or `{ value: \"expression\" }`", at: node)
            return nil
        }
        // Parsed against the destination type when validated; kept as text here.
        return value.isNull ? .value(nil) : .value(.string(value.scalarText ?? ""))
    }
}
