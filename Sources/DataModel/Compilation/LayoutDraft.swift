/// What `LayoutBuilder.buildTracingOrigins` has laid out so far: the tables and
/// indexes with their origins, the names each table has given out, and what the
/// later steps look up from the earlier ones (which names the relationships took,
/// which entities share a root table, which attributes are indexed).
struct LayoutDraft {
    var tables: [StorageLayout.Table] = []
    var tableOrigins: [LayoutBuilder.Origin] = []
    var indexes: [StorageLayout.Index] = []
    var indexOrigins: [LayoutBuilder.Origin] = []
    var usedNames: [String: Set<String>] = [:]
    // The next suffix to try per table and base name: names are only ever
    // added, so the ones tried before stay taken and need no second look.
    var nextSuffix: [String: [String: Int]] = [:]
    var columnsByTable: [String: [StorageLayout.Column]] = [:]
    var tableOrder: [String] = []
    var rootOfTable: [String: String] = [:]
    var entitiesByRoot: [String: [String]] = [:]  // root → its hierarchy, in number order
    var legacyJoins: [(CompiledRelationship, String)] = []
    var joins: [(CompiledRelationship, String)] = []
    var propertyNames: [String: String] = [:]  // "Entity.relationship" → its unique `Z…` name
    var namesInTable: [String: [String]] = [:]  // table → the names its hierarchy's stored properties take, in order
    var indexedAttributes: Set<String> = []  // "Entity.property" of indexed stored attributes

    /// `base`, or `base` with the lowest free number appended, claimed in `table`.
    mutating func unique(_ base: String, in table: String) -> String {
        var name = base
        var suffix = nextSuffix[table]?[base] ?? 1
        if usedNames[table, default: []].contains(name) {
            name = "\(base)\(suffix)"
            while usedNames[table, default: []].contains(name) {
                suffix += 1
                name = "\(base)\(suffix)"
            }
            nextSuffix[table, default: [:]][base] = suffix + 1
        }
        usedNames[table, default: []].insert(name)
        return name
    }

    /// Appends an index with the model element it comes from.
    mutating func addIndex(_ index: StorageLayout.Index, origin: LayoutBuilder.Origin) {
        indexes.append(index)
        indexOrigins.append(origin)
    }
}
