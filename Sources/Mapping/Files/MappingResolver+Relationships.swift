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

    static let destinationInstancesSelectors = ["destinationInstancesForEntityMappingNamed:sourceInstances:",
                                                "destinationInstancesForSourceRelationshipNamed:sourceInstances:"]

    /// The source relationship the expression copies, or why it has no set-based form here.
    static func copiedRelationship(_ text: String, for relationship: CompiledRelationship, sourceEntity: CompiledEntity,
                                   source: CompiledVersion, destination: CompiledVersion,
                                   mapping: MappingModel) throws(RelationshipValueError) -> String {
        let syntax: ExpressionSyntax
        do { syntax = try PredicateParser.expression(text) } catch { throw RelationshipValueError(detail: error.detail, column: error.column) }
        let form = "FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', '<Mapping>', $source.<relationship>)"
        guard case .invoke(.keyPath("manager", [], _), let selector, let arguments, let at) = syntax,
              destinationInstancesSelectors.contains(selector), arguments.count == 2 else {
            throw RelationshipValueError(detail: "a relationship's value is the destination objects of source objects: \(form)",
                                         column: syntax.position + 1)
        }
        guard case .string(let name, let nameAt) = arguments[0] else {
            throw RelationshipValueError(detail: "\(selector) takes a name in quotes first", column: arguments[0].position + 1)
        }
        guard case .keyPath("source", let components, let pathAt) = arguments[1], !components.isEmpty else {
            throw RelationshipValueError(detail: """
                the source instances are $source.<relationship> here (the objects \(sourceEntity.name) is related to); \
                \(arguments[1].position == at ? "" : "other sources ")have no set-based form: fill it in a policy
                """, column: arguments[1].position + 1)
        }
        let path = "$source." + components.joined(separator: ".")
        guard components.count == 1, let from = sourceEntity.relationship(named: components[0]) else {
            let detail = components.count == 1
                ? "\(sourceEntity.name) has no relationship '\(components[0])' in version \(source.version)"
                : """
                  \(path) reaches its objects through more than one relationship or a set operator; the set-based copy \
                  follows one relationship ($source.<relationship>): fill \(relationship.name) in a policy
                  """
            throw RelationshipValueError(detail: detail, column: pathAt + 1)
        }
        if selector.hasPrefix("destinationInstancesForSourceRelationshipNamed:") {
            guard name == from.name else {
                throw RelationshipValueError(detail: "'\(name)' names another relationship than \(path)", column: nameAt + 1)
            }
            return from.name
        }
        guard let carrier = mapping.entityMappings.first(where: { $0.name == name }) else {
            let names = mapping.entityMappings.filter { $0.destination != nil }.map(\.name)
            throw RelationshipValueError(detail: """
                no entity mapping of this hop is named '\(name)' (\(names.joined(separator: ", ")))
                """, column: nameAt + 1)
        }
        let related = from.declaration.destination, target = relationship.declaration.destination
        guard let carried = carrier.source, source.subtree(of: related).contains(carried),
              let made = carrier.destination, destination.subtree(of: target).contains(made) else {
            throw RelationshipValueError(detail: """
                '\(name)' maps \(carrier.source ?? "nothing") to \(carrier.destination ?? "nothing"), \
                not the \(related) objects of \(path) to \(target) objects
                """, column: nameAt + 1)
        }
        return from.name
    }
}
