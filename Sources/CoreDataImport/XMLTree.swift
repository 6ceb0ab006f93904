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
    /// The character data directly inside the element (a mapping model's attribute values).
    var text = ""
    /// The column the parser reports (where the start tag ends).
    var column: Int

    func children(named name: String) -> [XMLElementNode] { self.children.filter { $0.name == name } }
}

/// Builds an `XMLElementNode` tree with Foundation's `XMLParser` (FoundationXML on
/// Linux). The parser and its delegate are handle-like, used once, never shared.
final class XMLTreeBuilder: NSObject, XMLParserDelegate {
    private var stack: [XMLElementNode] = []
    private var root: XMLElementNode?

    /// Parses `data`; throws a `subject: detail` message with the parser's line on failure.
    static func parse(_ data: Data) throws(XMLTreeError) -> XMLElementNode {
        if let problem = XMLBytes.problem(in: data) { throw problem }
        let parser = XMLParser(data: data)
        let builder = XMLTreeBuilder()
        parser.delegate = builder
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        guard parser.parse(), let root = builder.root else {
            let detail =
                parser.parserError.map { Self.words(for: $0 as NSError) }
                ?? (data.isEmpty ? "the file is empty" : "not an XML document")
            throw XMLTreeError(line: max(1, parser.lineNumber), message: detail)
        }
        return root
    }

    /// What the parser's error means, in words first (its domain and code after).
    static func words(for error: NSError) -> String {
        let meaning: String
        switch error.code {
        case 4: meaning = "the file is empty"
        case 5: meaning = "the document ends before it is complete (a file cut short?)"
        case 9: meaning = "a character is not allowed in XML"
        case 23, 26, 27, 28, 38, 41, 42, 73, 76: meaning = "a tag or attribute is malformed"
        case 31, 32: meaning = "the text is not in the declared encoding (UTF-8 expected)"
        case 64, 65, 66, 67, 68: meaning = "a name or value is malformed"
        case 111: meaning = "a tag is not closed"
        default: meaning = "the XML is not well-formed"
        }
        return "\(meaning) (\(error.domain) error \(error.code))"
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        stack.append(
            XMLElementNode(
                name: elementName, attributes: attributeDict, children: [], line: parser.lineNumber,
                column: parser.columnNumber))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
    ) {
        guard let finished = stack.popLast() else { return }
        if stack.isEmpty { root = finished } else { stack[stack.count - 1].children.append(finished) }
    }
}

/// Why a `contents` file is not well-formed XML.
struct XMLTreeError: Error {
    var line: Int
    /// 1 when the parser gives no column.
    var column = 1
    var message: String
}
