/// Where bytes stop being UTF-8. Swift's `String(decoding:as:)` replaces such bytes
/// with U+FFFD without a word, so every input that must arrive unchanged (a JSON
/// Lines file, TEXT another tool stored in a column) is checked here first.
package enum UTF8Validation {
    /// The 0-based offset of the first byte that does not begin or continue a
    /// well-formed UTF-8 character (no overlong forms, surrogates or values above
    /// U+10FFFF), or nil when every byte does.
    package static func firstInvalidByte(in bytes: some Collection<UInt8>) -> Int? {
        if let offset = bytes.withContiguousStorageIfAvailable({ firstInvalidByte(in: $0) }) { return offset }
        return scan(bytes)
    }

    /// The same for a buffer: compiled for it in this module (the generic form, called
    /// from another module, runs unspecialized at every byte), with ASCII skipped a
    /// word at a time.
    package static func firstInvalidByte(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var ascii = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while ascii + 8 <= bytes.count,
                raw.loadUnaligned(fromByteOffset: ascii, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
            { ascii += 8 }
        }
        while ascii < bytes.count, bytes[ascii] < 0x80 { ascii += 1 }
        if ascii == bytes.count { return nil }
        return scan(UnsafeBufferPointer(rebasing: bytes[ascii...])).map { $0 + ascii }
    }

    private static func scan(_ bytes: some Collection<UInt8>) -> Int? {
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
