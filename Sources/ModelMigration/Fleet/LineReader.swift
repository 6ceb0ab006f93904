import Foundation

/// Reads a text file, a pipe or standard input (`-`) one line at a time, in linear time
/// and bounded memory. Every source is read through poll(2), so that a stop (a signal)
/// ends the reading instead of waiting for a writer that keeps its end open: standard
/// input, `/dev/stdin`, a named pipe, `<(…)`.
package struct LineReader {
    package let path: String
    /// Why the source could not be opened or read, if it could not.
    package private(set) var error: String?
    /// Whether the stop ended the reading before the source's end.
    package private(set) var wasCutShort = false
    private var descriptor: Int32 = -1
    /// Bytes read and not yet returned start at `start`; a line break is searched
    /// for from `scanned` on, so that no byte is searched twice.
    private var buffer: [UInt8] = []
    private var start = 0
    private var scanned = 0
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)
    private let stop: FleetStop?

    /// Opens `path` (`-`: a copy of `standardInput`). Opening a named pipe waits for
    /// its writer, as `cat` does.
    package init(path: String, stop: FleetStop? = nil, standardInput: Int32 = STDIN_FILENO) {
        self.path = path
        self.stop = stop
        descriptor = path == "-" ? dup(standardInput) : open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 { error = String(cString: strerror(errno)) }
    }

    /// The next line without its line break, or nil at the end (or once stopped, or
    /// when reading fails: ``error``).
    package mutating func next() -> String? {
        while true {
            if let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[start..<newline], as: UTF8.self)
                start = newline + 1
                scanned = start
                return Self.line(line)
            }
            scanned = buffer.count
            guard descriptor >= 0 else { return nil }
            // Bytes already returned go once they are half the buffer: each byte is
            // moved at most once on average, whatever the lines' lengths.
            if start > 0, start >= buffer.count / 2 {
                buffer.removeSubrange(..<start)
                scanned -= start
                start = 0
            }
            switch readChunk() {
            case .some(0):
                // The last line may have no line break.
                let rest = start < buffer.count ? String(decoding: buffer[start...], as: UTF8.self) : nil
                finish()
                return rest.map(Self.line)
            case .some(let count):
                buffer.append(contentsOf: chunk[0..<count])
            case .none:
                finish()
                return nil
            }
        }
    }

    /// Reads what is there, waiting in steps of 0.1 s so that a stop is seen: the
    /// count read (0 at the end), or nil once stopped or failed.
    private mutating func readChunk() -> Int? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            if let stop, stop.isStopped {
                wasCutShort = true
                stop.listCutShort()
                return nil
            }
            let ready = poll(&poller, 1, 100)
            if ready < 0, errno != EINTR {
                error = String(cString: strerror(errno))
                return nil
            }
            if ready <= 0 { continue }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count >= 0 { return count }
            if errno == EINTR || errno == EAGAIN { continue }
            error = String(cString: strerror(errno))
            return nil
        }
    }

    private mutating func finish() {
        close(descriptor)
        descriptor = -1
        buffer = []
        start = 0
        scanned = 0
    }

    /// A line without its line break ("\r\n" is one Character: stripped as scalars).
    private static func line(_ text: String) -> String {
        var scalars = text.unicodeScalars
        while let last = scalars.last, last == "\n" || last == "\r" { scalars.removeLast() }
        return String(scalars)
    }
}
