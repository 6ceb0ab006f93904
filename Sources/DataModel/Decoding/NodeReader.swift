/// Reads typed values out of YAML nodes, collecting a diagnostic for every problem
/// instead of stopping at the first.
package struct NodeReader {
    package var file: String
    package var diagnostics: [Diagnostic] = []

    package init(file: String) { self.file = file }

    package mutating func error(_ message: String, at node: YAMLNode, hint: String? = nil) {
        diagnostics.append(Diagnostic(.error, message, at: node.location, hint: hint))
    }

    package mutating func error(_ message: String, at location: SourceLocation?, hint: String? = nil) {
        diagnostics.append(Diagnostic(.error, message, at: location, hint: hint))
    }

    package mutating func warning(_ message: String, at location: SourceLocation?, hint: String? = nil) {
        diagnostics.append(Diagnostic(.warning, message, at: location, hint: hint))
    }

    /// The pairs of a mapping (null counts as empty), reporting unknown keys.
    package mutating func mapping(_ node: YAMLNode, subject: String, allowed: [String]) -> [(
        key: String, keyNode: YAMLNode, value: YAMLNode
    )]? {
        if node.isNull { return [] }
        guard let pairs = node.mappingPairs else {
            error("\(subject): expected a mapping, found \(describe(node))", at: node)
            return nil
        }
        var result: [(String, YAMLNode, YAMLNode)] = []
        for pair in pairs {
            guard let key = pair.key.scalarText else {
                error("\(subject): keys must be plain names, found \(pair.key.kindDescription)", at: pair.key)
                continue
            }
            // YAML's "\0" escape makes one; every key is a name, and no name can hold it.
            if key.utf8.contains(0) {
                error("\(subject): a key contains a NUL character (\\0), which no name may hold", at: pair.key)
                continue
            }
            if !allowed.isEmpty, !allowed.contains(key) {
                error(
                    "\(subject): unknown key '\(key)'", at: pair.key,
                    hint: Suggestions.hint(for: key, in: allowed)
                        ?? "expected one of: \(allowed.joined(separator: ", "))")
                continue
            }
            result.append((key, pair.key, pair.value))
        }
        return result
    }

    /// A non-empty string scalar.
    package mutating func string(_ node: YAMLNode, subject: String) -> String? {
        guard case .scalar(let text, _) = node.content, !node.isNull else {
            error("\(subject): expected a string, found \(describe(node))", at: node)
            return nil
        }
        guard !text.isEmpty else {
            error("\(subject): must not be empty", at: node)
            return nil
        }
        // Strings here are names (entities, parents, inverses, policies, renames) and
        // labels; SQLite's SQL text and C strings end at a NUL, so none may hold one.
        guard !text.utf8.contains(0) else {
            error("\(subject): contains a NUL character (\\0), which is not allowed", at: node)
            return nil
        }
        return text
    }

    /// Any scalar's text, empty included: what Xcode wrote, kept as it was.
    package mutating func text(_ node: YAMLNode, subject: String) -> String? {
        guard case .scalar(let text, let style) = node.content, !(node.isNull && style == .plain) else {
            error("\(subject): expected a text, found \(describe(node))", at: node)
            return nil
        }
        return text
    }

    /// A plain `true`/`false` (also `yes`/`no`, as YAML 1.1 reads them).
    package mutating func bool(_ node: YAMLNode, subject: String) -> Bool? {
        if case .scalar(let text, .plain) = node.content {
            switch text.lowercased() {
            case "true", "yes", "on": return true
            case "false", "no", "off": return false
            default: break
            }
        }
        error("\(subject): expected true or false, found \(describe(node))", at: node)
        return nil
    }

    /// A plain non-negative integer.
    package mutating func unsignedInteger(_ node: YAMLNode, subject: String) -> UInt64? {
        if case .scalar(let text, .plain) = node.content, let value = UInt64(text) { return value }
        error("\(subject): expected a non-negative integer, found \(describe(node))", at: node)
        return nil
    }

    /// A plain integer.
    package mutating func integer(_ node: YAMLNode, subject: String) -> Int? {
        if case .scalar(let text, .plain) = node.content, let value = Int(text) { return value }
        error("\(subject): expected an integer, found \(describe(node))", at: node)
        return nil
    }

    /// A sequence's items; a single scalar counts as a one-item sequence when `allowScalar`.
    package mutating func sequence(_ node: YAMLNode, subject: String) -> [YAMLNode]? {
        if node.isNull { return [] }
        guard let items = node.sequenceItems else {
            error("\(subject): expected a list, found \(describe(node))", at: node)
            return nil
        }
        return items
    }

    package func describe(_ node: YAMLNode) -> String {
        switch node.content {
        case .scalar(let text, _):
            if node.isNull { return "nothing (null)" }
            let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
            return "'\(shown)'"
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        }
    }
}
