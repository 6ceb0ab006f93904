import Foundation

/// Core Data's string semantics, shared by the SQL functions and by the SQL
/// generator (which folds literal operands once, in Swift, the same way).
package enum TextFolding {
    /// `[c]` is bit 1, `[d]` bit 2.
    package static func fold(_ text: String, flags: Int) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            return flags & 1 != 0 ? asciiLowercased(text) : text
        }
        var options: String.CompareOptions = []
        if flags & 1 != 0 { options.insert(.caseInsensitive) }
        if flags & 2 != 0 { options.insert(.diacriticInsensitive) }
        return text.folding(options: options, locale: nil)
    }

    package static func lowercase(_ text: String) -> String {
        text.utf8.allSatisfy({ $0 < 0x80 }) ? asciiLowercased(text) : text.lowercased()
    }

    package static func uppercase(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: text.utf8.map { $0 >= 97 && $0 <= 122 ? $0 - 32 : $0 }, as: UTF8.self)
        }
        return text.uppercased()
    }

    private static func asciiLowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// The number a string starts with (after spaces), as `NSString`'s
    /// `doubleValue` reads it, or nil when it starts with none.
    package static func leadingNumber(_ text: String) -> DatabaseValue? {
        Array(text.utf8).withUnsafeBufferPointer { leadingNumber(bytes: $0) }
    }

    /// `leadingNumber` on UTF-8 bytes; a plain integer is read without making a string.
    package static func leadingNumber(bytes: UnsafeBufferPointer<UInt8>) -> DatabaseValue? {
        var i = 0
        while i < bytes.count, bytes[i] == 32 || bytes[i] == 9 || bytes[i] == 10 || bytes[i] == 13 { i += 1 }
        let start = i
        if i < bytes.count, bytes[i] == 43 || bytes[i] == 45 { i += 1 }
        let digitsStart = i
        while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 { i += 1 }
        var digits = i - digitsStart
        var isInteger = true
        if i < bytes.count, bytes[i] == 46 {
            let fraction = i + 1
            var j = fraction
            while j < bytes.count, bytes[j] >= 48, bytes[j] <= 57 { j += 1 }
            if j > fraction || digits > 0 {
                isInteger = false
                digits += j - fraction
                i = j
            }
        }
        guard digits > 0 else { return nil }
        if i < bytes.count, bytes[i] == 101 || bytes[i] == 69 {
            var j = i + 1
            if j < bytes.count, bytes[j] == 43 || bytes[j] == 45 { j += 1 }
            let exponentStart = j
            while j < bytes.count, bytes[j] >= 48, bytes[j] <= 57 { j += 1 }
            if j > exponentStart {
                isInteger = false
                i = j
            }
        }
        if isInteger {
            // Digits accumulated directly; on overflow, the text decides as before.
            var value: Int64 = 0
            var overflow = false
            for k in digitsStart..<(digitsStart + digits) {
                let (m, o1) = value.multipliedReportingOverflow(by: 10)
                let (a, o2) = m.addingReportingOverflow(Int64(bytes[k] - 48))
                if o1 || o2 {
                    overflow = true
                    break
                }
                value = a
            }
            if !overflow { return .integer(start < digitsStart && bytes[start] == 45 ? -value : value) }
        }
        let number = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        if isInteger, let value = Int64(number) { return .integer(value) }
        return Double(number).map { .real($0) }
    }
}
