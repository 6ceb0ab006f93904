import DataModel

/// The names Xcode's model XML gives attribute types and delete rules: one table,
/// read by the importer and written by the exporter.
enum XcodeVocabulary {
    static let types: [(xcode: String, type: AttributeType)] = [
        ("Integer 16", .integer16), ("Integer 32", .integer32), ("Integer 64", .integer64), ("Decimal", .decimal),
        ("Double", .double), ("Float", .float), ("String", .string), ("Boolean", .boolean), ("Date", .date),
        ("Binary", .binary), ("UUID", .uuid), ("URI", .uri), ("Transformable", .transformable),
        ("Composite", .composite),
    ]
    static let deleteRules: [(xcode: String, rule: DeleteRule)] = [
        ("Nullify", .nullify), ("Cascade", .cascade), ("Deny", .deny), ("No Action", .noAction),
    ]

    static let typesByName = Dictionary(uniqueKeysWithValues: types.map { ($0.xcode, $0.type) })
    static let deleteRulesByName = Dictionary(uniqueKeysWithValues: deleteRules.map { ($0.xcode, $0.rule) })

    static func typeName(_ type: AttributeType) -> String { types.first { $0.type == type }!.xcode }
    static func deleteRuleName(_ rule: DeleteRule) -> String { deleteRules.first { $0.rule == rule }!.xcode }
}
