import DataModel

// A new row's relationship targets: checked (one statement for a long list given whole),
// bound into its `INSERT` (to-ones), or kept for after it (to-manys, references to
// objects not written yet). See ObjectAccess+Inserting.swift.
extension ObjectAccess {
    /// Checks each relationship's targets and appends the to-one columns to
    /// `bindings`; returns the to-many relationships to connect once the row exists.
    /// A relationship naming an object that is not written yet (a later line, the
    /// object itself), when the batch allows it (``ObjectBatch/resolvesReferencesAtEnd``):
    /// a to-one whose rule writes ahead (``TargetRule/writesAhead``) is bound and
    /// returned in `ahead`, its target checked when the batch ends
    /// (``checkProvisionalTargets(_:)``); any other is bound NULL and returned in
    /// `waiting`, set and checked when the batch ends. `optimistic`: a long list given
    /// whole is returned in `unchecked`: the `UPDATE` that sets it once the row is written
    /// checks it (``setListWhole(_:from:of:to:batch:onlyIf:)``).
    func bindToOnes(
        _ shape: InsertShape, relationships: [String: [Int64]], batch: ObjectBatch, prospective: Int64?,
        optimistic: Bool,
        into bindings: inout [DatabaseValue]
    ) throws -> BoundTargets {
        var bound = BoundTargets()
        // None given (most loaded objects): every to-one column is NULL, and the
        // counts wait for `checkBatch` as below.
        if relationships.isEmpty {
            for _ in 0..<shape.nullToOneBindings { bindings.append(.null) }
            return bound
        }
        for index in shape.relationships.indices {
            // Read by index, through the relationship's rule: a copy of each relationship's
            // description per object costs a retain and a release of each of its strings.
            guard let rule = shape.targets[index] else {
                // A destination the model lacks (never in a compiled model): its columns stay NULL.
                for _ in 0..<shape.toOneColumnCounts[index] { bindings.append(.null) }
                continue
            }
            var targets = Self.given(relationships, rule.name) ?? []
            var ahead = false
            // Required relationships and minimum counts wait for `checkBatch`: another
            // object of the batch may still set them from the inverse side.
            if !targets.isEmpty {
                try checkCount(targets, of: rule)
                switch try checkTargets(targets, rule: rule, batch: batch, from: prospective, optimistic: optimistic) {
                case .written: break
                case .ahead:
                    bound.ahead.append((rule, targets[0]))
                    ahead = true
                case .waiting:
                    bound.waiting[rule.name] = targets
                    targets = []
                case .unchecked:
                    bound.unchecked.append((rule, targets))
                    targets = []
                }
            }
            if rule.bindsToOne {
                bindings.append(targets.first.map { .integer($0) } ?? .null)
                if rule.bindsEntityNumber {
                    // Written ahead: set when the batch ends, once the target is.
                    if let target = targets.first, !ahead {
                        bindings.append(.integer(try entityNumber(of: rule.destination, primaryKey: target)))
                    } else {
                        bindings.append(.null)
                    }
                }
            } else if !targets.isEmpty {
                bound.later.append((rule.relationship, targets))
            }
        }
        // Places in ordered lists: bound once the row's key is known.
        for _ in shape.memberships { bindings.append(.null) }
        return bound
    }

    /// A new row's relationships as ``bindToOnes(_:relationships:batch:prospective:optimistic:into:)``
    /// sorted them.
    struct BoundTargets {
        /// To-manys to connect once the row is written.
        var later: [(CompiledRelationship, [Int64])] = []
        /// Relationships naming objects not written yet, set when the batch ends.
        var waiting: [String: [Int64]] = [:]
        /// To-ones written ahead of their targets.
        var ahead: [(TargetRule, Int64)] = []
        /// Long lists given whole, checked by the `UPDATE` that sets them.
        var unchecked: [(TargetRule, [Int64])] = []
    }

    /// Where a relationship's targets are: all written (and checked now), or one not
    /// written yet (``bindToOnes(_:relationships:batch:prospective:optimistic:into:)``).
    enum Targets { case written, ahead, waiting, unchecked }

    /// Checks a relationship's targets when they are all written; else says how the
    /// relationship waits for the end of the batch (refused, when the batch does not
    /// let references wait). A to-one's target is looked up once.
    func checkTargets(
        _ targets: [Int64], rule: TargetRule, batch: ObjectBatch, from key: Int64?, optimistic: Bool
    ) throws -> Targets {
        // A long list given whole: checked by the `UPDATE` that sets it once the row is
        // written (``setListWhole(_:from:of:to:batch:onlyIf:)``); the object is written again
        // member by member when a member does not pass.
        if optimistic, targets.count >= setBasedListMinimum, rule.freeMemberCondition != nil { return .unchecked }
        guard batch.resolvesReferencesAtEnd else {
            for target in targets { try checkTarget(target, rule: rule, field: rule.field, batch: batch, from: key) }
            return .written
        }
        if targets.count == 1 {
            guard let number = try rowEntity(targets[0], rule: rule, batch: batch) else {
                return rule.writesAhead ? .ahead : .waiting
            }
            try checkTarget(targets[0], rule: rule, field: rule.field, batch: batch, from: key, known: number)
            return .written
        }
        for target in targets where try rowEntity(target, rule: rule, batch: batch) == nil { return .waiting }
        for target in targets { try checkTarget(target, rule: rule, field: rule.field, batch: batch, from: key) }
        return .written
    }

    /// The keys `relationships` gives `name`. Most objects give one relationship: a
    /// comparison of two short names, not a hash of the name per relationship of the
    /// entity.
    @inline(__always)
    static func given(_ relationships: [String: [Int64]], _ name: String) -> [Int64]? {
        if relationships.count == 1, let only = relationships.first { return only.key == name ? only.value : nil }
        return relationships[name]
    }

    /// Keys as a JSON array (`[3,1,2]`), bound as one parameter for `json_each`.
    static func jsonArray(_ keys: [Int64]) -> String {
        var text = "["
        text.reserveCapacity(keys.count * 8 + 2)
        for (index, key) in keys.enumerated() {
            if index > 0 { text += "," }
            text += String(key)
        }
        return text + "]"
    }
}
