import DataModel
import Predicates

/// A relationship's `value:` in a mapping file, as Core Data's mapping models write it:
/// `FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'M', $source.r)`
/// (or `…SourceRelationshipNamed:…` with `'r'`): the destination objects that mapping `M`
/// makes from the objects of `r`. Where `M` carries `r`'s entity over, that is the
/// relationship copied (`$source.r`), which the hop's set-based copy already does.
extension MappingResolver {
    /// A refusal: the detail and the 1-based column inside the expression.
    struct RelationshipValueError: Error {
        var detail: String
        var column: Int
    }

    static let destinationInstancesSelectors = [
        "destinationInstancesForEntityMappingNamed:sourceInstances:",
        "destinationInstancesForSourceRelationshipNamed:sourceInstances:",
    ]

    /// The source relationship the expression copies, or why it has no set-based form here.
    /// `owner`: the destination entity whose mapping sets the relationship (a
    /// subentity of the one declaring it, possibly).
    static func copiedRelationship(
        _ text: String, for relationship: CompiledRelationship, in owner: String? = nil, sourceEntity: CompiledEntity,
        source: CompiledVersion, destination: CompiledVersion,
        mapping: MappingModel, file: MappingFile? = nil
    ) throws(RelationshipValueError) -> RelationshipValue {
        let syntax: ExpressionSyntax
        do { syntax = try PredicateParser.expression(text) } catch {
            throw RelationshipValueError(detail: error.detail, column: error.column)
        }
        let form =
            """
            FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', '<Mapping>', \
            $source.<relationship>)
            """
        guard case .invoke(.keyPath("manager", [], _), let selector, let arguments, let at) = syntax,
            destinationInstancesSelectors.contains(selector), arguments.count == 2
        else {
            throw RelationshipValueError(
                detail: "a relationship's value is the destination objects of source objects: \(form)",
                column: syntax.position + 1)
        }
        guard case .string(let name, let nameAt) = arguments[0] else {
            throw RelationshipValueError(
                detail: "\(selector) takes a name in quotes first", column: arguments[0].position + 1)
        }
        if case .keyPath("source", [], let selfAt) = arguments[1] {
            return try sameObject(
                selector: selector, name: name, nameAt: nameAt, at: selfAt, for: relationship,
                in: owner ?? relationship.declaredIn,
                sourceEntity: sourceEntity,
                destination: destination, mapping: mapping, file: file)
        }
        guard case .keyPath("source", let components, let pathAt) = arguments[1], !components.isEmpty else {
            throw RelationshipValueError(
                detail: """
                    the source instances are $source.<relationship> here (the objects \(sourceEntity.name) is related \
                    to); \(arguments[1].position == at ? "" : "other sources ")have no set-based form: fill it in a \
                    policy
                    """, column: arguments[1].position + 1)
        }
        let path = "$source." + components.joined(separator: ".")
        guard components.count == 1, let from = sourceEntity.relationship(named: components[0]) else {
            guard components.count > 1 else {
                throw RelationshipValueError(
                    detail: "\(sourceEntity.name) has no relationship '\(components[0])' in version \(source.version)",
                    column: pathAt + 1)
            }
            return try throughPath(
                components, at: pathAt, selector: selector, name: name, nameAt: nameAt, for: relationship,
                sourceEntity: sourceEntity, source: source, destination: destination, mapping: mapping, file: file)
        }
        if selector.hasPrefix("destinationInstancesForSourceRelationshipNamed:") {
            guard name == from.name else {
                throw RelationshipValueError(
                    detail: "'\(name)' names another relationship than \(path)", column: nameAt + 1)
            }
            return .copy(from.name)
        }
        try carries(
            name, at: nameAt, from.declaration.destination, to: relationship, path: path, source: source,
            destination: destination,
            mapping: mapping)
        return .copy(from.name)
    }

    /// Where the objects come from: one source relationship, copied; or a key path the
    /// planner computes (`$source.country.continent`).
    enum RelationshipValue: Equatable {
        case copy(String)
        case path(String)
    }

    /// Refuses unless entity mapping `name` makes `relationship`'s destination objects out
    /// of the `related` objects the path reaches.
    static func carries(
        _ name: String, at nameAt: Int, _ related: String, to relationship: CompiledRelationship, path: String,
        source: CompiledVersion, destination: CompiledVersion, mapping: MappingModel
    ) throws(RelationshipValueError) {
        guard let carrier = mapping.entityMappings.first(where: { $0.name == name }) else {
            let names = mapping.entityMappings.filter { $0.destination != nil }.map(\.name)
            throw RelationshipValueError(
                detail: """
                    no entity mapping of this hop is named '\(name)' (\(names.joined(separator: ", ")))
                    """, column: nameAt + 1)
        }
        let target = relationship.declaration.destination
        guard let carried = carrier.source, source.subtree(of: related).contains(carried),
            let made = carrier.destination, destination.subtree(of: target).contains(made)
        else {
            throw RelationshipValueError(
                detail: """
                    '\(name)' maps \(carrier.source ?? "nothing") to \(carrier.destination ?? "nothing"), \
                    not the \(related) objects of \(path) to \(target) objects
                    """, column: nameAt + 1)
        }
    }

    /// A many-to-many's two sides are one set of pairs: when the file gives the inverse a
    /// value too, it must be the reverse key path (the same pairs read the other way).
    static func checkInverseValue(
        of relationship: CompiledRelationship, hops: [CompiledRelationship], path: String, file: MappingFile?,
        refuse: (String) -> RelationshipValueError
    ) throws(RelationshipValueError) {
        guard let inverseName = relationship.declaration.inverse, let inverseOwner = relationship.inverseEntity,
            let written = file?.entities.first(where: { $0.name == inverseOwner })?.properties[inverseName]
        else { return }
        let reverse = hops.reversed().map { $0.declaration.inverse }
        if case .expression(let text, _, _) = written,
            case .invoke(_, _, let arguments, _)? = try? PredicateParser.expression(text),
            arguments.count == 2, case .keyPath("source", let back, _) = arguments[1],
            back.filter({ !setOperators.contains($0) }) == reverse.compactMap({ $0 }), !reverse.contains(nil)
        {
            return
        }
        throw refuse(
            """
            \(relationship.name) and its inverse \(inverseOwner).\(inverseName) are one set of pairs: give the inverse \
            no value, or the reverse key \
            path\(reverse.contains(nil) ? "" : " ($source.\(reverse.compactMap { $0 }.joined(separator: ".")))")
            """)
    }

    /// Key-value coding's set operators: over sets, a union of the objects' sets.
    static let setOperators: Set<String> = [
        "@distinctUnionOfSets", "@unionOfSets", "@distinctUnionOfObjects", "@unionOfObjects",
    ]

    /// A key path through several relationships (`$source.country.continent`,
    /// `$source.countries.@distinctUnionOfSets.moods`): for a to-one, the object reached
    /// through to-ones, computed by the planner; for a to-many, only where its to-one
    /// inverse is filled by the reverse path, which then stores both sides.
    static func throughPath(
        _ components: [String], at pathAt: Int, selector: String, name: String, nameAt: Int,
        for relationship: CompiledRelationship, sourceEntity: CompiledEntity, source: CompiledVersion,
        destination: CompiledVersion, mapping: MappingModel, file: MappingFile?
    ) throws(RelationshipValueError)
        -> RelationshipValue
    {
        let path = "$source." + components.joined(separator: ".")
        func refuse(_ detail: String) -> RelationshipValueError {
            RelationshipValueError(detail: detail, column: pathAt + 1)
        }
        guard selector.hasPrefix("destinationInstancesForEntityMappingNamed:") else {
            throw refuse("'\(selector)' takes one source relationship ($source.<relationship>)")
        }
        var entity = sourceEntity
        var hops: [CompiledRelationship] = []
        for key in components where !setOperators.contains(key) {
            guard !key.hasPrefix("@"), let hop = entity.relationship(named: key), !hop.declaration.isTransient,
                let next = source.entity(named: hop.declaration.destination)
            else {
                throw refuse("\(path): '\(key)' is not a relationship of \(entity.name) in version \(source.version)")
            }
            hops.append(hop)
            entity = next
        }
        try carries(
            name, at: nameAt, entity.name, to: relationship, path: path, source: source, destination: destination,
            mapping: mapping)
        let keys = "$source." + hops.map(\.name).joined(separator: ".")
        if !relationship.declaration.isToMany {
            guard hops.allSatisfy({ !$0.declaration.isToMany }) else {
                throw refuse(
                    "\(path) reaches many objects through a to-many relationship; \(relationship.name) is a to-one")
            }
            return .path(keys)
        }
        let inverseName = relationship.declaration.inverse, inverseOwner = relationship.inverseEntity
        let inverse = inverseName.flatMap { name in
            inverseOwner.flatMap { destination.entity(named: $0)?.relationship(named: name) }
        }
        // A many-to-many, or a to-many without an inverse: its pairs are the chained pairs of
        // the relationships on the way, both ends carried over with their keys (one join,
        // set-based; SegmentPlanner.pathPairs).
        if inverse?.declaration.isToMany ?? true {
            try checkInverseValue(of: relationship, hops: hops, path: path, file: file, refuse: refuse)
            return .path(keys)
        }
        guard let inverseName, let inverseOwner else { return .path(keys) }
        var reverse: [String] = []
        for hop in hops.reversed() {
            guard let inverse = hop.declaration.inverse else {
                throw refuse("\(path): \(hop.name) has no inverse to follow back")
            }
            reverse.append(inverse)
        }
        // The inverse's own value, as written in the file.
        let written = file?.entities.first { $0.name == inverseOwner }?.properties[inverseName]
        guard case .expression(let text, _, _)? = written,
            case .invoke(_, _, let arguments, _)? = try? PredicateParser.expression(text),
            arguments.count == 2, case .keyPath("source", let back, _) = arguments[1],
            back.filter({ !setOperators.contains($0) }) == reverse
        else {
            throw refuse(
                """
                \(relationship.name) is stored by its inverse \(inverseOwner).\(inverseName): give that the reverse \
                key path (FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', …, \
                $source.\(reverse.joined(separator: ".")))), or fill both in a policy
                """)
        }
        return .path(keys)
    }
}
