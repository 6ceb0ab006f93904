import Foundation

/// Writes an `EntityDiagram` in Graphviz's DOT language
/// (`migrate diagram --format dot | dot -Tsvg > model.svg`).
///
/// Each entity is a node with an HTML-like table label (name, then one row per
/// attribute: name, type, notes); each relationship and its inverse is one edge
/// with crow's-foot arrowheads at both ends; inheritance is a dashed edge with an
/// empty arrowhead at the parent, as in UML. In a diff, added elements are green,
/// removed ones red, changed ones orange.
enum DOTRenderer {
    static func render(_ diagram: EntityDiagram) -> String {
        let legend = diagram.isDiff ? "\\ngreen: added, red: removed, orange: changed" : ""
        var lines = [
            "digraph \(quoted(diagram.model)) {",
            "    graph [label=\"\(escaped(diagram.title))\(legend)\", labelloc=t, fontname=\"Helvetica\", rankdir=LR];",
            "    node [shape=plain, fontname=\"Helvetica\"];",
            "    edge [fontname=\"Helvetica\", fontsize=10];",
        ]
        for entity in diagram.entities {
            var heading = "<b>\(html(entity.name))</b>" + (entity.isAbstract ? " <i>(abstract)</i>" : "")
            if let text = entity.changeText { heading += "<br/><font point-size=\"10\">\(html(text))</font>" }
            // A notes column only where some attribute has notes.
            let notes = entity.attributes.map { ($0.isUnique ? ["unique"] : []) + $0.notes }
            let columns = notes.contains { !$0.isEmpty } ? 3 : 2
            lines.append(
                """
                    \(quoted(entity.id)) [label=<<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" \
                cellpadding=\"4\">
                """
            )
            lines.append(
                """
                        <tr><td colspan=\"\(columns)\" \
                bgcolor=\"\(background(entity.change) ?? "#e0e0e0")\">\(heading)</td></tr>
                """
            )
            for (attribute, notes) in zip(entity.attributes, notes) {
                let cell =
                    background(attribute.change).map { "<td align=\"left\" bgcolor=\"\($0)\">" }
                    ?? "<td align=\"left\">"
                let texts = [attribute.name, attribute.type] + (columns == 3 ? [notes.joined(separator: ", ")] : [])
                lines.append("        <tr>" + texts.map { cell + html($0) + "</td>" }.joined() + "</tr>")
            }
            lines.append("    </table>>];")
        }
        for relationship in diagram.relationships {
            var attributes = [
                "dir=both", "arrowtail=\(arrow(relationship.fromCardinality))",
                "arrowhead=\(arrow(relationship.toCardinality))",
                "label=\(quoted(relationship.label))",
            ]
            attributes += style(relationship.change, removedStyle: "dotted")
            lines.append(
                """
                    \(quoted(relationship.from)) -> \(quoted(relationship.to)) [\(attributes.joined(separator: ", "))];
                """
            )
        }
        for inheritance in diagram.inheritances {
            let attributes = ["style=dashed", "arrowhead=empty"] + style(inheritance.change, removedStyle: nil)
            lines.append(
                """
                    \(quoted(inheritance.child)) -> \(quoted(inheritance.parent)) \
                [\(attributes.joined(separator: ", "))];
                """
            )
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Crow's-foot notation: the count nearest the node, the optionality behind it.
    static func arrow(_ cardinality: EntityDiagram.Cardinality) -> String {
        switch cardinality {
        case .zeroOrOne: "teeodot"
        case .exactlyOne: "teetee"
        case .zeroOrMore: "crowodot"
        case .oneOrMore: "crowtee"
        }
    }

    private static func background(_ change: EntityDiagram.Change) -> String? {
        switch change {
        case .none: nil
        case .added: "#c8e6c9"
        case .removed: "#ffcdd2"
        case .changed: "#ffe0b2"
        }
    }

    private static func style(_ change: EntityDiagram.Change, removedStyle: String?) -> [String] {
        switch change {
        case .none: []
        case .added: ["color=\"#2e7d32\"", "fontcolor=\"#2e7d32\"", "penwidth=2"]
        case .removed: ["color=\"#c62828\"", "fontcolor=\"#c62828\""] + (removedStyle.map { ["style=\($0)"] } ?? [])
        case .changed: ["color=\"#ef6c00\"", "fontcolor=\"#ef6c00\""]
        }
    }

    /// A DOT double-quoted string.
    static func quoted(_ text: String) -> String { "\"\(escaped(text))\"" }

    /// Text inside a DOT double-quoted string: a backslash would start one of DOT's
    /// label escapes (`\n`, `\N`…).
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }

    /// Text inside an HTML-like label.
    static func html(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
