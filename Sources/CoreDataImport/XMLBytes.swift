import Foundation

/// Checks the bytes of an XML file before Foundation's `XMLParser` sees them.
///
/// On Linux, `XMLParser` makes Swift strings of element and attribute names with a
/// force-unwrap: one byte that is not UTF-8 in a name traps the process (SIGILL, no
/// message). libxml2 hands names over untranslated when the document is UTF-8, so
/// a UTF-8 document is checked here, byte by byte, and refused with the line and
/// column of the first bad byte. A document in another declared encoding (or with a
/// UTF-16 or UTF-32 byte-order mark) is transcoded by libxml2 and always reaches the
/// callbacks as valid UTF-8.
enum XMLBytes {
    /// The first problem in `data` as an `XMLTreeError`, or nil when the parser may read it.
    static func problem(in data: Data) -> XMLTreeError? {
        data.withUnsafeBytes { raw -> XMLTreeError? in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard isUTF8Document(bytes) else { return nil }
            return firstInvalidUTF8(bytes)
        }
    }

    /// True when libxml2 reads the document as UTF-8: no UTF-16/32 byte-order mark,
    /// and no `encoding="…"` other than UTF-8 in the XML declaration.
    static func isUTF8Document(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if bytes.count >= 2, (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE) {
            return false
        }
        if bytes.count >= 4, bytes[0] == 0, bytes[1] == 0 || bytes[1] == 0x3C { return false }
        if bytes.count >= 2, bytes[0] == 0x3C, bytes[1] == 0 { return false }
        guard let encoding = declaredEncoding(bytes) else { return true }
        return ["utf-8", "utf8"].contains(encoding.lowercased())
    }

    /// The `encoding` pseudo-attribute of the XML declaration, if the document starts with one.
    static func declaredEncoding(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var start = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }
        let prefix = Array(bytes[start..<min(bytes.count, start + 200)])
        guard prefix.starts(with: Array("<?xml".utf8)), let end = prefix.firstIndex(of: UInt8(ascii: ">")) else {
            return nil
        }
        let declaration = String(decoding: prefix[..<end], as: UTF8.self)
        guard let key = declaration.range(of: "encoding") else { return nil }
        let rest = declaration[key.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\t" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        return String(rest.dropFirst().prefix { $0 != quote })
    }

    /// The position of the first byte that cannot start or continue a UTF-8
    /// character (overlong forms, surrogates and values above U+10FFFF included).
    static func firstInvalidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> XMLTreeError? {
        var line = 1
        var lineStart = 0
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte < 0x80 {
                if byte == 0x0A {
                    line += 1
                    lineStart = i + 1
                }
                i += 1
                continue
            }
            let length = sequenceLength(bytes, at: i)
            if length == 0 {
                let column =
                    String(decoding: UnsafeBufferPointer(rebasing: bytes[lineStart..<i]), as: UTF8.self).count + 1
                let hex = String(byte, radix: 16, uppercase: true)
                return XMLTreeError(
                    line: line, column: column,
                    message: """
                        not UTF-8: byte 0x\(hex.count == 1 ? "0" + hex : hex) cannot start or continue a UTF-8 \
                        character (the file declares UTF-8, as Xcode writes it; expected a UTF-8 character here)
                        """)
            }
            i += length
        }
        return nil
    }

    /// The length of the valid UTF-8 sequence at `i`, or 0 when it is not one
    /// (RFC 3629's table of well-formed byte sequences).
    static func sequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Int {
        let first = bytes[i]
        let (length, low, high): (Int, UInt8, UInt8)
        switch first {
        case 0xC2...0xDF: (length, low, high) = (2, 0x80, 0xBF)
        case 0xE0: (length, low, high) = (3, 0xA0, 0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: (length, low, high) = (3, 0x80, 0xBF)
        case 0xED: (length, low, high) = (3, 0x80, 0x9F)
        case 0xF0: (length, low, high) = (4, 0x90, 0xBF)
        case 0xF1...0xF3: (length, low, high) = (4, 0x80, 0xBF)
        case 0xF4: (length, low, high) = (4, 0x80, 0x8F)
        default: return 0
        }
        guard i + length <= bytes.count, (low...high).contains(bytes[i + 1]) else { return 0 }
        for k in 2..<length where !(0x80...0xBF).contains(bytes[i + k]) { return 0 }
        return length
    }
}
