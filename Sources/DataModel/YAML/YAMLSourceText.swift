/// The bytes of a YAML file after its UTF-8 byte order mark, with the checks the
/// loader makes before libyaml sees them and the position arithmetic its errors need.
///
/// Lines and columns follow libyaml's rules so that both agree: a line ends at LF,
/// CR, CR LF, NEL (U+0085), LS (U+2028) or PS (U+2029), and a column counts
/// Unicode scalars.
struct YAMLSourceText {
    /// The file name used in locations.
    let file: String
    /// The content, without a leading UTF-8 byte order mark.
    let bytes: [UInt8]

    /// Splits off a UTF-8 byte order mark; rejects the byte order marks of other encodings.
    init(bytes: [UInt8], file: String) throws(YAMLError) {
        self.file = file
        let encodings: [(mark: [UInt8], name: String)] = [
            ([0x00, 0x00, 0xFE, 0xFF], "UTF-32 big-endian"),
            ([0xFF, 0xFE, 0x00, 0x00], "UTF-32 little-endian"),
            ([0xFE, 0xFF], "UTF-16 big-endian"),
            ([0xFF, 0xFE], "UTF-16 little-endian"),
        ]
        for encoding in encodings where bytes.starts(with: encoding.mark) {
            throw YAMLError(
                .notUTF8,
                "the file is not valid UTF-8 (it starts with a \(encoding.name) byte order mark)",
                file: file, at: SourceLocation(file: file, line: 1, column: 1))
        }
        self.bytes = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
    }

    /// Throws for the first byte that is not UTF-8 and the first character YAML forbids
    /// (C0 and C1 controls other than tab, line breaks and NEL; U+FFFE, U+FFFF).
    ///
    /// libyaml checks characters too, but reports a byte offset only, and only when
    /// its read-ahead buffer reaches them; checking first gives a line and column.
    func validate() throws(YAMLError) {
        let failure: (offset: Int, scalar: UInt32?)? = bytes.withUnsafeBufferPointer { buffer in
            var index = 0
            while index < buffer.count {
                let byte = buffer[index]
                // Printable ASCII, tab and line breaks: nearly every byte of a YAML file.
                if (byte >= 0x20 && byte < 0x7F) || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                    index += 1
                    continue
                }
                guard let (scalar, length) = Self.decode(buffer, at: index) else { return (index, nil) }
                guard Self.isAllowed(scalar) else { return (index, scalar) }
                index += length
            }
            return nil
        }
        guard let failure else { return }
        let location = location(ofByteOffset: failure.offset)
        switch failure.scalar {
        case nil:
            throw YAMLError(
                .notUTF8, "the file is not valid UTF-8 (invalid byte \(Self.hex(bytes[failure.offset])))",
                file: file, at: location)
        case 0?:
            throw YAMLError(
                .syntax, "the file contains a NUL byte, which YAML does not allow (is it a binary file?)",
                file: file, at: location)
        case let scalar?:
            throw YAMLError(
                .syntax,
                "the file contains the control character \(Self.codePoint(scalar)), which YAML does not allow",
                file: file, at: location)
        }
    }

    /// The location of a libyaml mark.
    func location(_ mark: LibYAMLParser.Mark) -> SourceLocation {
        SourceLocation(file: file, line: mark.line + 1, column: mark.column + 1)
    }

    /// `mark`, or the end of the text if `mark` lies beyond it: at the end of the stream
    /// libyaml moves to a line of its own, which a file without a final newline lacks.
    func clamped(_ mark: LibYAMLParser.Mark) -> LibYAMLParser.Mark {
        let end = location(ofByteOffset: bytes.count)
        if mark.line + 1 > end.line || (mark.line + 1 == end.line && mark.column + 1 > end.column) {
            return LibYAMLParser.Mark(line: end.line - 1, column: end.column - 1)
        }
        return mark
    }

    /// The location of the character at a byte offset into `bytes`.
    func location(ofByteOffset offset: Int) -> SourceLocation {
        var position = LinePosition()
        bytes.withUnsafeBufferPointer { buffer in
            var index = 0
            while index < min(offset, buffer.count), let (scalar, length) = Self.decode(buffer, at: index) {
                position.advance(over: scalar)
                index += length
            }
        }
        return SourceLocation(file: file, line: position.line + 1, column: position.column + 1)
    }

    /// The character at a libyaml mark, and whether only spaces and tabs precede it on
    /// its line; `nil` past the end of the text.
    func character(at mark: LibYAMLParser.Mark) -> (scalar: Unicode.Scalar, isIndentation: Bool)? {
        bytes.withUnsafeBufferPointer { buffer in
            var position = LinePosition()
            var index = 0
            var onlyBlanks = true
            while index < buffer.count, let (scalar, length) = Self.decode(buffer, at: index) {
                if position.line == mark.line && position.column == mark.column {
                    return Unicode.Scalar(scalar).map { ($0, onlyBlanks) }
                }
                position.advance(over: scalar)
                if position.column == 0 {
                    onlyBlanks = true
                } else if scalar != 0x20 && scalar != 0x09 {
                    onlyBlanks = false
                }
                index += length
            }
            return nil
        }
    }

    // MARK: - Characters

    /// A 0-based line and column that advance the way libyaml's marks do.
    private struct LinePosition {
        var line = 0
        var column = 0
        private var afterCR = false

        mutating func advance(over scalar: UInt32) {
            defer { afterCR = scalar == 0x0D }
            switch scalar {
            case 0x0A where afterCR:
                break  // the LF of CR LF: the line already ended at the CR
            case 0x0A, 0x0D, 0x85, 0x2028, 0x2029:
                line += 1
                column = 0
            default:
                column += 1
            }
        }

    }

    /// Decodes one well-formed UTF-8 sequence (Unicode 15, table 3-7): no overlong
    /// forms, no surrogates, nothing above U+10FFFF.
    private static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (UInt32, Int)? {
        let lead = bytes[index]
        if lead < 0x80 { return (UInt32(lead), 1) }
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            secondRange = 0x80...0x9F
        case 0xF0:
            length = 4
            secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            secondRange = 0x80...0x8F
        default: return nil
        }
        guard bytes.count - index >= length, secondRange.contains(bytes[index + 1]) else { return nil }
        var value = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard byte & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        return (value, length)
    }

    /// The characters YAML 1.1 allows in a stream, exactly as libyaml's reader checks them.
    private static func isAllowed(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0x09, 0x0A, 0x0D, 0x20...0x7E, 0x85, 0xA0...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF:
            return true
        default:
            return false
        }
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "0x" + (digits.count == 1 ? "0" + digits : digits)
    }

    static func codePoint(_ scalar: UInt32) -> String {
        let digits = String(scalar, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
