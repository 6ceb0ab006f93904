import Foundation

/// Reads a text file (or standard input) one line at a time. Standard input is
/// polled, so that a stop (a signal) ends the list instead of waiting for a writer
/// that keeps the pipe open.
struct LineReader {
    let path: String
    private var file: UnsafeMutablePointer<FILE>?
    private(set) var error: String?
    /// Standard input: a copy of descriptor 0, the bytes read but not yet returned.
    private var input: Int32 = -1
    private var pending: [UInt8] = []
    private let stop: FleetStop?

    init(path: String, stop: FleetStop? = nil) {
        self.path = path
        self.stop = stop
        if path == "-" {
            input = dup(STDIN_FILENO)
            if input < 0 { error = String(cString: strerror(errno)) }
        } else {
            file = fopen(path, "r")
            if file == nil { error = String(cString: strerror(errno)) }
        }
    }

    /// The next line without its line break, or nil at the end (or once stopped).
    mutating func next() -> String? {
        if path == "-" { return nextFromInput() }
        guard let file else { return nil }
        var buffer: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(buffer) }
        let count = getline(&buffer, &capacity, file)
        guard count >= 0, let buffer else {
            fclose(file)
            self.file = nil
            return nil
        }
        return Self.line(String(cString: buffer))
    }

    private mutating func nextFromInput() -> String? {
        guard input >= 0 else { return nil }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return Self.line(line)
            }
            var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            if let stop, stop.isStopped {
                stop.listCutShort()
                return finish()
            }
            let ready = poll(&descriptor, 1, 100)
            if ready < 0 && errno != EINTR { return finish() }
            if ready <= 0 { continue }
            let count = read(input, &chunk, chunk.count)
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return finish()
            }
            if count == 0 {
                // The last line may have no line break.
                let rest = pending.isEmpty ? nil : String(decoding: pending, as: UTF8.self)
                _ = finish()
                return rest.map(Self.line)
            }
            pending.append(contentsOf: chunk[0..<count])
        }
    }

    private mutating func finish() -> String? {
        close(input)
        input = -1
        pending = []
        return nil
    }

    /// A line without its line break ("\r\n" is one Character: stripped as scalars).
    private static func line(_ text: String) -> String {
        var scalars = text.unicodeScalars
        while let last = scalars.last, last == "\n" || last == "\r" { scalars.removeLast() }
        return String(scalars)
    }
}
