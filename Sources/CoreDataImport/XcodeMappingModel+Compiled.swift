import Foundation
import PropertyList

/// A compiled mapping model (`.cdm`, what `mapc` makes of an `.xcmappingmodel`): an
/// `NSKeyedArchiver` archive of `NSMappingModel`, read into the same value an
/// `xcmapping.xml` gives, so that one converter writes the mapping file.
///
/// The keys are Core Data's, as a real `.cdm` holds them (CoreDataPlus's
/// `V2toV3.cdm`): `NSMappingModel` has `NSEntityMappings`; each `NSEntityMapping` has
/// `NSMappingName`, `NSSourceEntityName`, `NSDestinationEntityName`, `NSMappingType`,
/// `NSEntityMigrationPolicyClassName`, `NSSourceExpression`, `NSUserInfo`,
/// `NSSourceEntityVersionHash`, `NSDestinationEntityVersionHash`, `NSAttributeMappings`
/// and `NSRelationshipMappings`; each `NSPropertyMapping` has
/// `NSDestinationPropertyName`, `NSValueExpression`, `NSUserInfo`. Expressions are
/// objects of the one archive; each is handed on as an archive of its own (the same
/// objects, rooted at it), as `xcmapping.xml` holds them.
extension XcodeMappingModel {
    /// `NSEntityMappingType` → the names Xcode writes (`mappingtypename`).
    static let compiledMappingTypes: [Int64: String] = [
        0: "Undefined", 1: "Custom", 2: "Add", 3: "Remove", 4: "Copy", 5: "Transform",
    ]

    /// Reads the compiled mapping model at `cdm`; `path` names it in messages (the
    /// `.xcmappingmodel` it was compiled from, or the `.cdm` itself).
    package static func readCompiled(cdm: String, path: String) throws(ImportError) -> XcodeMappingModel {
        guard let data = FileManager.default.contents(atPath: cdm) else {
            throw ImportError(.unreadable, "\(cdm): cannot read the file")
        }
        return try parseCompiled([UInt8](data), cdm: cdm, path: path)
    }

    /// Parses the bytes of a `.cdm`.
    package static func parseCompiled(_ bytes: [UInt8], cdm: String, path: String) throws(ImportError)
        -> XcodeMappingModel
    {
        let archive: KeyedArchive
        do { archive = try KeyedArchive(try BinaryPropertyList.decodeArchive(bytes)) } catch {
            throw ImportError(.malformed, "\(cdm): not an NSKeyedArchiver archive (a compiled mapping model is one)")
        }
        guard archive.className(archive.top) == "NSMappingModel", let model = archive.fields(archive.top) else {
            throw ImportError(
                .malformed,
                "\(cdm): the archive's root is \(archive.className(archive.top) ?? "no object"), not an NSMappingModel")
        }
        var entityMappings: [EntityMapping] = []
        var problems: [String] = []
        for (index, value) in archive.array(model["NSEntityMappings"]).enumerated() {
            guard archive.className(value) == "NSEntityMapping", let fields = archive.fields(value) else {
                problems.append(
                    """
                    \(cdm): entity mapping \(index + 1) is \(archive.className(value) ?? "no object"), not an \
                    NSEntityMapping
                    """
                )
                continue
            }
            entityMappings.append(compiledEntityMapping(fields, number: index + 1, archive))
        }
        if !problems.isEmpty { throw ImportError(.malformed, problems) }
        let known: Set<String> = ["NSEntityMappings", "NSEntityMappingsByName", "$class"]
        var result = XcodeMappingModel(
            path: path, sourceModelPath: nil, destinationModelPath: nil, embedsModels: false,
            entityMappings: entityMappings,
            unknown: model.keys.filter { !known.contains($0) }.sorted().map { "mapping model key '\($0)'" })
        result.recordedHashes = compiledEntityHashes(archive)
        return result
    }

    private static func compiledEntityMapping(
        _ fields: [String: PropertyListValue], number: Int, _ archive: KeyedArchive
    ) -> EntityMapping {
        var type: String?
        if case .integer(let code)? = archive.resolve(fields["NSMappingType"]) {
            type = compiledMappingTypes[code] ?? "type \(code)"
        }
        // Core Data's default fetch names its predicate; anything else is handed on as a custom fetch.
        var filter: String?
        var sourceExpression: [UInt8]?
        if archive.resolve(fields["NSSourceExpression"]) != nil {
            switch defaultFetchPredicate(fields["NSSourceExpression"], archive) {
            case let predicate?: filter = predicate == "TRUEPREDICATE" ? nil : predicate
            case nil: sourceExpression = rooted(fields["NSSourceExpression"], archive)
            }
        }
        func properties(_ key: String, dropEmpty: Bool) -> [PropertyMapping] {
            archive.array(fields[key]).compactMap { value in
                guard let property = archive.fields(value),
                    let name = archive.string(property["NSDestinationPropertyName"])
                else { return nil }
                let expression =
                    archive.resolve(property["NSValueExpression"]) == nil
                    ? nil : rooted(property["NSValueExpression"], archive)
                // An attribute mapping without an expression leaves the attribute at its default,
                // as no attribute mapping does; in xcmapping.xml none means `$source.<name>`.
                if dropEmpty && expression == nil { return nil }
                return PropertyMapping(
                    name: name, valueExpression: expression, autogenerates: false, sourceKeyPath: nil,
                    sourceMappingName: nil,
                    userInfo: archive.resolve(property["NSUserInfo"]) == nil
                        ? nil : rooted(property["NSUserInfo"], archive),
                    unknown: [], line: 0)
            }
        }
        return EntityMapping(
            name: archive.string(fields["NSMappingName"]), source: archive.string(fields["NSSourceEntityName"]),
            destination: archive.string(fields["NSDestinationEntityName"]), mappingType: type, number: number,
            policyClass: archive.string(fields["NSEntityMigrationPolicyClassName"]),
            autogeneratesSource: sourceExpression == nil, filterPredicate: filter, sourceExpression: sourceExpression,
            userInfo: archive.resolve(fields["NSUserInfo"]) == nil ? nil : rooted(fields["NSUserInfo"], archive),
            attributes: properties("NSAttributeMappings", dropEmpty: true),
            relationships: properties("NSRelationshipMappings", dropEmpty: false), unknown: [], line: 0)
    }

    /// The predicate string of Core Data's default source fetch
    /// (`NSFetchRequestExpression` whose request is
    /// `FUNCTION($manager, 'fetchRequestForSourceEntityNamed:predicateString:', E, P)`).
    private static func defaultFetchPredicate(_ value: PropertyListValue?, _ archive: KeyedArchive) -> String? {
        guard archive.className(value) == "NSFetchRequestExpression", let fields = archive.fields(value) else {
            return nil
        }
        var budget = 1_000
        let request = ArchivedExpression.decode(fields["NSFRExpression"], archive, depth: 0, budget: &budget)
        guard
            case .function(.variable("manager")?, "fetchRequestForSourceEntityNamed:predicateString:", let arguments) =
                request,
            arguments.count == 2, case .constant(.string(let predicate)) = arguments[1]
        else { return nil }
        return predicate
    }

    /// The archive rooted at `value`: an archive of that object alone, as
    /// `xcmapping.xml` holds each expression.
    static func rooted(_ value: PropertyListValue?, _ archive: KeyedArchive) -> [UInt8] {
        BinaryPropertyList.encodeArchive(
            .dictionary([
                "$version": .integer(100_000), "$archiver": .string("NSKeyedArchiver"),
                "$top": .dictionary(["root": value ?? .string("$null")]), "$objects": .array(archive.objects),
            ]))
    }

    /// The entity version hashes a compiled mapping model records for its source and
    /// destination entities (32 bytes each, Core Data's `versionHash`), by entity name.
    static func compiledEntityHashes(_ archive: KeyedArchive) -> (
        source: [String: [UInt8]], destination: [String: [UInt8]]
    )? {
        guard let model = archive.fields(archive.top) else { return nil }
        var source: [String: [UInt8]] = [:], destination: [String: [UInt8]] = [:]
        for value in archive.array(model["NSEntityMappings"]) {
            guard let fields = archive.fields(value) else { continue }
            if let name = archive.string(fields["NSSourceEntityName"]),
                case .data(let hash)? = archive.resolve(fields["NSSourceEntityVersionHash"])
            {
                source[name] = hash
            }
            if let name = archive.string(fields["NSDestinationEntityName"]),
                case .data(let hash)? = archive.resolve(fields["NSDestinationEntityVersionHash"])
            {
                destination[name] = hash
            }
        }
        return (source, destination)
    }
}
