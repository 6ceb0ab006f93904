/// Which declaration of a property name an entity sees among its own and its
/// ancestors' properties, for any entity and name, in O(log n).
///
/// A table of every visible property per entity is quadratic for a deep hierarchy
/// (a 5,000-deep chain holds millions of entries); instead one depth-first walk
/// keeps, per name, the nearest declaration on the current path (which also finds
/// properties clashing with inherited ones), and records the topmost
/// declarations of each name. The topmost declarations of a name are never
/// ancestors of each other, so their depth-first intervals are disjoint, and the
/// one an entity sees is found by binary search.
struct PropertyVisibility {
    /// A declared property: its entity and its position among that entity's
    /// attributes or relationships.
    struct Declaration: Equatable {
        var entity: Int
        var isRelationship: Bool
        var position: Int
    }

    private let hierarchy: EntityHierarchy
    /// Per name, the first of the declarations no ancestor's declaration of that
    /// name hides; most names have one, and a dictionary of arrays would allocate
    /// one array per name.
    private var firstTopmost: [String: Declaration] = [:]
    /// Per name with several, all of them, in depth-first order.
    private var allTopmost: [String: [Declaration]] = [:]
    /// Per entity, each declared name an ancestor declares too, with the nearest
    /// such ancestor.
    private(set) var inheritedClashes: [[String: Int]]

    init(hierarchy: EntityHierarchy, entities: [EntityDescription]) {
        self.hierarchy = hierarchy
        inheritedClashes = Array(repeating: [:], count: entities.count)
        // The nearest entity on the walk's path declaring each name, and what to
        // restore when an entity is left: one dictionary of integers, no arrays.
        var nearest: [String: Int] = [:]
        var undo: [(name: String, previous: Int?)] = []
        var undoMarks: [Int] = []
        var firstTopmost: [String: Declaration] = [:]
        var allTopmost: [String: [Declaration]] = [:]
        var clashes = inheritedClashes
        func declare(_ name: String, _ declaration: Declaration) {
            let previous = nearest.updateValue(declaration.entity, forKey: name)
            undo.append((name, previous))
            guard previous == nil else { return }
            if let first = firstTopmost[name] {
                allTopmost[name, default: [first]].append(declaration)
            } else {
                firstTopmost[name] = declaration
            }
        }
        hierarchy.walk(
            enter: { i in
                let entity = entities[i]
                undoMarks.append(undo.count)
                // Ancestors only: an entity's own duplicates are the validator's.
                for a in entity.attributes {
                    if let ancestor = nearest[a.name], ancestor != i { clashes[i][a.name] = ancestor }
                }
                for r in entity.relationships {
                    if let ancestor = nearest[r.name], ancestor != i { clashes[i][r.name] = ancestor }
                }
                // Attributes before relationships, the first of a name kept: the order
                // a table filled from the root down would keep.
                for (position, attribute) in entity.attributes.enumerated() where nearest[attribute.name] != i {
                    declare(attribute.name, Declaration(entity: i, isRelationship: false, position: position))
                }
                for (position, relationship) in entity.relationships.enumerated() where nearest[relationship.name] != i
                {
                    declare(relationship.name, Declaration(entity: i, isRelationship: true, position: position))
                }
            },
            leave: { _ in
                let mark = undoMarks.removeLast()
                while undo.count > mark {
                    let (name, previous) = undo.removeLast()
                    nearest[name] = previous
                }
            })
        self.firstTopmost = firstTopmost
        self.allTopmost = allTopmost
        inheritedClashes = clashes
    }

    /// The declaration of `name` that entity `i` sees: the topmost in its lineage
    /// (attributes before relationships within one entity); `nil` when none
    /// declares it or `i`'s parent chain is not well formed.
    func declaration(of name: String, seenFrom i: Int) -> Declaration? {
        guard let first = firstTopmost[name] else { return nil }
        let position = hierarchy.entryNumber(i)
        guard position >= 0 else { return nil }
        guard let candidates = allTopmost[name] else {
            return hierarchy.isAncestorOrSelf(first.entity, of: i) ? first : nil
        }
        // The last candidate entered at or before `i`.
        var low = 0, high = candidates.count
        while low < high {
            let middle = (low + high) / 2
            if hierarchy.entryNumber(candidates[middle].entity) <= position { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let candidate = candidates[low - 1]
        return hierarchy.isAncestorOrSelf(candidate.entity, of: i) ? candidate : nil
    }
}
