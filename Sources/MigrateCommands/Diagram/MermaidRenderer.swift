import Foundation

/// Writes an `EntityDiagram` as a Mermaid `erDiagram`, which GitHub and most
/// Markdown viewers render from a ```` ```mermaid ```` block.
///
/// What Mermaid's grammar allows decides the spelling: attribute lines are
/// `type name [UK] "notes"` (notes hold no double quote), relationship lines are
/// `A <card>--<card> B : "label"`, comments are whole `%%` lines, and an entity name
/// that Mermaid's lexer would read as a keyword (`To`, `Class`, `Many`) is quoted, as
/// are the names of a diff's changed entities, which carry their change.
/// Checked against Mermaid 11's parser.
enum MermaidRenderer {
    static func render(_ diagram: EntityDiagram) -> String {
        var lines = ["erDiagram", "    %% \(diagram.title)"]
        if let subtitle = diagram.subtitle { lines.append("    %% \(subtitle)") }
        lines.append(
            """
                %% attributes: type name, then notes in quotes; subentities list their own attributes and inherit \
            their parent's
            """
        )
        // In a diff an entity's own change is part of the name drawn (a quoted
        // name may hold spaces and parentheses), so that the picture shows it.
        var names: [String: String] = [:]
        for entity in diagram.entities {
            names[entity.id] = entity.changeText.map { "\"\(entity.name) (\(quoted($0)))\"" } ?? entityName(entity.name)
        }
        let name = { (id: String) in names[id] ?? entityName(id) }
        for entity in diagram.entities {
            if entity.isAbstract { lines.append("    %% \(entity.name): abstract") }
            guard !entity.attributes.isEmpty else {
                lines.append("    \(name(entity.id))")
                continue
            }
            lines.append("    \(name(entity.id)) {")
            for attribute in entity.attributes {
                var line = "        \(attribute.type) \(attributeName(attribute.name))"
                if attribute.isUnique { line += " UK" }
                if !attribute.notes.isEmpty { line += " \"\(quoted(attribute.notes.joined(separator: ", ")))\"" }
                lines.append(line)
            }
            lines.append("    }")
        }
        if !diagram.relationships.isEmpty {
            lines.append(
                """
                    %% one line per relationship and its inverse, labelled \"name / inverse\" from the left entity's \
                side
                """
            )
        }
        for relationship in diagram.relationships {
            lines.append(
                "    \(name(relationship.from)) "
                    + "\(left(relationship.fromCardinality))--\(right(relationship.toCardinality)) "
                    + "\(name(relationship.to)) : \"\(quoted(relationship.label))\"")
        }
        if !diagram.inheritances.isEmpty {
            lines.append(
                """
                    %% Mermaid's erDiagram has no inheritance arrow: a dashed line \"Child |o..|| Parent : inherits \
                from\" stands for one
                """
            )
        }
        for inheritance in diagram.inheritances {
            let label = "inherits from" + (marker(inheritance.change).map { " [\($0)]" } ?? "")
            lines.append("    \(name(inheritance.child)) |o..|| \(name(inheritance.parent)) : \"\(label)\"")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The symbol at the left entity: how many left objects one right object relates to.
    static func left(_ cardinality: EntityDiagram.Cardinality) -> String {
        switch cardinality {
        case .zeroOrOne: "|o"
        case .exactlyOne: "||"
        case .zeroOrMore: "}o"
        case .oneOrMore: "}|"
        }
    }

    /// The symbol at the right entity: how many right objects one left object relates to.
    static func right(_ cardinality: EntityDiagram.Cardinality) -> String {
        switch cardinality {
        case .zeroOrOne: "o|"
        case .exactlyOne: "||"
        case .zeroOrMore: "o{"
        case .oneOrMore: "|{"
        }
    }

    private static func marker(_ change: EntityDiagram.Change) -> String? {
        switch change {
        case .none, .changed: nil
        case .added: "added"
        case .removed: "removed"
        }
    }

    /// Outside entity blocks Mermaid's lexer (case-insensitive) reads these words as
    /// keywords or cardinalities before it reads a name (`Topic` is fine, `To` is not),
    /// and a line ending in `…direction` before a name starting `TB`, `LR`… as a
    /// direction; quoted, they are names.
    private static let keywords: Set = [
        "acctitle", "accdescr", "erdiagram", "style", "class", "classdef", "subgraph", "end", "one", "many", "to",
    ]

    static func entityName(_ name: String) -> String {
        let lower = name.lowercased()
        return keywords.contains(lower) || lower.contains("direction") ? "\"\(name)\"" : name
    }

    /// Inside a block, `PK`, `FK` and `UK` (any case) are read as keys: such a name
    /// takes Mermaid's backquotes.
    static func attributeName(_ name: String) -> String {
        ["pk", "fk", "uk"].contains(name.lowercased()) ? "`\(name)`" : name
    }

    /// Mermaid's quoted strings end at the next double quote; default values may hold one.
    static func quoted(_ text: String) -> String {
        text.replacingOccurrences(of: "\"", with: "'")
    }
}
