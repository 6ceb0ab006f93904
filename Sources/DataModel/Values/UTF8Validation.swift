/// Where bytes stop being UTF-8. Swift's `String(decoding:as:)` replaces such bytes
/// with U+FFFD without a word, so every input that must arrive unchanged (a JSON
/// Lines file, TEXT another tool stored in a column) is checked here first.
package enum UTF8Validation {
    /// The 0-based offset of the first byte that does not begin or continue a
    /// well-formed UTF-8 character (no overlong forms, surrogates or values above
    /// U+10FFFF), or nil when every byte does.
    package static func firstInvalidByte(in bytes: some Collection<UInt8>) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .error: return offset
            case .emptyInput: return nil
            }
        }
    }
}
