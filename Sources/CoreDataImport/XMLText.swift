import DataModel
import Foundation

/// XML text as Xcode writes it: attributes in a fixed order, values escaped.
enum XMLText {
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\n": out += "&#10;"
            case "\r": out += "&#13;"
            case "\t": out += "&#9;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// False for text with control characters other than tab, line feed and carriage
    /// return, which XML 1.0 cannot hold even as character references.
    static func canHold(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0.value >= 0x20 || $0 == "\t" || $0 == "\n" || $0 == "\r" }
    }

    /// `<name a="1" b="2"/>`, leaving out attributes without a value.
    static func element(_ name: String, _ attributes: [(String, String?)], closed: Bool = true) -> String {
        let text = attributes.compactMap { key, value in value.map { "\(key)=\"\(escape($0))\"" } }.joined(
            separator: " ")
        return "<\(name)\(text.isEmpty ? "" : " " + text)\(closed ? "/>" : ">")"
    }
}
