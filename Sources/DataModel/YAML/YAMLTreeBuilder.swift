/// Builds a ``YAMLNode`` tree from libyaml events, without recursion.
///
/// Open collections live on an explicit stack whose depth is checked when a
/// collection starts, so hostile nesting fails before anything is built. Every node
/// is counted, alias copies with all the nodes they copy, so that an alias bomb stops
/// at ``YAMLLoader/maximumNodeCount`` (the copies themselves share storage: `YAMLNode`
/// is a value type with copy-on-write arrays).
struct YAMLTreeBuilder {
    /// A collection whose end event has not arrived yet.
    private struct OpenCollection {
        var isMapping: Bool
        var location: SourceLocation
        var tag: String?
        var anchor: String?
        /// The position of `anchor` among all anchors of the document.
        var anchorOccurrence = 0
        var items: [YAMLNode] = []
        var pairs: [YAMLNode.Pair] = []
        /// A mapping's key waiting for its value.
        var pendingKey: YAMLNode?
        /// Where each key of a mapping was first seen, to report duplicates.
        var keyLocations: [String: SourceLocation] = [:]
        /// This node and every node under it, alias copies included.
        var nodeCount = 1
    }

    private let source: YAMLSourceText
    private var stack: [OpenCollection] = []
    /// Finished anchored nodes by name, with their node counts.
    private var anchors: [String: (node: YAMLNode, nodeCount: Int)] = [:]
    /// The latest occurrence of each anchor name: an alias refers to the anchor written
    /// last before it, even when that anchor's collection is still open.
    private var latestAnchorOccurrence: [String: Int] = [:]
    private var anchorOccurrences = 0
    private var nodeCount = 0
    private var aliasedNodeCount = 0

    /// The finished root node, once its last event has been added.
    private(set) var root: YAMLNode?

    init(source: YAMLSourceText) {
        self.source = source
    }

    /// Adds a scalar event.
    mutating func addScalar(
        _ text: String, style: YAMLNode.ScalarStyle, tag: String?, anchor: String?,
        at mark: LibYAMLParser.Mark
    ) throws(YAMLError) {
        try count(1, at: mark)
        let node = YAMLNode(.scalar(text, style), at: source.location(mark), tag: tag)
        if let anchor {
            _ = occur(anchor)
            anchors[anchor] = (node, 1)
        }
        try attach(node, nodeCount: 1, reportedAt: node.location)
    }

    /// Adds an alias event: a copy of the anchored node, with the anchor's location.
    mutating func addAlias(_ name: String, at mark: LibYAMLParser.Mark) throws(YAMLError) {
        let location = source.location(mark)
        if let occurrence = latestAnchorOccurrence[name], stack.contains(where: { $0.anchorOccurrence == occurrence }) {
            throw YAMLError(
                .unsupported,
                "alias '*\(name)' refers to a node that contains it; recursive aliases are not supported",
                file: source.file, at: location)
        }
        guard let anchored = anchors[name] else {
            throw YAMLError(
                .syntax, "unknown alias '*\(name)': no anchor '&\(name)' is defined before it",
                file: source.file, at: location)
        }
        aliasedNodeCount += anchored.nodeCount
        try count(anchored.nodeCount, at: mark)
        try attach(anchored.node, nodeCount: anchored.nodeCount, reportedAt: location)
    }

    /// Adds a sequence or mapping start event.
    mutating func open(
        mapping isMapping: Bool, tag: String?, anchor: String?,
        at mark: LibYAMLParser.Mark
    ) throws(YAMLError) {
        let location = source.location(mark)
        if let parent = stack.last, parent.isMapping, parent.pendingKey == nil {
            throw YAMLError(
                .nonScalarKey,
                "mapping keys must be scalars, found \(isMapping ? "a mapping" : "a sequence")",
                file: source.file, at: location)
        }
        guard stack.count < YAMLLoader.maximumDepth else {
            throw YAMLError(
                .tooDeep, "collections are nested more than \(YAMLLoader.maximumDepth) levels deep",
                file: source.file, at: location)
        }
        try count(1, at: mark)
        var collection = OpenCollection(isMapping: isMapping, location: location, tag: tag, anchor: anchor)
        if let anchor { collection.anchorOccurrence = occur(anchor) }
        stack.append(collection)
    }

    /// Adds a sequence or mapping end event.
    mutating func close() throws(YAMLError) {
        // libyaml balances start and end events; an unbalanced end is ignored.
        guard let collection = stack.popLast() else { return }
        let content: YAMLNode.Content = collection.isMapping ? .mapping(collection.pairs) : .sequence(collection.items)
        let node = YAMLNode(content, at: collection.location, tag: collection.tag)
        if let anchor = collection.anchor, latestAnchorOccurrence[anchor] == collection.anchorOccurrence {
            anchors[anchor] = (node, collection.nodeCount)
        }
        try attach(node, nodeCount: collection.nodeCount, reportedAt: node.location)
    }

    /// Records that an anchor is written here, hiding earlier anchors of the same name.
    private mutating func occur(_ anchor: String) -> Int {
        anchorOccurrences += 1
        latestAnchorOccurrence[anchor] = anchorOccurrences
        anchors[anchor] = nil
        return anchorOccurrences
    }

    /// Counts nodes against the limit; `mark` is where the node that crosses it starts.
    private mutating func count(_ added: Int, at mark: LibYAMLParser.Mark) throws(YAMLError) {
        nodeCount += added
        guard nodeCount > YAMLLoader.maximumNodeCount else { return }
        if aliasedNodeCount > 0 {
            throw YAMLError(
                .aliasExpansion,
                "alias expansion exceeds \(YAMLLoader.maximumNodeCount) nodes (billion laughs?)",
                file: source.file, at: source.location(mark))
        }
        throw YAMLError(
            .tooLarge, "the document has more than \(YAMLLoader.maximumNodeCount) nodes",
            file: source.file, at: source.location(mark))
    }

    /// Adds a finished node to the innermost open collection, or makes it the root.
    /// `location` is where an error about the node points: for an alias, the alias itself.
    private mutating func attach(_ node: YAMLNode, nodeCount: Int, reportedAt location: SourceLocation)
        throws(YAMLError)
    {
        guard !stack.isEmpty else {
            root = node
            return
        }
        stack[stack.count - 1].nodeCount += nodeCount
        guard stack[stack.count - 1].isMapping else {
            stack[stack.count - 1].items.append(node)
            return
        }
        guard let key = stack[stack.count - 1].pendingKey else {
            guard let text = node.scalarText else {
                throw YAMLError(
                    .nonScalarKey, "mapping keys must be scalars, found \(node.kindDescription)",
                    file: source.file, at: location)
            }
            if let first = stack[stack.count - 1].keyLocations[text] {
                throw YAMLError(
                    .duplicateKey,
                    "duplicate key '\(text)' (first defined at line \(first.line), column \(first.column))",
                    file: source.file, at: location)
            }
            stack[stack.count - 1].keyLocations[text] = location
            stack[stack.count - 1].pendingKey = node
            return
        }
        stack[stack.count - 1].pairs.append(YAMLNode.Pair(key: key, value: node))
        stack[stack.count - 1].pendingKey = nil
    }
}
