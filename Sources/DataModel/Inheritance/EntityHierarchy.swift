/// The inheritance forest of one version's entities, built once in time linear in
/// the number of entities: which parent chains are well formed, the cycles, and
/// pre/post-order numbers that answer "is A an ancestor of B" in O(1).
///
/// Validation and compilation ask such questions for every entity and property;
/// walking a parent chain per question made a 5,000-deep hierarchy quadratic (or
/// worse), and recursing down it could overflow the stack. Every walk here is a
/// loop over an explicit stack.
///
/// Entities are numbered by their position in the version file; a parent name
/// refers to the first entity of that name.
struct EntityHierarchy {
    /// What the parent chain of an entity is like.
    enum Chain: Equatable {
        /// Reaches a root through known entities.
        case wellFormed
        /// Names a parent that no entity of the version has.
        case unknownParent
        /// The entity is on an inheritance cycle.
        case cycle
        /// Leads to an entity with an unknown parent or on a cycle.
        case broken
    }

    /// Entity names, by index.
    let names: [String]
    /// The index of the first entity of each name.
    let index: [String: Int]
    /// The index of each entity's parent, when it names a known entity.
    let parent: [Int?]
    /// The state of each entity's parent chain.
    private(set) var chain: [Chain]
    /// Each cycle once, as entity indexes along the parent links, starting at the
    /// member written first in the file.
    private(set) var cycles: [[Int]] = []
    /// The children of each well-formed entity, in file order.
    private(set) var children: [[Int]]
    /// Well-formed entities, every parent before its children (depth-first).
    private(set) var preorder: [Int] = []
    /// The root of each well-formed entity's tree (itself for a root).
    private(set) var root: [Int]
    /// Depth-first entry and exit numbers (-1 for entities whose chain is not
    /// well formed): A is an ancestor of B when A's interval holds B's.
    private var entry: [Int]
    private var exit: [Int]

    init(_ entities: [(name: String, parent: String?)]) {
        let count = entities.count
        names = entities.map(\.name)
        var index: [String: Int] = [:]
        for (i, entity) in entities.enumerated() where index[entity.name] == nil { index[entity.name] = i }
        self.index = index
        parent = entities.map { $0.parent.flatMap { index[$0] } }
        chain = Array(repeating: .broken, count: count)
        children = Array(repeating: [], count: count)
        root = Array(repeating: -1, count: count)
        entry = Array(repeating: -1, count: count)
        exit = Array(repeating: -1, count: count)
        classify(entities)
        number()
    }

    /// Follows each chain once: an entity already classified ends the walk, so
    /// every entity is visited a bounded number of times.
    private mutating func classify(_ entities: [(name: String, parent: String?)]) {
        let unvisited = 0, onPath = 1, done = 2
        var state = Array(repeating: unvisited, count: names.count)
        var positionOnPath = Array(repeating: -1, count: names.count)
        for start in names.indices where state[start] == unvisited {
            var path: [Int] = []
            var current = start
            var outcome: Chain
            while true {
                if state[current] == done {
                    outcome = chain[current] == .wellFormed ? .wellFormed : .broken
                    break
                }
                if state[current] == onPath {
                    // The path from `current` on is a cycle; what led to it is broken.
                    let members = Array(path[positionOnPath[current]...])
                    for member in members {
                        chain[member] = .cycle
                        state[member] = done
                    }
                    let first = members.min()!
                    let rotation = members.firstIndex(of: first)!
                    cycles.append(Array(members[rotation...] + members[..<rotation]))
                    path.removeLast(members.count)
                    outcome = .broken
                    break
                }
                state[current] = onPath
                positionOnPath[current] = path.count
                path.append(current)
                guard entities[current].parent != nil else {
                    outcome = .wellFormed
                    break
                }
                guard let next = parent[current] else {
                    chain[current] = .unknownParent
                    state[current] = done
                    path.removeLast()
                    outcome = .broken
                    break
                }
                current = next
            }
            for member in path {
                chain[member] = outcome
                state[member] = done
            }
        }
        cycles.sort { $0[0] < $1[0] }
    }

    /// Numbers the well-formed trees depth-first with an explicit stack.
    private mutating func number() {
        var roots: [Int] = []
        for i in names.indices where chain[i] == .wellFormed {
            if let p = parent[i] { children[p].append(i) } else { roots.append(i) }
        }
        var counter = 0
        // (entity, next child position): the frame of an entity still being walked.
        var stack: [(entity: Int, next: Int)] = []
        for top in roots {
            entry[top] = counter
            counter += 1
            root[top] = top
            preorder.append(top)
            stack.append((top, 0))
            while let frame = stack.last {
                if frame.next < children[frame.entity].count {
                    stack[stack.count - 1].next += 1
                    let child = children[frame.entity][frame.next]
                    entry[child] = counter
                    counter += 1
                    root[child] = top
                    preorder.append(child)
                    stack.append((child, 0))
                } else {
                    exit[frame.entity] = counter
                    stack.removeLast()
                }
            }
        }
    }

    /// True when the entity's parent chain reaches a root.
    func isWellFormed(_ i: Int) -> Bool { chain[i] == .wellFormed }

    /// True when `a` is `b` or one of its ancestors (both well formed).
    func isAncestorOrSelf(_ a: Int, of b: Int) -> Bool {
        entry[a] >= 0 && entry[b] >= 0 && entry[a] <= entry[b] && exit[b] <= exit[a]
    }

    /// The entity's depth-first entry number (for ordering), -1 when not well formed.
    func entryNumber(_ i: Int) -> Int { entry[i] }

    /// The entity then its ancestors, nearest first (the entity alone when its
    /// chain is not well formed).
    func lineage(_ i: Int) -> [Int] {
        guard isWellFormed(i) else { return [i] }
        var result = [i]
        var current = i
        while let p = parent[current] {
            result.append(p)
            current = p
        }
        return result
    }

    /// Walks every well-formed tree depth-first: `enter` before an entity's
    /// children, `leave` after them, with an explicit stack.
    func walk(enter: (Int) -> Void, leave: (Int) -> Void) {
        var stack: [(entity: Int, next: Int)] = []
        for top in names.indices where chain[top] == .wellFormed && parent[top] == nil {
            enter(top)
            stack.append((top, 0))
            while let frame = stack.last {
                if frame.next < children[frame.entity].count {
                    stack[stack.count - 1].next += 1
                    let child = children[frame.entity][frame.next]
                    enter(child)
                    stack.append((child, 0))
                } else {
                    leave(frame.entity)
                    stack.removeLast()
                }
            }
        }
    }
}
