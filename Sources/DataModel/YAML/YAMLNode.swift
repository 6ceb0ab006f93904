/// A node of a YAML document, with the location it was read from.
///
/// Aliases are resolved while loading (each alias becomes a copy of its anchor's
/// node, with the anchor's location), so consumers never see anchors. Mappings keep
/// their keys in document order; duplicate keys are rejected by the loader.
package struct YAMLNode: Sendable, Hashable {
    /// How a scalar was written. Plain scalars are subject to null/boolean/number
    /// interpretation; quoted and block scalars are always strings.
    package enum ScalarStyle: Sendable, Hashable {
        case plain, singleQuoted, doubleQuoted, literal, folded
    }

    /// One key/value entry of a mapping.
    package struct Pair: Sendable, Hashable {
        /// The key node (a scalar for every file this toolkit reads; the loader
        /// rejects non-scalar keys).
        package var key: YAMLNode
        /// The value node.
        package var value: YAMLNode

        /// Creates a pair.
        package init(key: YAMLNode, value: YAMLNode) {
            self.key = key
            self.value = value
        }
    }

    /// The content of a node.
    package enum Content: Sendable, Hashable {
        /// A scalar: its text after YAML unescaping, and how it was written.
        case scalar(String, ScalarStyle)
        /// A sequence, block (`- a`) or flow (`[a, b]`).
        case sequence([YAMLNode])
        /// A mapping, block or flow, in document order.
        case mapping([Pair])
    }

    /// The node's content.
    package var content: Content
    /// Where the node starts (for a scalar, its first character or opening quote).
    package var location: SourceLocation
    /// An explicit tag such as `!!str`, if any.
    package var tag: String?

    /// Creates a node.
    package init(_ content: Content, at location: SourceLocation, tag: String? = nil) {
        self.content = content
        self.location = location
        self.tag = tag
    }
}

extension YAMLNode {
    /// The text of a scalar node, `nil` for collections.
    package var scalarText: String? {
        if case .scalar(let text, _) = content { return text }
        return nil
    }

    /// True for a plain scalar that YAML reads as null: empty, `~`, `null`, `Null`, `NULL`.
    package var isNull: Bool {
        if case .scalar(let text, .plain) = content, tag == nil {
            return text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL"
        }
        return false
    }

    /// The entries of a mapping node, `nil` otherwise.
    package var mappingPairs: [Pair]? {
        if case .mapping(let pairs) = content { return pairs }
        return nil
    }

    /// The elements of a sequence node, `nil` otherwise.
    package var sequenceItems: [YAMLNode]? {
        if case .sequence(let items) = content { return items }
        return nil
    }

    /// A short name of the node's kind for messages: "a mapping", "a sequence", "a string".
    package var kindDescription: String {
        switch content {
        case .scalar: return isNull ? "null" : "a scalar"
        case .sequence: return "a sequence"
        case .mapping: return "a mapping"
        }
    }
}
