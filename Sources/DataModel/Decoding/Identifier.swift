/// Name rules shared by decoding, validation and the Xcode importer.
package enum Identifier {
    /// ASCII letters, digits and '_', checked on the bytes: Character properties
    /// look up Unicode tables, and every name of a large model passes here.
    private static func isASCIIWord(_ text: Substring) -> Bool {
        text.utf8.allSatisfy { c in
            (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
                || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "_")
        }
    }

    /// `Person`, `FavoriteProduct`: an uppercase ASCII letter, then letters, digits, '_'.
    package static func isEntityName(_ text: String) -> Bool {
        guard let first = text.first, first.isASCII, first.isUppercase else { return false }
        return isASCIIWord(text.dropFirst()) && text.utf8.count <= 255
    }

    /// `firstName` (or `Box`, which Core Data accepts too): an ASCII letter, then
    /// letters, digits, '_'. Not '_' first: its column `Z_…` would take the form of
    /// Core Data's own columns (`Z_PK`, `Z_ENT`, `Z_FOK_…`).
    package static func isPropertyName(_ text: String) -> Bool {
        guard let first = text.first, first.isASCII, first.isLetter else { return false }
        return isASCIIWord(text.dropFirst()) && text.utf8.count <= 255
    }

    /// What `isPropertyName` asks, for messages.
    package static let propertyNameRule =
        "not a valid property name (ASCII letters, digits and '_', starting with a letter)"

    /// True for a property name Core Data accepts but its conventions do not (`Box`).
    package static func startsUppercase(_ text: String) -> Bool {
        text.first.map { $0.isASCII && $0.isUppercase } ?? false
    }

    package static func isIndexName(_ text: String) -> Bool {
        guard let first = text.first, first.isASCII, first.isLetter else { return false }
        return isASCIIWord(text.dropFirst())
    }

    package static func isModelName(_ text: String) -> Bool {
        guard let first = text.first, first.isASCII, first.isLetter else { return false }
        return text.dropFirst().allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
    }
}
