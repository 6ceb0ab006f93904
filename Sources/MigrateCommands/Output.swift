import ArgumentParser
import DataModel
import Foundation
#if canImport(Glibc)
import Glibc

/// write(2), which `Output.write` hides by name inside `Output`.
private let systemWrite = Glibc.write
#else
import Darwin

private let systemWrite = Darwin.write
#endif

/// Writing to stdout and stderr; human text and JSON never mix on stdout.
enum Output {
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    /// Writes text as it is (no newline added).
    static func write(_ text: String) {
        if !text.isEmpty { FileHandle.standardOutput.write(Data(text.utf8)) }
    }

    /// Writes bytes to stdout as they are, all of them (a pipe may take a part at a time).
    static func writeBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard var next = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = systemWrite(STDOUT_FILENO, next, left)
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            next += n
            left -= n
        }
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

/// Every failure of every command, rendered in one place: `error: …` on stderr,
/// or with `--json` one object on stdout, `{"error": {"message": …, "exitCode": …}}`
/// (with the model's diagnostics when there are some).
struct ErrorReport: Encodable {
    struct Detail: Encodable {
        var message: String
        var exitCode: Int32
        var diagnostics: [Diagnostic]?
    }
    var error: Detail
}

extension Output {
    /// One JSON value on one line (JSON Lines events).
    static func jsonLine<T: Encodable>(_ value: T) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        out(String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self))
    }
}

extension GlobalOptions {
    /// Reports a failure (text on stderr, or JSON on stdout with `--json`) and
    /// returns the exit code to throw. `message` is the whole text after `error: `.
    func fail(_ message: String, _ code: ExitCode, diagnostics: [Diagnostic]? = nil, rendered: String? = nil) -> ExitCode {
        if json {
            try? Output.json(ErrorReport(error: .init(message: message, exitCode: code.rawValue, diagnostics: diagnostics)))
        } else {
            Output.err(rendered ?? "error: \(message)")
        }
        return code
    }
}

/// A small text table: columns as wide as their widest cell, separated by two spaces.
enum TextTable {
    static func render(header: [String], rows: [[String]]) -> [String] {
        var widths = header.map(\.count)
        for row in rows { for (index, cell) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        return [line(header)] + rows.map(line)
    }
}
