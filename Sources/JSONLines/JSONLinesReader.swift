import Foundation

/// The lines of a JSON Lines file or standard input, read a chunk at a time, so that
/// memory holds one chunk (and the longest line), never the whole file. Lines end at
/// LF, a CR before it is dropped (CRLF files), a UTF-8 byte order mark may start the
/// file, and the last line needs no newline.
///
/// Not `Sendable`: it owns its buffer and reads its descriptor on one thread.
package final class JSONLinesReader {
    /// Why the file could not be read: the system's reason (`Is a directory`).
    package struct ReadError: Error, Sendable, CustomStringConvertible {
        /// The system's words.
        package var reason: String
        package var description: String { reason }
    }

    private let descriptor: Int32?
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var atEnd: Bool
    private var primed = false
    /// Bytes read so far.
    package private(set) var bytesRead: Int64 = 0
    /// Asked while waiting for input (every 200 ms): true stops the read with a
    /// `ReadError` ("interrupted"), so that a signal stops a load whose producer is idle.
    package var isCancelled: (() -> Bool)?

    /// Reads from an open file descriptor (which the caller closes).
    package init(fileDescriptor: Int32, chunkSize: Int = 1 << 20) {
        descriptor = fileDescriptor
        buffer = [UInt8](repeating: 0, count: max(16, chunkSize))
        atEnd = false
    }

    /// Reads lines from bytes in memory.
    package init(bytes: [UInt8]) {
        descriptor = nil
        buffer = bytes
        end = bytes.count
        bytesRead = Int64(bytes.count)
        atEnd = true
    }

    /// Reads the first chunk, so that a file that cannot be read fails here, before
    /// anything else is done (a directory, a file this user may not read).
    package func prime() throws(ReadError) {
        guard !primed else { return }
        primed = true
        while end - start < 3, !atEnd { try fill() }
        if end - start >= 3, buffer[start] == 0xEF, buffer[start + 1] == 0xBB, buffer[start + 2] == 0xBF { start += 3 }
    }

    private func fill() throws(ReadError) {
        guard let descriptor, !atEnd else {
            atEnd = true
            return
        }
        if start > 0 {
            let count = end - start
            if count > 0 {
                buffer.withUnsafeMutableBufferPointer {
                    $0.baseAddress!.update(from: $0.baseAddress! + start, count: count)
                }
            }
            start = 0
            end = count
        }
        if end == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
        while true {
            if let isCancelled {
                // Wait for input a little at a time: read(2) restarts after a signal's
                // handler (SA_RESTART), and would wait for an idle producer forever.
                var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let polled = poll(&ready, 1, 200)
                if isCancelled() { throw ReadError(reason: "interrupted") }
                if polled == 0 || (polled < 0 && errno == EINTR) { continue }
            }
            let n = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + end, $0.count - end) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ReadError(reason: String(cString: strerror(errno)))
            }
            if n == 0 { atEnd = true }
            end += n
            bytesRead += Int64(n)
            return
        }
    }

    /// Calls `body` with each line's 1-based number and bytes (without LF or CR).
    package func forEachLine(_ body: (Int, UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        try prime()
        var number = 0
        var scanned = start
        while true {
            let newline: Int? = buffer.withUnsafeBufferPointer { all in
                var i = scanned
                while i < end, all[i] != 0x0A { i += 1 }
                return i < end ? i : nil
            }
            if let newline {
                number += 1
                var last = newline
                if last > start, buffer[last - 1] == 0x0D { last -= 1 }
                let (from, to) = (start, last)
                try buffer.withUnsafeBufferPointer { try body(number, UnsafeBufferPointer(rebasing: $0[from..<to])) }
                start = newline + 1
                scanned = start
                continue
            }
            if atEnd {
                if end > start {
                    number += 1
                    var last = end
                    if buffer[last - 1] == 0x0D { last -= 1 }
                    let (from, to) = (start, last)
                    try buffer.withUnsafeBufferPointer {
                        try body(number, UnsafeBufferPointer(rebasing: $0[from..<to]))
                    }
                }
                return
            }
            let offset = end - start
            try fill()
            scanned = start + offset
        }
    }
}
