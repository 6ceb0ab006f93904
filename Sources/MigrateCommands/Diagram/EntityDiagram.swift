/// What `migrate diagram` draws, whatever the format: entities with the attributes
/// they declare, relationships (one per inverse pair), parents, and for a diff the
/// change of each element as `migrate diff` words it.
///
/// Built from one version or from the mapping between two
/// (`EntityDiagram+Building.swift`); drawn by `MermaidRenderer` and `DOTRenderer`,
/// which decide nothing about the model, only how to write it.
struct EntityDiagram: Sendable, Hashable {
    /// How an element changed between the two versions of a diff; `.none` when
    /// drawing a single version.
    enum Change: Sendable, Hashable {
        case none, added, removed, changed
    }

    /// How many objects one end of a relationship line stands for.
    enum Cardinality: Sendable, Hashable {
        case zeroOrOne, exactlyOne, zeroOrMore, oneOrMore
    }

    /// An attribute, drawn in the entity that declares it.
    struct Attribute: Sendable, Hashable {
        var name: String
        /// The type's name as the model file writes it (`integer16`, `string`…).
        var type: String
        /// A uniqueness constraint of its own (Mermaid's `UK`).
        var isUnique: Bool
        /// Optional, transient, compound uniqueness, then the change: both formats print them as they are.
        var notes: [String]
        var change: Change
    }

    /// An entity and the attributes it declares (subentities inherit their parent's).
    struct Entity: Sendable, Hashable {
        /// Unique in the diagram: the entity's name, suffixed for a removed entity
        /// whose name a version-B entity took. Relationships and parents refer to it.
        var id: String
        /// The entity's name.
        var name: String
        var isAbstract: Bool
        var attributes: [Attribute]
        var change: Change
        /// The entity's change as `migrate diff` heads it (`changed, renamed from People`).
        var changeText: String?
    }

    /// One side of a relationship line: a relationship as its entity declares it.
    struct Side: Sendable, Hashable {
        var name: String
        /// Ordered, transient, then the change as `migrate diff` lists it (`renamed from owner`, `removed`).
        var notes: [String]
        var change: Change

        /// `posts [ordered, converted (reorder)]`.
        var label: String { notes.isEmpty ? name : "\(name) [\(notes.joined(separator: ", "))]" }
    }

    /// A relationship and its inverse, drawn as one line from `from` to `to`.
    struct Relationship: Sendable, Hashable {
        /// The id of the entity declaring `side`.
        var from: String
        /// The id of its destination (the entity declaring the inverse, when there is one).
        var to: String
        /// The relationship of `from`.
        var side: Side
        /// The inverse, declared by `to`; nil without one, or when `side` is its own inverse.
        var inverse: Side?
        /// How many `to` objects one `from` object relates to (`side`'s cardinality).
        var toCardinality: Cardinality
        /// How many `from` objects one `to` object relates to (the inverse's cardinality;
        /// without an inverse, what the store allows).
        var fromCardinality: Cardinality
        var change: Change

        /// `posts [ordered] / author`: the sides from `from`'s point of view.
        var label: String { side.label + (inverse.map { " / " + $0.label } ?? "") }
    }

    /// A subentity and its parent.
    struct Inheritance: Sendable, Hashable {
        /// Entity ids.
        var child: String
        var parent: String
        var change: Change
    }

    /// The model's name.
    var model: String
    /// `Contacts version 4 (2026.4)`, or the diff's heading (`Shop 1 → 2: inferred (lightweight)`).
    var title: String
    /// For a diff, what is drawn (`drawn on version 2's entities; …`).
    var subtitle: String?
    /// True when drawn from a mapping between two versions.
    var isDiff: Bool { subtitle != nil }
    /// Entities: version B's in name order, then removed ones.
    var entities: [Entity]
    var relationships: [Relationship]
    var inheritances: [Inheritance]
}
