import Foundation

/// Writing to stdout and stderr; human text and JSON never mix on stdout.
enum Output {
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    /// Writes text as it is (no newline added).
    static func write(_ text: String) {
        if !text.isEmpty { FileHandle.standardOutput.write(Data(text.utf8)) }
    }

    /// Writes to stderr as it is (progress lines).
    static func errRaw(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    static func err(_ text: String) {
        FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    /// Encodes a value as pretty, key-sorted JSON on stdout.
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        out(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// True when stderr is a terminal (progress bars, colours).
    static var stderrIsTerminal: Bool { isatty(2) != 0 }
}
