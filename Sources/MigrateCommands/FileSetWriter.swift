import Foundation
import ScratchFiles

/// Writes a set of text files all or nothing, as `import` needs: every file is first
/// written beside its destination under a temporary name (where a full disk or a
/// folder that cannot be written fails, with nothing at any destination), then each
/// is renamed into place, the file it replaces set aside until every rename has
/// succeeded. A failure puts back what was replaced and removes what was written,
/// and the folders it created.
struct FileSetWriter {
    /// The files to write, destination path and contents.
    var files: [(path: String, text: String)]

    /// Writes them; on failure throws with nothing changed. `finishing` runs once every
    /// file is in place, before what they replaced is discarded: when it throws, the
    /// files are undone too (export writes its bundle there, so that the bundle and the
    /// mapping models beside it are written together or not at all).
    func write(finishing: () throws -> Void = {}) throws {
        let suffix = ".import-\(getpid())"
        let manager = FileManager.default
        var createdFolders: [String] = []
        var staged: [String] = []
        var replaced: [(path: String, aside: String)] = []
        var placed: [String] = []
        func undo() {
            for path in placed.reversed() { try? manager.removeItem(atPath: path) }
            for (path, aside) in replaced.reversed() { _ = rename(aside, path) }
            for temporary in staged { try? manager.removeItem(atPath: temporary) }
            for folder in createdFolders.reversed() { try? manager.removeItem(atPath: folder) }
        }
        do {
            for (path, text) in files {
                createdFolders += try Self.createFolders(for: path)
                let temporary = path + suffix
                staged.append(temporary)
                try Self.writeFile(temporary, Array(text.utf8))
            }
            for (path, _) in files {
                if manager.fileExists(atPath: path) {
                    let aside = path + suffix + "-replaced"
                    try Self.move(path, to: aside)
                    replaced.append((path, aside))
                }
                try Self.move(path + suffix, to: path)
                staged.removeAll { $0 == path + suffix }
                placed.append(path)
            }
            try finishing()
        } catch {
            undo()
            throw error
        }
        for (_, aside) in replaced { try? manager.removeItem(atPath: aside) }
    }

    /// Creates the missing folders above `path`, returning them, outermost first.
    static func createFolders(for path: String) throws -> [String] {
        var missing: [String] = []
        var folder = PathText.parent(of: path)
        while !folder.isEmpty, folder != "/", !FileManager.default.fileExists(atPath: folder) {
            missing.insert(folder, at: 0)
            folder = PathText.parent(of: folder)
        }
        for (index, folder) in missing.enumerated() {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            } catch {
                for created in missing[..<index].reversed() { try? FileManager.default.removeItem(atPath: created) }
                throw FileSetError("\(folder): cannot create the folder (\(SystemReason.text(error)))")
            }
        }
        return missing
    }

    static func move(_ from: String, to: String) throws {
        guard rename(from, to) == 0 else {
            throw FileSetError("\(to): cannot put it in place (\(String(cString: strerror(errno))))")
        }
    }

    /// Writes `bytes` to a new file at `path` and syncs it; the system's reason on
    /// failure (Foundation's says "NSCocoaErrorDomain error 512" on Linux).
    static func writeFile(_ path: String, _ bytes: [UInt8]) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw FileSetError("\(path): cannot create (\(String(cString: strerror(errno))))")
        }
        var failure: Int32 = 0
        var offset = 0
        while offset < bytes.count, failure == 0 {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno != EINTR { failure = errno }
            } else {
                offset += written
            }
        }
        if failure == 0, fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0, failure == 0 { failure = errno }
        if failure != 0 { throw FileSetError("\(path): cannot write (\(String(cString: strerror(failure))))") }
    }
}

/// Why a file of the set could not be written, in the system's words.
struct FileSetError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
