import DataModel
import Foundation
import Mapping
import Predicates

/// Attribute and relationship mappings: each property's source as Xcode writes it.
///
/// | mapping file | Xcode |
/// |---|---|
/// | `p: $source.p` (or inferred) | an attribute mapping without a value expression (Xcode's own `$source.p`) |
/// | `p: $source.q` | `$source.q` |
/// | `p: { default: v }` | the constant `v`; none when `v` is the model's default (the attribute keeps it) |
/// | the same on an entity with a policy | the constant (import reads an attribute nothing sets there as `policy`) |
/// | `p: { value: "…" }` | the expression, archived |
/// | `p: policy` | no attribute mapping (an empty one where the source lacks `p`): the policy sets it |
/// | `r: $source.s` | a relationship mapping Xcode generates from `$source.s` |
/// | `r: { default: null }` | a relationship mapping without an expression (the relationship starts empty); |
/// | | generated when the source lacks `r` |
extension MappingFileExporter {
    func attributeMapping(
        _ attribute: CompiledAttribute, _ context: PropertyContext, omissions: inout [String]
    ) -> XcodeMappingModel.PropertyMapping? {
        let name = attribute.name
        let place = "\(context.place).\(name)"
        func mapping(_ expression: ArchivedExpression?) -> XcodeMappingModel.PropertyMapping {
            XcodeMappingModel.PropertyMapping(
                name: name, valueExpression: expression.map(ExpressionArchiver.archive), autogenerates: false,
                sourceKeyPath: nil, sourceMappingName: nil, userInfo: nil, unknown: [], line: 0)
        }
        switch context.source(of: name, isRelationship: false) {
        case .policy:
            // An empty mapping where the source has no namesake (Xcode's own for a new
            // attribute: import reads it as the policy's, in this order); none where it has
            // one (an empty mapping would copy it).
            return context.sourceEntity.attribute(named: name) == nil ? mapping(nil) : nil
        case .copy(let from), .convert(let from, .widen), .convert(let from, .reshape), .convert(let from, .reorder):
            return mapping(copy(from, name, context))
        case .convert(let from, .fillDefault):
            // Listed as a copy: Core Data's copy (a nil is refused). Inferred: nil takes the default.
            if case .copy? = context.override?.properties[name] { return mapping(copy(from, name, context)) }
            guard let value = attribute.declaration.defaultValue, let constant = constant(value, attribute, text: nil)
            else {
                return mapping(copy(from, name, context))
            }
            let path = ArchivedExpression.keyPath(base: .variable("source"), components: [from])
            let present = ArchivedPredicate.comparison(
                modifier: "", left: path, operator: "!=", options: "", right: .constant(.null))
            return mapping(.conditional(present, path, .constant(constant)))
        case .defaultValue(let value):
            // The model's own default: no attribute mapping, so the attribute keeps it.
            let typed = value.flatMap { typedValue($0, attribute) }
            if typed == attribute.declaration.defaultValue, context.override?.policy != nil, !context.policyRunsSetBased
            {
                // Import reads an attribute that nothing sets, on an entity with a policy, as
                // `policy`: the default is written as the constant it is.
                guard let typed else { return mapping(.constant(.null)) }
                if let constant = constant(typed, attribute, text: nil) { return mapping(.constant(constant)) }
            }
            // An empty mapping where the source has no namesake but inference would copy
            // another attribute (its renaming identifier's): Core Data sets nothing then.
            if typed == attribute.declaration.defaultValue, context.sourceEntity.attribute(named: name) == nil,
                context.inferred[name] != nil, case .value? = context.override?.properties[name]
            {
                return mapping(nil)
            }
            // Written where the file says it and inference pairs no source attribute: import
            // writes nothing for an attribute nothing sets then, so it comes back as written.
            if typed == attribute.declaration.defaultValue, context.inferred[name] == nil,
                case .value? = context.override?.properties[name],
                let typed, let constant = constant(typed, attribute, text: context.defaultText(of: name))
            {
                return mapping(.constant(constant))
            }
            if typed == attribute.declaration.defaultValue { return nil }
            guard let typed else { return mapping(.constant(.null)) }
            guard let constant = constant(typed, attribute, text: context.defaultText(of: name)) else {
                omissions.append(
                    """
                    \(place): { default: \(typed.displayText) }: a \(attribute.declaration.type) constant has no \
                    archived form here; not written
                    """
                )
                return nil
            }
            return mapping(.constant(constant))
        case .expression(let text, let nilOnFailure):
            if nilOnFailure {
                omissions.append(
                    """
                    \(place): onFailure: nil has no place in Xcode's format (Core Data fails the migration on a value \
                    that does not convert)
                    """
                )
            }
            guard let syntax = try? PredicateParser.expression(text) else {
                omissions.append("\(place): \(text): not an expression NSExpression can read; not written")
                return nil
            }
            return mapping(ArchivedExpression(syntax))
        }
    }

    /// A copy of `from`: no expression when it is the same-named source attribute, as
    /// Xcode writes the mapping it generates (`$source.<name>` at compile time).
    private func copy(_ from: String, _ name: String, _ context: PropertyContext) -> ArchivedExpression? {
        if from == name, context.sourceEntity.attribute(named: name) != nil { return nil }
        return .keyPath(base: .variable("source"), components: from.split(separator: ".").map(String.init))
    }

    /// A default as the type the attribute has (the file's text is parsed when no resolved mapping typed it).
    private func typedValue(_ value: AttributeValue, _ attribute: CompiledAttribute) -> AttributeValue? {
        guard case .string(let text) = value, attribute.declaration.type != .string else { return value }
        if case .success(let typed) = DefaultValueParser.parse(text, as: attribute.declaration.type) { return typed }
        return value
    }

    /// The constant Core Data sets: a number (an integer when the file writes one), a
    /// string, a boolean, a date; nil for what has no archived constant here.
    private func constant(_ value: AttributeValue, _ attribute: CompiledAttribute, text: String?) -> ArchivedExpression
        .Constant?
    {
        switch value {
        case .integer(let n): return .integer(n)
        case .double(let d):
            if let text, let n = Int64(text) { return .integer(n) }
            return .real(d)
        case .decimal(let text):
            // An NSDecimalNumber, exact: a double would round what the file writes.
            if let n = Int64(text) { return .integer(n) }
            return ExpressionArchiver.decimalFields(text) == nil ? nil : .decimal(text)
        case .string(let s): return .string(s)
        case .boolean(let b): return .boolean(b)
        case .date(let seconds): return .date(seconds)
        case .binary, .uuid, .uri: return nil
        }
    }

    func relationshipMapping(
        _ relationship: CompiledRelationship, _ context: PropertyContext, omissions: inout [String]
    ) -> XcodeMappingModel.PropertyMapping? {
        let name = relationship.name
        var mapping = XcodeMappingModel.PropertyMapping(
            name: name, valueExpression: nil, autogenerates: false, sourceKeyPath: nil, sourceMappingName: nil,
            userInfo: nil,
            unknown: [], line: 0)
        switch context.source(of: name, isRelationship: true) {
        case .policy:
            return nil
        case .copy(let from), .convert(let from, _):
            // Xcode generates `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", …)`
            // from the key path, through the mapping of the related entity.
            mapping.autogenerates = true
            if from != name, !filledThroughInverse(relationship, context) { mapping.sourceKeyPath = "$source.\(from)" }
        case .defaultValue:
            // No expression: nothing sets it, so it starts empty. A new relationship (the
            // source has none of its name) is generated, as Xcode generates it: with no
            // source key path to read, Core Data writes no expression for it either (import
            // then says which source relationship it may continue: BookPlayer 7 → 8). Not on
            // an entity with a policy, where import reads it as the policy's.
            if context.sourceEntity.relationship(named: name) == nil, context.override?.policy == nil {
                mapping.autogenerates = true
            }
        case .expression(let text, _):
            guard let syntax = try? PredicateParser.expression(text) else {
                omissions.append(
                    "\(context.place).\(name): \(text): not an expression NSExpression can read; not written")
                return nil
            }
            mapping.valueExpression = ExpressionArchiver.archive(ArchivedExpression(syntax))
        }
        return mapping
    }
}

extension MappingFileExporter {
    /// Whether Core Data fills an inferred, renamed relationship through its inverse, as
    /// Xcode's generated mapping model leaves it: the source has no relationship of its
    /// name (so Xcode generates no expression for it) and the inverse is carried by the
    /// mapping of its own entity, and Core Data sets an inverse whenever one side is set.
    func filledThroughInverse(_ relationship: CompiledRelationship, _ context: PropertyContext) -> Bool {
        guard context.override?.properties[relationship.name] == nil,
            context.sourceEntity.relationship(named: relationship.name) == nil,
            let inverse = relationship.declaration.inverse, let inverseEntity = relationship.inverseEntity
        else { return false }
        switch resolved?.mapping(forDestination: inverseEntity)?.property(inverse)?.source {
        case .copy?, .convert?: return true
        default: return false
        }
    }
}
