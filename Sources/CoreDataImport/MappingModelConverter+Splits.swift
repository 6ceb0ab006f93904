/// Entity mappings sharing a source entity (Core Data's "a third split into two"):
/// each is written to the mapping file and makes its own objects.
extension MappingModelConverter {
    /// One line per source entity that several entity mappings read.
    static func splits(of mappingModel: XcodeMappingModel) -> [String] {
        var bySource: [String: [XcodeMappingModel.EntityMapping]] = [:]
        var order: [String] = []
        for entityMapping in mappingModel.entityMappings where entityMapping.destination != nil {
            guard let source = entityMapping.source else { continue }
            if bySource[source] == nil { order.append(source) }
            bySource[source, default: []].append(entityMapping)
        }
        return order.compactMap { source in
            guard let mappings = bySource[source], mappings.count > 1 else { return nil }
            let made = mappings.map { "\($0.destination ?? "?") (\($0.effectiveName))" }.joined(separator: ", ")
            return "\(source) feeds \(mappings.count) entities, each from every \(source) object: \(made)"
        }
    }
}
