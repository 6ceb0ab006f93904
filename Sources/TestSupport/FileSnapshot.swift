import DataModel
import Foundation
import ModelMigration
import SQLiteStore

/// A file's bytes and the SQLite side files beside it, to prove that an operation
/// left a store exactly as it was.
public struct FileSnapshot: Sendable, Equatable {
    /// The file's bytes; nil when it does not exist.
    public var bytes: [UInt8]?
    /// Which of `-journal`, `-wal` and `-shm` exist beside it.
    public var sideFiles: [String]

    /// Reads the file at `path` now.
    public init(_ path: String) {
        bytes = FileManager.default.contents(atPath: path).map { [UInt8]($0) }
        sideFiles = ["-journal", "-wal", "-shm"].filter { FileManager.default.fileExists(atPath: path + $0) }
    }
}
