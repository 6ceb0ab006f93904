import Foundation
import ScratchFiles

/// Reading a store without writing beside it.
///
/// SQLite reads a write-ahead log only through its `-shm` index, which it creates
/// beside the store (even for a read-only connection), and it rolls a crashed
/// writer's hot `-journal` back into the store before anyone reads it. A reading
/// command must do neither: it copies the store's file and that side file into a
/// private temporary folder, lets SQLite recover the copy there, and reads the copy
/// (https://www.sqlite.org/walformat.html, "The -shm file"; https://www.sqlite.org/
/// lockingv3.html, "Hot Journals"). The copy is taken again if the files change while
/// it is made (a live writer), and is removed when the store closes.
extension Store {
    /// The side file (`-wal` or `-journal`, not empty) that reading the store in place
    /// would make SQLite write beside it; nil when the main file can be read as it is.
    static func sideFileToRecover(_ path: String) -> String? {
        for suffix in ["-wal", "-journal"] {
            var info = stat()
            if stat(path + suffix, &info) == 0, info.st_size > 0 { return suffix }
        }
        return nil
    }

    /// Copies the store and its side file into a new private folder and recovers the
    /// copy there; returns the copy's path (its folder is the caller's to remove).
    static func recoveredCopy(of path: String, side suffix: String, shownAs shown: String, busyTimeout: Double)
        throws(StoreError) -> String
    {
        // Named after this process: a copy left by a run that was killed is removed
        // by the next run that looks (ScratchFile), here first.
        ScratchFile.sweep(folder: ScratchFile.temporaryFolder)
        let folder = ScratchFile.temporaryPath(named: "migrate-read", purpose: "read")
        guard mkdir(folder, 0o700) == 0 else {
            throw StoreError(
                .permissionDenied,
                """
                cannot read the store without writing beside it: its \(suffix) must be recovered, and a private copy \
                cannot be made in \(ScratchFile.temporaryFolder) (\(String(cString: strerror(errno)))); set TMPDIR to \
                a writable folder
                """, path: shown)
        }
        let copy = (folder as NSString).appendingPathComponent((path as NSString).lastPathComponent)
        do {
            try copyConsistently(path, side: suffix, to: copy, shownAs: shown)
            // Recovery happens in the copy: the WAL's frames are read into it, or the
            // journal rolls it back to the last committed state.
            let recovering = try Connection(path: copy, mode: .readWrite, busyTimeout: busyTimeout)
            _ = try recovering.scalarInt64("SELECT count(*) FROM sqlite_schema")
            if suffix == "-wal" { try recovering.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
            try recovering.close()
            return copy
        } catch let error as StoreError {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        } catch let error as SQLiteError {
            try? FileManager.default.removeItem(atPath: folder)
            throw StoreError.from(error, path: shown)
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw StoreError(.sqlite, "cannot make a private copy to read: \(error)", path: shown)
        }
    }

    /// The system's words for a file error (``SystemReason``).
    static func systemReason(_ error: any Error) -> String { SystemReason.text(error) }

    /// The main file (read through SQLite's own handle: a descriptor of ours, once
    /// closed, would drop the POSIX locks other connections of this process hold on
    /// it) and the side file, taken again while either changes during the copy.
    private static func copyConsistently(_ path: String, side suffix: String, to copy: String, shownAs shown: String)
        throws
    {
        func state() -> [Int64] {
            [path, path + suffix].flatMap { file -> [Int64] in
                var info = stat()
                guard stat(file, &info) == 0 else { return [-1, 0, 0] }
                return [Int64(info.st_size), Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec)]
            }
        }
        for _ in 0..<5 {
            let before = state()
            let probe = try Connection(path: path, mode: .readOnly, busyTimeout: 0)
            defer { try? probe.close() }
            guard FileManager.default.createFile(atPath: copy, contents: nil),
                let out = FileHandle(forWritingAtPath: copy)
            else {
                throw StoreError(.permissionDenied, "cannot write a private copy at \(copy)", path: shown)
            }
            var offset: Int64 = 0
            while true {
                let bytes = try probe.readMainFile(offset: offset, count: 1 << 20)
                if bytes.isEmpty { break }
                // The throwing form: a full $TMPDIR or `ulimit -f` is an error to report,
                // never a trap (the legacy `write(_:)` traps on an I/O error).
                do {
                    try out.write(contentsOf: bytes)
                } catch {
                    try? out.close()
                    let reason = Self.systemReason(error)
                    throw StoreError(
                        .sqlite,
                        """
                        cannot read the store without writing beside it: its \(suffix) must be recovered, and the \
                        private copy could not be written in \(ScratchFile.temporaryFolder) (\(reason)); set TMPDIR to \
                        a folder with room
                        """, path: shown)
                }
                offset += Int64(bytes.count)
            }
            try out.close()
            try probe.close()
            try? FileManager.default.removeItem(atPath: copy + suffix)
            if FileManager.default.fileExists(atPath: path + suffix) {
                do {
                    try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix)
                } catch {
                    throw StoreError(
                        .sqlite,
                        """
                        cannot read the store without writing beside it: its \(suffix) must be recovered, and the \
                        private copy could not be written in \(ScratchFile.temporaryFolder) (\(systemReason(error))); \
                        set TMPDIR to a folder with room
                        """, path: shown)
                }
            }
            // The copy is ours, whatever the store's mode (a store shipped 0444):
            // SQLite must write it to recover the side file into it.
            for file in [copy, copy + suffix] where FileManager.default.fileExists(atPath: file) { chmod(file, 0o600) }
            if state() == before { return }
        }
        throw StoreError(
            .locked,
            "the store changed each time it was copied to be read (a writer is at work); try again when it is done",
            path: shown)
    }
}
