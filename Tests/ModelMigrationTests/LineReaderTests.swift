import Foundation
import Testing

@testable import ModelMigration

/// `LineReader`: the lines of a store list or fleet log from a file, a pipe or a named
/// pipe, each exactly once, and a stop that ends the wait for a writer that keeps its
/// end open.
@Suite struct LineReaderTests {
    static func temporary(_ name: String) -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "LineReaderTests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent(name).path
    }

    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }

    static func lines(_ path: String, stop: FleetStop? = nil) -> (lines: [String], reader: LineReader) {
        var reader = LineReader(path: path, stop: stop)
        var lines: [String] = []
        while let line = reader.next() { lines.append(line) }
        return (lines, reader)
    }

    /// Lines across the 64 KiB reads, one longer than several reads, CRLF, empty lines
    /// and a last line without a break, each returned once and whole.
    @Test func everyLineOnceAcrossReads() throws {
        var expected = (1...20_000).map { "store-\($0).sqlite" }
        expected.insert(String(repeating: "x", count: 200_000), at: 7_000)
        expected.insert("", at: 100)
        expected.append("ü-last")
        let text = expected.enumerated().map { $0.offset % 3 == 0 ? $0.element + "\r\n" : $0.element + "\n" }.joined()
            .dropLast()
        let path = Self.temporary("list.txt")
        defer { Self.remove(path) }
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let read = Self.lines(path)
        #expect(read.lines.count == expected.count)
        #expect(read.lines == expected)
        #expect(read.reader.error == nil)
        #expect(!read.reader.wasCutShort)
    }

    @Test func aMissingFileOrAFolderIsAnError() throws {
        let none = Self.temporary("none.txt")
        defer { Self.remove(none) }
        let missing = Self.lines(none)
        #expect(missing.lines.isEmpty)
        #expect(missing.reader.error == "No such file or directory")
        let folder = Self.lines(FileManager.default.temporaryDirectory.path)
        #expect(folder.lines.isEmpty)
        #expect(folder.reader.error == "Is a directory")
    }

    /// A named pipe whose writer keeps it open: the lines written are returned, then a
    /// stop ends the reading (the list was cut short) instead of waiting.
    @Test(.ownThread) func aStopEndsTheWaitOnANamedPipe() throws {
        let path = Self.temporary("fifo")
        defer { Self.remove(path) }
        #expect(mkfifo(path, 0o600) == 0)
        let stop = FleetStop()
        let writer = Thread {
            let handle = FileHandle(forWritingAtPath: path)
            try? handle?.write(contentsOf: Data("a.sqlite\nb.sqlite\n".utf8))
            Thread.sleep(forTimeInterval: 0.5)
            stop.stop(signal: SIGTERM)
            Thread.sleep(forTimeInterval: 2)
            try? handle?.close()
        }
        writer.start()
        let started = Date()
        let read = Self.lines(path, stop: stop)
        #expect(read.lines == ["a.sqlite", "b.sqlite"])
        #expect(read.reader.wasCutShort)
        #expect(Date().timeIntervalSince(started) < 2, "waited for the writer to close the pipe")
        #expect(stop.stoppedWork)
    }
}
