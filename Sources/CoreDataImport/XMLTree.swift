import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// One element of a parsed `contents` file: name, attributes, children and the line
/// it starts on (for messages).
struct XMLElementNode: Sendable {
    var name: String
    var attributes: [String: String]
    var children: [XMLElementNode]
    var line: Int

    func children(named name: String) -> [XMLElementNode] { self.children.filter { $0.name == name } }
}

/// Builds an `XMLElementNode` tree with Foundation's `XMLParser` (FoundationXML on
/// Linux). The parser and its delegate are handle-like, used once, never shared.
final class XMLTreeBuilder: NSObject, XMLParserDelegate {
    private var stack: [XMLElementNode] = []
    private var root: XMLElementNode?

    /// Parses `data`; throws a `subject: detail` message with the parser's line on failure.
    static func parse(_ data: Data) throws(XMLTreeError) -> XMLElementNode {
        let parser = XMLParser(data: data)
        let builder = XMLTreeBuilder()
        parser.delegate = builder
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        guard parser.parse(), let root = builder.root else {
            let detail = parser.parserError.map { ($0 as NSError).localizedDescription } ?? "not an XML document"
            throw XMLTreeError(line: parser.lineNumber, message: detail)
        }
        return root
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        stack.append(XMLElementNode(name: elementName, attributes: attributeDict, children: [], line: parser.lineNumber))
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard let finished = stack.popLast() else { return }
        if stack.isEmpty { root = finished } else { stack[stack.count - 1].children.append(finished) }
    }
}

/// Why a `contents` file is not well-formed XML.
struct XMLTreeError: Error {
    var line: Int
    var message: String
}
