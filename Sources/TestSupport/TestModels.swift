import Foundation
import ModelMigration

/// Compiled models for tests: the package's own (`Models/Contacts`, the Apple-parity
/// fixtures) and models written inline as YAML.
public enum TestModels {
    /// The package's root folder (this file is `Sources/TestSupport/TestModels.swift`).
    public static let packageRoot: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// `Models/`, the folder `migrate` reads by default.
    public static var modelsFolder: String { packageRoot + "/Models" }

    /// The example model, `Models/Contacts` (three versions).
    public static func contacts() throws -> CompiledModel {
        try ModelLoader.loadModel(path: modelsFolder + "/Contacts")
    }

    /// A hand transcription of a real Core Data model, under
    /// `Tests/DataModelTests/Fixtures/AppleParity/<name>`.
    public static func appleParity(_ name: String) throws -> CompiledModel {
        try ModelLoader.loadModel(path: packageRoot + "/Tests/DataModelTests/Fixtures/AppleParity/" + name)
    }

    /// Compiles a model written inline: `versions[i]` is the text of version i + 1
    /// without its `model:` and `version:` lines, which are added. Throws the
    /// loader's diagnostics when the text is not a valid model.
    public static func compile(_ name: String, versions: [String]) throws -> CompiledModel {
        let directory = try TemporaryDirectory(prefix: "mm-model")
        defer { directory.remove() }
        for (offset, text) in versions.enumerated() {
            try directory.write("\(name)/\(offset + 1).yaml", "model: \(name)\nversion: \(offset + 1)\n" + text)
        }
        return try ModelLoader.loadModel(path: directory.file(name))
    }

    /// Compiles a one-version model written inline (see `compile(_:versions:)`).
    public static func compile(_ name: String, _ text: String) throws -> CompiledVersion {
        try compile(name, versions: [text]).versions[0]
    }
}

extension TemporaryDirectory {
    /// Creates a store of `version` in the folder and returns it open for writing.
    public func createStore(_ name: String = "store.sqlite", version: CompiledVersion) throws -> Store {
        try Store.create(path: file(name), version: version)
    }

    /// Creates a store of a one-version model written inline (see
    /// `TestModels.compile(_:_:)`); returns the open store and the compiled version.
    public func createStore(_ name: String = "store.sqlite", model: String, yaml: String) throws -> (store: Store, version: CompiledVersion) {
        let version = try TestModels.compile(model, yaml)
        return (try createStore(name, version: version), version)
    }

    /// The names in the folder, sorted (to see which side files SQLite left).
    public func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }
}

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

extension TemporaryDirectory {
    /// Creates a plain SQLite database by running `sql` (statements separated by
    /// semicolons) and returns its path.
    @discardableResult
    public func createDatabase(_ name: String, sql: String) throws -> String {
        let connection = try Connection(path: file(name), mode: .readWriteCreate)
        try connection.execute(sql)
        try connection.close()
        return file(name)
    }
}
